"""API-shaped JSON for collections, sites, share links, invite links and publishing auth."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from docsapi.sandbox.core._auth import Credential
from docsapi.sandbox.core._permission_model import SiteRole, site_role
from docsapi.sandbox.core._roles import at_least
from docsapi.sandbox.core._state import Record
from docsapi.sandbox.core._store import Store
from docsapi.sandbox.routes import _render as render

if TYPE_CHECKING:
    from docsapi.sandbox.core._web import Ctx

#: Features every sandbox site reports (the API requires the list).
_FEATURES = {
    "basic": ["sites-basic-customization", "sites-public-visibility", "sites-unlisted-visibility"],
    "premium": [
        "sites-basic-customization",
        "sites-public-visibility",
        "sites-unlisted-visibility",
        "sites-share-links",
        "sites-visitor-authentication",
    ],
}


def collection(
    store: Store, credential: Credential, record: Record, api_base: str
) -> dict[str, Any]:
    """A Collection, with the caller's permissions on it."""
    collection_id, org_id = record["id"], record["organization"]
    role = render.viewer_role(store, credential, org_id, collection_id, "collection")
    body: dict[str, Any] = {
        "object": "collection",
        "id": collection_id,
        "title": record["title"],
        "organization": org_id,
        "defaultLevel": record["defaultLevel"],
        "urls": {
            "app": f"{render.APP_URL}/o/{org_id}/c/{collection_id}/",
            "location": f"{api_base}/collections/{collection_id}",
        },
        "permissions": {
            "view": role is not None,
            "admin": role == "admin",
            "viewInviteLinks": role == "admin",
            "create": at_least(role, "create"),
        },
    }
    if record.get("parent"):
        body["parent"] = record["parent"]
    if record.get("description"):
        body["description"] = record["description"]
    return body


def site_url(store: Store, record: Record) -> str:
    """Where a site is (or would be) published."""
    hostname = store.state.orgs[record["organization"]]["hostname"]
    return f"https://{hostname}.sandbox.invalid/{record['basename']}/"


def site(store: Store, credential: Credential, record: Record, api_base: str) -> dict[str, Any]:
    """A Site, with the caller's permissions on it (and its proxy and style guide, if set)."""
    site_id, org_id = record["id"], record["organization"]
    role = (
        "admin"
        if credential.user_id is None
        else site_role(store.state, credential.user_id, site_id)
    )
    published_at = site_url(store, record)
    urls = {
        "app": f"{render.APP_URL}/o/{org_id}/sites/{site_id}/",
        "location": f"{api_base}/orgs/{org_id}/sites/{site_id}",
        "preview": f"{published_at}~preview/",
    }
    if record["published"]:
        urls["published"] = published_at
    kind = record["type"]
    body: dict[str, Any] = {
        "object": "site",
        "id": site_id,
        "type": kind,
        "appliedType": kind,
        "title": record["title"],
        "hostname": f"{store.state.orgs[org_id]['hostname']}.sandbox.invalid",
        "basename": record["basename"],
        "visibility": record["visibility"],
        "defaultLevel": record["defaultLevel"],
        "permissions": {
            "view": role is not None,
            "access": role is not None,
            "edit": at_least(role, "edit"),
            "create": at_least(role, "create"),
            "admin": role == "admin",
            "installIntegration": role == "admin",
            "viewAdaptiveSchema": role is not None,
            "editAdaptiveSchema": at_least(role, "edit"),
        },
        "published": record["published"],
        "siteSpaces": len(store.state.site_spaces.get(site_id, [])),
        "createdAt": record["createdAt"],
        "features": [
            {"id": feature, "plan": kind, "frozen": False}
            for feature in _FEATURES.get(kind, _FEATURES["basic"])
        ],
        "urls": urls,
        "adaptiveContent": {"enabled": record.get("adaptiveContent", False)},
    }
    if record.get("proxy"):
        body["proxy"] = {"origin": record["proxy"], "target": published_at}
    if record.get("styleguide"):
        body["styleguide"] = {"kind": "space", "space": record["styleguide"]}
    return body


