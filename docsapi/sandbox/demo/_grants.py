"""The demo's explicit permissions on collections and spaces, and the facts about them.

Outside the deliberate cases every grant is drawn so that no audit rule fires: a direct
grant never goes to a member of a team granted on the same space and always gives more than
the user's other paths to the space (default level, collections), admin grants go to the few
per-space admins only, and guests get read or comment access only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from docsapi.sandbox.core import _permission_model as model
from docsapi.sandbox.core._roles import rank
from docsapi.sandbox.core._state import State
from docsapi.sandbox.demo._plan import (
    PLACES,
    S_API,
    S_API_READ,
    S_DISABLED,
    S_ENGINEERING,
    S_EXPOSED,
    S_INACTIVE,
    S_PRODUCT,
    S_UNLISTED,
    SITE_LEVELS,
    SITE_SPACES,
)

if TYPE_CHECKING:
    from docsapi.sandbox.demo._builder import Builder

_DIRECT_ROLES = ["read"] * 30 + ["comment"] * 20 + ["edit"] * 30 + ["review"] * 10 + ["create"] * 10
_GRANTABLE = ("read", "comment", "edit", "review", "create")
_TEAM_ROLES = ["read"] * 3 + ["comment"] * 2 + ["edit"] * 3 + ["review"]


def _others(b: Builder) -> list[str]:
    """Regular teams free of the deliberate cases (the first three hold them)."""
    return b.regular_teams[3:] or b.regular_teams


def collection_grants(b: Builder) -> None:
    """User and team permissions on collections, guests' included."""
    rng, state, org = b.rng, b.state, b.org_id
    teams = _others(b)
    pick = [u for u in b.regular if u not in b.admins]
    b.collection_user = {
        "product": rng.choice(pick),
        "api": rng.choice(pick),
        "runbooks": rng.choice(pick),
    }
    b.collection_team = {
        "product": teams[0],
        "api": teams[1 % len(teams)],
        "engineering": teams[2 % len(teams)],
        "runbooks": teams[3 % len(teams)],
        "internal": teams[4 % len(teams)],
    }
    users = [
        ("product", b.collection_user["product"], "create"),
        ("api", b.collection_user["api"], "review"),
        ("api", b.reading_guest, "read"),
        ("runbooks", b.collection_user["runbooks"], "edit"),
        *(("internal", user_id, "edit") for user_id in rng.sample(pick, 2)),
        ("partners", b.partner_guest, "edit"),
    ]
    for key, user_id, role in users:
        state.collection_users.set(org, b.collection[key], user_id, role)
    team_roles = {
        "product": "edit",
        "api": "comment",
        "engineering": "edit",
        "runbooks": "review",
        "internal": "read",
    }
    for key, role in team_roles.items():
        state.collection_teams.set(org, b.collection[key], b.collection_team[key], role)
    for collection_id in b.extra_collections:
        if rng.random() < 0.6:
            state.collection_teams.set(
                org, collection_id, rng.choice(teams), rng.choice(_TEAM_ROLES)
            )
        for user_id in rng.sample(pick, rng.randint(0, 2)):
            role = rng.choice(["read", "comment", "edit"])
            state.collection_users.set(org, collection_id, user_id, role)


def _cover(b: Builder, space_id: str) -> dict[str, int]:
    """User -> rank of the best role their non-direct explicit paths give on a space."""
    state = b.state
    best: dict[str, int] = {}

    def give(user_id: str, role: str) -> None:
        if rank(role) > best.get(user_id, 0):
            best[user_id] = rank(role)

    holders = [(state.space_teams, space_id)]
    for collection_id in model.ancestors(state, state.spaces[space_id]):
        holders.append((state.collection_teams, collection_id))
        for user_id, role in state.collection_users.on(collection_id).items():
            give(user_id, role)
    for table, holder in holders:
        for team_id, role in table.on(holder).items():
            for user_id in b.team_members[team_id]:
                give(user_id, role)
    return best


