"""Who reaches which content, as ``docs/access-model.md`` writes it down.

This is the sandbox's own reading of the access model: the platform's answer to
``permissions/aggregate`` and the role every request is authorized with. It reads the
state only (no HTTP, no client code), so an audit computed from the API can be checked
against it.

A user's **paths** to a space or collection are the ways the model gives them a role there
(``org-admin``, ``default:<level>``, ``default:inherit``, ``creator``,
``creator:<collection id>``, ``direct``, ``team:<id>``, ``collection:<id>``,
``collection-team:<collection id>/<team id>``, and for a space that inherits its
permissions ``site:<site id>``, ``site-team:<site id>/<team id>``,
``site-default:<site id>``). How they combine is the organization's rule set
(``State.rule_set``):

- ``precedence``: the levels are walked nearest first: the content itself, the sites linking
  it (a space in inherited mode only), its collections from the nearest up, the organization.
  At each level a user's own or team permission comes first, then the level's default level;
  a default level other than ``inherit`` decides for every member and ends the walk. A
  ``null`` default is "No access": only the creator of that space or collection keeps their
  organization role there.
- ``highest``: every path counts and the highest role wins.

Organization admins are admin everywhere; disabled members reach nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from docsapi.core.rule_sets import RULE_SETS
from docsapi.sandbox.core._grants import GrantTable
from docsapi.sandbox.core._roles import rank, strongest
from docsapi.sandbox.core._state import Record, State

Kind = Literal["space", "collection"]
#: What a default level resolves to when every level up to the top is ``inherit``.
ORGANIZATION_ROLE = "inherit"


def check_rule_set(rule_set: object) -> str:
    """``rule_set`` when it names a rule set; ValueError saying which exist otherwise."""
    if rule_set not in RULE_SETS:
        raise ValueError(f"model must be one of {', '.join(RULE_SETS)}; got {rule_set!r:.60}")
    return str(rule_set)


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
    """The default level that decides for a space or collection through its collections.

    Follows ``inherit`` up through the parent collections. Returns a role, None (no default
    access: the content is private to those granted explicitly) or
    :data:`ORGANIZATION_ROLE` when it resolves to each member's own organization role.
    """
    return _resolve_default_at(state, record)[0]


def _resolve_default_at(state: State, record: Record) -> tuple[str | None, str | None]:
    """The resolved default level, and the id of the content that sets it (None: the top)."""
    level, where = record["defaultLevel"], record["id"]
    for collection_id in ancestors(state, record):
        if level != "inherit":
            break
        level, where = state.collections[collection_id]["defaultLevel"], collection_id
    return level, (None if level == "inherit" else where)


def linked_sites(state: State, kind: Kind, record: Record) -> list[str]:
    """Sites whose permissions reach a space: those linking it, while it inherits."""
    if kind != "space" or record["defaultLevel"] != "inherit":
        return []
    return [
        site_id
        for site_id, items in state.site_spaces.items()
        if any(item["space"] == record["id"] for item in items)
    ]


def tables(state: State, kind: Kind) -> tuple[GrantTable, GrantTable]:
    """The (user, team) grant tables of spaces or of collections."""
    if kind == "space":
        return state.space_users, state.space_teams
    return state.collection_users, state.collection_teams


def _member(state: State, org_id: str, user_id: str) -> Record | None:
    return state.members.get(org_id, {}).get(user_id)


def _explicit(
    state: State, user_id: str, users: GrantTable, teams: GrantTable, holder: str
) -> Iterator[tuple[str | None, str]]:
    """(team id or None for the user's own grant, role) of ``user_id``'s grants on ``holder``."""
    own = users.role(holder, user_id)
    if own is not None:
        yield None, own
    for team_id, role in teams.on(holder).items():
        if user_id in state.teams[team_id]["members"]:
            yield team_id, role


def paths(state: State, user_id: str, kind: Kind, target_id: str) -> list[tuple[str, str]]:
    """Every (source, role) by which ``user_id`` reaches a space or collection.

    Paths are the same under both rule sets; :func:`role_of` says which of them count.

    Examples
    --------
    >>> from docsapi.sandbox.demo._build import build_demo
    >>> state, facts = build_demo(0)
    >>> space, user = facts["guest_write"][0]
    >>> paths(state, user, "space", space)
    [('direct', 'edit')]
    """
    record = record_of(state, kind, target_id)
    member = _member(state, record["organization"], user_id)
    if member is not None and member["disabled"]:
        return []
    found: list[tuple[str, str]] = []
    org_role = member["role"] if member is not None else None
    if org_role is not None:
        if org_role == "admin":
            found.append(("org-admin", "admin"))
        level, where = _resolve_default_at(state, record)
        if level == ORGANIZATION_ROLE:
            found.append(("default:inherit", org_role))
        elif level is not None:
            found.append((f"default:{level}", level))
        elif where is not None and state.creators.get(where) == user_id:
            found.append(("creator" if where == target_id else f"creator:{where}", org_role))
    users, teams = tables(state, kind)
    for team_id, role in _explicit(state, user_id, users, teams, target_id):
        found.append(("direct" if team_id is None else f"team:{team_id}", role))
    for collection_id in ancestors(state, record):
        grants = _explicit(
            state, user_id, state.collection_users, state.collection_teams, collection_id
        )
        for team_id, role in grants:
            found.append(
                (
                    f"collection:{collection_id}"
                    if team_id is None
                    else f"collection-team:{collection_id}/{team_id}",
                    role,
                )
            )
    for site_id in linked_sites(state, kind, record):
        for team_id, role in _explicit(state, user_id, state.site_users, state.site_teams, site_id):
            found.append(
                (f"site:{site_id}" if team_id is None else f"site-team:{site_id}/{team_id}", role)
            )
        site_level = state.sites[site_id]["defaultLevel"]
        if org_role is not None and site_level not in ("inherit", None):
            found.append((f"site-default:{site_id}", site_level))
    return found


@dataclass(frozen=True)
class _Walk:
    """The levels of one space or collection under ``precedence``, nearest first.

    ``overrides`` holds, per level up to the one that decides, each user's strongest
    explicit role there (their own or a team's); ``level`` is the default level that
    decides for members without one (a role, None for "No access", or
    :data:`ORGANIZATION_ROLE`) and ``creator`` who keeps access when it is None.
    """

    overrides: list[dict[str, str]]
    level: str | None
    creator: str | None


def _strongest_grants(state: State, pairs: list[tuple[GrantTable, GrantTable, str]]) -> dict:
    """User id -> the strongest role their own or team grants give on any of the holders."""
    roles: dict[str, str] = {}

    def give(user_id: str, role: str) -> None:
        if rank(role) > rank(roles.get(user_id)):
            roles[user_id] = role

    for users, teams, holder in pairs:
        for user_id, role in users.on(holder).items():
            give(user_id, role)
        for team_id, role in teams.on(holder).items():
            for user_id in state.teams[team_id]["members"]:
                give(user_id, role)
    return roles


def _walk(state: State, kind: Kind, target_id: str) -> _Walk:
    record = record_of(state, kind, target_id)
    users, teams = tables(state, kind)
    overrides = [_strongest_grants(state, [(users, teams, target_id)])]
    if record["defaultLevel"] != "inherit":
        return _Walk(overrides, record["defaultLevel"], state.creators.get(target_id))
    sites = linked_sites(state, kind, record)
    if sites:
        pairs = [(state.site_users, state.site_teams, site_id) for site_id in sites]
        overrides.append(_strongest_grants(state, pairs))
        levels = [state.sites[s]["defaultLevel"] for s in sites]
        set_levels = [level for level in levels if level != "inherit"]
        if set_levels:
            return _Walk(overrides, strongest(set_levels), None)
    for collection_id in ancestors(state, record):
        pairs = [(state.collection_users, state.collection_teams, collection_id)]
        overrides.append(_strongest_grants(state, pairs))
        level = state.collections[collection_id]["defaultLevel"]
        if level != "inherit":
            return _Walk(overrides, level, state.creators.get(collection_id))
    return _Walk(overrides, ORGANIZATION_ROLE, None)


def _decide(walk: _Walk, user_id: str, member: Record | None) -> str | None:
    """A user's role under ``precedence``: the nearest override, else the level's default."""
    if member is not None and member["disabled"]:
        return None
    org_role = member["role"] if member is not None else None
    if org_role == "admin":
        return "admin"
    for level in walk.overrides:
        if user_id in level:
            return level[user_id]
    if org_role is None:
        return None  # guests and non-members get no default access
    if walk.level == ORGANIZATION_ROLE:
        return org_role
    if walk.level is not None:
        return walk.level
    return org_role if walk.creator == user_id else None


def role_of(state: State, user_id: str, kind: Kind, target_id: str) -> str | None:
    """The effective role of ``user_id`` on a space or collection (None: no access)."""
    org_id = record_of(state, kind, target_id)["organization"]
    member = _member(state, org_id, user_id)
    if member is not None and member["role"] == "admin" and not member["disabled"]:
        return "admin"  # nothing is higher: the other paths need not be looked at
    if state.rule_set == "precedence":
        return _decide(_walk(state, kind, target_id), user_id, member)
    return strongest(role for _, role in paths(state, user_id, kind, target_id))


def access(state: State, kind: Kind, target_id: str) -> dict[str, str]:
    """User id -> effective role for everyone who reaches a space or collection.

    This is what ``GET /spaces/{spaceId}/permissions/aggregate`` (and the collection's)
    lists: members through the organization role and default levels, everyone holding an
    explicit permission on the way (on the content, its collections, or a site linking a
    space that inherits), directly or through a team, the creator of "No access" content;
    disabled members never.
    """
    record = record_of(state, kind, target_id)
    members = state.members.get(record["organization"], {})
    if state.rule_set == "precedence":
        walk = _walk(state, kind, target_id)
        if walk.level is None:
            # "No access": only admins, users with an override and the creator can hold a
            # role, so the other members are not looked at (a large organization's private
            # spaces list a few dozen of its thousands of members)
            keep = {user_id for level in walk.overrides for user_id in level}
            keep.add(walk.creator or "")
            candidates = {
                user_id: None
                for user_id, member in members.items()
                if user_id in keep or member["role"] == "admin"
            }
        else:
            candidates = dict.fromkeys(members)  # in a fixed order: members first
        for level in walk.overrides:
            candidates.update(dict.fromkeys(level))
        found = {user_id: _decide(walk, user_id, members.get(user_id)) for user_id in candidates}
        return {user_id: role for user_id, role in found.items() if role is not None}
    return _highest_access(state, kind, record, members)


def _highest_access(
    state: State, kind: Kind, record: Record, members: dict[str, Record]
) -> dict[str, str]:
    """Everyone's role under ``highest``: the strongest of their paths."""
    target_id = record["id"]
    level, where = _resolve_default_at(state, record)
    sites = linked_sites(state, kind, record)
    site_levels = [state.sites[s]["defaultLevel"] for s in sites]
    site_roles = [lvl for lvl in site_levels if lvl not in ("inherit", None)]
    creator = state.creators.get(where) if level is None and where is not None else None
    roles: dict[str, str] = {}

    def give(user_id: str, role: str | None) -> None:
        member = members.get(user_id)
        if role is None or (member is not None and member["disabled"]):
            return
        if rank(role) > rank(roles.get(user_id)):
            roles[user_id] = role

    for user_id, member in members.items():
        org_role = member["role"]
        if org_role is None:
            continue
        if org_role == "admin":
            give(user_id, "admin")
        give(user_id, org_role if level == ORGANIZATION_ROLE else level)
        give(user_id, strongest(site_roles))
        if user_id == creator:
            give(user_id, org_role)
    users, teams = tables(state, kind)
    pairs = [(users, teams, target_id)]
    pairs += [(state.collection_users, state.collection_teams, c) for c in ancestors(state, record)]
    pairs += [(state.site_users, state.site_teams, s) for s in sites]
    for user_id, role in _strongest_grants(state, pairs).items():
        give(user_id, role)
    return roles


# -- sites ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class SiteRole:
    """A user's role on a site and where it comes from (``UserSitePermission``).

    ``origin`` is ``"organization"`` (an organization admin, or a member's organization role
    on a site whose default level is ``inherit``) or ``"site"``, with ``reason``
    ``member`` (their own site permission), ``team`` (``team_id``'s) or ``default`` (the
    site's default level).
    """

    role: str
    origin: str
    reason: str | None = None
    team_id: str | None = None


def _site_candidates(state: State, site: Record, user_id: str) -> list[SiteRole]:
    """Every role a user would get on a site, strongest reason first among equals."""
    member = _member(state, site["organization"], user_id)
    org_role = member["role"] if member is not None else None
    found: list[SiteRole] = []
    if org_role == "admin":
        found.append(SiteRole("admin", "organization"))
    for team_id, role in _explicit(state, user_id, state.site_users, state.site_teams, site["id"]):
        reason = "member" if team_id is None else "team"
        found.append(SiteRole(role, "site", reason, team_id))
    if org_role is not None:
        level = site["defaultLevel"]
        if level == "inherit":
            found.append(SiteRole(org_role, "organization"))
        elif level is not None:
            found.append(SiteRole(level, "site", "default"))
    return found


def _site_decision(state: State, site: Record, user_id: str) -> SiteRole | None:
    """A user's role on a site under the rule set, ignoring whether they are disabled."""
    found = _site_candidates(state, site, user_id)
    if not found:
        return None
    if state.rule_set == "precedence":
        if found[0].origin == "organization" and found[0].role == "admin":
            return found[0]
        explicit = [c for c in found if c.reason in ("member", "team")]
        if explicit:
            found = explicit
        elif site["defaultLevel"] is None:
            return None  # "No access" on the site
    best = found[0]
    for candidate in found[1:]:
        if rank(candidate.role) > rank(best.role):
            best = candidate
    return best


def site_role(state: State, user_id: str, site_id: str) -> str | None:
    """The role a user holds on a site (administering it, and reading its spaces).

    Organization admins are site admins. Under ``precedence`` a user's own or team site
    permission decides, else the site's default level (``inherit``: the member's
    organization role; ``null``: none); under ``highest`` the strongest of them. Disabled
    members hold nothing.
    """
    site = state.sites[site_id]
    member = _member(state, site["organization"], user_id)
    if member is not None and member["disabled"]:
        return None
    found = _site_decision(state, site, user_id)
    return None if found is None else found.role


def site_access(state: State, site_id: str) -> dict[str, SiteRole]:
    """User id -> role and origin for everyone holding a role on a site (disabled members
    included: the site's aggregate lists them, flagged)."""
    site = state.sites[site_id]
    candidates = dict.fromkeys(state.members.get(site["organization"], {}))  # a fixed order
    candidates.update(dict.fromkeys(state.site_users.on(site_id)))
    for team_id in state.site_teams.on(site_id):
        candidates.update(dict.fromkeys(state.teams[team_id]["members"]))
    found = {user_id: _site_decision(state, site, user_id) for user_id in candidates}
    return {user_id: role for user_id, role in found.items() if role is not None}
