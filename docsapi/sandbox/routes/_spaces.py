"""Space operations: read, update, delete/restore (7-day trash), duplicate, move, embed, search."""

from __future__ import annotations

import html
from typing import Any
from urllib.parse import urlsplit

from docsapi.sandbox.core import _events as events
from docsapi.sandbox.core._auth import security
from docsapi.sandbox.core._content import Content
from docsapi.sandbox.core._content_gen import TEMPLATES, template_content
from docsapi.sandbox.core._errors import bad_request, conflict, forbidden, not_found
from docsapi.sandbox.core._state import Record
from docsapi.sandbox.core._web import Ctx, Reply, Route, no_content, paginate
from docsapi.sandbox.routes import _render as render
from docsapi.sandbox.routes._access import org_for, space_for
from docsapi.sandbox.routes._checks import (
    SPACE_EDIT_MODES,
    TRANSLATION_LANGUAGES,
    check_default_level,
    check_emoji_icon,
    check_enum,
    check_merge_rules,
    check_string,
    check_url,
)

_SPACE_FIELDS = ("editMode", "title", "defaultLevel", "language", "mergeRules", "emoji", "icon")
_EMBED_RICH = {
    "youtube.com",
    "www.youtube.com",
    "youtu.be",
    "vimeo.com",
    "www.figma.com",
    "loom.com",
}


def _space_reply(
    ctx: Ctx, record: Record, status: int = 200, headers: dict[str, str] | None = None
) -> Reply:
    return Reply(
        status, render.space(ctx.store, ctx.credential, record, ctx.api_base), headers or {}
    )


def get_space(ctx: Ctx, space_id: str) -> Reply:
    """GET /spaces/{spaceId} -> Space."""
    return _space_reply(ctx, space_for(ctx, space_id))


def update_space(ctx: Ctx, space_id: str) -> Reply:
    """PATCH /spaces/{spaceId}: settings, plus one of emoji / icon / both null, or neither."""
    record = space_for(ctx, space_id, "admin")
    body = ctx.object_body(allowed=_SPACE_FIELDS)
    changes: dict[str, Any] = {}
    if "title" in body:
        changes["title"] = check_string(body["title"], "title", max_length=50)
    if "editMode" in body:
        changes["editMode"] = check_enum(body["editMode"], "editMode", SPACE_EDIT_MODES)
    if "defaultLevel" in body:
        changes["defaultLevel"] = check_default_level(body["defaultLevel"])
    if "language" in body:
        changes["language"] = check_enum(body["language"], "language", TRANSLATION_LANGUAGES)
    if "mergeRules" in body:
        changes["mergeRules"] = check_merge_rules(body["mergeRules"])
    kind, value = check_emoji_icon(body)
    if kind == "emoji":
        changes.update(emoji=value, icon=None)
    elif kind == "icon":
        changes.update(emoji="", icon=value)
    elif kind == "clear":
        changes.update(emoji="", icon=None)
    if "defaultLevel" in changes and changes["defaultLevel"] != record["defaultLevel"]:
        label = f"{record['title']}: default level -> {changes['defaultLevel'] or 'no access'}"
        _event(ctx, record, "space.default-level.updated", label)
    others = sorted(k for k, v in changes.items() if k != "defaultLevel" and record.get(k) != v)
    if others:
        _event(ctx, record, "space.updated", f"{record['title']}: {', '.join(others)}")
    record.update(changes)
    record["updatedAt"] = ctx.store.now_iso()
    return _space_reply(ctx, record)


def _event(ctx: Ctx, record: Record, action: str, label: str | None = None) -> None:
    events.space_event(ctx.store, ctx.credential, record, action, label)


def delete_space(ctx: Ctx, space_id: str) -> Reply:
    """DELETE /spaces/{spaceId}: 205 moved to the trash now, 204 when there was no such space."""
    ctx.store.purge_trash()
    if space_id not in ctx.state.spaces:
        return no_content(204)
    record = space_for(ctx, space_id, "admin")
    ctx.store.trash_space(record)
    _event(ctx, record, "space.deleted")
    return no_content(205)


