"""Who reaches which space, and by which path: the access model of ``docs/access-model.md``.

:func:`resolve` turns the raw tables of an :class:`~docsapi.audit.data.AuditData` into
integer-coded tables: every entity (space, user, team, collection) gets a code, roles are
codes of :data:`~docsapi.audit.data.ROLES` (0 = guest … 6 = admin), and the paths and the
effective access are numpy arrays of those codes. Everything is computed with array
operations (joins by sorting, one pass per level of collection nesting, one sort for the
effective access); no Python loop runs over rows.

Spaces are coded in (title, id) order and users in (display name, id) order, so tables
sorted by codes are sorted by names.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from docsapi.audit.coverage import Gaps, find_gaps
from docsapi.audit.data import ROLES, STRING, AuditData

__all__ = [
    "INHERIT",
    "KINDS",
    "PRIVATE",
    "Resolution",
    "argsort_ints",
    "categorical",
    "codes_in",
    "distinct",
    "join_indices",
    "level_codes",
    "plain_text",
    "resolve",
    "role_codes",
    "unique_inverse",
]

#: Kinds of path, in the order of their codes.
KINDS: tuple[str, ...] = ("org-admin", "default", "direct", "team", "collection", "collection-team")
ORG_ADMIN, DEFAULT, DIRECT, TEAM, COLLECTION, COLLECTION_TEAM = range(len(KINDS))

#: Default-level codes besides the roles 1-6: null (private) and inherit; -1 is unknown.
PRIVATE, INHERIT, UNKNOWN = 0, len(ROLES), -1
_ADMIN = ROLES.index("admin")


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
        Active spaces in code order: the raw columns plus ``resolved`` (default-level code,
        -1 unknown), ``chain_known`` and ``complete`` (every input read).
    users : DataFrame
        Every user seen, in code order: user_id, display_name, email, member_role,
        member_status, last_seen_at, org_role (code; -1 for a non-member), disabled.
    teams, collections : DataFrame
        In code order: the raw columns; teams add ``members_read`` and ``size``.
    ancestors : DataFrame
        space, collection, depth (1 = the parent): every collection above each space.
    paths : DataFrame
        One row per path of a user who is not disabled: space, user, kind, role, team,
        collection, source (codes; -1 where not applicable).
    blocked : DataFrame
        The same for disabled users: their grants, kept for the rules, never access.
    sources : DataFrame
        One row per source code: source, source_name, kind.
    """

    spaces: pd.DataFrame
    users: pd.DataFrame
    teams: pd.DataFrame
    collections: pd.DataFrame
    ancestors: pd.DataFrame
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
    users = _users(data)
    user_index = _index(users["user_id"])
    teams = _teams(data, gaps)
    team_index = _index(teams["id"])

    ancestors, resolved, chain_known = _walk_collections(spaces, collections, collection_index)
    spaces = spaces.assign(resolved=resolved, chain_known=chain_known)

    grants = _coded_grants(data, space_index, collection_index, user_index, team_index)
    memberships = _memberships(data, team_index, user_index)
    offsets = _source_offsets(len(teams), len(collections))
    paths, blocked = _paths(spaces, users, ancestors, grants, memberships, offsets)
    sources = _sources(paths, blocked, offsets, teams, collections)

    spaces["complete"] = _space_complete(
        gaps, spaces, space_index, collection_index, teams, ancestors, grants
    )
    teams["size"] = np.bincount(memberships["team"], minlength=len(teams))
    return Resolution(
        spaces=spaces,
        users=users,
        teams=teams,
        collections=collections,
        ancestors=ancestors,
        paths=paths,
        blocked=blocked,
        sources=sources,
    )


def _walk_collections(
    spaces: pd.DataFrame, collections: pd.DataFrame, index: pd.Index
) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """Ancestors of every space and its resolved default level, one pass per depth.

    Returns the ancestors table (space, collection, depth), the resolved default-level code
    per space (INHERIT: the member's own role; UNKNOWN: a collection on the way was not
    listed) and whether the whole chain up to the top is known.
    """
    parent_of = _parent_codes(index, collections["parent"])
    level_of = level_codes(collections["default_level"])
    current = _parent_codes(index, spaces["parent"])
    resolved = level_codes(spaces["default_level"])
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
    return ancestors, resolved, ~broken


@dataclass
class _Grants:
    """Explicit permissions as codes: one frame per holder and target kind."""

    space_users: pd.DataFrame  # space, user, role
    space_teams: pd.DataFrame  # space, team, role
    collection_users: pd.DataFrame  # collection, user, role
    collection_teams: pd.DataFrame  # collection, team, role


