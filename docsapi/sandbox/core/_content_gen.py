"""Deterministic generation of space content: page trees, markdown-like documents, files.

Every function draws only from the ``random.Random`` it is given, so the same seed gives
the same pages, ids and numbers.
"""

from __future__ import annotations

import random
from typing import Any

from docsapi.sandbox.core._content import Content, File, Page, ReusableContent, slugify
from docsapi.sandbox.core._ids import new_hex, new_id

_GROUPS = {
    "Getting started": ["Quickstart", "Installation", "Authentication", "Core concepts"],
    "Guides": [
        "Configuring environments",
        "Managing users",
        "Webhooks",
        "Migrating from v1",
        "Working offline",
        "Troubleshooting",
    ],
    "Reference": ["Endpoints", "Error codes", "Rate limits", "Glossary", "Data model"],
    "Operations": ["Runbooks", "Monitoring", "Incident response", "Backups"],
}
_SUBPAGES = [
    "Examples",
    "Best practices",
    "Limits and quotas",
    "FAQ",
    "Advanced options",
    "Security notes",
    "Step by step",
]
_VERBS = ["configure", "deploy", "monitor", "secure", "document", "review", "automate", "export"]
_NOUNS = [
    "tokens",
    "webhooks",
    "environments",
    "permissions",
    "pipelines",
    "releases",
    "dashboards",
    "integrations",
    "schemas",
    "audit logs",
]
_SENTENCES = [
    "This page explains how to {verb} {noun} for {topic}.",
    "Most teams {verb} their {noun} once and revisit the settings every quarter.",
    "Use the **{noun}** settings to {verb} everything in one place.",
    "Before you {verb} {noun}, check that your account has the `admin` role.",
    "See the [status page](https://status.example.com) if {topic} looks slow.",
    "{topic} keeps a history of changes, so you can {verb} {noun} without fear.",
    "Run the command below to {verb} {noun} from your terminal.",
]
_SYNTAX = {
    "bash": ['curl -H "Authorization: Bearer $TOKEN" \\', "  https://api.example.com/v1/{noun}"],
    "python": ["import example", "client = example.Client()", "client.{noun}.list()"],
    "json": ["{{", '  "name": "{noun}",', '  "enabled": true', "}}"],
}
_FILES = [
    ("architecture-diagram.png", "image/png"),
    ("screenshot-settings.png", "image/png"),
    ("team-photo.jpg", "image/jpeg"),
    ("loading.gif", "image/gif"),
    ("logo.svg", "image/svg+xml"),
    ("onboarding-guide.pdf", "application/pdf"),
    ("sample-data.csv", "text/csv"),
    ("release-notes.zip", "application/zip"),
    ("walkthrough.mp4", "video/mp4"),
    ("openapi.yaml", "application/yaml"),
]
_REUSABLES = ["Support contact", "Beta feature warning", "Pricing note"]


def _sentence(rng: random.Random, topic: str) -> str:
    return rng.choice(_SENTENCES).format(
        verb=rng.choice(_VERBS), noun=rng.choice(_NOUNS), topic=topic
    )


def _paragraph(rng: random.Random, topic: str) -> str:
    return " ".join(_sentence(rng, topic) for _ in range(rng.randint(2, 4)))


