"""Changes of who can reach what, shared by the API routes and the sandbox's own controls.

Each change updates the grant tables (and so their indexes) and records an audit event.
"""

from __future__ import annotations

from typing import Literal

from docsapi.sandbox.core import _events as events
from docsapi.sandbox.core._auth import Credential
from docsapi.sandbox.core._grants import GrantTable
from docsapi.sandbox.core._ids import new_hex
from docsapi.sandbox.core._state import Record, State
from docsapi.sandbox.core._store import Store

TargetKind = Literal["space", "collection", "site"]
PrincipalKind = Literal["user", "team"]


def grant_table(state: State, kind: TargetKind, principal: PrincipalKind) -> GrantTable:
    """The table holding ``principal`` grants on ``kind`` targets."""
    tables = {
        ("space", "user"): state.space_users,
        ("space", "team"): state.space_teams,
        ("collection", "user"): state.collection_users,
        ("collection", "team"): state.collection_teams,
        ("site", "user"): state.site_users,
        ("site", "team"): state.site_teams,
    }
    return tables[(kind, principal)]


def target_record(state: State, kind: TargetKind, target_id: str) -> Record:
    """The active space, collection or site ``target_id`` (KeyError when there is none)."""
    found = {"space": state.spaces, "collection": state.collections, "site": state.sites}[kind]
    return found[target_id]


def set_grant(
    store: Store,
    credential: Credential | None,
    kind: TargetKind,
    target_id: str,
    principal: PrincipalKind,
    principal_id: str,
    role: str | None,
) -> str | None:
    """Give ``principal_id`` ``role`` on a target (None removes the grant).

    Records ``<kind>.permission.added`` / ``.updated`` / ``.removed`` when something changed.

    Returns
    -------
    str or None
        The role held before.
    """
    record = target_record(store.state, kind, target_id)
    org_id = record["organization"]
    previous = grant_table(store.state, kind, principal).set(org_id, target_id, principal_id, role)
    if previous != role:
        verb = "added" if previous is None else "removed" if role is None else "updated"
        name = events.principal_label(store, principal, principal_id)
        label = f"{record['title']}: {name} -> {role or 'no access'}"
        target = events.permission_target(kind, target_id, principal, principal_id, label)
        events.record(store, org_id, credential, f"{kind}.permission.{verb}", target)
    return previous


def site_event(
    store: Store, credential: Credential | None, site: Record, action: str, label: str
) -> None:
    """Record an event about a site."""
    target = ("site", site["id"], label)
    events.record(store, site["organization"], credential, action, target)


def set_published(
    store: Store, credential: Credential | None, site: Record, published: bool
) -> None:
    """Publish or unpublish a site (``site.published`` / ``site.unpublished`` when it changes)."""
    if site["published"] != published:
        site["published"] = published
        action = "site.published" if published else "site.unpublished"
        site_event(store, credential, site, action, site["title"])


def create_share_link(
    store: Store, credential: Credential | None, site: Record, name: str
) -> Record:
    """Add an active share link, made now, to a site; return its record."""
    link_id = "sl_" + store.new_id(16)
    link = {
        "id": link_id,
        "name": name,
        "key": new_hex(store.state.rng, 32),
        "active": True,
        "createdAt": store.now_iso(),
    }
    store.state.share_links[site["id"]][link_id] = link
    share_link_event(store, credential, site, link, "site.share-link.created")
    return link


def share_link_event(
    store: Store, credential: Credential | None, site: Record, link: Record, action: str
) -> None:
    """Record an event about a share link (its target: the link, named after its site)."""
    target = ("share-link", link["id"], f"{site['title']}: {link['name']}")
    events.record(store, site["organization"], credential, action, target)


def set_share_link_active(
    store: Store, credential: Credential | None, site: Record, link: Record, active: bool
) -> None:
    """Activate or deactivate a share link (an event when it changes)."""
    if link["active"] != active:
        link["active"] = active
        share_link_event(store, credential, site, link, "site.share-link.updated")