def restore_space(ctx: Ctx, space_id: str) -> Reply:
    """POST /spaces/{spaceId}/restore: back from the trash within 7 days (idempotent)."""
    ctx.store.purge_trash()
    if space_id in ctx.state.spaces:
        return _space_reply(ctx, space_for(ctx, space_id, "admin"))
    entry = ctx.state.trash.get(space_id)
    if entry is None:
        raise not_found(
            f"Space {space_id!r} is not in the trash: it never existed or was deleted "
            "more than 7 days ago."
        )
    record = entry["space"]
    org_for(ctx, record["organization"])
    if not _may_restore(ctx, entry):
        raise forbidden("Only an admin of the space can restore it.")
    record = ctx.store.restore_space(space_id)
    record["updatedAt"] = ctx.store.now_iso()
    _event(ctx, record, "space.restored")
    return _space_reply(ctx, record)


def _may_restore(ctx: Ctx, entry: Record) -> bool:
    """Organization admins and those who held admin on the space when it was deleted."""
    record = entry["space"]
    user_id = ctx.credential.user_id
    if render.viewer_role(ctx.store, ctx.credential, record["organization"]) == "admin":
        return True
    if user_id is None:
        return False
    teams = set(ctx.store.user_teams(record["organization"], user_id))
    held = [entry["users"].get(user_id), *(entry["teams"].get(t) for t in teams)]
    return "admin" in held


def duplicate_space(ctx: Ctx, space_id: str) -> Reply:
    """POST /spaces/{spaceId}/duplicate: 201 with the copy; Location holds its API URL."""
    original = space_for(ctx, space_id, "admin")
    content = ctx.store.content(space_id)
    new_id = ctx.store.new_id()
    now = ctx.store.now_iso()
    title = original["title"] if len(original["title"]) > 43 else original["title"] + " (copy)"
    published = original["visibility"] in ("public", "unlisted", "share-link", "visitor-auth")
    copy = {
        **original,
        "id": new_id,
        "title": title[:50],
        "createdAt": now,
        "updatedAt": now,
        "comments": 0,
        "mergeRules": dict(original["mergeRules"]),
        "visibility": "private" if published else original["visibility"],
    }
    ctx.state.spaces[new_id] = copy
    siblings = ctx.store.siblings(copy["organization"], copy["parent"])
    siblings.insert(siblings.index(("space", space_id)) + 1, ("space", new_id))
    org_id = copy["organization"]
    ctx.state.space_users.attach(org_id, new_id, ctx.state.space_users.on(space_id))
    ctx.state.space_teams.attach(org_id, new_id, ctx.state.space_teams.on(space_id))
    ctx.state.change_requests[new_id] = []
    ctx.state.creators[new_id] = ctx.credential.user_id
    _event(ctx, copy, "space.created", f"{copy['title']} (duplicate of {space_id})")
    revision = ctx.store.new_id()
    ctx.state.content[new_id] = Content(
        revision=revision,
        pages=content.pages,
        files=content.files,
        reusables=content.reusables,
        created_at=now,
    )
    copy["revision"] = revision
    location = f"{ctx.api_base}/spaces/{new_id}"
    return _space_reply(ctx, copy, 201, {"Location": location})


def _pointer(value: Any) -> tuple[str, str]:
    if not isinstance(value, dict):
        raise bad_request(
            'Invalid position: before/after must be {"type": "space", "space": id} '
            'or {"type": "collection", "collection": id}.'
        )
    kind = value.get("type")
    if kind not in ("space", "collection") or not isinstance(value.get(kind), str):
        raise bad_request(
            'Invalid position: before/after must be {"type": "space", "space": id} '
            'or {"type": "collection", "collection": id}.'
        )
    return kind, value[kind]


def parse_position(
    position: Any, me: tuple[str, str], target: list[tuple[str, str]], parent: str | None
) -> int:
    """The index in ``target`` (the new siblings, without ``me``) that a ContentPosition names.

    Raises
    ------
    ApiError
        400 when the position is malformed, names ``me`` or an item that is not a sibling.
    """
    if (
        not isinstance(position, dict)
        or len(set(position) & {"before", "after"}) != 1
        or set(position) - {"before", "after"}
    ):
        raise bad_request("Invalid position: give exactly one of before, after.")
    ((side, pointer),) = position.items()
    kind, item_id = _pointer(pointer)
    if (kind, item_id) == me:
        raise bad_request(f"Invalid position: a {me[0]} cannot be placed relative to itself.")
    if (kind, item_id) not in target:
        where = f"collection {parent!r}" if parent else "the organization root"
        raise bad_request(f"Invalid position: {kind} {item_id!r} is not in {where}.")
    return target.index((kind, item_id)) + (1 if side == "after" else 0)