def document_blocks(
    rng: random.Random,
    title: str,
    topic: str,
    files: tuple[File, ...] = (),
    reusables: tuple[ReusableContent, ...] = (),
) -> tuple[dict[str, Any], ...]:
    """Generate the blocks of one page about ``title`` in a space about ``topic``."""
    noun = rng.choice(_NOUNS)
    syntax = rng.choice(sorted(_SYNTAX))
    blocks: list[dict[str, Any]] = [
        {"type": "heading", "level": 1, "text": title},
        {"type": "paragraph", "text": _paragraph(rng, topic)},
        {"type": "heading", "level": 2, "text": "Overview"},
        {"type": "paragraph", "text": _paragraph(rng, topic)},
        {
            "type": "list",
            "ordered": rng.random() < 0.4,
            "items": [f"{v.capitalize()} {rng.choice(_NOUNS)}" for v in rng.sample(_VERBS, 3)],
        },
        {"type": "heading", "level": 2, "text": "Example"},
        {
            "type": "code",
            "syntax": syntax,
            "lines": [line.format(noun=noun.replace(" ", "_")) for line in _SYNTAX[syntax]],
        },
    ]
    if rng.random() < 0.5:
        style = rng.choice(["info", "warning", "success", "danger"])
        blocks.append({"type": "hint", "style": style, "text": _sentence(rng, topic)})
    images = [f for f in files if f.content_type.startswith("image/")]
    if images and rng.random() < 0.4:
        image = rng.choice(images)
        blocks.append({"type": "image", "file": image.id, "alt": image.name.rsplit(".", 1)[0]})
    if reusables and rng.random() < 0.3:
        reusable = rng.choice(reusables)
        blocks.append({"type": "reusable", "id": reusable.id, "slug": reusable.slug})
    if rng.random() < 0.3:
        blocks.append({"type": "quote", "text": _sentence(rng, topic)})
    return tuple(blocks)


def _document(
    rng: random.Random,
    title: str,
    parent_path: str,
    topic: str,
    files: tuple[File, ...],
    reusables: tuple[ReusableContent, ...],
    depth: int,
) -> Page:
    slug = slugify(title)
    path = f"{parent_path}/{slug}" if parent_path else slug
    page_id = new_id(rng)
    children: list[Page] = []
    if depth < 3 and rng.random() < 0.45 - 0.1 * depth:
        for sub in rng.sample(_SUBPAGES, rng.randint(1, 2)):
            children.append(_document(rng, sub, path, topic, files, reusables, depth + 1))
    return Page(
        id=page_id,
        title=title,
        kind="document",
        slug=slug,
        path=path,
        document_id=new_id(rng),
        blocks=document_blocks(rng, title, topic, files, reusables),
        description=f"How to {rng.choice(_VERBS)} {rng.choice(_NOUNS)} in {topic}.",
        children=tuple(children),
    )


def generate_files(rng: random.Random, count: int) -> tuple[File, ...]:
    """Generate ``count`` files of several content types; images get dimensions."""
    files = []
    for name, content_type in rng.sample(_FILES, min(count, len(_FILES))):
        width = height = None
        if content_type.startswith("image/"):
            width, height = rng.choice(
                [(1600, 900), (1280, 720), (800, 600), (512, 512), (2400, 1350)]
            )
        size = (
            rng.randint(2_000, 40_000)
            if content_type.startswith("text/")
            else rng.randint(20_000, 8_000_000)
        )
        files.append(File(new_id(rng), name, content_type, size, width, height))
    return tuple(files)


def generate_content(
    rng: random.Random, topic: str, *, empty: bool, small: bool, created_at: str
) -> Content:
    """Generate the seeded content of a space about ``topic``.

    Parameters
    ----------
    rng
        The space's own random source.
    topic
        The space title, woven into the text.
    empty
        True for a space without pages or files.
    small
        True for big organizations: a handful of pages only.
    created_at
        Timestamp of the revision.
    """
    revision = new_id(rng)
    if empty:
        return Content(revision=revision, created_at=created_at)
    files = generate_files(rng, 1 if small else rng.randint(2, 6))
    reusables = tuple(
        ReusableContent(
            new_id(rng),
            title,
            slugify(title),
            new_id(rng),
            ({"type": "paragraph", "text": _paragraph(rng, topic)},),
        )
        for title in ([] if small else rng.sample(_REUSABLES, rng.randint(0, 2)))
    )
    pages: list[Page] = [_document(rng, "Overview", "", topic, files, reusables, depth=3)]
    groups = ["Getting started"] if small else rng.sample(sorted(_GROUPS), rng.randint(2, 3))
    for group in groups:
        slug = slugify(group)
        titles = _GROUPS[group][:2] if small else rng.sample(_GROUPS[group], rng.randint(2, 4))
        docs = tuple(
            _document(rng, t, slug, topic, files, reusables, depth=3 if small else 1)
            for t in titles
        )
        if not small and rng.random() < 0.5:
            docs += (
                Page(
                    id=new_id(rng),
                    title="Status page",
                    kind="link",
                    slug="",
                    path="",
                    href="https://status.example.com",
                ),
            )
        pages.append(
            Page(id=new_id(rng), title=group, kind="group", slug=slug, path=slug, children=docs)
        )
    if not small:
        pages.append(_document(rng, "Changelog", "", topic, files, reusables, depth=3))
    return Content(
        revision=revision,
        pages=tuple(pages),
        files=files,
        reusables=reusables,
        created_at=created_at,
    )


