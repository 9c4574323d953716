"""Collections: list, create, read, update (title, default level), delete, their spaces, move.

Their permissions are served by :mod:`._permissions`.
"""

from __future__ import annotations

from typing import Any

from docsapi.sandbox.core import _events as events
from docsapi.sandbox.core._auth import security
from docsapi.sandbox.core._errors import bad_request, conflict
from docsapi.sandbox.core._permission_model import ancestors
from docsapi.sandbox.core._state import Record
from docsapi.sandbox.core._web import Ctx, Reply, Route, no_content, paginate
from docsapi.sandbox.routes import _render as render
from docsapi.sandbox.routes import _render_access as render_access
from docsapi.sandbox.routes._access import collection_for, org_for
from docsapi.sandbox.routes._checks import check_default_level, check_string
from docsapi.sandbox.routes._spaces import parse_position

_READ = security("user", "oauth:space:read")
_WRITE = security("user", "oauth:space:write")


def _reply(
    ctx: Ctx, record: Record, status: int = 200, headers: dict[str, str] | None = None
) -> Reply:
    body = render_access.collection(ctx.store, ctx.credential, record, ctx.api_base)
    return Reply(status, body, headers or {})


def _event(ctx: Ctx, record: Record, action: str, label: str | None = None) -> None:
    target = ("collection", record["id"], label or record["title"])
    events.record(ctx.store, record["organization"], ctx.credential, action, target)


def _visible(ctx: Ctx, record: Record) -> bool:
    role = render.viewer_role(
        ctx.store, ctx.credential, record["organization"], record["id"], "collection"
    )
    return role is not None


def list_collections(ctx: Ctx, org_id: str) -> Reply:
    """GET /orgs/{organizationId}/collections -> List of Collection the caller can see.

    ``nested=false`` keeps the top-level collections only.
    """
    org_for(ctx, org_id)
    nested = ctx.query_bool("nested", True)
    records = [
        r
        for r in ctx.store.collections_of_org(org_id)
        if (nested or r["parent"] is None) and _visible(ctx, r)
    ]
    return paginate(
        ctx,
        records,
        lambda r: render_access.collection(ctx.store, ctx.credential, r, ctx.api_base),
    )


def _parent(ctx: Ctx, org_id: str, parent: Any) -> str | None:
    if parent is None:
        return None
    found = ctx.state.collections.get(parent) if isinstance(parent, str) else None
    if found is None or found["organization"] != org_id:
        raise bad_request(
            f"Invalid collection: {parent!r} is not a collection of this organization."
        )
    return parent


def create_collection(ctx: Ctx, org_id: str) -> Reply:
    """POST /orgs/{organizationId}/collections: 201 with the new Collection."""
    org_for(ctx, org_id, "create")
    raw = ctx.request.get_data(cache=True)
    body = ctx.object_body(allowed=("title", "parent")) if raw.strip() else {}
    title = check_string(body.get("title", "Untitled"), "title", max_length=50)
    parent = _parent(ctx, org_id, body.get("parent"))
    if parent is not None:
        collection_for(ctx, parent, "create")
    collection_id = ctx.store.new_id()
    record = {
        "id": collection_id,
        "title": title,
        "organization": org_id,
        "parent": parent,
        "defaultLevel": "inherit",
        "createdAt": ctx.store.now_iso(),
    }
    ctx.state.collections[collection_id] = record
    ctx.store.siblings(org_id, collection_id)
    ctx.store.siblings(org_id, parent).append(("collection", collection_id))
    creator = ctx.credential.user_id
    ctx.state.creators[collection_id] = creator
    if creator is not None:
        ctx.state.collection_users.set(org_id, collection_id, creator, "admin")
    _event(ctx, record, "collection.created")
    location = f"{ctx.api_base}/collections/{collection_id}"
    return _reply(ctx, record, 201, {"Location": location})


def get_collection(ctx: Ctx, collection_id: str) -> Reply:
    """GET /collections/{collectionId} -> Collection."""
    return _reply(ctx, collection_for(ctx, collection_id))


