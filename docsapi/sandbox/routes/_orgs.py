"""Organizations, their members and teams (reads for audits, writes for member management)."""

from __future__ import annotations

from typing import Any

from docsapi.sandbox.core import _events as events
from docsapi.sandbox.core import _permission_model as model
from docsapi.sandbox.core._auth import DEFAULT_SECURITY, security
from docsapi.sandbox.core._errors import bad_request, not_found
from docsapi.sandbox.core._roles import MEMBER_ROLES
from docsapi.sandbox.core._web import Ctx, Reply, Route, no_content, paginate
from docsapi.sandbox.routes import _render as render
from docsapi.sandbox.routes._access import caller_id, org_for, team_for, user_for
from docsapi.sandbox.routes._checks import (
    TEAM_MEMBER_ROLES,
    check_bool,
    check_enum,
    check_merge_rules,
    check_role,
    check_string,
    check_string_list,
)

_MEMBERS_READ = security("user", "oauth:organization:members:read")
_MEMBERS_WRITE = security("user", "oauth:organization:members:write")


def _org_reply(
    ctx: Ctx, record: dict[str, Any], status: int = 200, headers: dict[str, str] | None = None
) -> Reply:
    return Reply(
        status, render.organization(ctx.store, ctx.credential, record, ctx.api_base), headers or {}
    )


def list_orgs(ctx: Ctx) -> Reply:
    """GET /orgs -> List of the organizations the caller belongs to."""
    user_id = caller_id(ctx)
    records = [o for o in ctx.state.orgs.values() if ctx.store.member(o["id"], user_id) is not None]
    return paginate(
        ctx, records, lambda o: render.organization(ctx.store, ctx.credential, o, ctx.api_base)
    )


def create_org(ctx: Ctx) -> Reply:
    """POST /orgs: 201 with a new Organization whose creator is its admin."""
    user_id = caller_id(ctx)
    body = ctx.object_body(allowed=("title", "emailDomains", "onboardingPreferences"))
    title = check_string(body.get("title"), "title", min_length=2, max_length=255).strip()
    if len(title) < 2:
        raise bad_request("title must hold at least two non-blank characters.")
    domains = check_string_list(body.get("emailDomains", []), "emailDomains")
    org_id = ctx.store.new_id()
    now = ctx.store.now_iso()
    ctx.state.orgs[org_id] = {
        "id": org_id,
        "title": title,
        "type": "business",
        "plan": "free",
        "createdAt": now,
        "inviteLinks": False,
        "emailDomains": domains,
        "defaultRole": "read",
        "mergeRules": {"type": "none"},
        "hostname": title.split()[0].lower()[:32].ljust(3, "x"),
    }
    ctx.state.members[org_id] = {
        user_id: {"role": "admin", "joinedAt": now, "lastSeenAt": now, "disabled": False}
    }
    ctx.store.siblings(org_id, None)
    events.record(
        ctx.store, org_id, ctx.credential, "organization.created", ("organization", org_id, title)
    )
    return _org_reply(
        ctx, ctx.state.orgs[org_id], 201, {"Location": f"{ctx.api_base}/orgs/{org_id}"}
    )


def get_org(ctx: Ctx, org_id: str) -> Reply:
    """GET /orgs/{organizationId} -> Organization."""
    return _org_reply(ctx, org_for(ctx, org_id))


