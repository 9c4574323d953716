"""The audit's public tables, built from the coded resolution (see ``docs/audit-tables.md``).

Large tables (``grants``, ``paths``, ``effective``) hold their ids, names and sources as
categoricals of strings: each distinct value is stored once and the columns compare,
filter and sort like strings. Roles use :data:`~docsapi.audit.data.ROLE_DTYPE`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import pandas as pd

from docsapi.audit.data import BOOLEAN, ROLE_DTYPE, ROLES, STRING, AuditData
from docsapi.audit.provenance import PROVENANCE_COLUMNS, Provenance, grant_key
from docsapi.audit.resolve import (
    KINDS,
    LEVELS,
    RULE_SETS,
    STATUSES,
    UNKNOWN,
    Effective,
    Resolution,
    argsort_ints,
    categorical,
    codes_in,
    level_names,
    level_of_rank,
    member_levels,
    role_codes,
)
from docsapi.audit.resolve import (
    plain_text as _plain,
)
from docsapi.data.fields import mask_query, mask_share_url

__all__ = [
    "EFFECTIVE_COLUMNS",
    "EXPOSURE_COLUMNS",
    "GRANT_COLUMNS",
    "MISMATCH_COLUMNS",
    "PATH_COLUMNS",
    "PlatformPairs",
    "aggregate_mismatches",
    "checked_spaces",
    "deciding_default",
    "effective_table",
    "exposure_table",
    "grants_table",
    "internal_defaults",
    "mask_urls",
    "matrix_table",
    "mismatch_codes",
    "mismatch_counts",
    "paths_table",
    "platform_pairs",
    "summary_table",
    "target_titles",
    "unique_labels",
]

GRANT_COLUMNS = [
    "target_type",
    "target_id",
    "target_title",
    "principal_type",
    "principal_id",
    "principal_name",
    "role",
    *PROVENANCE_COLUMNS,
]
PATH_COLUMNS = [
    "space_id",
    "user_id",
    "kind",
    "source",
    "source_name",
    "collection_id",
    "team_id",
    "role",
    "site_id",
    "level",
    "status",
    *PROVENANCE_COLUMNS,
]
EFFECTIVE_COLUMNS = [
    "space_id",
    "space_title",
    "user_id",
    "display_name",
    "email",
    "member_role",
    "member_status",
    "last_seen_at",
    "role",
    "sources",
    "source_names",
    "complete",
]
EXPOSURE_COLUMNS = [
    "space_id",
    "space_title",
    "site_id",
    "site_title",
    "visibility",
    "audience",
    "share_link_id",
    "share_link_name",
    "share_link_active",
    "share_link_created_at",
    "share_link_age_days",
    "published_url",
    "internal_default",
]
MISMATCH_COLUMNS = [
    "space_id",
    "space_title",
    "user_id",
    "display_name",
    "audit_role",
    "platform_role",
]

_TARGET_TYPES = ("space", "collection", "site")
_AUDIENCES = {
    "public": "anyone",
    "unlisted": "anyone with the address",
    "share-link": "anyone with the link",
    "visitor-auth": "authenticated visitors",
}


def _roles(codes: np.ndarray) -> pd.Categorical:
    return pd.Categorical.from_codes(np.asarray(codes, dtype=np.int8), dtype=ROLE_DTYPE)


def effective_table(resolution: Resolution, effective: Effective) -> pd.DataFrame:
    """``effective``: one row per (space, user) who can reach the space, sorted by names."""
    frame = effective.frame
    space = frame["space"].to_numpy()
    user = frame["user"].to_numpy()
    spaces, users = resolution.spaces, resolution.users
    last_seen = users["last_seen_at"].array.take(user) if len(users) else users["last_seen_at"]
    return pd.DataFrame(
        {
            "space_id": categorical(space, spaces["id"]),
            "space_title": categorical(space, spaces["title"]),
            "user_id": categorical(user, users["user_id"]),
            "display_name": categorical(user, users["display_name"]),
            "email": categorical(user, users["email"]),
            "member_role": categorical(user, users["member_role"]),
            "member_status": categorical(user, users["member_status"]),
            "last_seen_at": pd.Series(last_seen, dtype="datetime64[ns, UTC]").array,
            "role": _roles(frame["role"].to_numpy()),
            "sources": categorical(frame["combination"].to_numpy(), effective.sources),
            "source_names": categorical(frame["combination"].to_numpy(), effective.source_names),
            "complete": pd.array(spaces["complete"].to_numpy(dtype=bool)[space], dtype=BOOLEAN),
        },
        columns=EFFECTIVE_COLUMNS,
        copy=False,
    )


def paths_table(
    resolution: Resolution, effective: Effective, provenance: Provenance
) -> pd.DataFrame:
    """``paths``: every way a user reaches a space, sorted by space, user, then as the rule
    set weighs them (the paths that decide first, highest role first), each with the
    provenance of the setting that opens it.

    ``effective`` must aggregate all of ``resolution.paths``: its order is the table's.
    ``status`` says what each path does (:data:`~docsapi.audit.resolve.STATUSES`).
    """
    paths = resolution.paths.iloc[effective.order]
    opened = provenance.columns(provenance.path_positions(resolution, paths), large=True)
    source, rank = paths["source"].to_numpy(), paths["rank"].to_numpy()
    team, collection = paths["team"].to_numpy(), paths["collection"].to_numpy()
    kinds = pd.CategoricalDtype(list(KINDS))
    return pd.DataFrame(
        {
            "space_id": categorical(paths["space"].to_numpy(), resolution.spaces["id"]),
            "user_id": categorical(paths["user"].to_numpy(), resolution.users["user_id"]),
            "kind": pd.Categorical.from_codes(paths["kind"].to_numpy(), dtype=kinds),
            "source": categorical(source, resolution.sources["source"]),
            "source_name": categorical(source, resolution.sources["source_name"]),
            "collection_id": categorical(collection, resolution.collections["id"]),
            "team_id": categorical(team, resolution.teams["id"]),
            "role": _roles(paths["role"].to_numpy()),
            "site_id": categorical(paths["site"].to_numpy(), resolution.sites["id"]),
            "level": pd.Categorical.from_codes(
                level_of_rank(rank), dtype=pd.CategoricalDtype(list(LEVELS))
            ),
            "status": pd.Categorical.from_codes(
                effective.status[effective.order], dtype=pd.CategoricalDtype(list(STATUSES))
            ),
            **opened,
        },
        columns=PATH_COLUMNS,
        copy=False,
    )


def deciding_default(resolution: Resolution, space_id: str) -> dict[str, str] | None:
    """The default level that ends the ``precedence`` walk on a space: what decides for a
    user none of whose paths counts (it gives them no access).

    Returns
    -------
    dict or None
        ``kind``, ``source``, ``source_name`` and ``level``; None when the organization's
        level ends the walk (nothing is overridden there) or the space is unknown.
    """
    spaces = resolution.spaces
    found = np.flatnonzero((spaces["id"] == space_id).to_numpy(dtype=bool))
    if not len(found) or spaces["stop_source"].iloc[found[0]] < 0:
        return None
    code = int(spaces["stop_source"].iloc[found[0]])
    sources = resolution.sources
    return {
        "kind": KINDS[int(sources["kind"].iloc[code])],
        "source": str(sources["source"].iloc[code]),
        "source_name": str(sources["source_name"].iloc[code]),
        "level": LEVELS[int(level_of_rank(spaces["stop"].to_numpy()[found[:1]])[0])],
    }


def _targets(data: AuditData, kind: str, ids: pd.Series) -> pd.DataFrame:
    """The targets of one type, in (title, id) order: listed ones, then ids only granted."""
    listed = {
        "space": data.spaces,
        "collection": data.collections,
        "site": data.sites,
    }.get(kind)
    frame = pd.DataFrame({"id": pd.Series(dtype=STRING), "title": pd.Series(dtype=STRING)})
    if listed is not None:
        frame = listed[["id", "title"]].astype(STRING).drop_duplicates("id")
    elif kind == "organization":
        frame = pd.DataFrame(
            {"id": [data.org_id], "title": [data.org_name]}, dtype=STRING, copy=False
        )
    known = pd.Index(frame["id"].astype(object), dtype=object)
    extra = pd.Index(np.asarray(ids.dropna().unique(), dtype=object), dtype=object)
    extra = extra[known.get_indexer(extra) < 0]
    frame = pd.concat(
        [frame, pd.DataFrame({"id": pd.array(np.asarray(extra), dtype=STRING)})], ignore_index=True
    )
    return frame.sort_values(["title", "id"], na_position="last").reset_index(drop=True)


def target_titles(data: AuditData, types: pd.Series, ids: pd.Series) -> pd.Series:
    """The title of each (target type, id), missing where unknown."""
    titles = np.full(len(ids), None, dtype=object)
    types_ = np.asarray(types, dtype=object)
    ids_ = pd.Series(np.asarray(ids, dtype=object))
    for kind in ("space", "collection", "site", "organization"):
        rows = np.flatnonzero(types_ == kind)
        if len(rows):
            table = _targets(data, kind, ids_.iloc[rows])
            at = pd.Index(table["id"], dtype=object).get_indexer(ids_.iloc[rows])
            titles[rows] = np.asarray(table["title"], dtype=object)[at]
    return pd.Series(titles, dtype=STRING)


def grants_table(data: AuditData, resolution: Resolution, provenance: Provenance) -> pd.DataFrame:
    """``grants``: every explicit permission on record (spaces, collections, sites), with who
    made it and when (:mod:`docsapi.audit.provenance`).

    Built on integer codes: targets and principals are numbered in (type, title, id) and
    (type, name, id) order, so sorting the codes sorts the table by names.
    """
    users, teams = data.user_permissions, data.team_permissions
    target_tables, offset = [], 0
    target_code = np.full(len(users) + len(teams), -1, dtype=np.int64)
    types = np.concatenate(
        [
            np.asarray(users["target_type"], dtype=object),
            np.asarray(teams["target_type"], dtype=object),
        ]
    )
    ids = pd.concat(
        [users["target_id"].astype(object), teams["target_id"].astype(object)], ignore_index=True
    )
    for kind in (*_TARGET_TYPES, *sorted(set(types[pd.notna(types)]) - set(_TARGET_TYPES))):
        rows = np.flatnonzero(types == kind)
        table = _targets(data, kind, ids.iloc[rows])
        table["target_type"] = kind
        target_tables.append(table)
        found = pd.Index(table["id"], dtype=object).get_indexer(ids.iloc[rows])
        target_code[rows] = offset + found
        offset += len(table)
    targets = pd.concat(target_tables, ignore_index=True) if target_tables else None

    user_codes = codes_in(pd.Index(resolution.users["user_id"], dtype=object), users["user_id"])
    team_codes = codes_in(pd.Index(resolution.teams["id"], dtype=object), teams["team_id"])
    principal = np.concatenate(
        [user_codes, np.where(team_codes >= 0, len(resolution.users) + team_codes, -1)]
    )
    is_team = np.r_[np.zeros(len(users), np.int64), np.ones(len(teams), np.int64)]
    principal_ids = pd.concat(
        [resolution.users["user_id"], resolution.teams["id"]], ignore_index=True
    )
    principal_names = pd.concat(
        [resolution.users["display_name"], resolution.teams["title"]], ignore_index=True
    )
    role = np.concatenate([role_codes(users["role"]), role_codes(teams["role"])])
    order = argsort_ints((target_code + 1) * (len(principal_ids) + 1) + principal + 1)
    target_code, principal, role = target_code[order], principal[order], role[order]
    if targets is None or not len(target_code):
        targets = pd.DataFrame({"id": [], "title": [], "target_type": []}, dtype=STRING, copy=False)
    kinds = ["user", "team"]
    table = pd.DataFrame(
        {
            "target_type": categorical(target_code, targets["target_type"]),
            "target_id": categorical(target_code, targets["id"]),
            "target_title": categorical(target_code, targets["title"]),
            "principal_type": categorical(is_team[order], np.array(kinds, dtype=object)),
            "principal_id": categorical(principal, principal_ids),
            "principal_name": categorical(principal, principal_names),
            "role": _roles(role),
        },
        copy=False,
    )

    def keys() -> Iterator[str]:
        columns = ("target_type", "target_id", "principal_type", "principal_id")
        rows = zip(*(table[c].astype(object) for c in columns), strict=True)
        return (grant_key(*row) for row in rows)  # made a batch at a time by the lookup

    made = provenance.columns(provenance.keyed_positions(len(table), keys), large=True)
    return table.assign(**made)[GRANT_COLUMNS]


def internal_defaults(resolution: Resolution, rule_set: str) -> pd.Series:
    """What members without a permission of their own get on each space, by space id.

    A role name, ``inherit`` (each member's organization role), ``private`` (null: only
    those granted explicitly), or missing when a collection on the way was not read.
    Sites linking a space that inherits count as ``rule_set`` says (see
    :func:`~docsapi.audit.resolve.member_levels`).
    """
    names = np.array([*level_names(), None], dtype=object)  # index -1 reads None
    resolved = member_levels(resolution, rule_set)
    values = names[np.where(resolved == UNKNOWN, len(names) - 1, resolved)]
    return pd.Series(values, index=pd.Index(resolution.spaces["id"], dtype=object), dtype=STRING)


def exposure_table(data: AuditData, resolution: Resolution, rule_set: str) -> pd.DataFrame:
    """``exposure``: one row per (space, way to read it without an account)."""
    spaces = resolution.spaces
    site_spaces = _plain(data.site_spaces)
    live = site_spaces[~site_spaces["draft"].fillna(False).to_numpy(dtype=bool)]
    live = live[live["space_id"].isin(spaces["id"]).to_numpy(dtype=bool)]
    sites = _plain(data.sites).rename(
        columns={"id": "site_id", "title": "site_title", "url_published": "site_url"}
    )
    sites = sites[~(sites["published"] == False).fillna(False).to_numpy(dtype=bool)]  # noqa: E712
    published = live.merge(sites.drop(columns="published"), on="site_id", how="inner")
    published = published[published["visibility"].isin(list(_AUDIENCES)).to_numpy(dtype=bool)]
    published["url"] = published["url_published"].fillna(published["site_url"])

    by_site = published[published["visibility"] != "share-link"]
    links = _plain(data.share_links)
    links = links[~(links["active"] == False).fillna(False).to_numpy(dtype=bool)]  # noqa: E712
    links = links.rename(
        columns={
            "id": "share_link_id",
            "name": "share_link_name",
            "active": "share_link_active",
            "created_at": "share_link_created_at",
            "url_published": "share_link_url",
        }
    )
    by_link = published[published["visibility"] == "share-link"].merge(
        links, on="site_id", how="inner"
    )
    by_link["url"] = by_link["share_link_url"]

    own = spaces[
        spaces["visibility"].isin(["public", "unlisted", "share-link"]).to_numpy(dtype=bool)
    ]
    own = pd.DataFrame(
        {"space_id": own["id"], "visibility": own["visibility"], "url": own["url_published"]},
        copy=False,
    )
    rows = pd.concat([by_site, by_link, own], ignore_index=True)
    rows = rows.reindex(columns=[*EXPOSURE_COLUMNS, "url", "share_link_url"])
    titles = spaces.set_index("id")["title"]
    rows["space_title"] = titles.reindex(rows["space_id"].astype(object)).to_numpy()
    rows["audience"] = rows["visibility"].map(_AUDIENCES)
    rows["share_link_active"] = rows["share_link_active"].where(
        rows["share_link_id"].isna(), rows["share_link_active"].fillna(True)
    )
    created = pd.to_datetime(rows["share_link_created_at"], utc=True)
    rows["share_link_created_at"] = created
    ages = (data.generated_at - created).dt.days
    rows["share_link_age_days"] = pd.array(ages.to_numpy(dtype=object), dtype=pd.Int64Dtype())
    rows["published_url"] = mask_urls(rows["url"], share_link=rows["share_link_id"].notna())
    rows["internal_default"] = (
        internal_defaults(resolution, rule_set).reindex(rows["space_id"].astype(object)).to_numpy()
    )
    space_rank = pd.Series(np.arange(len(spaces)), index=pd.Index(spaces["id"], dtype=object))
    rows["_rank"] = space_rank.reindex(rows["space_id"].astype(object)).to_numpy()
    rows = rows.sort_values(["_rank", "site_title", "share_link_name", "share_link_id"])
    table = rows[EXPOSURE_COLUMNS].reset_index(drop=True)
    for column in EXPOSURE_COLUMNS:
        if column == "share_link_active":
            table[column] = pd.array(table[column].to_numpy(dtype=object), dtype=BOOLEAN)
        elif column == "share_link_created_at":
            table[column] = pd.to_datetime(table[column], utc=True)
        elif column != "share_link_age_days":
            table[column] = table[column].astype(STRING)
    return table


def mask_urls(urls: pd.Series, *, share_link: pd.Series) -> pd.Series:
    """URLs with their secrets masked: a share link's key (its query values, else its last
    path segment), and any other URL's query values (see :mod:`docsapi.data.fields`).

    Examples
    --------
    >>> mask_urls(pd.Series(["https://d.example/s/?share=k3y"]), share_link=pd.Series([True]))[0]
    'https://d.example/s/?share=********'
    """
    values = urls.to_numpy(dtype=object)
    links = share_link.to_numpy(dtype=bool)
    result = np.array(
        [  # one per exposed space and link: few
            mask_share_url(url) if link else mask_query(url)
            for url, link in zip(values, links, strict=True)
        ],
        dtype=object,
    )
    return pd.Series(result, index=urls.index, dtype=STRING)


#: Rows of the platform's aggregate compared at a time (bounds the cross-check's memory).
_SLICE = 1 << 20
#: Up to this many (space, user) cells, the cross-check compares on a dense grid (one byte a
#: cell, 50 MB at most); beyond, on sorted keys.
_DENSE_CELLS = 50_000_000


@dataclass(frozen=True)
class PlatformPairs:
    """The platform's aggregate on the checked spaces, as codes: ``keys`` (``space * users
    + user``, users counted as at least 1) and ``roles``; ``checked`` per space code."""

    keys: np.ndarray
    roles: np.ndarray
    checked: np.ndarray


def platform_pairs(data: AuditData, resolution: Resolution, checked: np.ndarray) -> PlatformPairs:
    """The platform's aggregate as codes, on the spaces whose access can be compared.

    Parameters
    ----------
    checked : ndarray of bool
        Per space code: the aggregate was read and the audit's own view is complete.
    """
    spaces, users = resolution.spaces, resolution.users
    user_count = max(len(users), 1)
    space_index = pd.Index(spaces["id"], dtype=object)
    user_index = pd.Index(users["user_id"], dtype=object)
    keys, roles = [np.zeros(0, dtype=np.int64)], [np.zeros(0, dtype=np.int8)]
    for start in range(0, len(data.aggregate), _SLICE):  # a slice at a time: bounded memory
        rows = data.aggregate.iloc[start : start + _SLICE]
        space = codes_in(space_index, rows["space_id"])
        user = codes_in(user_index, rows["user_id"])
        valid = (space >= 0) & (user >= 0)
        valid[valid] = checked[space[valid]]
        keys.append(space[valid].astype(np.int64) * user_count + user[valid])
        roles.append(role_codes(rows["role"])[valid].astype(np.int8))
    return PlatformPairs(np.concatenate(keys), np.concatenate(roles), checked)


def _our_pairs(
    resolution: Resolution, ours: pd.DataFrame, checked: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Keys and role codes of an effective access on the checked spaces."""
    user_count = max(len(resolution.users), 1)
    keep = checked[ours["space"].to_numpy()]
    keys = ours["space"].to_numpy()[keep].astype(np.int64) * user_count
    keys += ours["user"].to_numpy()[keep]
    return keys, ours["role"].to_numpy()[keep].astype(np.int8)


