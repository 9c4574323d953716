"""Operations on the API itself and on users: GET /, /user, /users/{id} and a user's spaces."""

from __future__ import annotations

import base64
import json
from typing import Any

from docsapi.sandbox.core._auth import DEFAULT_SECURITY, security
from docsapi.sandbox.core._errors import bad_request, forbidden
from docsapi.sandbox.core._web import Ctx, Reply, Route, paginate
from docsapi.sandbox.routes import _render as render
from docsapi.sandbox.routes._access import caller_id, user_for
from docsapi.sandbox.routes._checks import check_string, check_url

#: What GET / reports.
API_VERSION = "0.0.1-beta"
API_BUILD = "2025-01-06T09:00:00.000Z"


def api_information(ctx: Ctx) -> Reply:
    """GET / -> ApiInformation."""
    return Reply(200, {"version": API_VERSION, "build": API_BUILD})


def current_user(ctx: Ctx) -> Reply:
    """GET /user -> the User behind the token."""
    return Reply(200, render.user(user_for(ctx, caller_id(ctx)), ctx.api_base))


def notifications_token(ctx: Ctx) -> Reply:
    """POST /user/notifications/token -> a short-lived JWT-shaped token."""
    user_id = caller_id(ctx)
    issued = int(ctx.store.clock.now().timestamp())

    def part(data: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")

    claims = {"sub": user_id, "aud": "notifications", "iat": issued, "exp": issued + 3600}
    token = ".".join([part({"alg": "none", "typ": "JWT"}), part(claims), "sandbox"])
    return Reply(200, {"token": token})


def get_user(ctx: Ctx, user_id: str) -> Reply:
    """GET /users/{userId} -> User."""
    return Reply(200, render.user(user_for(ctx, user_id), ctx.api_base))


def update_user(ctx: Ctx, user_id: str) -> Reply:
    """PATCH /users/{userId}: displayName (1-64 characters) and/or photoURL."""
    record = user_for(ctx, user_id)
    body = ctx.object_body(allowed=("displayName", "photoURL"))
    if not body:
        raise bad_request("Send at least one of displayName, photoURL.")
    acting = caller_id(ctx)
    if acting != user_id and not any(
        _is_admin(ctx.store.member(org_id, acting))
        and ctx.store.member(org_id, user_id) is not None
        for org_id in ctx.state.orgs
    ):
        raise forbidden(
            "You can only update your own profile (or a member of an organization you administer)."
        )
    if "displayName" in body:
        name = check_string(body["displayName"], "displayName", min_length=1, max_length=64)
        if not name.strip():
            raise bad_request("displayName must not be blank.")
    if "photoURL" in body:
        check_url(body["photoURL"], "photoURL")
    record.update(body)
    return Reply(200, render.user(record, ctx.api_base))


def user_spaces(ctx: Ctx, user_id: str) -> Reply:
    """GET /users/{userId}/spaces -> List of the spaces the user can access."""
    user_for(ctx, user_id)
    acting = caller_id(ctx)
    records = []
    for record in ctx.state.spaces.values():
        if render.user_role(ctx.store, user_id, record["organization"], record["id"]) is None:
            continue
        if (
            acting == user_id
            or render.viewer_role(ctx.store, ctx.credential, record["organization"], record["id"])
            is not None
        ):
            records.append(record)
    return paginate(
        ctx, records, lambda r: render.space(ctx.store, ctx.credential, r, ctx.api_base)
    )


ROUTES = [
    Route("GET", "/", api_information, DEFAULT_SECURITY),
    Route("GET", "/user", current_user, security("user", "oauth:user:read")),
    Route("POST", "/user/notifications/token", notifications_token, security("user-internal")),
    Route("GET", "/users/<user_id>", get_user, security("user")),
    Route("PATCH", "/users/<user_id>", update_user, security("user")),
    Route("GET", "/users/<user_id>/spaces", user_spaces, security("user", "oauth:space:read")),
]


def _is_admin(member: dict[str, Any] | None) -> bool:
    return member is not None and member["role"] == "admin"