def update_org(ctx: Ctx, org_id: str) -> Reply:
    """PATCH /orgs/{organizationId}: title, defaultRole, emailDomains, hostname, inviteLinks, ..."""
    record = org_for(ctx, org_id, "admin")
    body = ctx.object_body(
        allowed=(
            "title",
            "defaultRole",
            "emailDomains",
            "hostname",
            "inviteLinks",
            "mergeRules",
            "ai",
            "sso",
            "logo",
            "defaultContent",
        )
    )
    changes: dict[str, Any] = {}
    if "title" in body:
        changes["title"] = check_string(body["title"], "title", min_length=2, max_length=255)
    if "defaultRole" in body:
        changes["defaultRole"] = check_role(body["defaultRole"], "defaultRole")
    if "emailDomains" in body:
        changes["emailDomains"] = check_string_list(body["emailDomains"], "emailDomains")
    if "hostname" in body:
        changes["hostname"] = check_string(
            body["hostname"], "hostname", min_length=3, max_length=32
        )
    if "inviteLinks" in body:
        changes["inviteLinks"] = check_bool(body["inviteLinks"], "inviteLinks")
    if "mergeRules" in body:
        changes["mergeRules"] = check_merge_rules(body["mergeRules"], allow_inherit=False)
    for flag in ("ai", "sso"):
        if flag in body:
            check_bool(body[flag], flag)
    changed = sorted(k for k, v in changes.items() if record.get(k) != v)
    record.update(changes)
    if changed:
        label = f"{record['title']}: {', '.join(changed)}"
        target = ("organization", org_id, label)
        events.record(ctx.store, org_id, ctx.credential, "organization.settings.updated", target)
    return _org_reply(ctx, record)


def _member_or_404(ctx: Ctx, org_id: str, user_id: str) -> dict[str, Any]:
    record = ctx.store.member(org_id, user_id)
    if record is None:
        raise not_found(f"User {user_id!r} is not a member of organization {org_id!r}.")
    return record


def list_members(ctx: Ctx, org_id: str) -> Reply:
    """GET /orgs/{organizationId}/members -> List of OrganizationMember (current members only)."""
    org_for(ctx, org_id)
    role = ctx.query_enum("role", (*MEMBER_ROLES, "guest"))
    search = (ctx.query("search") or "").lower()
    sort = ctx.query_enum("sort", ("joinedAt", "lastSeenAt", "name"), "joinedAt")
    order = ctx.query_enum("order", ("asc", "desc"), "desc")
    users = ctx.state.users

    def ordered() -> list[str]:
        chosen = []
        for user_id, record in ctx.state.members[org_id].items():
            if role is not None and record["role"] != (None if role == "guest" else role):
                continue
            user = users[user_id]
            if (
                search
                and search not in user["displayName"].lower()
                and search not in user["email"].lower()
            ):
                continue
            chosen.append(user_id)

        def key(user_id: str) -> Any:
            record = ctx.state.members[org_id][user_id]
            if sort == "name":
                return users[user_id]["displayName"].lower()
            return record.get(sort) or ""

        chosen.sort(key=key, reverse=order == "desc")
        return chosen

    # the pages of one query share its list until the next write
    chosen = ctx.store.memo(("members", org_id, role, search, sort, order), ordered)
    return paginate(ctx, chosen, lambda u: render.member_json(ctx.store, org_id, u, ctx.api_base))


def get_member(ctx: Ctx, org_id: str, user_id: str) -> Reply:
    """GET /orgs/{organizationId}/members/{userId} -> OrganizationMember."""
    org_for(ctx, org_id)
    _member_or_404(ctx, org_id, user_id)
    return Reply(200, render.member(ctx.store, org_id, user_id, ctx.api_base))


def _keep_an_admin(ctx: Ctx, org_id: str, user_id: str) -> None:
    """Refuse to take the admin role from ``user_id`` when no other enabled admin is left
    (the organization could no longer be managed by anyone)."""
    members = ctx.state.members[org_id]
    if members[user_id]["role"] != "admin":
        return
    others = [
        other
        for other, record in members.items()
        if other != user_id and record["role"] == "admin" and not record.get("disabled")
    ]
    if not others:
        raise bad_request(
            "An organization needs at least one admin: make another member admin first."
        )