def mismatch_counts(
    resolution: Resolution, ours: pd.DataFrame, platform: PlatformPairs
) -> np.ndarray:
    """Per space code, how many users ``ours`` (space, user, role codes) places differently
    from the platform (another role, or access on one side only); 0 off the checked spaces."""
    spaces, user_count = len(resolution.spaces), max(len(resolution.users), 1)
    our_key, our_role = _our_pairs(resolution, ours, platform.checked)
    cells = spaces * user_count
    if cells <= _DENSE_CELLS:  # one int8 per (space, user) cell: no sort or search
        grid = np.full(cells, -1, dtype=np.int8)
        grid[our_key] = our_role
        held = grid[platform.keys]
    else:
        order = argsort_ints(our_key)
        sorted_key, sorted_role = our_key[order], our_role[order]
        held = np.full(len(platform.keys), -1, dtype=np.int8)
        if len(sorted_key):
            at = np.minimum(np.searchsorted(sorted_key, platform.keys), len(sorted_key) - 1)
            found = sorted_key[at] == platform.keys
            held[found] = sorted_role[at][found]
    present = held >= 0
    theirs_differ = np.bincount(
        platform.keys[held != platform.roles] // user_count, minlength=spaces
    )
    ours_alone = np.bincount(our_key // user_count, minlength=spaces) - np.bincount(
        platform.keys[present] // user_count, minlength=spaces
    )
    return theirs_differ + ours_alone


