"""Space permissions: list users and teams, invite, change a role, remove (204/205)."""

from __future__ import annotations

from docsapi.sandbox import _render as render
from docsapi.sandbox._access import space_for
from docsapi.sandbox._auth import security
from docsapi.sandbox._checks import check_role, check_string_list
from docsapi.sandbox._errors import bad_request, not_found
from docsapi.sandbox._roles import MEMBER_ROLES
from docsapi.sandbox._web import Ctx, Reply, Route, no_content, paginate

_READ = security("user", "oauth:space:permissions:read")
_WRITE = security("user", "oauth:space:permissions:write")


def list_users(ctx: Ctx, space_id: str) -> Reply:
    """GET /spaces/{spaceId}/permissions/users -> List of UserContentPermission (direct grants)."""
    space_for(ctx, space_id)
    grants = list(ctx.state.user_grants.get(space_id, {}).items())
    return paginate(
        ctx,
        grants,
        lambda g: {"permission": g[1], "user": render.user(ctx.state.users[g[0]], ctx.api_base)},
    )


def list_teams(ctx: Ctx, space_id: str) -> Reply:
    """GET /spaces/{spaceId}/permissions/teams -> List of {permission, team}."""
    record = space_for(ctx, space_id)
    grants = list(ctx.state.team_grants.get(space_id, {}).items())
    _, team_counts = render.grant_counts(ctx.store, record["organization"])
    return paginate(
        ctx,
        grants,
        lambda g: {
            "permission": g[1],
            "team": render.team(ctx.store, ctx.credential, ctx.state.teams[g[0]], team_counts),
        },
    )


def aggregate(ctx: Ctx, space_id: str) -> Reply:
    """GET /spaces/{spaceId}/permissions/aggregate -> everyone's effective role."""
    space_for(ctx, space_id)
    role = ctx.query_enum("role", MEMBER_ROLES)
    grants = [
        (u, r) for u, r in ctx.store.effective_grants(space_id).items() if role is None or r == role
    ]
    return paginate(
        ctx,
        grants,
        lambda g: {"permission": g[1], "user": render.user(ctx.state.users[g[0]], ctx.api_base)},
    )


def invite(ctx: Ctx, space_id: str) -> Reply:
    """POST /spaces/{spaceId}/permissions: grant ``role`` to users and/or teams (404 if unknown).

    A null role (guest) removes their grants.
    """
    record = space_for(ctx, space_id, "admin")
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
    for team_id in teams:
        team = ctx.state.teams.get(team_id)
        if team is None or team["organization"] != record["organization"]:
            raise not_found(f"Team {team_id!r} not found in the space's organization.")
    for ids, grants in ((users, ctx.state.user_grants), (teams, ctx.state.team_grants)):
        table = grants.setdefault(space_id, {})
        for item in ids:
            if role is None:
                table.pop(item, None)
            else:
                table[item] = role
    return no_content()


def _role_body(ctx: Ctx) -> str | None:
    body = ctx.object_body(allowed=("role",))
    if "role" not in body:
        raise bad_request("role is required (a member role, or null for guest).")
    return check_role(body["role"])


def update_user(ctx: Ctx, space_id: str, user_id: str) -> Reply:
    """PATCH /spaces/{spaceId}/permissions/users/{userId}: set the user's role (null removes it)."""
    space_for(ctx, space_id, "admin")
    role = _role_body(ctx)
    if user_id not in ctx.state.users:
        raise not_found(f"User {user_id!r} not found.")
    table = ctx.state.user_grants.setdefault(space_id, {})
    if role is None:
        table.pop(user_id, None)
    else:
        table[user_id] = role
    return no_content()


def update_team(ctx: Ctx, space_id: str, team_id: str) -> Reply:
    """PATCH /spaces/{spaceId}/permissions/teams/{teamId}: set the team's role (null removes it)."""
    record = space_for(ctx, space_id, "admin")
    role = _role_body(ctx)
    team = ctx.state.teams.get(team_id)
    if team is None or team["organization"] != record["organization"]:
        raise not_found(f"Team {team_id!r} not found in the space's organization.")
    table = ctx.state.team_grants.setdefault(space_id, {})
    if role is None:
        table.pop(team_id, None)
    else:
        table[team_id] = role
    return no_content()


def remove_user(ctx: Ctx, space_id: str, user_id: str) -> Reply:
    """DELETE /spaces/{spaceId}/permissions/users/{userId}: 205 removed now, 204 not there."""
    space_for(ctx, space_id, "admin")
    removed = ctx.state.user_grants.get(space_id, {}).pop(user_id, None)
    return no_content(205 if removed is not None else 204)


def remove_team(ctx: Ctx, space_id: str, team_id: str) -> Reply:
    """DELETE .../permissions/teams/{teamId}: 205 removed, 204 no grant, 400 foreign team."""
    record = space_for(ctx, space_id, "admin")
    team = ctx.state.teams.get(team_id)
    if team is None or team["organization"] != record["organization"]:
        raise bad_request(
            f"Team {team_id!r} is not a team of the space's organization, so it has no "
            "access to the space."
        )
    removed = ctx.state.team_grants.get(space_id, {}).pop(team_id, None)
    return no_content(205 if removed is not None else 204)


ROUTES = [
    Route("GET", "/spaces/<space_id>/permissions/users", list_users, _READ),
    Route("GET", "/spaces/<space_id>/permissions/teams", list_teams, _READ),
    Route("GET", "/spaces/<space_id>/permissions/aggregate", aggregate, _READ),
    Route("POST", "/spaces/<space_id>/permissions", invite, _WRITE),
    Route("PATCH", "/spaces/<space_id>/permissions/users/<user_id>", update_user, _WRITE),
    Route("PATCH", "/spaces/<space_id>/permissions/teams/<team_id>", update_team, _WRITE),
    Route("DELETE", "/spaces/<space_id>/permissions/users/<user_id>", remove_user, _WRITE),
    Route("DELETE", "/spaces/<space_id>/permissions/teams/<team_id>", remove_team, _WRITE),
]
