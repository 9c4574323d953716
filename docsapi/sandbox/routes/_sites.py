"""Sites: list, read, update (see ``_site_settings``), publish and unpublish, their site
spaces, share links, visitor authentication and permissions.

Reading a site needs membership of its organization; changing it, its share links or its
permissions and reading its secrets need the ``admin`` role on the site.
"""

from __future__ import annotations

from typing import Any

from docsapi.sandbox.core import _access_changes as changes
from docsapi.sandbox.core._auth import DEFAULT_SECURITY, security
from docsapi.sandbox.core._errors import bad_request, not_found
from docsapi.sandbox.core._permission_model import SiteRole, site_access, site_role
from docsapi.sandbox.core._roles import MEMBER_ROLES
from docsapi.sandbox.core._state import Record
from docsapi.sandbox.core._web import Ctx, Reply, Route, no_content, paginate
from docsapi.sandbox.routes import _render_access as render_access
from docsapi.sandbox.routes._access import org_for, site_for
from docsapi.sandbox.routes._checks import (
    check_bool,
    check_enum,
    check_string,
    role_change,
)
from docsapi.sandbox.routes._site_settings import update_site

SITE_TYPES = ("basic", "premium", "ultimate", "sponsored", "legacy-basic", "legacy-premium")
_SITE = "/orgs/<org_id>/sites/<site_id>"


def _site_reply(ctx: Ctx, record: Record) -> Reply:
    return Reply(200, render_access.site(ctx.store, ctx.credential, record, ctx.api_base))


def _event(ctx: Ctx, record: Record, action: str, label: str) -> None:
    changes.site_event(ctx.store, ctx.credential, record, action, label)


def _can_see(ctx: Ctx, record: Record) -> bool:
    user_id = ctx.credential.user_id
    return user_id is None or site_role(ctx.state, user_id, record["id"]) is not None


def list_sites(ctx: Ctx, org_id: str) -> Reply:
    """GET /orgs/{organizationId}/sites -> List of Site (filters: space, title, published, type)."""
    org_for(ctx, org_id)
    space = ctx.query("space")
    title = (ctx.query("title") or "").lower()
    published = ctx.request.args.get("published")
    wanted_published = None if published is None else ctx.query_bool("published", True)
    types = ctx.request.args.getlist("type")
    for kind in types:
        check_enum(kind, "type", SITE_TYPES)
    records = [
        r
        for r in ctx.state.sites.values()
        if r["organization"] == org_id
        and title in r["title"].lower()
        and (wanted_published is None or r["published"] == wanted_published)
        and (not types or r["type"] in types)
        and (space is None or any(s["space"] == space for s in ctx.state.site_spaces[r["id"]]))
        and _can_see(ctx, r)
    ]
    return paginate(
        ctx, records, lambda r: render_access.site(ctx.store, ctx.credential, r, ctx.api_base)
    )


def get_site(ctx: Ctx, org_id: str, site_id: str) -> Reply:
    """GET /orgs/{organizationId}/sites/{siteId} -> Site."""
    return _site_reply(ctx, site_for(ctx, org_id, site_id, "read"))


def publish(ctx: Ctx, org_id: str, site_id: str) -> Reply:
    """POST .../publish: the site goes live (its audience follows its visibility)."""
    return _set_published(ctx, site_for(ctx, org_id, site_id, "admin"), True)


def unpublish(ctx: Ctx, org_id: str, site_id: str) -> Reply:
    """POST .../unpublish: the site goes offline."""
    return _set_published(ctx, site_for(ctx, org_id, site_id, "admin"), False)


def _set_published(ctx: Ctx, record: Record, published: bool) -> Reply:
    changes.set_published(ctx.store, ctx.credential, record, published)
    return _site_reply(ctx, record)


def site_spaces(ctx: Ctx, org_id: str, site_id: str) -> Reply:
    """GET .../site-spaces -> List of SiteSpace (``shareKey`` completes published addresses)."""
    record = site_for(ctx, org_id, site_id, "read")
    default = None if "default" not in ctx.request.args else ctx.query_bool("default", True)
    items = [
        s
        for s in ctx.state.site_spaces[site_id]
        if s["space"] in ctx.state.spaces and (default is None or s["default"] == default)
    ]
    share_key = ctx.query("shareKey")
    return paginate(
        ctx,
        items,
        lambda s: render_access.site_space(
            ctx.store, ctx.credential, record, s, ctx.api_base, share_key
        ),
    )


# -- share links ------------------------------------------------------------------------------
def _link_or_404(ctx: Ctx, site_id: str, link_id: str) -> Record:
    link = ctx.state.share_links[site_id].get(link_id)
    if link is None:
        raise not_found(f"Share link {link_id!r} not found on site {site_id!r}.")
    return link


def list_share_links(ctx: Ctx, org_id: str, site_id: str) -> Reply:
    """GET .../share-links -> List of ShareLink (``search`` matches a name or key)."""
    record = site_for(ctx, org_id, site_id, "admin")
    search = (ctx.query("search") or "").lower()
    links = [
        link
        for link in ctx.state.share_links[site_id].values()
        if search in link["name"].lower() or search in link["key"]
    ]
    return paginate(ctx, links, lambda link: render_access.share_link(ctx.store, record, link))