def mismatch_codes(
    resolution: Resolution, ours: pd.DataFrame, platform: PlatformPairs
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pairs where ``ours`` and the platform's aggregate disagree, on the checked spaces.

    Parameters
    ----------
    ours : DataFrame
        An effective access as codes (space, user, role): ``Effective.frame``.
    platform : PlatformPairs
        The platform's side (:func:`platform_pairs`).

    Returns
    -------
    (keys, audit_roles, platform_roles)
        Sorted pair keys (``space * users + user``, users counted as at least 1) and both
        role codes (-1: no access).
    """
    spaces, user_count = resolution.spaces, max(len(resolution.users), 1)
    our_key, our_role = _our_pairs(resolution, ours, platform.checked)
    their_key, their_role = platform.keys, platform.roles

    cells = len(spaces) * user_count
    if cells <= _DENSE_CELLS:  # one int8 per (space, user) cell: no sort needed
        audit = np.full(cells, -1, dtype=np.int8)
        audit[our_key] = our_role
        theirs_audit = audit[their_key]
        differs = theirs_audit != their_role
        audit[their_key] = -2  # seen by the platform: what stays >= 0 is the audit's alone
        ours_alone = np.flatnonzero(audit >= 0)
        keys = np.concatenate([their_key[differs], ours_alone])
        audit_roles = np.concatenate([theirs_audit[differs], audit[ours_alone]])
        platform_roles = np.concatenate(
            [their_role[differs], np.full(len(ours_alone), -1, dtype=np.int8)]
        )
        order = argsort_ints(keys)
        return keys[order], audit_roles[order], platform_roles[order]
    table = pd.DataFrame({"key": our_key, "audit": our_role}, copy=False).merge(
        pd.DataFrame({"key": their_key, "platform": their_role}, copy=False),
        on="key",
        how="outer",
    )
    table = table.fillna(-1)
    table = table[table["audit"] != table["platform"]].sort_values("key")
    return (
        table["key"].to_numpy(dtype=np.int64),
        table["audit"].to_numpy(dtype=np.int8),
        table["platform"].to_numpy(dtype=np.int8),
    )


def aggregate_mismatches(
    resolution: Resolution, codes: tuple[np.ndarray, np.ndarray, np.ndarray]
) -> pd.DataFrame:
    """``aggregate_mismatches``: pairs where the audit and the platform's aggregate disagree,
    on the checked spaces, from their :func:`mismatch_codes`."""
    spaces, users = resolution.spaces, resolution.users
    user_count = max(len(users), 1)
    keys, audit_roles, platform_roles = codes
    space_codes, user_codes = keys // user_count, keys % user_count
    return pd.DataFrame(
        {
            "space_id": pd.array(spaces["id"].to_numpy(dtype=object)[space_codes], dtype=STRING),
            "space_title": pd.array(
                spaces["title"].to_numpy(dtype=object)[space_codes], dtype=STRING
            ),
            "user_id": pd.array(users["user_id"].to_numpy(dtype=object)[user_codes], dtype=STRING),
            "display_name": pd.array(
                users["display_name"].to_numpy(dtype=object)[user_codes], dtype=STRING
            ),
            "audit_role": _roles(audit_roles),
            "platform_role": _roles(platform_roles),
        },
        columns=MISMATCH_COLUMNS,
        copy=False,
    )


def checked_spaces(
    data: AuditData, resolution: Resolution, aggregate_read: bool, failed: frozenset[str]
) -> np.ndarray:
    """Per space code: whether its effective access can be compared with the aggregate."""
    if not aggregate_read:
        return np.zeros(len(resolution.spaces), dtype=bool)
    ids = resolution.spaces["id"].astype(object)
    return resolution.spaces["complete"].to_numpy(dtype=bool) & ~ids.isin(list(failed)).to_numpy()


def unique_labels(names: pd.Series, ids: pd.Series) -> np.ndarray:
    """A readable label per row: its name, with the id added where the name repeats."""
    label = names.astype(object).where(names.notna(), ids.astype(object))
    label = label.where(label.astype(bool), ids.astype(object))
    repeated = label.duplicated(keep=False).to_numpy()
    result = label.to_numpy(dtype=object).copy()
    result[repeated] = (label[repeated] + " (" + ids[repeated].astype(object) + ")").to_numpy()
    return result


def matrix_table(resolution: Resolution, effective: Effective) -> pd.DataFrame:
    """Users (rows) x spaces (columns) of effective roles, missing where no access.

    Role codes are written into one preallocated int8 array, then each column becomes a
    categorical of :data:`ROLE_DTYPE` (no float or object grid is ever built).
    """
    frame = effective.frame
    spaces, users = resolution.spaces, resolution.users
    present = np.unique(frame["user"].to_numpy())
    user_labels = unique_labels(
        users["display_name"].iloc[present].reset_index(drop=True),
        users["user_id"].iloc[present].reset_index(drop=True),
    )
    space_labels = unique_labels(spaces["title"], spaces["id"])
    row_order = sorted(range(len(present)), key=lambda i: str(user_labels[i]).casefold())
    column_order = sorted(range(len(spaces)), key=lambda i: str(space_labels[i]).casefold())
    row_of_user = np.full(len(users), -1, dtype=np.int64)
    row_of_user[present[row_order]] = np.arange(len(present))
    column_of_space = np.empty(len(spaces), dtype=np.int64)
    column_of_space[column_order] = np.arange(len(spaces))
    grid = np.full((len(present), len(spaces)), -1, dtype=np.int8, order="F")
    grid[row_of_user[frame["user"].to_numpy()], column_of_space[frame["space"].to_numpy()]] = frame[
        "role"
    ].to_numpy()
    columns = [space_labels[i] for i in column_order]
    matrix = pd.DataFrame(
        {j: pd.Categorical.from_codes(grid[:, j], dtype=ROLE_DTYPE) for j in range(len(columns))},
        index=pd.Index([user_labels[i] for i in row_order], name="user", dtype=object),
        copy=False,
    )
    matrix.columns = pd.Index(columns, name="space", dtype=object)
    return matrix


def summary_table(
    data: AuditData,
    resolution: Resolution,
    *,
    grants: pd.DataFrame,
    effective: pd.DataFrame,
    exposure: pd.DataFrame,
    findings: pd.DataFrame,
    rules: list[str],
    rule_set_matches: pd.DataFrame,
) -> pd.DataFrame:
    """Counts indexed by (category, item), one column ``count``.

    Category ``rule_set`` counts the spaces whose platform aggregate was compared
    (``compared``), those each rule set matches (a space matching both counts for each) and
    those neither matches.
    """
    totals = {
        "spaces": len(resolution.spaces),
        "users": int(effective["user_id"].nunique()),
        "members": len(data.members),
        "teams": len(data.teams),
        "collections": len(data.collections),
        "sites": len(data.sites),
        "grants": len(grants),
        "exposed spaces": int(exposure["space_id"].nunique()),
        "findings": len(findings),
        "errors": len(data.errors),
    }
    roles = effective["role"].value_counts().reindex(list(reversed(ROLES)), fill_value=0)
    kinds = (
        grants["principal_type"]
        .astype(object)
        .value_counts()
        .reindex(["user", "team"], fill_value=0)
    )
    paths = pd.Series(
        np.bincount(resolution.paths["kind"].to_numpy(), minlength=len(KINDS)), index=list(KINDS)
    )
    severities = (
        findings["severity"]
        .astype(object)
        .value_counts()
        .reindex(["high", "medium", "low"], fill_value=0)
    )
    by_rule = findings["rule"].astype(object).value_counts().reindex(rules, fill_value=0)
    found = rule_set_matches["matches"].astype(object)
    rule_sets = pd.Series(
        {
            "compared": len(found),
            **{name: int(found.isin([name, "both"]).sum()) for name in RULE_SETS},
            "neither": int((found == "neither").sum()),
        }
    )
    parts = {
        "totals": pd.Series(totals),
        "role": roles,
        "principal_type": kinds,
        "path": paths,
        "severity": severities,
        "rule": by_rule,
        "rule_set": rule_sets,
    }
    return pd.concat(parts, names=["category", "item"]).astype("int64").to_frame("count")
