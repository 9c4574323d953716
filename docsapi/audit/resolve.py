"""Who reaches which space, and by which path: the access model of ``docs/access-model.md``.

:func:`resolve` turns the raw tables of an :class:`~docsapi.audit.data.AuditData` into
integer-coded tables: every entity (space, user, team, collection, site) gets a code, roles
are codes of :data:`~docsapi.audit.data.ROLES` (0 = guest … 6 = admin), and the paths and
the effective access are numpy arrays of those codes. Everything is computed with array
operations (joins by sorting, one pass per level of collection nesting, one sort for the
effective access); no Python loop runs over rows.

Paths do not depend on the rule set; each carries its ``rank``, where its level stands in
the platform's precedence (the space's own permissions, then its own default level, then
the sites linking it, then each collection from the nearest up, each with its permissions
before its default, then the organization). :func:`path_keys` turns ranks into what the
chosen rule set compares (:data:`RULE_SETS`): ``precedence`` keeps the nearest level with a
say, up to the level whose default decides; ``highest`` lets every path count.
:func:`effective_access` then takes, per (space, user), the highest role among the paths of
the best key.

Spaces are coded in (title, id) order and users in (display name, id) order, so tables
sorted by codes are sorted by names.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

from docsapi.audit.coverage import Gaps, find_gaps
from docsapi.audit.data import ROLES, STRING, AuditData
from docsapi.core.rule_sets import DEFAULT_RULE_SET, RULE_SETS
from docsapi.errors import ValidationError

__all__ = [
    "DEFAULT_RULE_SET",
    "INHERIT",
    "KINDS",
    "PRIVATE",
    "RULE_SETS",
    "STATUSES",
    "Resolution",
    "argsort_ints",
    "categorical",
    "check_rule_set",
    "codes_in",
    "distinct",
    "join_indices",
    "level_codes",
    "member_levels",
    "path_keys",
    "plain_text",
    "resolve",
    "role_codes",
    "rule_set_roles",
    "unique_inverse",
]

#: Kinds of path, in the order of their codes.
KINDS: tuple[str, ...] = (
    "org-admin",
    "default",
    "direct",
    "team",
    "collection",
    "collection-team",
    "site",
    "site-team",
    "site-default",
    "creator",
)
(
    ORG_ADMIN,
    DEFAULT,
    DIRECT,
    TEAM,
    COLLECTION,
    COLLECTION_TEAM,
    SITE,
    SITE_TEAM,
    SITE_DEFAULT,
    CREATOR,
) = range(len(KINDS))

#: Default-level codes besides the roles 1-6: null (private) and inherit; -1 is unknown.
PRIVATE, INHERIT, UNKNOWN = 0, len(ROLES), -1
_ADMIN = ROLES.index("admin")


#: What a path does for its (space, user) pair: gives the effective role, gives less at the
#: level that decides, or stands at a level a nearer one overrides.
STATUSES: tuple[str, ...] = ("decides", "lower", "overridden")
DECIDES, LOWER, OVERRIDDEN_STATUS = range(len(STATUSES))

#: Ranks of the precedence walk (lower first). A collection at depth d (1 = the parent) has
#: its permissions at ``3 + 2 d`` and its default level at ``4 + 2 d``.
RANK_ORG_ADMIN, RANK_SPACE, RANK_SPACE_DEFAULT, RANK_SITE, RANK_SITE_DEFAULT = 0, 1, 2, 3, 4
#: The organization's level (each member's own role) comes after every collection.
RANK_ORGANIZATION = 2**30
#: The key of a path that does not count (a nearer level's default level decided).
OVERRIDDEN = 2**31 - 1


def check_rule_set(rule_set: object) -> str:
    """``rule_set`` if it is one of :data:`RULE_SETS`; a ValidationError saying which exist.

    Examples
    --------
    >>> check_rule_set("highest")
    'highest'
    """
    if not isinstance(rule_set, str) or rule_set not in RULE_SETS:
        raise ValidationError(
            "model",
            f"must be one of {', '.join(map(repr, RULE_SETS))} (how the access model combines "
            f"its levels, see docs/access-model.md); got {rule_set!r:.60}",
        )
    return rule_set


def collection_ranks(depth: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Ranks of the permissions and of the default level of collections at ``depth``."""
    depth = np.asarray(depth, dtype=np.int64)
    return 3 + 2 * depth, 4 + 2 * depth


def level_of_rank(rank: np.ndarray) -> np.ndarray:
    """The level each rank belongs to: 0 organization, 1 space, 2 site, 3 collection."""
    rank = np.asarray(rank, dtype=np.int64)
    return np.select(
        [rank <= RANK_ORG_ADMIN, rank <= RANK_SPACE_DEFAULT, rank <= RANK_SITE_DEFAULT],
        [0, 1, 2],
        np.where(rank >= RANK_ORGANIZATION, 0, 3),
    ).astype(np.int8)


#: Names of :func:`level_of_rank`'s codes.
LEVELS: tuple[str, ...] = ("organization", "space", "site", "collection")


def role_codes(values: pd.Series) -> np.ndarray:
    """Role names (missing for guest) as codes of ROLES: 0 guest … 6 admin."""
    return (pd.Categorical(values, categories=list(ROLES[1:])).codes + 1).astype(np.int8)


def level_codes(values: pd.Series) -> np.ndarray:
    """Default levels as codes: 0 private (null), 1-6 a role, 7 inherit."""
    categories = [*ROLES[1:], "inherit"]
    return (pd.Categorical(values, categories=categories).codes + 1).astype(np.int8)


def level_names() -> list[str]:
    """Names of the default-level codes 0-7 (``private``, the roles, ``inherit``)."""
    return ["private", *ROLES[1:], "inherit"]