def imported_content(url: str, ref: str, created_at: str) -> Content:
    """The content a Git import of ``url`` at ``ref`` produces (deterministic per url and ref)."""
    rng = random.Random(f"git:{url}@{ref}")
    repo = url.rstrip("/").removesuffix(".git").rsplit("/", 1)[-1] or "repository"
    topic = repo.replace("-", " ").replace("_", " ").title()
    readme = _document(rng, "README", "", topic, (), (), depth=3)
    docs = tuple(
        _document(rng, t, "docs", topic, (), (), depth=2)
        for t in ["Setup", "Usage", "Contributing"]
    )
    pages = (
        readme,
        Page(id=new_id(rng), title="Docs", kind="group", slug="docs", path="docs", children=docs),
    )
    commit = {
        "oid": new_hex(rng, 40),
        "message": f"Import {repo} at {ref}",
        "createdByGitBook": False,
        "ref": ref,
        "url": url,
    }
    return Content(revision=new_id(rng), pages=pages, created_at=created_at, git_commit=commit)


#: Templates that POST /spaces/{id}/content/template can apply, by id.
TEMPLATES = {
    "api-reference": ("API reference", ["Authentication", "Endpoints", "Errors"]),
    "product-docs": ("Product docs", ["Introduction", "Features", "FAQ"]),
    "changelog": ("Changelog", ["Latest release", "Older releases"]),
    "team-handbook": ("Team handbook", ["Values", "Onboarding", "Rituals"]),
}


def template_content(content: Content, template_id: str, seed: str, created_at: str) -> Content:
    """A new revision with the template's pages appended as a group."""
    rng = random.Random(f"template:{template_id}:{seed}")
    title, titles = TEMPLATES[template_id]
    slug = slugify(title)
    existing = {page.slug for page in content.pages}
    while slug in existing:
        slug += "-1"
    docs = tuple(_document(rng, t, slug, title, content.files, (), depth=2) for t in titles)
    group = Page(id=new_id(rng), title=title, kind="group", slug=slug, path=slug, children=docs)
    return Content(
        revision=new_id(rng),
        pages=(*content.pages, group),
        files=content.files,
        reusables=content.reusables,
        created_at=created_at,
    )


def computed_blocks(source: dict[str, Any], seed: str) -> tuple[dict[str, Any], ...]:
    """Blocks of a computed document for ``source`` (deterministic per source type and seed)."""
    rng = random.Random(f"computed:{source.get('type')}:{seed}")
    title = f"Generated from {source.get('type', 'source')}"
    return document_blocks(rng, title, "computed content")


def computed_pages(source: dict[str, Any], seed: str) -> tuple[Page, ...]:
    """Pages of a computed revision for ``source`` (deterministic per source type and seed)."""
    rng = random.Random(f"computed-revision:{source.get('type')}:{seed}")
    return tuple(
        _document(rng, t, "", "computed content", (), (), depth=3) for t in ["Overview", "Models"]
    )