def space_grants(b: Builder) -> None:
    """Team and user permissions on every space, then the deliberate cases."""
    rng, state, org, ids = b.rng, b.state, b.org_id, b.space_ids
    n = len(ids)
    s_many, s_guest, s_former1, s_former2, s_multi, s_redundant, s_empty_team = ids[1:8]
    s_noadmin = ids[n - 1]
    t1, t2, t3 = b.regular_teams[:3]
    forced_teams = {
        s_multi: {t1: "read", t2: "edit"},
        s_redundant: {t3: "edit"},
        s_many: {b.admin_team: "admin"},
        s_empty_team: {b.empty_team: "read"},
    }
    others = _others(b)
    direct_pool = [u for u in b.regular if u not in b.admins]
    members = state.members[org]
    pool_turn = 0
    for index, space_id in enumerate(ids):
        teams: dict[str, str] = dict(forced_teams.get(space_id, {}))
        if space_id not in (s_multi, s_redundant):
            choices = [t for t in others if t not in teams]
            for team_id in rng.sample(choices, min(len(choices), rng.randint(1, 3))):
                teams[team_id] = rng.choice(_TEAM_ROLES)
        state.space_teams.attach(org, space_id, teams)
        users: dict[str, str] = {}
        if space_id != s_noadmin:
            if index % 5 < 3:
                users[b.sprawler] = "admin"
            else:
                users[b.pool[pool_turn % len(b.pool)]] = "admin"
                pool_turn += 1
            if space_id == s_many:
                users[b.pool[0]] = "admin"
        cover = _cover(b, space_id)
        in_space_teams = set().union(*(b.team_members[t] for t in teams)) if teams else set()
        level = model.resolve_default(state, state.spaces[space_id])
        site_floor = rank(_site_level(b, index))
        wanted = (
            b.size.grants_per_space if b.size.grants_per_space is not None else rng.randint(2, 6)
        )
        target, attempts = len(users) + wanted, 0
        while len(users) < target and attempts < wanted * 6 and direct_pool:
            attempts += 1
            user_id = rng.choice(direct_pool)
            if user_id in users or user_id in in_space_teams:
                continue
            org_role = members[user_id]["role"]
            by_default = org_role if level == model.ORGANIZATION_ROLE else level
            floor = max(rank(by_default), site_floor, cover.get(user_id, 0))
            role = rng.choice(_DIRECT_ROLES)
            if rank(role) <= floor:
                higher = [r for r in _GRANTABLE if rank(r) > floor]
                if not higher:
                    continue
                role = rng.choice(higher)
            users[user_id] = role
        if b.plain_guests and rng.random() < 0.3:  # the site guest reaches content by site only
            users[rng.choice(b.plain_guests)] = rng.choice(["read", "comment"])
        state.space_users.attach(org, space_id, users)
    deliberate = [
        (s_guest, b.direct_guest, "edit"),
        (s_former1, b.former, "read"),
        (s_former2, b.former, "comment"),
        (s_multi, b.multi, "comment"),
        (s_redundant, b.redundant, "edit"),
        (ids[0], b.other_user, "comment"),
        (s_former1, b.other_user, "read"),
        *((ids[i], b.disabled, "edit") for i in S_DISABLED),
        *((ids[i], b.inactive, "edit") for i in S_INACTIVE),
    ]
    for space_id, user_id, role in deliberate:
        state.space_users.set(org, space_id, user_id, role)
    _private_creator(b, s_noadmin)
    b.deliberate_spaces = {
        "many": s_many,
        "guest": s_guest,
        "former": (s_former1, s_former2),
        "multi": s_multi,
        "redundant": s_redundant,
        "empty_team": s_empty_team,
        "no_admin": s_noadmin,
    }


def _site_level(b: Builder, index: int) -> str | None:
    """The strongest default level members get from the fixed sites linking the space at
    ``index`` (sites reach only spaces that inherit); None when no site sets one."""
    if PLACES.get(index, (None, None))[1] != "inherit":
        return None
    levels = [
        SITE_LEVELS[key]
        for key, positions in SITE_SPACES.items()
        if index in positions and SITE_LEVELS.get(key) is not None
    ]
    return max(levels, key=rank, default=None)


