"""Change requests of a space: create (full object plus deprecated ``changeRequest``), list."""

from __future__ import annotations

from docsapi.sandbox.core import _events as events
from docsapi.sandbox.core._auth import security
from docsapi.sandbox.core._web import Ctx, Reply, Route, paginate
from docsapi.sandbox.routes import _render as render
from docsapi.sandbox.routes._access import caller_id, space_for
from docsapi.sandbox.routes._checks import check_string

_STATUSES = ("draft", "open", "archived", "merged")


def list_change_requests(ctx: Ctx, space_id: str) -> Reply:
    """GET /spaces/{spaceId}/change-requests -> List of ChangeRequest (status, default open)."""
    space_for(ctx, space_id)
    status = ctx.query_enum("status", _STATUSES, "open")
    creator = ctx.query("creator")
    records = [
        r
        for r in ctx.state.change_requests.get(space_id, [])
        if r["status"] == status and (creator is None or r["createdBy"] == creator)
    ]
    records.sort(key=lambda r: r["number"], reverse=True)
    return paginate(
        ctx, records, lambda r: render.change_request(ctx.store, space_id, r, ctx.api_base)
    )


def create_change_request(ctx: Ctx, space_id: str) -> Reply:
    """POST /spaces/{spaceId}/change-requests: 201, ChangeRequest plus ``changeRequest`` (id)."""
    space_for(ctx, space_id, "edit")
    body = ctx.object_body()
    subject = check_string(body.get("subject", ""), "subject", max_length=100)
    author = caller_id(ctx)
    records = ctx.state.change_requests.setdefault(space_id, [])
    now = ctx.store.now_iso()
    record = {
        "id": ctx.store.new_id(),
        "number": max((r["number"] for r in records), default=0) + 1,
        "status": "open",
        "subject": subject,
        "createdBy": author,
        "createdAt": now,
        "updatedAt": now,
        "comments": 0,
    }
    records.append(record)
    label = f"{ctx.state.spaces[space_id]['title']}: change request #{record['number']}"
    events.space_event(
        ctx.store, ctx.credential, ctx.state.spaces[space_id], "space.change-request.created", label
    )
    body = render.change_request(ctx.store, space_id, record, ctx.api_base)
    body["changeRequest"] = record["id"]
    return Reply(201, body, {"Location": body["urls"]["location"]})


ROUTES = [
    Route(
        "GET",
        "/spaces/<space_id>/change-requests",
        list_change_requests,
        security("user", "oauth:space:read"),
    ),
    Route(
        "POST",
        "/spaces/<space_id>/change-requests",
        create_change_request,
        security("user", "oauth:space:write"),
    ),
]
