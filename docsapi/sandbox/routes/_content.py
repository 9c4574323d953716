"""Space content: the revision, pages (by id and by URL-encoded path), files, reusable content,
meta-links, computed content and templates."""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

from docsapi.sandbox.core import _events as events
from docsapi.sandbox.core._auth import security
from docsapi.sandbox.core._content import Page
from docsapi.sandbox.core._content_gen import (
    TEMPLATES,
    computed_blocks,
    computed_pages,
    template_content,
)
from docsapi.sandbox.core._document import to_json_document
from docsapi.sandbox.core._errors import bad_request, not_found
from docsapi.sandbox.core._web import Ctx, Reply, Route, paginate
from docsapi.sandbox.routes import _render as render
from docsapi.sandbox.routes._access import space_for
from docsapi.sandbox.routes._checks import check_string

_READ = security("user", "oauth:space:read")


def _revision_flags(ctx: Ctx) -> None:
    ctx.query_bool("metadata", True)
    ctx.query_bool("computed", True)


def _wants_markdown(ctx: Ctx) -> bool:
    _revision_flags(ctx)
    ctx.query_enum("format.markdown.refs", ("relative", "stable"))
    return ctx.query_enum("format", ("document", "markdown"), "document") == "markdown"


def current_revision(ctx: Ctx, space_id: str) -> Reply:
    """GET /spaces/{spaceId}/content -> the live Revision."""
    record = space_for(ctx, space_id)
    _revision_flags(ctx)
    content = ctx.store.content(space_id)
    return Reply(200, render.revision(content, space_id, record["organization"], ctx.api_base))


def list_pages(ctx: Ctx, space_id: str) -> Reply:
    """GET /spaces/{spaceId}/content/pages -> {"pages": [...]} (the page tree)."""
    record = space_for(ctx, space_id)
    _revision_flags(ctx)
    content = ctx.store.content(space_id)
    pages = [render.page(content, p, space_id, record["organization"]) for p in content.pages]
    return Reply(200, {"pages": pages})


def list_files(ctx: Ctx, space_id: str) -> Reply:
    """GET /spaces/{spaceId}/content/files -> List of RevisionFile."""
    space_for(ctx, space_id)
    _revision_flags(ctx)
    files = list(ctx.store.content(space_id).files)
    return paginate(ctx, files, lambda f: render.file(f, space_id, ctx.api_base))


def get_file(ctx: Ctx, space_id: str, file_id: str) -> Reply:
    """GET /spaces/{spaceId}/content/files/{fileId} -> RevisionFile."""
    space_for(ctx, space_id)
    _revision_flags(ctx)
    found = ctx.store.content(space_id).file(file_id)
    if found is None:
        raise not_found(f"File {file_id!r} not found in space {space_id!r}.")
    return Reply(200, render.file(found, space_id, ctx.api_base))


def _page_reply(ctx: Ctx, space_id: str, org_id: str, page: Page | None, label: str) -> Reply:
    markdown = _wants_markdown(ctx)
    if page is None:
        raise not_found(f"Page {label} not found in space {space_id!r}.")
    content = ctx.store.content(space_id)
    return Reply(200, render.page(content, page, space_id, org_id, markdown=markdown))


def get_page(ctx: Ctx, space_id: str, page_id: str) -> Reply:
    """GET /spaces/{spaceId}/content/page/{pageId} -> RevisionPage (``format=markdown``)."""
    record = space_for(ctx, space_id)
    page = ctx.store.content(space_id).page(page_id)
    return _page_reply(ctx, space_id, record["organization"], page, repr(page_id))


def _raw_page_path(ctx: Ctx, routed: str) -> str:
    """The page path exactly as sent (``%2F`` decoded once), falling back to the routed value."""
    raw = ctx.request.environ.get("RAW_URI") or ctx.request.environ.get("REQUEST_URI")
    marker = "/content/path/"
    if raw and marker in raw:
        return unquote(raw.split("?", 1)[0].split(marker, 1)[1])
    return routed


def get_page_by_path(ctx: Ctx, space_id: str, page_path: str) -> Reply:
    """GET /spaces/{spaceId}/content/path/{pagePath} -> a document or group page."""
    record = space_for(ctx, space_id)
    path = _raw_page_path(ctx, page_path)
    page = ctx.store.content(space_id).page_by_path(path)
    return _page_reply(ctx, space_id, record["organization"], page, f"at path {path!r}")


def meta_links(ctx: Ctx, space_id: str, page_id: str) -> Reply:
    """GET .../content/page/{pageId}/meta-links -> canonical plus previous/next/parent."""
    space_for(ctx, space_id)
    content = ctx.store.content(space_id)
    canonical = content.page(page_id)
    if canonical is None:
        raise not_found(f"Page {page_id!r} not found in space {space_id!r}.")

    def ref(page: Page) -> dict[str, str]:
        return {"kind": "page", "page": page.id, "space": space_id}

    previous, following = content.neighbours(page_id)
    parent = content.parent_of(page_id)
    body: dict[str, Any] = {"canonical": ref(canonical), "alternates": []}
    for key, page in (("previous", previous), ("next", following), ("parent", parent)):
        if page is not None:
            body[key] = ref(page)
    return Reply(200, body)