def move_space(ctx: Ctx, space_id: str) -> Reply:
    """POST /spaces/{spaceId}/move: to a collection (or the root) and/or before/after a sibling.

    Without ``position`` the space goes to the end of its (new) parent.
    409 when nothing would change.
    """
    body = ctx.object_body(allowed=("parent", "position"))
    if not body:
        raise bad_request("Send at least one of parent, position.")
    record = space_for(ctx, space_id, "admin")
    org_id = record["organization"]
    parent = record["parent"]
    if "parent" in body:
        parent = body["parent"]
        if parent is not None:
            if not isinstance(parent, str):
                raise bad_request("Invalid collection: parent must be a collection id or null.")
            collection = ctx.state.collections.get(parent)
            if collection is None or collection["organization"] != org_id:
                raise bad_request(
                    f"Invalid collection: {parent!r} is not a collection of this organization."
                )
    current = ctx.store.siblings(org_id, record["parent"])
    old_index = current.index(("space", space_id))
    target = [item for item in ctx.store.siblings(org_id, parent) if item != ("space", space_id)]
    index = len(target)
    if "position" in body:
        index = parse_position(body["position"], ("space", space_id), target, parent)
    if parent == record["parent"] and index == old_index:
        raise conflict("The move would not change anything: the space is already there.")
    del current[old_index]
    target_list = ctx.store.siblings(org_id, parent)
    target_list.insert(index, ("space", space_id))
    record["parent"] = parent
    if parent is None and record["visibility"] == "in-collection":
        record["visibility"] = "private"
    record["updatedAt"] = ctx.store.now_iso()
    _event(ctx, record, "space.moved", f"{record['title']} -> {parent or 'top level'}")
    return _space_reply(ctx, record)


def embed(ctx: Ctx, space_id: str) -> Reply:
    """GET /spaces/{spaceId}/embed?url= -> Embed (oEmbed-like)."""
    space_for(ctx, space_id)
    url = ctx.query("url")
    if url is None:
        raise bad_request("Query parameter 'url' is required.")
    check_url(url, "url")
    parts = urlsplit(url)
    site = parts.netloc.lower()
    title = parts.path.strip("/").rsplit("/", 1)[-1].replace("-", " ").strip() or site
    body: dict[str, Any] = {
        "title": title[:1].upper() + title[1:],
        "site": site,
        "icon": f"https://{site}/favicon.ico",
    }
    if site in _EMBED_RICH:
        src = html.escape(url, quote=True)
        body.update(
            type="rich",
            html=f'<iframe src="{src}" width="640" height="360" frameborder="0" '
            "allowfullscreen></iframe>",
        )
    else:
        body["type"] = "link"
    return Reply(200, body)


def search(ctx: Ctx, space_id: str) -> Reply:
    """GET /spaces/{spaceId}/search?query= -> List of SearchPageResult (all words must match)."""
    record = space_for(ctx, space_id)
    query = ctx.query("query")
    if query is None:
        raise bad_request("Query parameter 'query' is required.")
    check_string(query, "query", max_length=512)
    content = ctx.store.content(space_id)
    org_id = record["organization"]
    app = f"{render.APP_URL}/o/{org_id}/s/{space_id}/"
    hits = content.search(query)

    def result(rank_hit: tuple[int, dict[str, Any]]) -> dict[str, Any]:
        rank, hit = rank_hit
        page = hit["page"]
        sections = [
            {
                "id": f"{page.id}#{n}",
                "title": title,
                "path": f"{page.path}#{n}",
                "score": score,
                "body": body[:300],
                "urls": {"app": f"{app}{page.path}#{n}"},
                "resultType": "section",
            }
            for n, (title, body, score) in enumerate(hit["sections"], start=1)
        ]
        return {
            "id": page.id,
            "title": page.title,
            "description": page.description,
            "path": page.path,
            "score": hit["score"],
            "rank": rank,
            "resultType": "page",
            "ancestors": [{"title": a.title} for a in content.ancestors(page.id)],
            "urls": {"app": f"{app}{page.path}"},
            "sections": sections,
        }

    return paginate(ctx, list(enumerate(hits, start=1)), result)


def org_spaces(ctx: Ctx, org_id: str) -> Reply:
    """GET /orgs/{organizationId}/spaces -> List of Space the caller can see."""
    org_for(ctx, org_id)
    records = [
        r
        for r in ctx.store.spaces_of_org(org_id)
        if render.viewer_role(ctx.store, ctx.credential, org_id, r["id"]) is not None
    ]
    return paginate(
        ctx, records, lambda r: render.space(ctx.store, ctx.credential, r, ctx.api_base)
    )


