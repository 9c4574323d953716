"""Who reaches which content, as ``docs/access-model.md`` writes it down.

This is the sandbox's own reading of the access model: the platform's answer to
``permissions/aggregate`` and the role every request is authorized with. It reads the
state only (no HTTP, no client code), so an audit computed from the API can be checked
against it.

A user's **paths** to a space or collection are the ways the model gives them a role there
(``org-admin``, ``default:<level>``, ``default:inherit``, ``direct``, ``team:<id>``,
``collection:<id>``, ``collection-team:<collection id>/<team id>``); their **role** is the
highest role over those paths.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal

from docsapi.sandbox.core._grants import GrantTable
from docsapi.sandbox.core._roles import rank, strongest
from docsapi.sandbox.core._state import Record, State

Kind = Literal["space", "collection"]
#: What a default level resolves to when every level up to the top is ``inherit``.
ORGANIZATION_ROLE = "inherit"


def record_of(state: State, kind: Kind, target_id: str) -> Record:
    """The active space or collection ``target_id`` (KeyError when there is none)."""
    return state.spaces[target_id] if kind == "space" else state.collections[target_id]


def ancestors(state: State, record: Record) -> list[str]:
    """Ids of the collections above a space or collection, nearest first."""
    chain: list[str] = []
    parent = record.get("parent")
    while parent is not None and parent not in chain:
        chain.append(parent)
        parent = state.collections[parent].get("parent")
    return chain


def resolve_default(state: State, record: Record) -> str | None:
    """The default level that decides for a space or collection.

    Follows ``inherit`` up through the parent collections. Returns a role, None (no default
    access: the content is private to those granted explicitly) or
    :data:`ORGANIZATION_ROLE` when it resolves to each member's own organization role.
    """
    level = record["defaultLevel"]
    for collection_id in ancestors(state, record):
        if level != "inherit":
            break
        level = state.collections[collection_id]["defaultLevel"]
    return level  # still "inherit" at the top: ORGANIZATION_ROLE


def tables(state: State, kind: Kind) -> tuple[GrantTable, GrantTable]:
    """The (user, team) grant tables of spaces or of collections."""
    if kind == "space":
        return state.space_users, state.space_teams
    return state.collection_users, state.collection_teams


def _explicit_sources(
    state: State, kind: Kind, target_id: str, record: Record
) -> Iterator[tuple[GrantTable, GrantTable, str, str | None]]:
    """(user table, team table, holder id, collection id or None) of each level of grants."""
    users, teams = tables(state, kind)
    yield users, teams, target_id, None
    for collection_id in ancestors(state, record):
        yield state.collection_users, state.collection_teams, collection_id, collection_id


def paths(state: State, user_id: str, kind: Kind, target_id: str) -> list[tuple[str, str]]:
    """Every (source, role) by which ``user_id`` reaches a space or collection.

    Examples
    --------
    >>> from docsapi.sandbox.demo._build import build_demo
    >>> state, facts = build_demo(0)
    >>> space, user = facts["guest_write"][0]
    >>> paths(state, user, "space", space)
    [('direct', 'edit')]
    """
    record = record_of(state, kind, target_id)
    org_id = record["organization"]
    member = state.members.get(org_id, {}).get(user_id)
    if member is not None and member["disabled"]:
        return []
    found: list[tuple[str, str]] = []
    if member is not None and member["role"] is not None:
        if member["role"] == "admin":
            found.append(("org-admin", "admin"))
        level = resolve_default(state, record)
        if level == ORGANIZATION_ROLE:
            found.append(("default:inherit", member["role"]))
        elif level is not None:
            found.append((f"default:{level}", level))
    for users, teams, holder, collection_id in _explicit_sources(state, kind, target_id, record):
        own = users.role(holder, user_id)
        if own is not None:
            found.append(("direct" if collection_id is None else f"collection:{holder}", own))
        for team_id, role in teams.on(holder).items():
            if user_id in state.teams[team_id]["members"]:
                source = (
                    f"team:{team_id}"
                    if collection_id is None
                    else f"collection-team:{holder}/{team_id}"
                )
                found.append((source, role))
    return found


def role_of(state: State, user_id: str, kind: Kind, target_id: str) -> str | None:
    """The effective role of ``user_id`` on a space or collection (None: no access)."""
    org_id = record_of(state, kind, target_id)["organization"]
    member = state.members.get(org_id, {}).get(user_id)
    if member is not None and member["role"] == "admin" and not member["disabled"]:
        return "admin"  # nothing is higher: the other paths need not be looked at
    best: str | None = None
    for _, role in paths(state, user_id, kind, target_id):
        if rank(role) > rank(best):
            best = role
    return best


def access(state: State, kind: Kind, target_id: str) -> dict[str, str]:
    """User id -> effective role for everyone who reaches a space or collection.

    This is what ``GET /spaces/{spaceId}/permissions/aggregate`` (and the collection's)
    lists: members through the organization role and default levels, then everyone holding
    an explicit permission on the content or an ancestor collection, directly or through a
    team; disabled members never.
    """
    record = record_of(state, kind, target_id)
    members = state.members.get(record["organization"], {})
    level = resolve_default(state, record)
    roles: dict[str, str] = {}
    for user_id, member in members.items():
        org_role = member["role"]
        if member["disabled"] or org_role is None:
            continue
        if org_role == "admin":
            roles[user_id] = "admin"
        elif level == ORGANIZATION_ROLE:
            roles[user_id] = org_role
        elif level is not None:
            roles[user_id] = level

    def give(user_id: str, role: str) -> None:
        member = members.get(user_id)
        if member is not None and member["disabled"]:
            return
        if rank(role) > rank(roles.get(user_id)):
            roles[user_id] = role

    for users, teams, holder, _ in _explicit_sources(state, kind, target_id, record):
        for user_id, role in users.on(holder).items():
            give(user_id, role)
        for team_id, role in teams.on(holder).items():
            for user_id in state.teams[team_id]["members"]:
                give(user_id, role)
    return roles


def site_role(state: State, user_id: str, site_id: str) -> str | None:
    """The role a user holds on a site (administering it, not reading its content).

    Organization admins are site admins; members get the site's default level (``inherit``:
    their organization role); user and team site permissions add to that. Disabled members
    hold nothing.
    """
    site = state.sites[site_id]
    member = state.members.get(site["organization"], {}).get(user_id)
    if member is not None and member["disabled"]:
        return None
    roles: list[str | None] = []
    if member is not None and member["role"] is not None:
        level = site["defaultLevel"]
        roles.append(
            "admin"
            if member["role"] == "admin"
            else member["role"]
            if level == "inherit"
            else level
        )
    roles.append(state.site_users.role(site_id, user_id))
    for team_id, role in state.site_teams.on(site_id).items():
        if user_id in state.teams[team_id]["members"]:
            roles.append(role)
    return strongest(roles)