def update_member(ctx: Ctx, org_id: str, user_id: str) -> Reply:
    """PATCH /orgs/{organizationId}/members/{userId}: change the member's role."""
    org_for(ctx, org_id, "admin")
    record = _member_or_404(ctx, org_id, user_id)
    body = ctx.object_body(allowed=("role",))
    if "role" in body:
        role = check_role(body["role"])
        if role != record["role"]:
            if role != "admin":
                _keep_an_admin(ctx, org_id, user_id)
            record["role"] = role
            label = f"{events.principal_label(ctx.store, 'user', user_id)} -> {role or 'guest'}"
            events.record(
                ctx.store,
                org_id,
                ctx.credential,
                "organization.member.updated",
                ("user", user_id, label),
            )
    return Reply(200, render.member(ctx.store, org_id, user_id, ctx.api_base))


def remove_member(ctx: Ctx, org_id: str, user_id: str) -> Reply:
    """DELETE /orgs/{organizationId}/members/{userId}: 205 removed (grants stay), 204 absent."""
    org_for(ctx, org_id, "admin")
    if ctx.store.member(org_id, user_id) is not None:
        _keep_an_admin(ctx, org_id, user_id)
    if not ctx.store.remove_member(org_id, user_id):
        return no_content(204)
    label = events.principal_label(ctx.store, "user", user_id)
    events.record(
        ctx.store, org_id, ctx.credential, "organization.member.removed", ("user", user_id, label)
    )
    return no_content(205)


def member_spaces(ctx: Ctx, org_id: str, user_id: str) -> Reply:
    """GET /orgs/{organizationId}/members/{userId}/spaces -> List of MemberContentPermission."""
    org_for(ctx, org_id)
    _member_or_404(ctx, org_id, user_id)
    pairs = []
    for record in ctx.store.spaces_of_org(org_id):
        role = model.role_of(ctx.state, user_id, "space", record["id"])
        if role is not None:
            pairs.append((role, record))
    return paginate(
        ctx,
        pairs,
        lambda p: {
            "permission": p[0],
            "space": render.space(ctx.store, ctx.credential, p[1], ctx.api_base),
        },
    )


def member_teams(ctx: Ctx, org_id: str, user_id: str) -> Reply:
    """GET /orgs/{organizationId}/members/{userId}/teams -> List of {team, member}."""
    org_for(ctx, org_id)
    _member_or_404(ctx, org_id, user_id)
    title = (ctx.query("title") or "").lower()
    teams = [
        ctx.state.teams[t]
        for t in ctx.store.user_teams(org_id, user_id)
        if title in ctx.state.teams[t]["title"].lower()
    ]
    return paginate(
        ctx,
        teams,
        lambda t: {
            "team": render.team(ctx.store, ctx.credential, t),
            "member": {"role": t["members"][user_id]},
        },
    )


def list_teams(ctx: Ctx, org_id: str) -> Reply:
    """GET /orgs/{organizationId}/teams -> List of OrganizationTeam."""
    org_for(ctx, org_id)
    title = (ctx.query("title") or "").lower()
    owner = ctx.query("owner")
    teams = [
        t
        for t in ctx.state.teams.values()
        if t["organization"] == org_id
        and title in t["title"].lower()
        and (owner is None or t["members"].get(owner) == "owner")
    ]
    return paginate(ctx, teams, lambda t: render.team(ctx.store, ctx.credential, t))


def _check_members(ctx: Ctx, org_id: str, user_ids: list[str]) -> None:
    for user_id in user_ids:
        if ctx.store.member(org_id, user_id) is None:
            raise not_found(f"User {user_id!r} is not a member of organization {org_id!r}.")


def create_team(ctx: Ctx, org_id: str) -> Reply:
    """PUT /orgs/{organizationId}/teams: 201 with the new OrganizationTeam."""
    org_for(ctx, org_id, "admin")
    body = ctx.object_body(allowed=("title", "members"))
    title = check_string(body.get("title"), "title", min_length=1, max_length=64)
    members = check_string_list(body.get("members", []), "members")
    _check_members(ctx, org_id, members)
    team_id = ctx.store.new_id()
    team = {
        "id": team_id,
        "title": title,
        "organization": org_id,
        "createdAt": ctx.store.now_iso(),
        "members": {},
    }
    ctx.state.teams[team_id] = team
    for user_id in members:
        ctx.store.join_team(team_id, user_id)
    events.record(
        ctx.store, org_id, ctx.credential, "organization.team.created", ("team", team_id, title)
    )
    return Reply(201, render.team(ctx.store, ctx.credential, team))