def site_space(
    store: Store,
    credential: Credential,
    site_record: Record,
    record: Record,
    api_base: str,
    share_key: str | None = None,
) -> dict[str, Any]:
    """A SiteSpace: a space as a site publishes it (the share key completes its address); on a
    site with sections, ``section`` names its section and ``default`` says whether it is that
    section's default."""
    published = f"{site_url(store, site_record)}{record['path']}/"
    if share_key:
        published += f"?share={share_key}"
    space_record = store.state.spaces[record["space"]]
    body: dict[str, Any] = {
        "object": "site-space",
        "id": record["id"],
        "path": record["path"],
        "space": render.space(store, credential, space_record, api_base),
        "title": record["title"],
        "default": record["default"],
        "draft": record["draft"],
        "urls": {"published": published},
    }
    if "section" in record:
        body["section"] = record["section"]
    if "pageId" in record:
        body["pageId"] = record["pageId"]
    return body


def site_section(
    store: Store, credential: Credential, site_record: Record, record: Record, api_base: str
) -> dict[str, Any]:
    """A SiteSection with its site spaces (the published address only once the site is)."""
    items = store.state.site_spaces.get(site_record["id"], [])
    body: dict[str, Any] = {
        "object": "site-section",
        "id": record["id"],
        "title": record["title"],
        "path": record["path"],
        "default": record["default"],
        "draft": record.get("draft", False),
        "siteSpaces": [
            site_space(store, credential, site_record, item, api_base)
            for item in items
            if item.get("section") == record["id"] and item["space"] in store.state.spaces
        ],
        "urls": (
            {"published": f"{site_url(store, site_record)}{record['path']}/"}
            if site_record["published"]
            else {}
        ),
    }
    if record.get("icon") is not None:
        body["icon"] = record["icon"]
    return body


def share_link(store: Store, site_record: Record, record: Record) -> dict[str, Any]:
    """A ShareLink; its published address carries the link's secret key."""
    return {
        "object": "share-link",
        "id": record["id"],
        "createdAt": record["createdAt"],
        "name": record["name"],
        "active": record["active"],
        "urls": {"published": f"{site_url(store, site_record)}?share={record['key']}"},
    }


def publishing_auth(record: Record) -> dict[str, Any]:
    """A SitePublishingAuth (its ``privateKey`` signs visitors' tokens: a secret)."""
    return {"object": "publishing-auth", **record}


def invite(store: Store, credential: Credential, record: Record, api_base: str) -> dict[str, Any]:
    """An invite link: to the organization (``role``), to a space or a collection (``level``)."""
    body: dict[str, Any] = {"object": "invite", "id": record["id"], "redundant": False}
    if "role" in record:
        body["role"] = record["role"]
    elif "space" in record:
        body["level"] = record["level"]
        body["space"] = render.space(
            store, credential, store.state.spaces[record["space"]], api_base
        )
    else:
        body["level"] = record["level"]
        body["collection"] = collection(
            store, credential, store.state.collections[record["collection"]], api_base
        )
    return body


def user_grant(ctx: Ctx, grant: tuple[str, str]) -> dict[str, Any]:
    """A ``(user id, role)`` grant as a list item: ``{permission, user}``."""
    return {"permission": grant[1], "user": render.user_json(ctx.store, grant[0], ctx.api_base)}


def site_permission(
    ctx: Ctx, org_id: str, site_id: str, user_id: str, held: SiteRole
) -> dict[str, Any]:
    """A user's role on a site as a ``UserSitePermission`` (with where it comes from)."""
    origin: dict[str, Any] = (
        {"type": "organization", "organization": org_id}
        if held.origin == "organization"
        else {"type": "site", "site": site_id, "reason": held.reason}
    )
    if held.team_id is not None:
        origin["team"] = held.team_id
    member = ctx.store.member(org_id, user_id)
    body: dict[str, Any] = {
        "permission": held.role,
        "user": render.user(ctx.state.users[user_id], ctx.api_base),
        "origin": origin,
        "disabled": bool(member is not None and member["disabled"]),
    }
    if member is not None and member.get("lastSeenAt"):
        body["lastSeenAt"] = member["lastSeenAt"]
    return body


def team_grant(ctx: Ctx, grant: tuple[str, str]) -> dict[str, Any]:
    """A ``(team id, role)`` grant as a list item: ``{permission, team}``."""
    team = ctx.state.teams[grant[0]]
    return {"permission": grant[1], "team": render.team(ctx.store, ctx.credential, team)}