def get_reusable(ctx: Ctx, space_id: str, reusable_content_id: str) -> Reply:
    """GET .../content/reusable-contents/{reusableContentId} -> RevisionReusableContent."""
    space_for(ctx, space_id)
    _revision_flags(ctx)
    found = ctx.store.content(space_id).reusable(reusable_content_id)
    if found is None:
        raise not_found(
            f"Reusable content {reusable_content_id!r} not found in space {space_id!r}."
        )
    return Reply(200, render.reusable(found))


def _computed_request(ctx: Ctx) -> tuple[dict[str, Any], str]:
    body = ctx.object_body(allowed=("source", "seed"))
    source, seed = body.get("source"), body.get("seed")
    if not isinstance(source, dict) or not isinstance(source.get("type"), str):
        raise bad_request("source is required: an object with a 'type' such as 'builtin:openapi'.")
    if not isinstance(seed, str):
        raise bad_request("seed is required: a string that makes generated ids stable.")
    return source, seed


def computed_document(ctx: Ctx, space_id: str) -> Reply:
    """POST .../content/computed/document -> JSONDocument computed from {source, seed}."""
    space_for(ctx, space_id)
    ctx.query_enum("schema", ("current", "next"))
    source, seed = _computed_request(ctx)
    return Reply(200, to_json_document(computed_blocks(source, seed)))


def computed_revision(ctx: Ctx, space_id: str) -> Reply:
    """POST .../content/computed/revision -> {pages, files, reusableContents}."""
    record = space_for(ctx, space_id)
    source, seed = _computed_request(ctx)
    content = ctx.store.content(space_id)
    pages = [
        render.page(content, p, space_id, record["organization"])
        for p in computed_pages(source, seed)
    ]
    return Reply(200, {"pages": pages, "files": [], "reusableContents": []})


def apply_template(ctx: Ctx, space_id: str) -> Reply:
    """POST .../content/template: add a template's pages (or touch a change request)."""
    space = space_for(ctx, space_id, "edit")
    body = ctx.object_body(allowed=("id", "params", "changeRequestId"))
    template_id = check_string(body.get("id"), "id", min_length=1)
    if template_id not in TEMPLATES:
        raise not_found(
            f"Template {template_id!r} not found; known templates: {', '.join(TEMPLATES)}."
        )
    if "params" in body and not isinstance(body["params"], dict):
        raise bad_request("params must be an object.")
    change_request_id = body.get("changeRequestId")
    if change_request_id is not None:
        check_string(change_request_id, "changeRequestId", min_length=1)
        found = [
            r for r in ctx.state.change_requests.get(space_id, []) if r["id"] == change_request_id
        ]
        if not found:
            raise not_found(
                f"Change request {change_request_id!r} not found in space {space_id!r}."
            )
        found[0]["updatedAt"] = ctx.store.now_iso()
        return Reply(201)
    now = ctx.store.now_iso()
    content = template_content(ctx.store.content(space_id), template_id, ctx.store.new_id(), now)
    ctx.store.set_content(space_id, content)
    label = f"{space['title']}: template {template_id}"
    events.space_event(ctx.store, ctx.credential, space, "space.content.updated", label)
    return Reply(201)


ROUTES = [
    Route(
        "GET",
        "/spaces/<space_id>/content",
        current_revision,
        security("user", "integration", "integration-installation", "oauth:space:read"),
    ),
    Route("GET", "/spaces/<space_id>/content/pages", list_pages, _READ),
    Route("GET", "/spaces/<space_id>/content/files", list_files, _READ),
    Route("GET", "/spaces/<space_id>/content/files/<file_id>", get_file, _READ),
    Route("GET", "/spaces/<space_id>/content/page/<page_id>", get_page, _READ),
    Route("GET", "/spaces/<space_id>/content/page/<page_id>/meta-links", meta_links, _READ),
    Route("GET", "/spaces/<space_id>/content/path/<path:page_path>", get_page_by_path, _READ),
    Route(
        "GET",
        "/spaces/<space_id>/content/reusable-contents/<reusable_content_id>",
        get_reusable,
        _READ,
    ),
    Route("POST", "/spaces/<space_id>/content/computed/document", computed_document, _READ),
    Route("POST", "/spaces/<space_id>/content/computed/revision", computed_revision, _READ),
    Route(
        "POST",
        "/spaces/<space_id>/content/template",
        apply_template,
        security("user", "oauth:space:write"),
    ),
]
