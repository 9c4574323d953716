"""The content of a space: a page tree, files and reusable content, with lookups and search.

Content objects are immutable values: a change (a Git import, a template) builds a new one,
so a copy of the store can share them safely.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from docsapi.sandbox.core._document import plain_text, sections

_WORD = re.compile(r"[a-z0-9]+")


@dataclass(frozen=True)
class Page:
    """One page: a ``document``, a ``group`` (top level only) or a ``link``."""

    id: str
    title: str
    kind: str
    slug: str
    path: str
    document_id: str = ""
    blocks: tuple[dict[str, Any], ...] = ()
    description: str = ""
    emoji: str = ""
    href: str = ""
    children: tuple[Page, ...] = ()


@dataclass(frozen=True)
class File:
    """An uploaded file; ``width``/``height`` are set for images."""

    id: str
    name: str
    content_type: str
    size: int
    width: int | None = None
    height: int | None = None


@dataclass(frozen=True)
class ReusableContent:
    """A block of content reused across pages."""

    id: str
    title: str
    slug: str
    document_id: str
    blocks: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True)
class Content:
    """A revision of a space: its pages, files and reusable contents."""

    revision: str
    pages: tuple[Page, ...] = ()
    files: tuple[File, ...] = ()
    reusables: tuple[ReusableContent, ...] = ()
    created_at: str = ""
    git_commit: dict[str, Any] | None = field(default=None, compare=False)

    def walk(self) -> Iterator[tuple[Page, Page | None, int]]:
        """Yield ``(page, parent, depth)`` for every page, depth first, in order."""

        def visit(pages: tuple[Page, ...], parent: Page | None, depth: int):
            for page in pages:
                yield page, parent, depth
                yield from visit(page.children, page, depth + 1)

        yield from visit(self.pages, None, 0)

    @cached_property
    def _by_id(self) -> dict[str, tuple[Page, Page | None]]:
        return {page.id: (page, parent) for page, parent, _ in self.walk()}

    @cached_property
    def _by_path(self) -> dict[str, Page]:
        return {page.path: page for page, _, _ in self.walk() if page.kind != "link"}

    def page(self, page_id: str) -> Page | None:
        """The page with this id, or None."""
        found = self._by_id.get(page_id)
        return found[0] if found else None

    def parent_of(self, page_id: str) -> Page | None:
        """The parent page (document or group) of a page, or None at the top level."""
        found = self._by_id.get(page_id)
        return found[1] if found else None

    def page_by_path(self, path: str) -> Page | None:
        """The document or group at this full path (leading/trailing slashes ignored)."""
        return self._by_path.get(path.strip("/"))

    def ancestors(self, page_id: str) -> list[Page]:
        """The chain of parents of a page, outermost first."""
        chain: list[Page] = []
        parent = self.parent_of(page_id)
        while parent is not None:
            chain.insert(0, parent)
            parent = self.parent_of(parent.id)
        return chain

    @cached_property
    def reading_order(self) -> list[Page]:
        """Documents in the order a reader pages through them."""
        return [page for page, _, _ in self.walk() if page.kind == "document"]

    def neighbours(self, page_id: str) -> tuple[Page | None, Page | None]:
        """The previous and next documents around a page in reading order."""
        order = self.reading_order
        ids = [page.id for page in order]
        if page_id not in ids:
            return None, None
        index = ids.index(page_id)
        previous = order[index - 1] if index > 0 else None
        following = order[index + 1] if index + 1 < len(order) else None
        return previous, following

    def file(self, file_id: str) -> File | None:
        """The file with this id, or None."""
        return next((f for f in self.files if f.id == file_id), None)

    def reusable(self, reusable_id: str) -> ReusableContent | None:
        """The reusable content with this id, or None."""
        return next((r for r in self.reusables if r.id == reusable_id), None)

    def search(self, query: str) -> list[dict[str, Any]]:
        """Find documents whose title or text holds every word of ``query``.

        Returns
        -------
        list of dict
            ``{"page", "score", "sections": [(title, body, score)]}`` best first.
        """
        terms = _WORD.findall(query.lower())
        if not terms:
            return []
        hits: list[dict[str, Any]] = []
        for page in self.reading_order:
            title = page.title.lower()
            body = plain_text(page.blocks).lower()
            if not all(term in title or term in body for term in terms):
                continue
            score = sum(10.0 * title.count(term) + body.count(term) for term in terms)
            matching_sections = []
            for heading, text in sections(page.blocks):
                haystack = (heading + "\n" + text).lower()
                if heading and all(term in haystack for term in terms):
                    section_score = sum(haystack.count(term) for term in terms)
                    matching_sections.append((heading, text, float(section_score)))
            hits.append({"page": page, "score": float(score), "sections": matching_sections})
        hits.sort(key=lambda hit: (-hit["score"], hit["page"].path))
        return hits


def slugify(title: str) -> str:
    """A URL slug for a title.

    Examples
    --------
    >>> slugify("Getting Started: the Basics!")
    'getting-started-the-basics'
    """
    return "-".join(_WORD.findall(title.lower()))[:100] or "page"