def get_team(ctx: Ctx, org_id: str, team_id: str) -> Reply:
    """GET /orgs/{organizationId}/teams/{teamId} -> OrganizationTeam."""
    org_for(ctx, org_id)
    team = team_for(ctx, org_id, team_id)
    return Reply(200, render.team(ctx.store, ctx.credential, team))


def update_team(ctx: Ctx, org_id: str, team_id: str) -> Reply:
    """PATCH /orgs/{organizationId}/teams/{teamId}: rename the team."""
    org_for(ctx, org_id, "admin")
    team = team_for(ctx, org_id, team_id)
    body = ctx.object_body(allowed=("title",))
    team["title"] = check_string(body.get("title"), "title", min_length=1, max_length=64)
    events.record(
        ctx.store,
        org_id,
        ctx.credential,
        "organization.team.updated",
        ("team", team_id, team["title"]),
    )
    return Reply(200, render.team(ctx.store, ctx.credential, team))


def delete_team(ctx: Ctx, org_id: str, team_id: str) -> Reply:
    """DELETE /orgs/{organizationId}/teams/{teamId}: 205 deleted with its grants, 204 absent."""
    org_for(ctx, org_id, "admin")
    team = ctx.state.teams.get(team_id)
    if team is None or team["organization"] != org_id:
        return no_content(204)
    ctx.store.delete_team(team_id)
    events.record(
        ctx.store,
        org_id,
        ctx.credential,
        "organization.team.deleted",
        ("team", team_id, team["title"]),
    )
    return no_content(205)


def team_members(ctx: Ctx, org_id: str, team_id: str) -> Reply:
    """GET /orgs/{organizationId}/teams/{teamId}/members -> List of OrganizationTeamMember."""
    org_for(ctx, org_id)
    team = team_for(ctx, org_id, team_id)
    return paginate(
        ctx,
        list(team["members"].items()),
        lambda m: {
            "organization": render.member(ctx.store, org_id, m[0], ctx.api_base),
            "team": {"role": m[1]},
            "permissions": {"view": True},
        },
    )


def update_team_members(ctx: Ctx, org_id: str, team_id: str) -> Reply:
    """PUT /orgs/{organizationId}/teams/{teamId}/members: add, remove, set memberships."""
    org_for(ctx, org_id, "admin")
    team = team_for(ctx, org_id, team_id)
    body = ctx.object_body(allowed=("add", "remove", "memberships"))
    add = check_string_list(body.get("add", []), "add")
    remove = check_string_list(body.get("remove", []), "remove")
    memberships = body.get("memberships", {})
    if not isinstance(memberships, dict):
        raise bad_request('memberships must be an object of user id -> {"role": "owner"|"member"}.')
    roles = {}
    for user_id, value in memberships.items():
        if not isinstance(value, dict):
            raise bad_request('memberships values must be objects such as {"role": "member"}.')
        roles[user_id] = check_enum(
            value.get("role"), f"memberships[{user_id!r}].role", TEAM_MEMBER_ROLES
        )
    _check_members(ctx, org_id, [*add, *roles])
    for user_id in add:
        if user_id not in team["members"]:
            _join(ctx, team, user_id, "member")
    for user_id, role in roles.items():
        _join(ctx, team, user_id, role)
    for user_id in remove:
        _leave(ctx, team, user_id)
    return no_content()


def _join(ctx: Ctx, team: dict[str, Any], user_id: str, role: str) -> None:
    if team["members"].get(user_id) == role:
        return
    ctx.store.join_team(team["id"], user_id, role)
    label = f"{team['title']}: {events.principal_label(ctx.store, 'user', user_id)} -> {role}"
    events.record(
        ctx.store,
        team["organization"],
        ctx.credential,
        "organization.team.member-added",
        events.team_member_target(team["id"], user_id, label),
    )