def _private_creator(b: Builder, space_id: str) -> None:
    """Make a ``create`` member with no other path to the private space ``space_id`` its
    creator: they reach it through the creator's exception to "No access" alone."""
    state = b.state
    in_teams = set().union(*(b.team_members[t] for t in state.space_teams.on(space_id)))
    members = state.members[b.org_id]
    b.private_creator = next(
        user_id
        for user_id in sorted(b.regular, key=lambda u: members[u]["role"] != "create")
        if user_id not in b.admins
        and user_id not in in_teams
        and state.space_users.role(space_id, user_id) is None
    )
    state.creators[space_id] = b.private_creator


def facts(b: Builder) -> None:
    """Record where each audit rule must fire, and examples of every access path."""
    state, ids, d = b.state, b.space_ids, b.deliberate_spaces
    t1, t2, t3 = b.regular_teams[:3]
    partners = b.collection["partners"]
    partner_spaces = [s["id"] for s in _spaces_under(b, partners)]
    via_collection = [(space_id, b.partner_guest) for space_id in partner_spaces]
    b.facts.update(
        guest_write=[(d["guest"], b.direct_guest), *via_collection],
        guest_write_via_collection=via_collection,
        former_member=[(d["former"][0], b.former), (d["former"][1], b.former)],
        admin_sprawl=[b.sprawler],
        no_admin=[d["no_admin"]],
        too_many_admins=[d["many"]],
        redundant_grant=[(d["multi"], b.multi), (d["redundant"], b.redundant)],
        empty_team=[(d["empty_team"], b.empty_team)],
        public_exposure=[(ids[S_EXPOSED], b.site["public"]), (ids[S_UNLISTED], None)],
        stale_share_link=[(b.site["share-link"], link) for link in b.stale_links],
        inactive_writer=[
            *((ids[i], b.disabled) for i in S_DISABLED),
            *((ids[i], b.inactive) for i in S_INACTIVE),
        ],
        risky_invite_link=[b.invite["admin"]],
        guest_collection_write=[(partners, b.partner_guest)],
        aggregate_mismatch=[],
        multi_team_user={
            "user_id": b.multi,
            "space_id": d["multi"],
            "direct_role": "comment",
            "team_roles": {t1: "read", t2: "edit"},
            "effective": "edit",
        },
    )
    member_of = {
        key: sorted(b.team_members[team_id])[0] for key, team_id in b.collection_team.items()
    }
    unlisted_team = next(iter(state.site_teams.on(b.site["unlisted"])))
    engineering_reader = next(
        u
        for u in b.regular
        if {s.split(":")[0] for s, _ in model.paths(state, u, "space", ids[S_ENGINEERING])}
        == {"default", "site-default"}
    )
    regular_editor = next(
        u for u in b.regular if state.members[b.org_id][u]["role"] in ("edit", "review", "create")
    )
    examples: dict[str, tuple[str, str, str]] = {
        "org-admin": (d["no_admin"], b.owner, "org-admin"),
        "default:inherit": (ids[S_PRODUCT], regular_editor, "default:inherit"),
        "default:read": (ids[S_API_READ], regular_editor, "default:read"),
        "direct": (d["guest"], b.direct_guest, "direct"),
        "team": (d["redundant"], b.redundant, f"team:{t3}"),
        "collection": (ids[S_API], b.collection_user["api"], f"collection:{b.collection['api']}"),
        "collection two levels up": (
            ids[S_API],
            b.collection_user["product"],
            f"collection:{b.collection['product']}",
        ),
        "collection-team": (
            ids[S_API],
            member_of["product"],
            f"collection-team:{b.collection['product']}/{b.collection_team['product']}",
        ),
        "guest through a collection": (
            ids[S_API],
            b.reading_guest,
            f"collection:{b.collection['api']}",
        ),
        "non-member": (d["former"][0], b.former, "direct"),
        "site": (ids[S_PRODUCT], b.site_guest, f"site:{b.site['public']}"),
        "site-team": (
            ids[S_ENGINEERING],
            sorted(b.team_members[unlisted_team])[0],
            f"site-team:{b.site['unlisted']}/{unlisted_team}",
        ),
        "site-default": (
            ids[S_ENGINEERING],
            engineering_reader,
            f"site-default:{b.site['unlisted']}",
        ),
        "creator": (d["no_admin"], b.private_creator, "creator"),
    }
    b.facts["path_examples"] = {
        name: {
            "space_id": space_id,
            "user_id": user_id,
            "source": source,
            "role": dict(model.paths(state, user_id, "space", space_id))[source],
        }
        for name, (space_id, user_id, source) in examples.items()
    }
    b.facts["access_cases"] = _access_cases(b, engineering_reader)