def _coded_grants(
    data: AuditData,
    space_index: pd.Index,
    collection_index: pd.Index,
    user_index: pd.Index,
    team_index: pd.Index,
) -> _Grants:
    def coded(frame: pd.DataFrame, target: str, holder: str, holders: pd.Index, key: str):
        rows = frame[(frame["target_type"] == target).fillna(False).to_numpy(dtype=bool)]
        targets = space_index if target == "space" else collection_index
        result = pd.DataFrame(
            {
                target: codes_in(targets, rows["target_id"]),
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
    )


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
    "key": np.int64,  # identifies the source; replaced by the source code
}


class _PathParts:
    """Paths collected kind by kind as column arrays, concatenated once at the end."""

    def __init__(self, disabled: np.ndarray) -> None:
        self.disabled = disabled
        self.active: list[dict[str, np.ndarray]] = []
        self.blocked: list[dict[str, np.ndarray]] = []

    def add(self, kind: int, space, user, role, key, *, team=None, collection=None) -> None:
        count = len(space)
        part: dict[str, np.ndarray] = {
            "space": np.asarray(space, dtype=np.int32),
            "user": np.asarray(user, dtype=np.int32),
            "kind": np.full(count, kind, dtype=np.int8),
            "role": np.asarray(role, dtype=np.int8),
            "team": np.full(count, -1, np.int32) if team is None else np.asarray(team, np.int32),
            "collection": (
                np.full(count, -1, np.int32)
                if collection is None
                else np.asarray(collection, np.int32)
            ),
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
    ancestors: pd.DataFrame,
    grants: _Grants,
    memberships: pd.DataFrame,
    offsets: dict[int, int],
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Every (space, user, path) as codes: the paths of active users, and of disabled ones.

    Each path carries a ``key`` identifying its source (see :func:`_source_offsets`).
    """
    space_count = len(spaces)
    team_count = offsets[COLLECTION_TEAM + 1]
    org_role = users["org_role"].to_numpy()
    disabled = users["disabled"].to_numpy(dtype=bool)
    parts = _PathParts(disabled)

    admins = np.flatnonzero(~disabled & (org_role == _ADMIN))
    parts.add(
        ORG_ADMIN,
        np.tile(np.arange(space_count), len(admins)),
        np.repeat(admins, space_count),
        np.full(space_count * len(admins), _ADMIN),
        offsets[ORG_ADMIN],
    )

    resolved = spaces["resolved"].to_numpy()
    open_spaces = np.flatnonzero(resolved > PRIVATE)
    members = np.flatnonzero(~disabled & (org_role > 0))
    space = np.tile(open_spaces, len(members))
    user = np.repeat(members, len(open_spaces))
    level = resolved[space]
    role = np.where(level == INHERIT, org_role[user], level)
    parts.add(DEFAULT, space, user, role, offsets[DEFAULT] - 1 + level.astype(np.int64))
    del space, user, level, role

    direct = grants.space_users
    parts.add(DIRECT, direct["space"], direct["user"], direct["role"], offsets[DIRECT])

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
        offsets[TEAM] + team.astype(np.int64),
        team=team,
    )

    below = ancestors["collection"].to_numpy()
    grant_rows, ancestor_rows = join_indices(
        grants.collection_users["collection"].to_numpy(), below
    )
    held = grants.collection_users.iloc[grant_rows]
    collection = held["collection"].to_numpy()
    parts.add(
        COLLECTION,
        ancestors["space"].to_numpy()[ancestor_rows],
        held["user"],
        held["role"],
        offsets[COLLECTION] + collection.astype(np.int64),
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
        ancestors["space"].to_numpy()[ancestor_rows][team_rows],
        memberships["user"].to_numpy()[member_rows],
        held["role"].to_numpy()[team_rows],
        offsets[COLLECTION_TEAM] + collection.astype(np.int64) * team_count + team,
        team=team,
        collection=collection,
    )
    return parts.frame(parts.active), parts.frame(parts.blocked)


def _source_offsets(team_count: int, collection_count: int) -> dict[int, int]:
    """Where each kind's source keys start: org-admin 0, default 1-7 (the level), direct 9,
    then one key per team, per collection, and per (collection, team)."""
    return {
        ORG_ADMIN: 0,
        DEFAULT: 1,
        DIRECT: 9,
        TEAM: 10,
        COLLECTION: 10 + team_count,
        COLLECTION_TEAM: 10 + team_count + collection_count,
        COLLECTION_TEAM + 1: team_count,  # the stride of (collection, team) keys
    }


def _sources(
    paths: pd.DataFrame,
    blocked: pd.DataFrame,
    offsets: dict[int, int],
    teams: pd.DataFrame,
    collections: pd.DataFrame,
) -> pd.DataFrame:
    """Replace each path's source key by a source code; return the table of sources.

    The ``sources`` table has one row per distinct source, sorted by source text with
    ``direct`` first (the order used within a (space, user) pair after the role).
    """
    present = distinct(np.concatenate([distinct(paths["key"].to_numpy()), blocked["key"]]))
    text, names, kinds = _describe(
        present, offsets, teams, collections, offsets[COLLECTION_TEAM + 1]
    )
    order = sorted(range(len(present)), key=lambda i: (text[i] != "direct", text[i]))
    rank = np.empty(len(present), dtype=np.int32)
    rank[order] = np.arange(len(present), dtype=np.int32)
    for frame in (paths, blocked):
        frame["source"] = rank[np.searchsorted(present, frame.pop("key").to_numpy())]
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
    offsets: dict[int, int],
    teams: pd.DataFrame,
    collections: pd.DataFrame,
    team_count: int,
) -> tuple[list[str], list[str], list[int]]:
    """Source text, source name and kind of each distinct source key (few: one per grant)."""
    team_ids = teams["id"].astype(object).tolist()
    team_titles = teams["title"].astype(object).tolist()
    collection_ids = collections["id"].astype(object).tolist()
    collection_titles = collections["title"].astype(object).tolist()
    levels = level_names()

    def label(titles: list, ids: list, code: int) -> str:
        title = titles[code]
        return title if isinstance(title, str) and title else ids[code]

    text, names, kinds = [], [], []
    for key in keys.tolist():
        if key == offsets[ORG_ADMIN]:
            found = ("org-admin", "organization admin", ORG_ADMIN)
        elif key < offsets[DIRECT]:
            level = levels[key - offsets[DEFAULT] + 1]
            found = (f"default:{level}", f"default level {level}", DEFAULT)
        elif key == offsets[DIRECT]:
            found = ("direct", "direct", DIRECT)
        elif key < offsets[COLLECTION]:
            code = key - offsets[TEAM]
            found = (
                f"team:{team_ids[code]}",
                f"team {label(team_titles, team_ids, code)}",
                TEAM,
            )
        elif key < offsets[COLLECTION_TEAM]:
            code = key - offsets[COLLECTION]
            found = (
                f"collection:{collection_ids[code]}",
                f"collection {label(collection_titles, collection_ids, code)}",
                COLLECTION,
            )
        else:
            collection, team = divmod(key - offsets[COLLECTION_TEAM], team_count)
            found = (
                f"collection-team:{collection_ids[collection]}/{team_ids[team]}",
                f"collection {label(collection_titles, collection_ids, collection)} / "
                f"team {label(team_titles, team_ids, team)}",
                COLLECTION_TEAM,
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
    ancestors: pd.DataFrame,
    grants: _Grants,
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

    above = ancestors["collection"].to_numpy()
    complete[ancestors["space"].to_numpy()[bad_collection[above]]] = False
    return complete


@dataclass
class Effective:
    """The effective access as codes, one row per (space, user), sorted by space then user.

    Attributes
    ----------
    frame : DataFrame
        space, user, role (the highest code over the pair's paths), combination (an index
        into ``sources``/``source_names``).
    sources, source_names : ndarray of str
        The ``"; "``-joined sources of each distinct combination.
    order : ndarray of int
        Positions of the paths aggregated, sorted by pair, role (highest first), then
        source (``direct`` first): the paths of pair ``i`` are
        ``order[first[i]:first[i] + counts[i]]``.
    first, counts : ndarray of int
        Where each pair's paths start in ``order``, and how many there are.
    """

    frame: pd.DataFrame
    sources: np.ndarray
    source_names: np.ndarray
    order: np.ndarray
    first: np.ndarray

    @property
    def counts(self) -> np.ndarray:
        """The number of paths of each pair."""
        return np.diff(np.r_[self.first, len(self.order)])


def effective_access(paths: pd.DataFrame, source_table: pd.DataFrame, user_count: int) -> Effective:
    """Aggregate paths per (space, user): the highest role and every source, in order.

    Sources of a pair are ordered by role (highest first), then ``direct``, then by text.
    One sort of packed integer keys groups the pairs; the joined strings are built once
    per distinct combination of sources, not per pair.
    """
    users = max(user_count, 1)
    role = paths["role"].to_numpy()
    source = paths["source"].to_numpy()
    pair = paths["space"].to_numpy().astype(np.int64) * users + paths["user"].to_numpy()
    source_count = max(len(source_table), 1)
    if len(pair) and int(pair.max()) < (2**62) // (8 * source_count):
        order = argsort_ints((pair * 8 + (7 - role)) * source_count + source)
    else:
        order = np.lexsort((source, -role.astype(np.int64), pair))
    order = order.astype(np.int32)
    pair, source = pair[order], source[order]
    first = np.flatnonzero(np.r_[True, pair[1:] != pair[:-1]]) if len(pair) else np.zeros(0, int)
    first = first.astype(np.int32)
    counts = np.diff(np.r_[first, len(pair)])
    combination, texts, names = _combinations(source, first, counts, source_table)
    frame = pd.DataFrame(
        {
            "space": (pair[first] // users).astype(np.int32),
            "user": (pair[first] % users).astype(np.int32),
            "role": role[order[first]],
            "combination": combination,
        },
        copy=False,
    )
    return Effective(frame, texts, names, order=order, first=first)


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