def create_share_link(ctx: Ctx, org_id: str, site_id: str) -> Reply:
    """POST .../share-links: 201 with a new active ShareLink."""
    record = site_for(ctx, org_id, site_id, "admin")
    body = ctx.object_body(allowed=("name",))
    if "name" not in body:
        raise bad_request("name is required (0 to 50 characters).")
    name = check_string(body["name"], "name", max_length=50)
    link = changes.create_share_link(ctx.store, ctx.credential, record, name)
    location = f"{ctx.api_base}/orgs/{org_id}/sites/{site_id}/share-links/{link['id']}"
    body_out = render_access.share_link(ctx.store, record, link)
    return Reply(201, body_out, {"Location": location})


def update_share_link(ctx: Ctx, org_id: str, site_id: str, link_id: str) -> Reply:
    """PATCH .../share-links/{shareLinkId}: ``active`` and/or ``name``."""
    record = site_for(ctx, org_id, site_id, "admin")
    link = _link_or_404(ctx, site_id, link_id)
    body = ctx.object_body(allowed=("active", "name"))
    if not body:
        raise bad_request("Send at least one of active, name.")
    if "name" in body:
        link["name"] = check_string(body["name"], "name", max_length=50)
    if "active" in body:
        active = check_bool(body["active"], "active")
        changes.set_share_link_active(ctx.store, ctx.credential, record, link, active)
    return Reply(200, render_access.share_link(ctx.store, record, link))


def delete_share_link(ctx: Ctx, org_id: str, site_id: str, link_id: str) -> Reply:
    """DELETE .../share-links/{shareLinkId}: 205 deleted now, 204 absent."""
    record = site_for(ctx, org_id, site_id, "admin")
    link = ctx.state.share_links[site_id].pop(link_id, None)
    if link is None:
        return no_content(204)
    changes.share_link_event(ctx.store, ctx.credential, record, link, "site.share-link.deleted")
    return no_content(205)


def publishing_auth(ctx: Ctx, org_id: str, site_id: str) -> Reply:
    """GET .../publishing/auth -> SitePublishingAuth (400 unless visitors authenticate)."""
    record = site_for(ctx, org_id, site_id, "admin")
    auth = ctx.state.site_auth.get(site_id)
    if record["visibility"] != "visitor-auth" or auth is None:
        raise bad_request(
            f"Site {site_id!r} does not authenticate its visitors (visibility "
            f"{record['visibility']!r}); set visibility to visitor-auth first."
        )
    return Reply(200, render_access.publishing_auth(auth))


# -- site permissions ----------------------------------------------------------------------
def list_users(ctx: Ctx, org_id: str, site_id: str) -> Reply:
    """GET .../permissions/users -> List of UserSitePermissionOverride."""
    site_for(ctx, org_id, site_id, "read")
    grants = list(ctx.state.site_users.on(site_id).items())
    return paginate(ctx, grants, lambda g: render_access.user_grant(ctx, g))


def list_teams(ctx: Ctx, org_id: str, site_id: str) -> Reply:
    """GET .../permissions/teams -> List of TeamSitePermissionOverride."""
    site_for(ctx, org_id, site_id, "read")
    grants = list(ctx.state.site_teams.on(site_id).items())
    return paginate(ctx, grants, lambda g: render_access.team_grant(ctx, g))


def aggregate(ctx: Ctx, org_id: str, site_id: str) -> Reply:
    """GET .../permissions/aggregate -> List of UserSitePermission: everyone's role on the site.

    Filters: ``role`` (a role or ``guest``), ``search`` (name or email), ``team`` (its
    members); sorted by ``sort`` (joinedAt, lastSeenAt, name) in ``order``. Disabled members
    are listed with ``disabled: true``.
    """
    site_for(ctx, org_id, site_id, "read")
    role = ctx.query_enum("role", (*MEMBER_ROLES, "guest"))
    search = (ctx.query("search") or "").lower()
    sort = ctx.query_enum("sort", ("joinedAt", "lastSeenAt", "name"), "joinedAt")
    order = ctx.query_enum("order", ("asc", "desc"), "desc")
    team_id = ctx.query("team")
    team = ctx.state.teams.get(team_id) if team_id is not None else None
    members = ctx.state.members[org_id]
    users = ctx.state.users

    def ordered() -> list[tuple[str, SiteRole]]:
        chosen = []
        for user_id, held in site_access(ctx.state, site_id).items():
            user = users[user_id]
            if role is not None and held.role != (None if role == "guest" else role):
                continue
            if search and not any(search in user[k].lower() for k in ("displayName", "email")):
                continue
            if team_id is not None and (team is None or user_id not in team["members"]):
                continue
            chosen.append((user_id, held))

        def key(entry: tuple) -> Any:
            user_id = entry[0]
            if sort == "name":
                return users[user_id]["displayName"].lower()
            return (members.get(user_id) or {}).get(sort) or ""

        chosen.sort(key=key, reverse=order == "desc")
        return chosen

    # everyone's role is worked out once per state: the pages share it until the next write
    query = ("site access", site_id, role, search, sort, order, team_id)
    chosen = ctx.store.memo(query, ordered)
    return paginate(ctx, chosen, lambda e: render_access.site_permission(ctx, org_id, site_id, *e))