def check_template(template: object) -> dict[str, Any] | None:
    """A space template of the body (``{"id": ...}``), or None; 400 for any other."""
    if template is not None and (
        not isinstance(template, dict) or template.get("id") not in TEMPLATES
    ):
        raise bad_request(f"template.id must be one of {', '.join(TEMPLATES)}.")
    return template


def add_space(
    ctx: Ctx,
    org_id: str,
    title: str,
    *,
    parent: str | None = None,
    template: object = None,
    emoji: str = "",
    edit_mode: str = "live",
    language: str = "en",
) -> Record:
    """Create a space in ``org_id`` (empty, or from ``template``), made by the caller (who
    gets ``admin`` on it), and log ``space.created``; return its record."""
    template = check_template(template)
    now = ctx.store.now_iso()
    space_id = ctx.store.new_id()
    content = Content(revision=ctx.store.new_id(), created_at=now)
    if template is not None:
        content = template_content(content, template["id"], space_id, now)
    record = {
        "id": space_id,
        "title": title,
        "emoji": emoji,
        "icon": None,
        "organization": org_id,
        "parent": parent,
        "visibility": "in-collection" if parent else "private",
        "editMode": edit_mode,
        "defaultLevel": "inherit",
        "language": language,
        "mergeRules": {"type": "inherit"},
        "createdAt": now,
        "updatedAt": now,
        "comments": 0,
        "revision": content.revision,
        "topic": title,
        "empty": True,
        "small": True,
    }
    ctx.state.spaces[space_id] = record
    ctx.store.siblings(org_id, parent).append(("space", space_id))
    ctx.state.content[space_id] = content
    creator = ctx.credential.user_id
    ctx.state.creators[space_id] = creator
    if creator is not None:
        ctx.state.space_users.set(org_id, space_id, creator, "admin")
    ctx.state.change_requests[space_id] = []
    _event(ctx, record, "space.created")
    return record


def create_space(ctx: Ctx, org_id: str) -> Reply:
    """POST /orgs/{organizationId}/spaces: 201 with the new Space (empty or from a template)."""
    org_for(ctx, org_id, "create")
    body = ctx.object_body(
        allowed=(
            "title",
            "emoji",
            "editMode",
            "language",
            "parent",
            "template",
            "empty",
            "computedSource",
        )
    )
    title = check_string(body.get("title", "Untitled"), "title", max_length=50)
    parent = body.get("parent")
    if parent is not None:
        collection = ctx.state.collections.get(parent) if isinstance(parent, str) else None
        if collection is None or collection["organization"] != org_id:
            raise bad_request(
                f"Invalid collection: {parent!r} is not a collection of this organization."
            )
    record = add_space(
        ctx,
        org_id,
        title,
        parent=parent,
        template=body.get("template"),
        emoji=check_string(body.get("emoji", ""), "emoji", max_length=50),
        edit_mode=check_enum(body.get("editMode", "live"), "editMode", SPACE_EDIT_MODES),
        language=check_enum(body.get("language", "en"), "language", TRANSLATION_LANGUAGES),
    )
    space_id = record["id"]
    return _space_reply(ctx, record, 201, {"Location": f"{ctx.api_base}/spaces/{space_id}"})


ROUTES = [
    Route(
        "GET",
        "/spaces/<space_id>",
        get_space,
        security("user", "integration", "integration-installation", "oauth:space:read"),
    ),
    Route("PATCH", "/spaces/<space_id>", update_space, security("user", "oauth:space:write")),
    Route("DELETE", "/spaces/<space_id>", delete_space, security("user", "oauth:space:write")),
    Route(
        "POST",
        "/spaces/<space_id>/duplicate",
        duplicate_space,
        security("user", "oauth:space:write"),
    ),
    Route(
        "POST", "/spaces/<space_id>/restore", restore_space, security("user", "oauth:space:write")
    ),
    Route("POST", "/spaces/<space_id>/move", move_space, security("user", "oauth:space:write")),
    Route("GET", "/spaces/<space_id>/embed", embed, security("user", "oauth:space:read")),
    Route("GET", "/spaces/<space_id>/search", search, security("user", "oauth:space:read")),
    Route(
        "GET",
        "/orgs/<org_id>/spaces",
        org_spaces,
        security("user", "integration-installation", "oauth:space:read"),
    ),
    Route("POST", "/orgs/<org_id>/spaces", create_space, security("user", "oauth:space:write")),
]
