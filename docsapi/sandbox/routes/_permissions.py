"""Permissions of spaces and collections: list users, teams and everyone's effective role
(aggregate), invite, change a role, remove (204/205).

Spaces and collections answer the same operations under ``/spaces/{spaceId}/permissions``
and ``/collections/{collectionId}/permissions``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from docsapi.sandbox.core import _permission_model as model
from docsapi.sandbox.core._access_changes import set_grant
from docsapi.sandbox.core._auth import security
from docsapi.sandbox.core._errors import bad_request, not_found
from docsapi.sandbox.core._roles import MEMBER_ROLES
from docsapi.sandbox.core._state import Record
from docsapi.sandbox.core._web import Ctx, Reply, Route, no_content, paginate
from docsapi.sandbox.routes import _render_access as render_access
from docsapi.sandbox.routes._access import collection_for, space_for
from docsapi.sandbox.routes._checks import check_role, check_string_list, role_change

_READ = security("user", "oauth:space:permissions:read")
_WRITE = security("user", "oauth:space:permissions:write")


@dataclass(frozen=True)
class _Target:
    """Spaces or collections: their kind, URL prefix and lookup with an access check."""

    kind: model.Kind
    prefix: str
    find: Callable[[Ctx, str, str], Record]

    def get(self, ctx: Ctx, target_id: str, need: str = "read") -> Record:
        return self.find(ctx, target_id, need)


_SPACES = _Target("space", "/spaces/<target_id>", space_for)
_COLLECTIONS = _Target("collection", "/collections/<target_id>", collection_for)


def _org_team(ctx: Ctx, record: Record, team_id: str) -> Record | None:
    team = ctx.state.teams.get(team_id)
    return team if team is not None and team["organization"] == record["organization"] else None


def _role_change(ctx: Ctx) -> dict[str, str | None]:
    return role_change(ctx.object_body(allowed=("role",)))


def _routes(target: _Target) -> list[Route]:
    kind = target.kind

    def list_users(ctx: Ctx, target_id: str) -> Reply:
        """GET .../permissions/users -> List of UserContentPermission (explicit grants)."""
        target.get(ctx, target_id)
        grants = list(model.tables(ctx.state, kind)[0].on(target_id).items())
        return paginate(ctx, grants, lambda g: render_access.user_grant(ctx, g))

    def list_teams(ctx: Ctx, target_id: str) -> Reply:
        """GET .../permissions/teams -> List of {permission, team}."""
        target.get(ctx, target_id)
        grants = list(model.tables(ctx.state, kind)[1].on(target_id).items())
        return paginate(ctx, grants, lambda g: render_access.team_grant(ctx, g))

    def aggregate(ctx: Ctx, target_id: str) -> Reply:
        """GET .../permissions/aggregate -> everyone's effective role (optionally one role)."""
        target.get(ctx, target_id)
        role = ctx.query_enum("role", MEMBER_ROLES)
        everyone = ctx.store.memo(
            ("access", kind, target_id),
            lambda: list(model.access(ctx.state, kind, target_id).items()),
        )
        grants = everyone if role is None else [grant for grant in everyone if grant[1] == role]
        return paginate(ctx, grants, lambda g: render_access.user_grant(ctx, g))

    def invite(ctx: Ctx, target_id: str) -> Reply:
        """POST .../permissions: grant ``role`` to users and/or teams (404 if one is unknown).

        A null role (guest) removes their grants.
        """
        record = target.get(ctx, target_id, "admin")
        role, users, teams = invite_body(ctx)
        for team_id in teams:
            if _org_team(ctx, record, team_id) is None:
                raise not_found(f"Team {team_id!r} not found in the {kind}'s organization.")
        for user_id in users:
            set_grant(ctx.store, ctx.credential, kind, target_id, "user", user_id, role)
        for team_id in teams:
            set_grant(ctx.store, ctx.credential, kind, target_id, "team", team_id, role)
        return no_content()

    def update_user(ctx: Ctx, target_id: str, user_id: str) -> Reply:
        """PATCH .../permissions/users/{userId}: set the user's role (null removes it; no
        role: nothing changes)."""
        target.get(ctx, target_id, "admin")
        change = _role_change(ctx)
        if user_id not in ctx.state.users:
            raise not_found(f"User {user_id!r} not found.")
        if "role" in change:
            set_grant(ctx.store, ctx.credential, kind, target_id, "user", user_id, change["role"])
        return no_content()

    def update_team(ctx: Ctx, target_id: str, team_id: str) -> Reply:
        """PATCH .../permissions/teams/{teamId}: set the team's role (null removes it; no
        role: nothing changes)."""
        record = target.get(ctx, target_id, "admin")
        change = _role_change(ctx)
        if _org_team(ctx, record, team_id) is None:
            raise not_found(f"Team {team_id!r} not found in the {kind}'s organization.")
        if "role" in change:
            set_grant(ctx.store, ctx.credential, kind, target_id, "team", team_id, change["role"])
        return no_content()

    def remove_user(ctx: Ctx, target_id: str, user_id: str) -> Reply:
        """DELETE .../permissions/users/{userId}: 205 removed now, 204 not there."""
        target.get(ctx, target_id, "admin")
        removed = set_grant(ctx.store, ctx.credential, kind, target_id, "user", user_id, None)
        return no_content(205 if removed is not None else 204)

    def remove_team(ctx: Ctx, target_id: str, team_id: str) -> Reply:
        """DELETE .../permissions/teams/{teamId}: 205 removed, 204 no grant, 400 foreign team."""
        record = target.get(ctx, target_id, "admin")
        if _org_team(ctx, record, team_id) is None:
            raise bad_request(
                f"Team {team_id!r} is not a team of the {kind}'s organization, so it has no "
                f"access to the {kind}."
            )
        removed = set_grant(ctx.store, ctx.credential, kind, target_id, "team", team_id, None)
        return no_content(205 if removed is not None else 204)

    base = target.prefix + "/permissions"
    return [
        Route("GET", f"{base}/users", list_users, _READ),
        Route("GET", f"{base}/teams", list_teams, _READ),
        Route("GET", f"{base}/aggregate", aggregate, _READ),
        Route("POST", base, invite, _WRITE),
        Route("PATCH", f"{base}/users/<user_id>", update_user, _WRITE),
        Route("PATCH", f"{base}/teams/<team_id>", update_team, _WRITE),
        Route("DELETE", f"{base}/users/<user_id>", remove_user, _WRITE),
        Route("DELETE", f"{base}/teams/<team_id>", remove_team, _WRITE),
    ]


ROUTES = [*_routes(_SPACES), *_routes(_COLLECTIONS)]


def invite_body(ctx: Ctx) -> tuple[str | None, list[str], list[str]]:
    """The checked body of an invitation (spaces, collections, sites): ``role`` (None:
    guest), ``users`` and ``teams``; 400 when malformed or empty, 404 for an unknown user."""
    body = ctx.object_body(allowed=("role", "users", "teams"))
    if "role" not in body:
        raise bad_request("role is required (a member role, or null for guest).")
    role = check_role(body["role"])
    users = check_string_list(body.get("users", []), "users")
    teams = check_string_list(body.get("teams", []), "teams")
    if not users and not teams:
        raise bad_request("Give at least one user id in 'users' or one team id in 'teams'.")
    for user_id in users:
        if user_id not in ctx.state.users:
            raise not_found(f"User {user_id!r} not found.")
    return role, users, teams