def _site_role_change(ctx: Ctx) -> dict[str, str | None]:
    return role_change(ctx.object_body(allowed=("role",)), guest=False)


def _org_team(ctx: Ctx, org_id: str, team_id: str) -> Record | None:
    team = ctx.state.teams.get(team_id)
    return team if team is not None and team["organization"] == org_id else None


def update_user(ctx: Ctx, org_id: str, site_id: str, user_id: str) -> Reply:
    """PATCH .../permissions/users/{userId}: set the user's role on the site (no role:
    nothing changes)."""
    site_for(ctx, org_id, site_id, "admin")
    change = _site_role_change(ctx)
    if user_id not in ctx.state.users:
        raise not_found(f"User {user_id!r} not found.")
    if "role" in change:
        role = change["role"]
        changes.set_grant(ctx.store, ctx.credential, "site", site_id, "user", user_id, role)
    return no_content()


def update_team(ctx: Ctx, org_id: str, site_id: str, team_id: str) -> Reply:
    """PATCH .../permissions/teams/{teamId}: set the team's role on the site (no role:
    nothing changes)."""
    site_for(ctx, org_id, site_id, "admin")
    change = _site_role_change(ctx)
    if _org_team(ctx, org_id, team_id) is None:
        raise not_found(f"Team {team_id!r} not found in organization {org_id!r}.")
    if "role" in change:
        role = change["role"]
        changes.set_grant(ctx.store, ctx.credential, "site", site_id, "team", team_id, role)
    return no_content()


def remove_user(ctx: Ctx, org_id: str, site_id: str, user_id: str) -> Reply:
    """DELETE .../permissions/users/{userId}: 205 removed now, 204 not there."""
    site_for(ctx, org_id, site_id, "admin")
    removed = changes.set_grant(ctx.store, ctx.credential, "site", site_id, "user", user_id, None)
    return no_content(205 if removed is not None else 204)


def remove_team(ctx: Ctx, org_id: str, site_id: str, team_id: str) -> Reply:
    """DELETE .../permissions/teams/{teamId}: 205 removed, 204 no grant, 400 foreign team."""
    site_for(ctx, org_id, site_id, "admin")
    if _org_team(ctx, org_id, team_id) is None:
        raise bad_request(f"Team {team_id!r} is not a team of organization {org_id!r}.")
    removed = changes.set_grant(ctx.store, ctx.credential, "site", site_id, "team", team_id, None)
    return no_content(205 if removed is not None else 204)


_READ = security("user", "oauth:site:read")
_WRITE = security("user", "oauth:site:write")
_AUTH_READ = security("user", "oauth:site:auth:read")
_AUTH_WRITE = security("user", "oauth:site:auth:write")
_PERMISSIONS_READ = security("user", "oauth:site:permissions:read")
_PERMISSIONS_WRITE = security("user", "oauth:site:permissions:write")
_PUBLISH = security("user", "oauth:site:publish")
ROUTES = [
    Route("GET", "/orgs/<org_id>/sites", list_sites, _READ),
    Route("GET", _SITE, get_site, DEFAULT_SECURITY),
    Route("PATCH", _SITE, update_site, _WRITE),
    Route("POST", f"{_SITE}/publish", publish, _PUBLISH),
    Route("POST", f"{_SITE}/unpublish", unpublish, _PUBLISH),
    Route("GET", f"{_SITE}/site-spaces", site_spaces, _READ),
    Route("GET", f"{_SITE}/share-links", list_share_links, _AUTH_READ),
    Route("POST", f"{_SITE}/share-links", create_share_link, _AUTH_WRITE),
    Route("PATCH", f"{_SITE}/share-links/<link_id>", update_share_link, _AUTH_WRITE),
    Route("DELETE", f"{_SITE}/share-links/<link_id>", delete_share_link, _AUTH_WRITE),
    Route("GET", f"{_SITE}/publishing/auth", publishing_auth, _AUTH_READ),
    Route("GET", f"{_SITE}/permissions/users", list_users, _PERMISSIONS_READ),
    Route("GET", f"{_SITE}/permissions/teams", list_teams, _PERMISSIONS_READ),
    Route("GET", f"{_SITE}/permissions/aggregate", aggregate, _PERMISSIONS_READ),
    Route("PATCH", f"{_SITE}/permissions/users/<user_id>", update_user, _PERMISSIONS_WRITE),
    Route("PATCH", f"{_SITE}/permissions/teams/<team_id>", update_team, _PERMISSIONS_WRITE),
    Route("DELETE", f"{_SITE}/permissions/users/<user_id>", remove_user, _PERMISSIONS_WRITE),
    Route("DELETE", f"{_SITE}/permissions/teams/<team_id>", remove_team, _PERMISSIONS_WRITE),
]
