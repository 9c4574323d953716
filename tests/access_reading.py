"""A second, independent reading of ``docs/access-model.md`` and of the audit rules of
``docs/audit-tables.md``, for tests of the sandbox.

Everything is crawled over raw HTTP (the sandbox's own model is never imported) into plain
dicts, then every path and rule is recomputed here, one rule per function, from the text of
the documents, under either rule set (``precedence``, the default, or ``highest``). Tests
compare the sandbox's ``permissions/aggregate`` and the demo's facts with these results.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

ORDER = [None, "read", "comment", "edit", "review", "create", "admin"]  # weakest first
WRITE = {"edit", "create", "admin"}
#: The audit's default thresholds (AuditThresholds).
ADMIN_SHARE, MAX_ADMINS, INACTIVE_DAYS, SHARE_LINK_DAYS, GUEST_COLLECTION_SPACES = (
    0.5,
    5,
    90,
    90,
    5,
)


def rank(role: str | None) -> int:
    return ORDER.index(role)


def highest(roles) -> str | None:
    return max(roles, key=rank, default=None)


def fetch_all(api, path: str, **params) -> list[dict[str, Any]]:
    """Every item of a List endpoint, following ``next.page``."""
    items, query = [], {"limit": 100, **params}
    while True:
        body = api.get(path, params=query).json()
        items.extend(body["items"])
        if "next" not in body:
            return items
        query = {**query, "page": body["next"]["page"]}


def _grants(items: list[dict], key: str) -> dict[str, str]:
    return {item[key]["id"]: item["permission"] for item in items}


@dataclass
class Org:
    """What the API says about one organization."""

    org: dict
    members: dict[str, dict]
    team_members: dict[str, set[str]]
    collections: dict[str, dict]
    spaces: dict[str, dict]
    space_users: dict[str, dict[str, str]]
    space_teams: dict[str, dict[str, str]]
    collection_users: dict[str, dict[str, str]]
    collection_teams: dict[str, dict[str, str]]
    sites: dict[str, dict] = field(default_factory=dict)
    site_spaces: dict[str, list[dict]] = field(default_factory=dict)
    share_links: dict[str, list[dict]] = field(default_factory=dict)
    site_users: dict[str, dict[str, str]] = field(default_factory=dict)
    site_teams: dict[str, dict[str, str]] = field(default_factory=dict)
    invites: list[dict] = field(default_factory=list)
    creators: dict[str, str | None] = field(default_factory=dict)


def from_state(state, org_id: str) -> Org:
    """The same tables read straight from a sandbox State (for organizations too big to
    crawl in a test); share links and invites are left out."""
    org_spaces = {s: r for s, r in state.spaces.items() if r["organization"] == org_id}
    sites = {w: r for w, r in state.sites.items() if r["organization"] == org_id}
    return Org(
        org=state.orgs[org_id],
        members=dict(state.members[org_id]),
        team_members={t: set(team["members"]) for t, team in state.teams.items()},
        collections=dict(state.collections),
        spaces=org_spaces,
        space_users={s: dict(state.space_users.on(s)) for s in org_spaces},
        space_teams={s: dict(state.space_teams.on(s)) for s in org_spaces},
        collection_users={c: dict(state.collection_users.on(c)) for c in state.collections},
        collection_teams={c: dict(state.collection_teams.on(c)) for c in state.collections},
        sites=sites,
        site_spaces={
            w: [{"space": {"id": i["space"]}, "draft": i["draft"]} for i in state.site_spaces[w]]
            for w in sites
        },
        site_users={w: dict(state.site_users.on(w)) for w in sites},
        site_teams={w: dict(state.site_teams.on(w)) for w in sites},
        creators=dict(state.creators),
    )


def crawl(api, org_id: str) -> Org:
    """Read the whole organization with an admin token."""
    base = f"/orgs/{org_id}"
    members = {m["id"]: m for m in fetch_all(api, f"{base}/members")}
    teams = fetch_all(api, f"{base}/teams")
    team_members = {
        t["id"]: {
            m["organization"]["id"] for m in fetch_all(api, f"{base}/teams/{t['id']}/members")
        }
        for t in teams
    }
    collections = {c["id"]: c for c in fetch_all(api, f"{base}/collections")}
    spaces = {s["id"]: s for s in fetch_all(api, f"{base}/spaces")}

    def grants(kind: str, target: str, who: str) -> dict[str, str]:
        items = fetch_all(api, f"/{kind}/{target}/permissions/{who}s")
        return _grants(items, who)

    org = Org(
        org=api.get(base).json(),
        members=members,
        team_members=team_members,
        collections=collections,
        spaces=spaces,
        space_users={s: grants("spaces", s, "user") for s in spaces},
        space_teams={s: grants("spaces", s, "team") for s in spaces},
        collection_users={c: grants("collections", c, "user") for c in collections},
        collection_teams={c: grants("collections", c, "team") for c in collections},
    )
    for site in fetch_all(api, f"{base}/sites"):
        path = f"{base}/sites/{site['id']}"
        org.sites[site["id"]] = site
        org.site_spaces[site["id"]] = fetch_all(api, f"{path}/site-spaces")
        org.share_links[site["id"]] = fetch_all(api, f"{path}/share-links")
        org.site_users[site["id"]] = _grants(fetch_all(api, f"{path}/permissions/users"), "user")
        org.site_teams[site["id"]] = _grants(fetch_all(api, f"{path}/permissions/teams"), "team")
    org.invites = fetch_all(api, f"{base}/link-invites")
    for kind in ("collection", "space"):
        for event in fetch_all(api, f"{base}/audit-events", action=f"{kind}.created"):
            actor = event["actor"]
            org.creators[event["target"]["id"]] = actor["id"] if actor["type"] == "user" else None
    return org


def read_invites(api, org_id: str, invite_ids) -> list[dict]:
    """Invite links read one by one (links to a space or collection are not listed)."""
    return [api.get(f"/orgs/{org_id}/link-invites/{i}").json() for i in invite_ids]


# -- the access model ----------------------------------------------------------------------
def chain(org: Org, record: dict) -> list[str]:
    """Collections above a space or collection, nearest first."""
    found, parent = [], record.get("parent")
    while parent:
        found.append(parent)
        parent = org.collections[parent].get("parent")
    return found


def resolved_default(org: Org, record: dict) -> str | None:
    """A role, None (private) or "organization" (each member's own role), through the
    content's collections only."""
    return _default_and_owner(org, record)[0]


def _default_and_owner(org: Org, record: dict) -> tuple[str | None, str | None]:
    """The resolved default level and the id of the space or collection that sets it."""
    level, owner = record["defaultLevel"], record["id"]
    for collection_id in chain(org, record):
        if level != "inherit":
            return level, owner
        level, owner = org.collections[collection_id]["defaultLevel"], collection_id
    return ("organization", None) if level == "inherit" else (level, owner)


def linking_sites(org: Org, record: dict) -> list[str]:
    """Sites whose permissions reach a space: those listing it, if it inherits."""
    if record["defaultLevel"] != "inherit":
        return []
    return [
        site
        for site, items in org.site_spaces.items()
        if any(item["space"]["id"] == record["id"] for item in items)
    ]


def paths(org: Org, space_id: str, user: str) -> list[tuple[str, str]]:
    """(source, role) of each way ``user`` reaches space ``space_id``, whether it counts or
    not (see :func:`role`)."""
    space = org.spaces[space_id]
    member = org.members.get(user)
    if member is not None and member["disabled"]:
        return []
    found = []
    role_in_org = member["role"] if member is not None else None
    if role_in_org is not None:
        if role_in_org == "admin":
            found.append(("org-admin", "admin"))
        level, owner = _default_and_owner(org, space)
        if level == "organization":
            found.append(("default:inherit", role_in_org))
        elif level is not None:
            found.append((f"default:{level}", level))
        elif org.creators.get(owner) == user:
            found.append(("creator" if owner == space_id else f"creator:{owner}", role_in_org))
    if user in org.space_users[space_id]:
        found.append(("direct", org.space_users[space_id][user]))
    for team, role in org.space_teams[space_id].items():
        if user in org.team_members[team]:
            found.append((f"team:{team}", role))
    for collection_id in chain(org, space):
        if user in org.collection_users[collection_id]:
            found.append((f"collection:{collection_id}", org.collection_users[collection_id][user]))
        for team, role in org.collection_teams[collection_id].items():
            if user in org.team_members[team]:
                found.append((f"collection-team:{collection_id}/{team}", role))
    for site in linking_sites(org, space):
        if user in org.site_users[site]:
            found.append((f"site:{site}", org.site_users[site][user]))
        for team, role in org.site_teams[site].items():
            if user in org.team_members[team]:
                found.append((f"site-team:{site}/{team}", role))
        level = org.sites[site]["defaultLevel"]
        if role_in_org is not None and level not in ("inherit", None):
            found.append((f"site-default:{site}", level))
    return found


def _levels(org: Org, space_id: str) -> list[tuple[list[str], str | None, bool]]:
    """The levels a ``precedence`` walk visits, nearest first: (prefixes of the sources
    that override there, the default level set there or "inherit", whether the creator of
    what sets it keeps access)."""
    space = org.spaces[space_id]
    levels = [(["direct", "team:"], space["defaultLevel"], True)]
    if space["defaultLevel"] == "inherit":
        sites = linking_sites(org, space)
        if sites:
            set_here = [org.sites[w]["defaultLevel"] for w in sites]
            set_here = [level for level in set_here if level != "inherit"]
            level = highest(set_here) if set_here else "inherit"
            levels.append((["site:", "site-team:"], level, False))
        for collection_id in chain(org, space):
            prefixes = [f"collection:{collection_id}", f"collection-team:{collection_id}/"]
            levels.append((prefixes, org.collections[collection_id]["defaultLevel"], True))
    return levels


def decision(
    org: Org, space_id: str, user: str, rule_set: str = "precedence", without: str = ""
) -> tuple[str | None, list[tuple[str, str]]]:
    """The role ``user`` gets on a space under ``rule_set`` (leaving out the ``without``
    source), and the paths that count for it: under ``highest`` all of them, under
    ``precedence`` those of the level that decides."""
    found = [(s, r) for s, r in paths(org, space_id, user) if s != without]
    if rule_set == "highest":
        return highest(r for _, r in found), found
    member = org.members.get(user)
    if member is not None and member["disabled"]:
        return None, []
    if ("org-admin", "admin") in found:
        return "admin", [("org-admin", "admin")]
    for prefixes, level, creator_keeps in _levels(org, space_id):
        here = [(s, r) for s, r in found if s.startswith(tuple(prefixes))]
        if here:
            return highest(r for _, r in here), here
        if level == "inherit":
            continue
        if member is None or member["role"] is None:
            return None, []
        if level is None:
            created = [(s, r) for s, r in found if s.startswith("creator")]
            return (created[0][1], created) if creator_keeps and created else (None, [])
        return level, [(s, r) for s, r in found if s.startswith(("default:", "site-default:"))]
    if member is None or member["role"] is None:
        return None, []
    return member["role"], [(s, r) for s, r in found if s == "default:inherit"]


def role(
    org: Org, space_id: str, user: str, rule_set: str = "precedence", without: str = ""
) -> str | None:
    """The role ``user`` gets on a space under ``rule_set`` (``without`` one source)."""
    return decision(org, space_id, user, rule_set, without)[0]


def candidates(org: Org, space_id: str) -> set[str]:
    """Users who may have a path to a space: every member, and everyone named by an explicit
    permission on the way (the space, its collections, the sites linking it)."""
    space = org.spaces[space_id]
    users = set(org.members)
    users |= set(org.space_users[space_id])
    for team in org.space_teams[space_id]:
        users |= org.team_members[team]
    for collection_id in chain(org, space):
        users |= set(org.collection_users[collection_id])
        for team in org.collection_teams[collection_id]:
            users |= org.team_members[team]
    for site in linking_sites(org, space):
        users |= set(org.site_users[site])
        for team in org.site_teams[site]:
            users |= org.team_members[team]
    return users


def effective(org: Org, space_id: str, rule_set: str = "precedence") -> dict[str, str]:
    """User -> effective role on a space, for everyone who reaches it."""
    roles = {}
    for user in candidates(org, space_id):
        found = role(org, space_id, user, rule_set)
        if found is not None:
            roles[user] = found
    return roles


def member_default(org: Org, space_id: str, rule_set: str = "precedence") -> str | None:
    """What a member without any explicit permission gets on a space: a role,
    "organization" (their own role) or None (it is private inside the organization)."""
    space = org.spaces[space_id]
    chained = resolved_default(org, space)
    site_levels = [org.sites[w]["defaultLevel"] for w in linking_sites(org, space)]
    set_by_sites = [level for level in site_levels if level != "inherit"]
    if rule_set == "precedence":
        return highest(set_by_sites) if set_by_sites else chained
    best_site = highest(set_by_sites)
    if chained is None or (chained != "organization" and rank(best_site) > rank(chained)):
        return best_site
    return chained


def spaces_under(org: Org, collection_id: str) -> list[str]:
    return [s for s, record in org.spaces.items() if collection_id in chain(org, record)]


# -- the audit rules -----------------------------------------------------------------------
def _is_guest_or_non_member(org: Org, user: str) -> bool:
    member = org.members.get(user)
    return member is None or member["role"] is None


def _own_admins(org: Org, space_id: str, rule_set: str) -> set[str]:
    """Admins of a space through explicit paths that count, organization admins left out."""
    admins = set()
    for user in candidates(org, space_id):
        member = org.members.get(user)
        if member is not None and member["role"] == "admin":
            continue
        explicit = [
            r
            for s, r in decision(org, space_id, user, rule_set)[1]
            if not s.startswith(("org-", "def", "site-default", "creator"))
        ]
        if "admin" in explicit:
            admins.add(user)
    return admins


def findings(org: Org, now: datetime, rule_set: str = "precedence") -> dict[str, set]:
    """Every rule of docs/audit-tables.md under the default thresholds."""
    found: dict[str, set] = {
        rule: set()
        for rule in (
            "guest_write",
            "former_member",
            "admin_sprawl",
            "no_admin",
            "too_many_admins",
            "redundant_grant",
            "empty_team",
            "public_exposure",
            "stale_share_link",
            "inactive_writer",
            "risky_invite_link",
            "guest_collection_write",
        )
    }
    admin_count: dict[str, int] = {}
    for space_id in org.spaces:
        roles = effective(org, space_id, rule_set)
        for user, held in roles.items():
            if held in WRITE and _is_guest_or_non_member(org, user):
                found["guest_write"].add((space_id, user))
            member = org.members.get(user)
            if held == "admin" and not (member and member["role"] == "admin"):
                admin_count[user] = admin_count.get(user, 0) + 1
            seen = member and member.get("lastSeenAt")
            if held in WRITE and seen and now - _instant(seen) > timedelta(days=INACTIVE_DAYS):
                found["inactive_writer"].add((space_id, user))
        for user, direct in org.space_users[space_id].items():
            if user not in org.members:
                found["former_member"].add((space_id, user))
            member = org.members.get(user)
            if member is not None and member["disabled"] and direct in WRITE:
                found["inactive_writer"].add((space_id, user))
            alone = role(org, space_id, user, rule_set, without="direct")
            if alone is not None and alone == role(org, space_id, user, rule_set):
                found["redundant_grant"].add((space_id, user))
        admins = _own_admins(org, space_id, rule_set)
        if not admins:
            found["no_admin"].add(space_id)
        if len(admins) > MAX_ADMINS:
            found["too_many_admins"].add(space_id)
    found["admin_sprawl"] = {u for u, n in admin_count.items() if n / len(org.spaces) > ADMIN_SHARE}
    for tables in (
        (org.space_teams, "space"),
        (org.collection_teams, "collection"),
        (org.site_teams, "site"),
    ):
        for target, grants in tables[0].items():
            for team in grants:
                if not org.team_members[team]:
                    found["empty_team"].add((target, team))
    found["public_exposure"] = _exposed_private(org, rule_set)
    for site_id, links in org.share_links.items():
        for link in links:
            age = now - _instant(link["createdAt"])
            if link["active"] and age > timedelta(days=SHARE_LINK_DAYS):
                found["stale_share_link"].add((site_id, link["id"]))
    if org.org["inviteLinks"]:
        for invite in org.invites:
            if (invite.get("role") or invite.get("level")) in ("admin", "create"):
                found["risky_invite_link"].add(invite["id"])
    for collection_id, grants in org.collection_users.items():
        for user, held in grants.items():
            many = len(spaces_under(org, collection_id)) >= GUEST_COLLECTION_SPACES
            if held in WRITE and _is_guest_or_non_member(org, user) and many:
                found["guest_collection_write"].add((collection_id, user))
    return found


def _exposed_private(org: Org, rule_set: str) -> set[tuple[str, str | None]]:
    exposed = set()
    for site_id, site in org.sites.items():
        if not site["published"] or site["visibility"] not in ("public", "unlisted"):
            continue
        for item in org.site_spaces[site_id]:
            space_id = item["space"]["id"]
            if not item["draft"] and member_default(org, space_id, rule_set) is None:
                exposed.add((space_id, site_id))
    for space_id, space in org.spaces.items():
        private = member_default(org, space_id, rule_set) is None
        if space["visibility"] in ("public", "unlisted") and private:
            exposed.add((space_id, None))
    return exposed


def _instant(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))