def update_collection(ctx: Ctx, collection_id: str) -> Reply:
    """PATCH /collections/{collectionId}: title, description and/or default level."""
    record = collection_for(ctx, collection_id, "admin")
    body = ctx.object_body(allowed=("title", "description", "defaultLevel"))
    if "title" in body:
        record["title"] = check_string(body["title"], "title", max_length=50)
        _event(ctx, record, "collection.updated")
    if "description" in body:
        record["description"] = check_string(
            body["description"], "description", min_length=0, max_length=100
        )
        _event(ctx, record, "collection.updated")
    if "defaultLevel" in body:
        level = check_default_level(body["defaultLevel"])
        if level != record["defaultLevel"]:
            record["defaultLevel"] = level
            label = f"{record['title']}: default level -> {level or 'no access'}"
            _event(ctx, record, "collection.default-level.updated", label)
    return _reply(ctx, record)


def delete_collection(ctx: Ctx, collection_id: str) -> Reply:
    """DELETE /collections/{collectionId}: 205 deleted with what it holds, 204 absent.

    Its spaces go to the trash (restorable for 7 days, at the top level); the collections
    inside it are deleted with it, and every permission on them.
    """
    if collection_id not in ctx.state.collections:
        return no_content(204)
    record = collection_for(ctx, collection_id, "admin")
    _delete_tree(ctx, record)
    _event(ctx, record, "collection.deleted")
    return no_content(205)


def _delete_tree(ctx: Ctx, record: Record) -> None:
    org_id, collection_id = record["organization"], record["id"]
    for kind, item_id in list(ctx.store.siblings(org_id, collection_id)):
        if kind == "space":
            ctx.store.trash_space(ctx.state.spaces[item_id])
        else:
            _delete_tree(ctx, ctx.state.collections[item_id])
    siblings = ctx.store.siblings(org_id, record["parent"])
    siblings.remove(("collection", collection_id))
    del ctx.state.children[(org_id, collection_id)]
    del ctx.state.collections[collection_id]
    ctx.state.collection_users.detach(collection_id)
    ctx.state.collection_teams.detach(collection_id)


def list_spaces(ctx: Ctx, collection_id: str) -> Reply:
    """GET /collections/{collectionId}/spaces -> List of the spaces directly inside it."""
    record = collection_for(ctx, collection_id)
    org_id = record["organization"]
    spaces = [
        ctx.state.spaces[item_id]
        for kind, item_id in ctx.store.siblings(org_id, collection_id)
        if kind == "space"
        and render.viewer_role(ctx.store, ctx.credential, org_id, item_id) is not None
    ]
    return paginate(ctx, spaces, lambda s: render.space(ctx.store, ctx.credential, s, ctx.api_base))


def move_collection(ctx: Ctx, collection_id: str) -> Reply:
    """POST /collections/{collectionId}/move: into another collection (or the top level) and/or
    before/after a sibling. 400 for a parent inside the collection itself, 409 for no change."""
    body = ctx.object_body(allowed=("parent", "position"))
    if not body:
        raise bad_request("Send at least one of parent, position.")
    record = collection_for(ctx, collection_id, "admin")
    org_id = record["organization"]
    parent = record["parent"]
    if "parent" in body:
        parent = _parent(ctx, org_id, body["parent"])
        if parent is not None and (
            parent == collection_id
            or collection_id in ancestors(ctx.state, ctx.state.collections[parent])
        ):
            raise bad_request("Invalid collection: a collection cannot move inside itself.")
    me = ("collection", collection_id)
    current = ctx.store.siblings(org_id, record["parent"])
    old_index = current.index(me)
    target = [item for item in ctx.store.siblings(org_id, parent) if item != me]
    index = len(target)
    if "position" in body:
        index = parse_position(body["position"], me, target, parent)
    if parent == record["parent"] and index == old_index:
        raise conflict("The move would not change anything: the collection is already there.")
    del current[old_index]
    ctx.store.siblings(org_id, parent).insert(index, me)
    record["parent"] = parent
    _event(ctx, record, "collection.moved", f"{record['title']} -> {parent or 'top level'}")
    return _reply(ctx, record)


ROUTES = [
    Route("GET", "/orgs/<org_id>/collections", list_collections, _READ),
    Route("POST", "/orgs/<org_id>/collections", create_collection, _WRITE),
    Route("GET", "/collections/<collection_id>", get_collection, _READ),
    Route("PATCH", "/collections/<collection_id>", update_collection, _WRITE),
    Route("DELETE", "/collections/<collection_id>", delete_collection, _WRITE),
    Route("GET", "/collections/<collection_id>/spaces", list_spaces, _READ),
    Route("POST", "/collections/<collection_id>/move", move_collection, _WRITE),
]