def _leave(ctx: Ctx, team: dict[str, Any], user_id: str) -> bool:
    if not ctx.store.leave_team(team["id"], user_id):
        return False
    label = f"{team['title']}: {events.principal_label(ctx.store, 'user', user_id)}"
    events.record(
        ctx.store,
        team["organization"],
        ctx.credential,
        "organization.team.member-removed",
        events.team_member_target(team["id"], user_id, label),
    )
    return True


def add_team_member(ctx: Ctx, org_id: str, team_id: str, user_id: str) -> Reply:
    """PUT /orgs/{organizationId}/teams/{teamId}/members/{userId}: add a member or set its role."""
    org_for(ctx, org_id, "admin")
    team = team_for(ctx, org_id, team_id)
    user_for(ctx, user_id)
    _check_members(ctx, org_id, [user_id])
    raw = ctx.request.get_data(cache=True)
    body = ctx.object_body(allowed=("role",)) if raw.strip() else {}
    role = check_enum(
        body.get("role", team["members"].get(user_id, "member")), "role", TEAM_MEMBER_ROLES
    )
    _join(ctx, team, user_id, role)
    return no_content()


def remove_team_member(ctx: Ctx, org_id: str, team_id: str, user_id: str) -> Reply:
    """DELETE /orgs/{organizationId}/teams/{teamId}/members/{userId}: 205 removed, 204 absent."""
    org_for(ctx, org_id, "admin")
    team = team_for(ctx, org_id, team_id)
    return no_content(205 if _leave(ctx, team, user_id) else 204)


ROUTES = [
    Route("GET", "/orgs", list_orgs, security("user", "oauth:organization:read")),
    Route("POST", "/orgs", create_org, security("user", "oauth:organization:write")),
    Route("GET", "/orgs/<org_id>", get_org, DEFAULT_SECURITY),
    Route("PATCH", "/orgs/<org_id>", update_org, security("user", "oauth:organization:write")),
    Route("GET", "/orgs/<org_id>/members", list_members, _MEMBERS_READ),
    Route("GET", "/orgs/<org_id>/members/<user_id>", get_member, _MEMBERS_READ),
    Route("PATCH", "/orgs/<org_id>/members/<user_id>", update_member, _MEMBERS_WRITE),
    Route("DELETE", "/orgs/<org_id>/members/<user_id>", remove_member, _MEMBERS_WRITE),
    Route("GET", "/orgs/<org_id>/members/<user_id>/spaces", member_spaces, _MEMBERS_READ),
    Route("GET", "/orgs/<org_id>/members/<user_id>/teams", member_teams, _MEMBERS_READ),
    Route("GET", "/orgs/<org_id>/teams", list_teams, _MEMBERS_READ),
    Route("PUT", "/orgs/<org_id>/teams", create_team, _MEMBERS_WRITE),
    Route("GET", "/orgs/<org_id>/teams/<team_id>", get_team, _MEMBERS_READ),
    Route("PATCH", "/orgs/<org_id>/teams/<team_id>", update_team, _MEMBERS_WRITE),
    Route("DELETE", "/orgs/<org_id>/teams/<team_id>", delete_team, _MEMBERS_WRITE),
    Route("GET", "/orgs/<org_id>/teams/<team_id>/members", team_members, _MEMBERS_READ),
    Route("PUT", "/orgs/<org_id>/teams/<team_id>/members", update_team_members, _MEMBERS_WRITE),
    Route(
        "PUT", "/orgs/<org_id>/teams/<team_id>/members/<user_id>", add_team_member, _MEMBERS_WRITE
    ),
    Route(
        "DELETE",
        "/orgs/<org_id>/teams/<team_id>/members/<user_id>",
        remove_team_member,
        _MEMBERS_WRITE,
    ),
]