def _roles(state: State, user_id: str, space_id: str) -> dict[str, str | None]:
    """The user's role on the space under each rule set."""
    chosen, roles = state.rule_set, {}
    try:
        for rule_set in model.RULE_SETS:
            state.rule_set = rule_set
            roles[rule_set] = model.role_of(state, user_id, "space", space_id)
    finally:
        state.rule_set = chosen
    return roles


def _access_cases(b: Builder, member: str) -> dict[str, dict[str, Any] | None]:
    """The demo's cases of the documented access model, with each rule set's role.

    ``site_reaches_linked_spaces``: a guest reading the public site's inheriting spaces
    through a site permission alone; ``site_overrides_collection``: a member whose collection
    grant the unlisted site's default level overrides (under ``precedence``);
    ``site_default_over_collection_default``: a member getting the site's ``comment`` over
    the collection's ``read``; ``direct_overrides_site``: a direct grant on a space that the
    unlisted site links; ``private_space_creator``: the creator of a private space, reaching
    it through that alone. None where the organization is too small to hold the case.
    """
    state, ids = b.state, b.space_ids
    engineering = ids[S_ENGINEERING]

    def case(space_id: str, user_id: str | None, **extra: Any) -> dict[str, Any] | None:
        if user_id is None:
            return None
        found = {"space_id": space_id, "user_id": user_id, **extra}
        return {**found, "roles": _roles(state, user_id, space_id)}

    def first(kinds: set[str], wanted) -> str | None:
        """The first member whose kinds of path to the engineering space include ``kinds``
        and whose roles satisfy ``wanted``."""
        for user_id in sorted(state.members[b.org_id]):
            found = {s.split(":")[0] for s, _ in model.paths(state, user_id, "space", engineering)}
            if kinds <= found and wanted(_roles(state, user_id, engineering)):
                return user_id
        return None

    return {
        "site_reaches_linked_spaces": case(
            ids[S_PRODUCT],
            b.site_guest,
            site_id=b.site["public"],
            space_ids=[ids[S_PRODUCT], ids[S_API]],
        ),
        "site_overrides_collection": case(
            engineering,
            first(
                {"collection", "site-default"},
                lambda r: r["precedence"] == "comment" and rank(r["highest"]) > rank("comment"),
            ),
            site_id=b.site["unlisted"],
        ),
        "site_default_over_collection_default": case(
            engineering, member, site_id=b.site["unlisted"]
        ),
        "direct_overrides_site": case(
            engineering,
            first(
                {"direct", "site-default"},
                lambda r: r["precedence"] == r["highest"] != "admin",
            ),
            site_id=b.site["unlisted"],
        ),
        "private_space_creator": case(b.deliberate_spaces["no_admin"], b.private_creator),
    }


def _spaces_under(b: Builder, collection_id: str) -> list[dict[str, Any]]:
    found = []
    for kind, item_id in b.state.children.get((b.org_id, collection_id), []):
        if kind == "space":
            found.append(b.state.spaces[item_id])
        else:
            found.extend(_spaces_under(b, item_id))
    return found