def join_indices(left: np.ndarray, right: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row indices ``(i, j)`` of an inner join on integer keys: ``left[i] == right[j]``.

    Examples
    --------
    >>> i, j = join_indices(np.array([1, 2, 5]), np.array([2, 1, 2]))
    >>> list(zip(i.tolist(), j.tolist()))
    [(0, 1), (1, 0), (1, 2)]
    """
    order = argsort_ints(right)
    ordered = right[order]
    low = np.searchsorted(ordered, left, "left")
    counts = np.searchsorted(ordered, left, "right") - low
    total = int(counts.sum())
    left_rows = np.repeat(np.arange(len(left)), counts)
    starts = np.repeat(low - (np.cumsum(counts) - counts), counts)
    right_rows = order[starts + np.arange(total)]
    return left_rows, right_rows


def categorical(codes: np.ndarray, labels: pd.Series | np.ndarray) -> pd.Categorical:
    """``labels[codes]`` as a categorical of strings (code -1 or a missing label: missing).

    Labels may repeat or be missing; each distinct label is stored once.
    """
    label_codes, uniques = pd.factorize(np.asarray(labels, dtype=object))
    width = np.int8 if len(uniques) < 127 else np.int16 if len(uniques) < 32767 else np.int32
    label_codes = np.append(label_codes, -1).astype(width)  # position -1 reads "missing"
    dtype = pd.CategoricalDtype(pd.Index(uniques, dtype=STRING))
    return pd.Categorical.from_codes(label_codes[codes], dtype=dtype)


def argsort_ints(keys: np.ndarray) -> np.ndarray:
    """A stable argsort of non-negative integer keys.

    Keys and positions are packed into one int64 and sorted with ``np.sort`` (several times
    faster than ``np.argsort``); keys too large to pack fall back to a stable argsort.
    """
    count = len(keys)
    if count == 0:
        return np.zeros(0, dtype=np.int64)
    bits = max(int(count - 1).bit_length(), 1)
    if int(keys.min()) >= 0 and int(keys.max()) < (1 << (62 - bits)):
        packed = (keys.astype(np.int64) << bits) | np.arange(count, dtype=np.int64)
        packed.sort()
        return packed & ((1 << bits) - 1)
    return np.argsort(keys, kind="stable")


def distinct(keys: np.ndarray) -> np.ndarray:
    """The sorted distinct values of an integer array (``np.unique`` without its overhead)."""
    ordered = np.sort(keys)
    if len(ordered) == 0:
        return ordered
    return ordered[np.r_[True, ordered[1:] != ordered[:-1]]]


def unique_inverse(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct values of non-negative integers and each key's position among them."""
    order = argsort_ints(keys)
    ordered = keys[order]
    starts = np.r_[True, ordered[1:] != ordered[:-1]] if len(ordered) else np.zeros(0, bool)
    inverse = np.empty(len(keys), dtype=np.int64)
    inverse[order] = np.cumsum(starts) - 1
    return ordered[starts], inverse


def codes_in(index: pd.Index, values: pd.Series) -> np.ndarray:
    """The position of each value in ``index``; -1 where missing or absent.

    A categorical column is mapped through its categories (few), not row by row.
    """
    if isinstance(values.dtype, pd.CategoricalDtype):
        found = index.get_indexer(pd.Index(values.cat.categories, dtype=object))
        return np.append(found, -1)[values.cat.codes.to_numpy()]
    return index.get_indexer(pd.Index(np.asarray(values, dtype=object), dtype=object))


def _index(ids: pd.Series) -> pd.Index:
    return pd.Index(np.asarray(ids, dtype=object), dtype=object)


def plain_text(frame: pd.DataFrame) -> pd.DataFrame:
    """A small table with its categorical text columns as strings (so it sorts by text)."""
    text = {
        column: STRING
        for column, dtype in frame.dtypes.items()
        if isinstance(dtype, pd.CategoricalDtype)
    }
    return frame.astype(text)


def _parent_codes(index: pd.Index, parents: pd.Series) -> np.ndarray:
    """Codes of parent collections: -1 for none, -2 for a parent that was not listed."""
    codes = codes_in(index, parents)
    return np.where(parents.notna().to_numpy() & (codes < 0), -2, codes)


@dataclass
class Resolution:
    """The organization coded for analysis.

    Attributes
    ----------
    spaces : DataFrame
        Active spaces in code order: the raw columns plus ``resolved`` (default-level code
        through the collections, -1 unknown), ``decided_depth`` (where it is set: 0 the
        space, d a collection d levels up, -1 nowhere: the organization), ``site_level``
        (the strongest default level other than ``inherit`` of the sites linking a space
        that inherits, -1 none), ``stop`` (the rank of the level whose default decides under
        ``precedence``), ``no_access_owner`` (the space or collection whose null default
        level makes it private) with ``creator_known`` (the audit log names its creator),
        ``chain_known`` and ``complete`` (every input read).
    users : DataFrame
        Every user seen, in code order: user_id, display_name, email, member_role,
        member_status, last_seen_at, org_role (code; -1 for a non-member), disabled.
    teams, collections, sites : DataFrame
        In code order: the raw columns; teams add ``members_read`` and ``size``, sites
        ``level`` (their default-level code).
    ancestors : DataFrame
        space, collection, depth (1 = the parent): every collection above each space.
    site_links : DataFrame
        space, site: each site linking a space that inherits (site permissions reach it).
    paths : DataFrame
        One row per path of a user who is not disabled: space, user, kind, role, team,
        collection, site, rank (see :func:`path_keys`), source (codes; -1 where not
        applicable).
    blocked : DataFrame
        The same for disabled users: their grants, kept for the rules, never access.
    sources : DataFrame
        One row per source code: source, source_name, kind.
    """

    spaces: pd.DataFrame
    users: pd.DataFrame
    teams: pd.DataFrame
    collections: pd.DataFrame
    sites: pd.DataFrame
    ancestors: pd.DataFrame
    site_links: pd.DataFrame
    paths: pd.DataFrame
    blocked: pd.DataFrame
    sources: pd.DataFrame


def _used(values: pd.Series) -> np.ndarray:
    """The distinct values a categorical column actually holds, as an object array."""
    codes = values.cat.codes.to_numpy()
    return np.asarray(values.cat.categories, dtype=object)[distinct(codes[codes >= 0])]


def _first_labels(frame: pd.DataFrame, key: str, label: str, wanted: pd.Index) -> np.ndarray:
    """For each id of ``wanted``, the first non-missing ``label`` found for it in ``frame``."""
    found = np.full(len(wanted), None, dtype=object)
    if frame.empty or label not in frame:
        return found
    at = codes_in(wanted, frame[key])
    labels = frame[label].cat.codes.to_numpy()
    rows = np.flatnonzero((at >= 0) & (labels >= 0))
    if len(rows):
        ordered = rows[argsort_ints(at[rows])]  # stable: the first row of each id comes first
        first = ordered[np.r_[True, at[ordered][1:] != at[ordered][:-1]]]
        names = np.asarray(frame[label].cat.categories, dtype=object)
        found[at[first]] = names[labels[first]]
    return found


def _users(data: AuditData) -> pd.DataFrame:
    """Every user seen anywhere, in (display name, id) order, with their membership.

    Names and emails come from the member list first, then from permissions, team
    memberships and the platform's aggregate (for users who are no longer members). Only
    the distinct ids of each table are looked at, never its rows one by one.
    """
    members = plain_text(data.members)
    sources = (data.user_permissions, data.team_members, data.aggregate)
    member_ids = _index(members["user_id"].dropna())
    others = pd.Index(
        np.concatenate([_used(frame["user_id"]) for frame in sources]), dtype=object
    ).unique()
    others = others[member_ids.get_indexer(others) < 0]
    outside = pd.DataFrame(
        {"user_id": pd.array(np.asarray(others, dtype=object), dtype=STRING)}, copy=False
    )
    for column in ("display_name", "email"):
        labels = np.full(len(others), None, dtype=object)
        for frame in sources:
            missing = pd.isna(labels)
            if missing.any() and column in frame:
                labels[missing] = _first_labels(frame, "user_id", column, others[missing])
        outside[column] = pd.array(labels, dtype=STRING)
    users = pd.concat(
        [
            members[["user_id", "display_name", "email", "role", "disabled", "last_seen_at"]],
            outside,
        ],
        ignore_index=True,
    ).dropna(subset=["user_id"])
    users = users.sort_values(["display_name", "user_id"], na_position="last", kind="stable")
    users = users.reset_index(drop=True)
    is_member = users["user_id"].isin(members["user_id"]).to_numpy(dtype=bool)
    disabled = users["disabled"].fillna(False).to_numpy(dtype=bool) & is_member
    org_role = np.where(is_member, role_codes(users["role"]), -1).astype(np.int8)
    role_names = np.array(["non-member", *ROLES], dtype=object)
    users["member_role"] = pd.array(role_names[org_role + 1], dtype=STRING)
    status = np.where(disabled, "disabled", np.where(is_member, "active", "non-member"))
    users["member_status"] = pd.array(status.astype(object), dtype=STRING)
    users["org_role"] = org_role
    users["disabled"] = disabled
    return users.drop(columns="role")


def _teams(data: AuditData, gaps: Gaps) -> pd.DataFrame:
    """Every team seen (listed, holding a permission, or with members), in (title, id) order."""
    listed = plain_text(data.teams)[["id", "title"]].dropna(subset=["id"])
    known = _index(listed["id"])
    others = pd.Index(
        np.concatenate(
            [_used(data.team_permissions["team_id"]), _used(data.team_members["team_id"])]
        ),
        dtype=object,
    ).unique()
    others = others[known.get_indexer(others) < 0]
    titles = _first_labels(data.team_permissions, "team_id", "title", others)
    teams = pd.concat(
        [
            listed.assign(listed=True),
            pd.DataFrame(
                {
                    "id": pd.array(np.asarray(others, dtype=object), dtype=STRING),
                    "title": pd.array(titles, dtype=STRING),
                    "listed": False,
                },
                copy=False,
            ),
        ],
        ignore_index=True,
    )
    teams = teams.sort_values(["title", "id"], na_position="last").reset_index(drop=True)
    failed = teams["id"].isin(list(gaps.ids("team_members"))).to_numpy(dtype=bool)
    read = teams["listed"].to_numpy(dtype=bool) & ~failed
    teams["members_read"] = read & gaps.has("team_members") & gaps.has("teams")
    return teams.drop(columns="listed")


def resolve(data: AuditData, gaps: Gaps | None = None) -> Resolution:
    """Compute every path by which a user reaches an active space.

    Parameters
    ----------
    data : AuditData
        The raw tables.
    gaps : Gaps, optional
        What could not be read (found from ``data`` when omitted): spaces whose access
        depends on it are marked incomplete.

    Returns
    -------
    Resolution
    """
    gaps = gaps or find_gaps(data)
    spaces = plain_text(data.spaces[data.spaces["deleted_at"].isna().to_numpy()])
    spaces = spaces.sort_values(["title", "id"]).reset_index(drop=True)
    space_index = _index(spaces["id"])
    collections = plain_text(data.collections).sort_values(["title", "id"]).reset_index(drop=True)
    collection_index = _index(collections["id"])
    sites = plain_text(data.sites).dropna(subset=["id"])
    sites = sites.sort_values(["title", "id"]).reset_index(drop=True)
    sites["level"] = level_codes(sites["default_level"])
    site_index = _index(sites["id"])
    users = _users(data)
    user_index = _index(users["user_id"])
    teams = _teams(data, gaps)
    team_index = _index(teams["id"])

    chain = _walk_collections(spaces, collections, collection_index)
    inherits = level_codes(spaces["default_level"]) == INHERIT
    site_links = _site_links(data, space_index, site_index, inherits)
    site_level = np.full(len(spaces), -1, dtype=np.int8)
    levels = sites["level"].to_numpy()[site_links["site"].to_numpy()]
    said = levels != INHERIT
    np.maximum.at(site_level, site_links["space"].to_numpy()[said], levels[said])
    spaces = spaces.assign(
        resolved=chain.resolved,
        decided_depth=chain.decided_depth,
        site_level=site_level,
        stop=_stops(inherits, site_level, chain.decided_depth),
        chain_known=chain.known,
    )

    grants = _coded_grants(data, space_index, collection_index, site_index, user_index, team_index)
    memberships = _memberships(data, team_index, user_index)
    creators = _creators(data, space_index, collection_index, user_index)
    owner, known = _no_access_owners(spaces, collections, chain, creators, gaps.has("creators"))
    spaces["no_access_owner"] = pd.array(owner, dtype=STRING)
    spaces["creator_known"] = known
    offsets = _Offsets(len(teams), len(collections), len(sites))
    paths, blocked = _paths(
        spaces,
        users,
        chain,
        site_links,
        sites["level"].to_numpy(),
        grants,
        memberships,
        creators,
        offsets,
    )
    sources = _sources(paths, blocked, offsets, teams, collections, sites, spaces, site_links)

    spaces["complete"] = _space_complete(
        gaps,
        spaces,
        space_index,
        collection_index,
        teams,
        chain,
        grants,
        site_links,
        sites,
    )
    teams["size"] = np.bincount(memberships["team"], minlength=len(teams))
    return Resolution(
        spaces=spaces,
        users=users,
        teams=teams,
        collections=collections,
        sites=sites,
        ancestors=chain.ancestors,
        site_links=site_links,
        paths=paths,
        blocked=blocked,
        sources=sources,
    )


def _stops(inherits: np.ndarray, site_level: np.ndarray, decided_depth: np.ndarray) -> np.ndarray:
    """Per space, the rank of the level whose default level decides under ``precedence``:
    its own (when it does not inherit), the sites', the first collection's that sets one,
    else the organization's."""
    _, collection_default = collection_ranks(decided_depth)
    return np.select(
        [~inherits, site_level >= 0, decided_depth > 0],
        [RANK_SPACE_DEFAULT, RANK_SITE_DEFAULT, collection_default],
        RANK_ORGANIZATION,
    ).astype(np.int64)


@dataclass
class _Chain:
    """Each space's collections and the default level they resolve it to.

    ``resolved`` (INHERIT: the member's own role; UNKNOWN: a collection on the way was not
    listed), ``decided_depth`` (0 the space itself, d a collection, -1 none), ``owner``
    (the collection code that sets it, -1 for the space itself or none) and ``known``
    (whether the whole chain up to the top is known).
    """

    ancestors: pd.DataFrame
    resolved: np.ndarray
    decided_depth: np.ndarray
    owner: np.ndarray
    known: np.ndarray


def _walk_collections(spaces: pd.DataFrame, collections: pd.DataFrame, index: pd.Index) -> _Chain:
    """Ancestors of every space and its resolved default level, one pass per depth."""
    parent_of = _parent_codes(index, collections["parent"])
    level_of = level_codes(collections["default_level"])
    current = _parent_codes(index, spaces["parent"])
    resolved = level_codes(spaces["default_level"])
    decided = np.where(resolved != INHERIT, 0, -1).astype(np.int16)
    owner = np.full(len(spaces), -1, dtype=np.int64)
    broken = current == -2
    found_spaces: list[np.ndarray] = []
    found_collections: list[np.ndarray] = []
    found_depths: list[np.ndarray] = []
    depth = 0
    while (current >= 0).any():
        depth += 1
        if depth > len(collections):  # a cycle of parents: the chain has no top
            broken |= current >= 0
            break
        rows = np.flatnonzero(current >= 0)
        above = current[rows]
        found_spaces.append(rows)
        found_collections.append(above)
        found_depths.append(np.full(len(rows), depth, dtype=np.int16))
        open_ = rows[resolved[rows] == INHERIT]
        resolved[open_] = level_of[current[open_]]
        now_set = open_[resolved[open_] != INHERIT]
        decided[now_set] = depth
        owner[now_set] = current[now_set]
        following = np.full_like(current, -1)
        following[rows] = parent_of[above]
        broken |= following == -2
        current = following
    resolved = np.where((resolved == INHERIT) & broken, UNKNOWN, resolved).astype(np.int8)
    ancestors = pd.DataFrame(
        {
            "space": np.concatenate([np.zeros(0, np.int64), *found_spaces]),
            "collection": np.concatenate([np.zeros(0, np.int64), *found_collections]),
            "depth": np.concatenate([np.zeros(0, np.int16), *found_depths]),
        },
        copy=False,
    )
    return _Chain(ancestors, resolved, decided, owner, ~broken)


def _site_links(
    data: AuditData, space_index: pd.Index, site_index: pd.Index, inherits: np.ndarray
) -> pd.DataFrame:
    """(space, site) codes of each site linking a space that inherits, each pair once."""
    links = data.site_spaces
    space = codes_in(space_index, links["space_id"])
    site = codes_in(site_index, links["site_id"])
    keep = (space >= 0) & (site >= 0)
    keep[keep] = inherits[space[keep]]
    pairs = distinct(space[keep].astype(np.int64) * max(len(site_index), 1) + site[keep])
    width = max(len(site_index), 1)
    return pd.DataFrame({"space": pairs // width, "site": pairs % width}, copy=False)


@dataclass
class _Grants:
    """Explicit permissions as codes: one frame per holder and target kind."""

    space_users: pd.DataFrame  # space, user, role
    space_teams: pd.DataFrame  # space, team, role
    collection_users: pd.DataFrame  # collection, user, role
    collection_teams: pd.DataFrame  # collection, team, role
    site_users: pd.DataFrame  # site, user, role
    site_teams: pd.DataFrame  # site, team, role


def _coded_grants(
    data: AuditData,
    space_index: pd.Index,
    collection_index: pd.Index,
    site_index: pd.Index,
    user_index: pd.Index,
    team_index: pd.Index,
) -> _Grants:
    targets = {"space": space_index, "collection": collection_index, "site": site_index}

    def coded(frame: pd.DataFrame, target: str, holder: str, holders: pd.Index, key: str):
        rows = frame[(frame["target_type"] == target).fillna(False).to_numpy(dtype=bool)]
        result = pd.DataFrame(
            {
                target: codes_in(targets[target], rows["target_id"]),
                holder: codes_in(holders, rows[key]),
                "role": role_codes(rows["role"]),
            },
            copy=False,
        )
        keep = (result[target] >= 0) & (result[holder] >= 0) & (result["role"] > 0)
        return result[keep.to_numpy()].reset_index(drop=True)

    users, teams = data.user_permissions, data.team_permissions
    return _Grants(
        space_users=coded(users, "space", "user", user_index, "user_id"),
        space_teams=coded(teams, "space", "team", team_index, "team_id"),
        collection_users=coded(users, "collection", "user", user_index, "user_id"),
        collection_teams=coded(teams, "collection", "team", team_index, "team_id"),
        site_users=coded(users, "site", "user", user_index, "user_id"),
        site_teams=coded(teams, "site", "team", team_index, "team_id"),
    )


@dataclass
class _Creators:
    """Who created each space and collection, as user codes (-1: no user, or unknown),
    and whether the audit log said (``*_known``)."""

    space: np.ndarray
    space_known: np.ndarray
    collection: np.ndarray
    collection_known: np.ndarray


def _creators(
    data: AuditData, space_index: pd.Index, collection_index: pd.Index, user_index: pd.Index
) -> _Creators:
    rows = data.creators
    user = codes_in(user_index, rows["user_id"])
    found = []
    for kind, index in (("space", space_index), ("collection", collection_index)):
        mine = (rows["target_type"] == kind).fillna(False).to_numpy(dtype=bool)
        target = codes_in(index, rows["target_id"][mine])
        hit = target >= 0
        creator = np.full(len(index), -1, dtype=np.int64)
        known = np.zeros(len(index), dtype=bool)
        creator[target[hit]] = user[mine][hit]
        known[target[hit]] = True
        found += [creator, known]
    return _Creators(*found)


def _memberships(data: AuditData, team_index: pd.Index, user_index: pd.Index) -> pd.DataFrame:
    frame = pd.DataFrame(
        {
            "team": codes_in(team_index, data.team_members["team_id"]),
            "user": codes_in(user_index, data.team_members["user_id"]),
        },
        copy=False,
    )
    return frame[(frame["team"] >= 0).to_numpy() & (frame["user"] >= 0).to_numpy()]


#: Columns of the coded paths, with their dtypes.
_PATH_DTYPES = {
    "space": np.int32,
    "user": np.int32,
    "kind": np.int8,
    "role": np.int8,
    "team": np.int32,
    "collection": np.int32,
    "site": np.int32,
    "rank": np.int32,
    "key": np.int64,  # identifies the source; replaced by the source code
}


def _column(values, count: int) -> np.ndarray:
    """Codes for a path column: -1 (not applicable) when ``values`` is None."""
    if values is None:
        return np.full(count, -1, np.int32)
    return np.broadcast_to(np.asarray(values, dtype=np.int64), (count,)).astype(np.int32)


class _PathParts:
    """Paths collected kind by kind as column arrays, concatenated once at the end."""

    def __init__(self, disabled: np.ndarray) -> None:
        self.disabled = disabled
        self.active: list[dict[str, np.ndarray]] = []
        self.blocked: list[dict[str, np.ndarray]] = []

    def add(
        self, kind: int, space, user, role, key, rank, *, team=None, collection=None, site=None
    ) -> None:
        count = len(space)
        part: dict[str, np.ndarray] = {
            "space": np.asarray(space, dtype=np.int32),
            "user": np.asarray(user, dtype=np.int32),
            "kind": np.full(count, kind, dtype=np.int8),
            "role": np.asarray(role, dtype=np.int8),
            "team": _column(team, count),
            "collection": _column(collection, count),
            "site": _column(site, count),
            "rank": _column(rank, count),
            "key": np.broadcast_to(np.asarray(key, dtype=np.int64), (count,)),
        }
        blocked = self.disabled[part["user"]]
        if blocked.any():
            self.blocked.append({name: column[blocked] for name, column in part.items()})
            part = {name: column[~blocked] for name, column in part.items()}
        self.active.append(part)

    @staticmethod
    def frame(parts: list[dict[str, np.ndarray]]) -> pd.DataFrame:
        return pd.DataFrame(
            {
                name: np.concatenate([np.zeros(0, dtype), *(part[name] for part in parts)])
                for name, dtype in _PATH_DTYPES.items()
            },
            copy=False,
        )


def _paths(
    spaces: pd.DataFrame,
    users: pd.DataFrame,
    chain: _Chain,
    site_links: pd.DataFrame,
    site_levels: np.ndarray,
    grants: _Grants,
    memberships: pd.DataFrame,
    creators: _Creators,
    offsets: _Offsets,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Every (space, user, path) as codes: the paths of active users, and of disabled ones.

    Each path carries a ``key`` identifying its source (see :class:`_Offsets`) and the
    ``rank`` of its level in the precedence walk.
    """
    space_count = len(spaces)
    org_role = users["org_role"].to_numpy()
    disabled = users["disabled"].to_numpy(dtype=bool)
    parts = _PathParts(disabled)
    member_user = ~disabled & (org_role > 0)

    admins = np.flatnonzero(~disabled & (org_role == _ADMIN))
    parts.add(
        ORG_ADMIN,
        np.tile(np.arange(space_count), len(admins)),
        np.repeat(admins, space_count),
        np.full(space_count * len(admins), _ADMIN),
        offsets.org_admin,
        RANK_ORG_ADMIN,
    )

    resolved = spaces["resolved"].to_numpy()
    depth = chain.decided_depth
    _, collection_default = collection_ranks(depth)
    default_rank = np.select(
        [depth == 0, depth > 0], [RANK_SPACE_DEFAULT, collection_default], RANK_ORGANIZATION
    )
    open_spaces = np.flatnonzero(resolved > PRIVATE)
    members = np.flatnonzero(member_user)
    space = np.tile(open_spaces, len(members))
    user = np.repeat(members, len(open_spaces))
    level = resolved[space]
    role = np.where(level == INHERIT, org_role[user], level)
    key = offsets.default - 1 + level.astype(np.int64)
    parts.add(DEFAULT, space, user, role, key, default_rank[space])
    del space, user, level, role, key

    # "No access": whoever created the space, or the collection that makes it private.
    private = np.flatnonzero(resolved == PRIVATE)
    owner = chain.owner[private]
    own = depth[private] == 0
    by_collection = np.append(creators.collection, -1)  # position -1: none
    creator = np.where(own, creators.space[private], by_collection[owner])
    keep = creator >= 0
    keep[keep] = member_user[creator[keep]]
    private, owner, own, creator = private[keep], owner[keep], own[keep], creator[keep]
    parts.add(
        CREATOR,
        private,
        creator,
        org_role[creator],
        np.where(own, offsets.creator, offsets.collection_creator + owner),
        default_rank[private],
        collection=np.where(own, -1, owner),
    )

    direct = grants.space_users
    parts.add(DIRECT, direct["space"], direct["user"], direct["role"], offsets.direct, RANK_SPACE)

    team_rows, member_rows = join_indices(
        grants.space_teams["team"].to_numpy(), memberships["team"].to_numpy()
    )
    held = grants.space_teams.iloc[team_rows]
    team = held["team"].to_numpy()
    parts.add(
        TEAM,
        held["space"],
        memberships["user"].to_numpy()[member_rows],
        held["role"],
        offsets.team + team.astype(np.int64),
        RANK_SPACE,
        team=team,
    )

    below = chain.ancestors["collection"].to_numpy()
    above_rank, _ = collection_ranks(chain.ancestors["depth"].to_numpy())
    grant_rows, ancestor_rows = join_indices(
        grants.collection_users["collection"].to_numpy(), below
    )
    held = grants.collection_users.iloc[grant_rows]
    collection = held["collection"].to_numpy()
    parts.add(
        COLLECTION,
        chain.ancestors["space"].to_numpy()[ancestor_rows],
        held["user"],
        held["role"],
        offsets.collection + collection.astype(np.int64),
        above_rank[ancestor_rows],
        collection=collection,
    )

    grant_rows, ancestor_rows = join_indices(
        grants.collection_teams["collection"].to_numpy(), below
    )
    held = grants.collection_teams.iloc[grant_rows]
    team_rows, member_rows = join_indices(held["team"].to_numpy(), memberships["team"].to_numpy())
    team = held["team"].to_numpy()[team_rows]
    collection = held["collection"].to_numpy()[team_rows]
    parts.add(
        COLLECTION_TEAM,
        chain.ancestors["space"].to_numpy()[ancestor_rows][team_rows],
        memberships["user"].to_numpy()[member_rows],
        held["role"].to_numpy()[team_rows],
        offsets.collection_team + collection.astype(np.int64) * offsets.teams + team,
        above_rank[ancestor_rows][team_rows],
        team=team,
        collection=collection,
    )
    _site_paths(parts, site_links, site_levels, grants, memberships, members, offsets)
    return parts.frame(parts.active), parts.frame(parts.blocked)


def _site_paths(
    parts: _PathParts,
    site_links: pd.DataFrame,
    site_levels: np.ndarray,
    grants: _Grants,
    memberships: pd.DataFrame,
    members: np.ndarray,
    offsets: _Offsets,
) -> None:
    """Paths through the sites linking a space that inherits: their user and team
    permissions, and their default level for every member."""
    linked_site = site_links["site"].to_numpy()
    linked_space = site_links["space"].to_numpy()
    grant_rows, link_rows = join_indices(grants.site_users["site"].to_numpy(), linked_site)
    held = grants.site_users.iloc[grant_rows]
    site = held["site"].to_numpy()
    parts.add(
        SITE,
        linked_space[link_rows],
        held["user"],
        held["role"],
        offsets.site + site.astype(np.int64),
        RANK_SITE,
        site=site,
    )

    grant_rows, link_rows = join_indices(grants.site_teams["site"].to_numpy(), linked_site)
    held = grants.site_teams.iloc[grant_rows]
    team_rows, member_rows = join_indices(held["team"].to_numpy(), memberships["team"].to_numpy())
    team = held["team"].to_numpy()[team_rows]
    site = held["site"].to_numpy()[team_rows]
    parts.add(
        SITE_TEAM,
        linked_space[link_rows][team_rows],
        memberships["user"].to_numpy()[member_rows],
        held["role"].to_numpy()[team_rows],
        offsets.site_team + site.astype(np.int64) * offsets.teams + team,
        RANK_SITE,
        team=team,
        site=site,
    )

    levels = site_levels[linked_site]
    giving = np.flatnonzero((levels > PRIVATE) & (levels < INHERIT))
    space = np.tile(linked_space[giving], len(members))
    site = np.tile(linked_site[giving], len(members))
    parts.add(
        SITE_DEFAULT,
        space,
        np.repeat(members, len(giving)),
        site_levels[site],
        offsets.site_default + site.astype(np.int64),
        RANK_SITE_DEFAULT,
        site=site,
    )


@dataclass(frozen=True)
class _Offsets:
    """Where each kind's source keys start: org-admin 0, default 1-7 (the level), direct 9,
    then one key per team, per collection, per (collection, team), per site, per (site,
    team), per site default level, the space's creator, and per collection's creator."""

    teams: int
    collections: int
    sites: int

    org_admin = 0
    default = 1
    no_access = 8  # a "No access" default level (in the paths table only: it gives nothing)
    direct = 9
    team = 10

    @property
    def collection(self) -> int:
        return self.team + self.teams

    @property
    def collection_team(self) -> int:
        return self.collection + self.collections

    @property
    def site(self) -> int:
        return self.collection_team + self.collections * self.teams

    @property
    def site_team(self) -> int:
        return self.site + self.sites

    @property
    def site_default(self) -> int:
        return self.site_team + self.sites * self.teams

    @property
    def creator(self) -> int:
        return self.site_default + self.sites

    @property
    def collection_creator(self) -> int:
        return self.creator + 1


def _stop_keys(
    spaces: pd.DataFrame, site_links: pd.DataFrame, sites: pd.DataFrame, offsets: _Offsets
) -> np.ndarray:
    """Per space, the source key of the default level whose level ends the ``precedence``
    walk (-1 when the organization's does): what decides for a user none of whose paths
    counts (see ``paths_table``)."""
    stop = spaces["stop"].to_numpy()
    resolved = spaces["resolved"].to_numpy().astype(np.int64)
    keys = np.where(resolved == PRIVATE, offsets.no_access, offsets.default - 1 + resolved)
    keys = np.where(stop < RANK_ORGANIZATION, keys, -1)
    link_space, link_site = site_links["space"].to_numpy(), site_links["site"].to_numpy()
    deciding = sites["level"].to_numpy()[link_site] == spaces["site_level"].to_numpy()[link_space]
    by_site = np.full(len(spaces), -1, dtype=np.int64)
    by_site[link_space[deciding]] = offsets.site_default + link_site[deciding]
    return np.where(stop == RANK_SITE_DEFAULT, by_site, keys)


def _sources(
    paths: pd.DataFrame,
    blocked: pd.DataFrame,
    offsets: _Offsets,
    teams: pd.DataFrame,
    collections: pd.DataFrame,
    sites: pd.DataFrame,
    spaces: pd.DataFrame,
    site_links: pd.DataFrame,
) -> pd.DataFrame:
    """Replace each path's source key by a source code; return the table of sources.

    The ``sources`` table has one row per distinct source, sorted by source text with
    ``direct`` first (the order used within a (space, user) pair after the role). It also
    sets each space's ``stop_source``: the source of the default level that ends the
    ``precedence`` walk (-1 for the organization's).
    """
    keys = _stop_keys(spaces, site_links, sites, offsets)
    stop_keys = keys[keys >= 0]
    present = distinct(
        np.concatenate([distinct(paths["key"].to_numpy()), blocked["key"], stop_keys])
    )
    text, names, kinds = _describe(present, offsets, teams, collections, sites)
    order = sorted(range(len(present)), key=lambda i: (text[i] != "direct", text[i]))
    rank = np.empty(len(present), dtype=np.int32)
    rank[order] = np.arange(len(present), dtype=np.int32)
    for frame in (paths, blocked):
        frame["source"] = rank[np.searchsorted(present, frame.pop("key").to_numpy())]
    found = rank[np.minimum(np.searchsorted(present, keys), max(len(present) - 1, 0))]
    spaces["stop_source"] = np.where(keys >= 0, found, -1).astype(np.int32)
    return pd.DataFrame(
        {
            "source": pd.array([text[i] for i in order], dtype=STRING),
            "source_name": pd.array([names[i] for i in order], dtype=STRING),
            "kind": np.array([kinds[i] for i in order], dtype=np.int8),
        },
        copy=False,
    )


def _describe(
    keys: np.ndarray,
    offsets: _Offsets,
    teams: pd.DataFrame,
    collections: pd.DataFrame,
    sites: pd.DataFrame,
) -> tuple[list[str], list[str], list[int]]:
    """Source text, source name and kind of each distinct source key (few: one per grant)."""
    levels = level_names()
    entities = {
        "team": (teams["id"].astype(object).tolist(), teams["title"].astype(object).tolist()),
        "collection": (
            collections["id"].astype(object).tolist(),
            collections["title"].astype(object).tolist(),
        ),
        "site": (sites["id"].astype(object).tolist(), sites["title"].astype(object).tolist()),
    }

    def ident(entity: str, code: int) -> str:
        return entities[entity][0][code]

    def label(entity: str, code: int) -> str:
        ids, titles = entities[entity]
        title = titles[code]
        return f"{entity} {title if isinstance(title, str) and title else ids[code]}"

    text, names, kinds = [], [], []
    for key in keys.tolist():
        if key == offsets.org_admin:
            found = ("org-admin", "organization admin", ORG_ADMIN)
        elif key == offsets.no_access:
            found = ("default:private", "default level private", DEFAULT)
        elif key < offsets.direct:
            level = levels[key - offsets.default + 1]
            found = (f"default:{level}", f"default level {level}", DEFAULT)
        elif key == offsets.direct:
            found = ("direct", "direct", DIRECT)
        elif key < offsets.collection:
            code = key - offsets.team
            found = (f"team:{ident('team', code)}", label("team", code), TEAM)
        elif key < offsets.collection_team:
            code = key - offsets.collection
            found = (
                f"collection:{ident('collection', code)}",
                label("collection", code),
                COLLECTION,
            )
        elif key < offsets.site:
            collection, team = divmod(key - offsets.collection_team, offsets.teams)
            found = (
                f"collection-team:{ident('collection', collection)}/{ident('team', team)}",
                f"{label('collection', collection)} / {label('team', team)}",
                COLLECTION_TEAM,
            )
        elif key < offsets.site_team:
            code = key - offsets.site
            found = (f"site:{ident('site', code)}", label("site", code), SITE)
        elif key < offsets.site_default:
            site, team = divmod(key - offsets.site_team, offsets.teams)
            found = (
                f"site-team:{ident('site', site)}/{ident('team', team)}",
                f"{label('site', site)} / {label('team', team)}",
                SITE_TEAM,
            )
        elif key < offsets.creator:
            code = key - offsets.site_default
            found = (
                f"site-default:{ident('site', code)}",
                f"default level of {label('site', code)}",
                SITE_DEFAULT,
            )
        elif key == offsets.creator:
            found = ("creator", "creator of the space", CREATOR)
        else:
            code = key - offsets.collection_creator
            found = (
                f"creator:{ident('collection', code)}",
                f"creator of {label('collection', code)}",
                CREATOR,
            )
        text.append(found[0])
        names.append(found[1])
        kinds.append(found[2])
    return text, names, kinds


def _space_complete(
    gaps: Gaps,
    spaces: pd.DataFrame,
    space_index: pd.Index,
    collection_index: pd.Index,
    teams: pd.DataFrame,
    chain: _Chain,
    grants: _Grants,
    site_links: pd.DataFrame,
    sites: pd.DataFrame,
) -> np.ndarray:
    """Whether every input that decides who reaches each space was read."""
    complete = spaces["chain_known"].to_numpy().copy()
    if not (gaps.has("members") and gaps.has("space_permissions")):
        complete[:] = False
    failed_spaces = space_index.get_indexer(
        pd.Index(list(gaps.ids("space_permissions")), dtype=object)
    )
    complete[failed_spaces[failed_spaces >= 0]] = False

    bad_collection = np.zeros(len(collection_index), dtype=bool)
    if not gaps.has("collection_permissions"):
        bad_collection[:] = True
    failed_collections = collection_index.get_indexer(
        pd.Index(list(gaps.ids("collection_permissions")), dtype=object)
    )
    bad_collection[failed_collections[failed_collections >= 0]] = True

    bad_team = ~teams["members_read"].to_numpy(dtype=bool)
    on_space = grants.space_teams
    complete[on_space["space"].to_numpy()[bad_team[on_space["team"].to_numpy()]]] = False
    on_collection = grants.collection_teams
    bad_collection[
        on_collection["collection"].to_numpy()[bad_team[on_collection["team"].to_numpy()]]
    ] = True

    above = chain.ancestors["collection"].to_numpy()
    complete[chain.ancestors["space"].to_numpy()[bad_collection[above]]] = False

    # Sites reach the spaces that inherit: which sites link them, and their permissions.
    inherits = level_codes(spaces["default_level"]) == INHERIT
    if not (gaps.has("sites") and gaps.has("site_spaces")):
        complete[inherits] = False
    failed_links = _index(sites["id"]).get_indexer(
        pd.Index(list(gaps.ids("site_spaces")), dtype=object)
    )
    if (failed_links >= 0).any():  # a site whose spaces are unknown may link any of them
        complete[inherits] = False
    bad_site = np.zeros(len(sites), dtype=bool)
    if not gaps.has("site_permissions"):
        bad_site[:] = True
    failed_sites = _index(sites["id"]).get_indexer(
        pd.Index(list(gaps.ids("site_permissions")), dtype=object)
    )
    bad_site[failed_sites[failed_sites >= 0]] = True
    on_site = grants.site_teams
    bad_site[on_site["site"].to_numpy()[bad_team[on_site["team"].to_numpy()]]] = True
    complete[site_links["space"].to_numpy()[bad_site[site_links["site"].to_numpy()]]] = False

    # "No access" content: its creator keeps access, if the audit log says who it is.
    complete &= spaces["creator_known"].to_numpy(dtype=bool)
    return complete


def _no_access_owners(
    spaces: pd.DataFrame,
    collections: pd.DataFrame,
    chain: _Chain,
    creators: _Creators,
    creators_read: bool,
) -> tuple[np.ndarray, np.ndarray]:
    """Per space whose default level resolves to "No access" (null), the id of the space or
    collection that sets it (None for the others), and whether the audit log says who
    created it (True where no creator matters)."""
    private = np.flatnonzero(spaces["resolved"].to_numpy() == PRIVATE)
    own = chain.decided_depth[private] == 0
    owner = chain.owner[private]
    ids = np.full(len(spaces), None, dtype=object)
    collection_ids = np.concatenate(  # position -1: none
        [collections["id"].to_numpy(dtype=object), np.array([None], dtype=object)]
    )
    ids[private] = np.where(
        own, spaces["id"].to_numpy(dtype=object)[private], collection_ids[owner]
    )
    known = np.ones(len(spaces), dtype=bool)
    by_collection = np.append(creators.collection_known, False)  # position -1: none
    known[private] = np.where(own, creators.space_known[private], by_collection[owner])
    known[private] &= creators_read
    return ids, known


def path_keys(paths: pd.DataFrame, spaces: pd.DataFrame, rule_set: str) -> np.ndarray:
    """What ``rule_set`` compares for each path: the lowest key of a (space, user) decides.

    Under ``highest`` every path has key 0 (the highest role wins). Under ``precedence``
    a path's key is its rank while the walk reaches it, up to the level whose default level
    decides (the space's ``stop``), and :data:`OVERRIDDEN` beyond.

    Parameters
    ----------
    paths : DataFrame
        Rows of :attr:`Resolution.paths` (space, rank).
    spaces : DataFrame
        :attr:`Resolution.spaces` (stop).
    rule_set : str
        One of :data:`RULE_SETS`.

    Returns
    -------
    ndarray of int64
    """
    if check_rule_set(rule_set) == "highest":
        return np.zeros(len(paths), dtype=np.int64)
    rank = paths["rank"].to_numpy().astype(np.int64)
    stop = spaces["stop"].to_numpy()[paths["space"].to_numpy()]
    return np.where(rank <= stop, rank, OVERRIDDEN)


def member_levels(resolution: Resolution, rule_set: str) -> np.ndarray:
    """Per space, the default level a member without any permission of their own gets.

    Codes as :func:`level_codes` (INHERIT: each member's own role; -1: unknown). Under
    ``precedence`` a site linking a space that inherits decides with its default level;
    under ``highest`` its default level counts when it gives more.
    """
    spaces = resolution.spaces
    chain = spaces["resolved"].to_numpy()
    site = spaces["site_level"].to_numpy()
    if check_rule_set(rule_set) == "precedence":
        return np.where(site >= 0, site, chain).astype(np.int8)
    role = (chain > PRIVATE) & (chain < INHERIT)
    better = (site > PRIVATE) & ((chain == PRIVATE) | (role & (site > chain)))
    return np.where(better, site, chain).astype(np.int8)


@dataclass
class Effective:
    """The effective access as codes, one row per (space, user) reached, sorted by space
    then user.

    Attributes
    ----------
    frame : DataFrame
        space, user, role (the highest code among the paths at the best key),
        combination (an index into ``sources``/``source_names``).
    sources, source_names : ndarray of str
        The ``"; "``-joined sources of each distinct combination: the paths that decide
        (at the best key), highest role first.
    order : ndarray of int
        Positions of the paths aggregated, sorted by pair, key, role (highest first), then
        source (``direct`` first): the paths of pair group ``i`` are
        ``order[first[i]:first[i] + counts[i]]``.
    first : ndarray of int
        Where each pair group's paths start in ``order``: every pair with a path, reached
        or not (``granted``).
    pairs : ndarray of int64
        Each group's pair (``space * users + user``), ascending.
    deciding : ndarray of int
        How many of a group's first paths are at its best key (0 when it is not reached).
    granted : ndarray of bool
        Per group, whether the pair is reached; ``frame`` holds these groups in order.
    keys : ndarray of int64
        Per path, in the order given: the rule set's key (see :func:`path_keys`).
    roles : ndarray of int8
        Per path, in the order given: its role code.
    """

    frame: pd.DataFrame
    sources: np.ndarray
    source_names: np.ndarray
    order: np.ndarray
    first: np.ndarray
    pairs: np.ndarray
    deciding: np.ndarray
    granted: np.ndarray
    keys: np.ndarray
    roles: np.ndarray

    @property
    def reachable(self) -> np.ndarray:
        """Per path: whether it would count if the nearer levels said nothing (its key is
        not :data:`OVERRIDDEN`; always under ``highest``)."""
        return self.keys != OVERRIDDEN

    @property
    def counts(self) -> np.ndarray:
        """The number of paths of each pair group."""
        return np.diff(np.r_[self.first, len(self.order)])

    @cached_property
    def status(self) -> np.ndarray:
        """Per path, in the order given: a code of :data:`STATUSES` (computed on first use).

        A path decides when it has its pair's best key and highest role there, is lower with
        the best key alone, and is overridden otherwise (or when its pair is not reached).
        """
        order, first, counts = self.order, self.first, self.counts
        key, role = self.keys[order], self.roles[order]
        lead_key = np.repeat(np.where(self.granted, key[first], -1), counts)
        best = key == lead_key
        leads = best & (role == np.repeat(role[first], counts))
        status = np.empty(len(order), dtype=np.int8)
        status[order] = np.where(leads, DECIDES, np.where(best, LOWER, OVERRIDDEN_STATUS))
        return status

    def counted(self, positions: np.ndarray, pairs: np.ndarray) -> np.ndarray:
        """Whether the paths at ``positions`` (of pairs ``pairs``) count: at their reached
        pair's best key (the status of a few paths, without the whole table's)."""
        group = np.searchsorted(self.pairs, pairs)
        lead = self.keys[self.order[self.first[group]]] if len(group) else group
        return self.granted[group] & (self.keys[positions] == lead)


def rule_set_roles(
    paths: pd.DataFrame, spaces: pd.DataFrame, rule_set: str, grouped: Effective
) -> pd.DataFrame:
    """The effective roles under ``rule_set``, from paths already grouped by pair.

    ``grouped`` aggregates the same ``paths`` under any rule set: its groups are the pairs,
    whatever the order within them, so the other rule set's roles take one pass over them
    (the lowest key of each group, then the highest role at it), with no sort.

    Returns
    -------
    DataFrame
        space, user, role (codes) of the pairs reached.
    """
    order, first = grouped.order, grouped.first
    if not len(first):
        return pd.DataFrame({"space": [], "user": [], "role": []}, dtype=np.int32)
    role = paths["role"].to_numpy()[order]
    if check_rule_set(rule_set) == "highest":  # every path counts: the highest role
        roles = np.maximum.reduceat(role, first)
        reached = np.ones(len(first), dtype=bool)
    else:
        keys = path_keys(paths, spaces, rule_set)[order]
        lowest = np.minimum.reduceat(keys, first)
        at_lowest = np.where(keys == np.repeat(lowest, grouped.counts), role, -1)
        roles = np.maximum.reduceat(at_lowest.astype(np.int8), first)
        reached = lowest != OVERRIDDEN
    lead = order[first[reached]]
    return pd.DataFrame(
        {
            "space": paths["space"].to_numpy()[lead],
            "user": paths["user"].to_numpy()[lead],
            "role": roles[reached],
        },
        copy=False,
    )


def _compact_keys(keys: np.ndarray) -> tuple[np.ndarray, int, int]:
    """Keys as small codes in the same order, how many codes there are, and the code of
    :data:`OVERRIDDEN` (-1 when none is)."""
    if not len(keys) or keys.min() == keys.max():
        overridden = 0 if len(keys) and keys[0] == OVERRIDDEN else -1
        return np.zeros(len(keys), dtype=np.int64), 1, overridden
    small = keys[keys < RANK_ORGANIZATION]
    top = int(small.max()) + 1 if len(small) else 0
    codes = np.where(
        keys < RANK_ORGANIZATION, keys, np.where(keys == RANK_ORGANIZATION, top, top + 1)
    )
    return codes, top + 2, top + 1


def effective_access(
    paths: pd.DataFrame, keys: np.ndarray, source_table: pd.DataFrame, user_count: int
) -> Effective:
    """Aggregate paths per (space, user) under a rule set's ``keys`` (see :func:`path_keys`).

    A pair's paths at its lowest key decide: its role is their highest role and they are
    its sources (highest role first, then ``direct``, then by text); a pair whose lowest
    key is :data:`OVERRIDDEN` is not reached. One sort of packed integer keys groups the
    pairs; the joined strings are built once per distinct combination of sources, not per
    pair.
    """
    users = max(user_count, 1)
    role = paths["role"].to_numpy()
    source = paths["source"].to_numpy()
    pair = paths["space"].to_numpy().astype(np.int64) * users + paths["user"].to_numpy()
    key, key_count, overridden = _compact_keys(np.asarray(keys, dtype=np.int64))
    source_count = max(len(source_table), 1)
    if len(pair) and int(pair.max()) < (2**62) // (8 * source_count * key_count):
        order = argsort_ints(((pair * key_count + key) * 8 + (7 - role)) * source_count + source)
    else:
        order = np.lexsort((source, -role.astype(np.int64), key, pair))
    order = order.astype(np.int32)
    pair, source, key, role_sorted = pair[order], source[order], key[order], role[order]
    first = np.flatnonzero(np.r_[True, pair[1:] != pair[:-1]]) if len(pair) else np.zeros(0, int)
    first = first.astype(np.int32)
    counts = np.diff(np.r_[first, len(pair)])
    granted = key[first] != overridden
    if key_count == 1:  # one key (highest): every path of a reached pair decides
        deciding = (counts * granted).astype(np.int32)
    else:
        best = key == np.repeat(key[first], counts)
        deciding = (np.add.reduceat(best.astype(np.int32), first) * granted).astype(np.int32)
    chosen = first[granted]
    combination, texts, names = _combinations(source, chosen, deciding[granted], source_table)
    frame = pd.DataFrame(
        {
            "space": (pair[chosen] // users).astype(np.int32),
            "user": (pair[chosen] % users).astype(np.int32),
            "role": role_sorted[chosen],
            "combination": combination,
        },
        copy=False,
    )
    return Effective(
        frame,
        texts,
        names,
        order=order,
        first=first,
        pairs=pair[first],
        deciding=deciding,
        granted=granted,
        keys=np.asarray(keys, dtype=np.int64),
        roles=role,
    )


def _combinations(
    source: np.ndarray, first: np.ndarray, counts: np.ndarray, table: pd.DataFrame
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Number each distinct sequence of sources and join its texts once.

    A pair reached by one path (most) takes its source's code as combination; the
    sequences of the others are numbered after the sources, once per distinct sequence.
    """
    texts = table["source"].to_numpy(dtype=object)
    names = table["source_name"].to_numpy(dtype=object)
    single = counts == 1
    several_first, several_counts = first[~single], counts[~single]
    width = int(several_counts.max()) if len(several_counts) else 0
    rows = np.repeat(np.arange(len(several_first)), several_counts)
    position = np.arange(len(rows)) - np.repeat(
        np.cumsum(several_counts) - several_counts, several_counts
    )
    grid = np.full((len(several_first), width), -1, dtype=np.int64)
    grid[rows, position] = source[np.repeat(several_first, several_counts) + position]
    base = len(texts) + 1
    if width and base**width < 2**62:  # one integer per sequence: a 1-D unique is faster
        packed = (grid + 1) @ (base ** np.arange(width - 1, -1, -1, dtype=np.int64))
        distinct_packed, several_inverse = unique_inverse(packed)
        keep = np.empty(len(distinct_packed), dtype=np.int64)
        keep[several_inverse] = np.arange(len(packed))
        several = grid[keep]
    elif width:
        several, several_inverse = np.unique(grid, axis=0, return_inverse=True)
    else:
        several, several_inverse = grid, np.zeros(0, np.int64)

    joined_texts = np.concatenate([texts, np.empty(len(several), dtype=object)])
    joined_names = np.concatenate([names, np.empty(len(several), dtype=object)])
    for i, codes in enumerate(several.tolist(), start=len(texts)):  # distinct sequences
        used = [code for code in codes if code >= 0]
        joined_texts[i] = "; ".join(texts[used])
        joined_names[i] = "; ".join(names[used])
    combination = np.empty(len(first), dtype=np.int32)
    combination[single] = source[first[single]]
    combination[~single] = len(texts) + several_inverse.reshape(-1)
    return combination, joined_texts, joined_names
