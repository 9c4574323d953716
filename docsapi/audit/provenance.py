"""Who opened each door, and when: the audit log joined to the access it explains.

Every access setting the audit sees (an explicit permission, a member's organization role,
a default level, a published site, a share link, an invite link, a team membership) is a
*setting* with a key; every event of the organization's audit log that changes a setting is
read into the same key. The latest event on a setting, at or before the audit, made it what
it is: its actor is ``granted_by``, its time ``granted_at``, its entry point ``granted_via``
(the event's ``source``: ``ui``, ``api`` ...), its id ``event_id``. ``provenance`` says it in
words: ``Ada Lovelace on 2026-03-02 (ui)``; ``before 2025-12-01`` when the log read has no
event on it (the setting is older than the log's first date: never a guess); ``unexplained:
…`` when the last event on it removed it (it came back without an event); ``unknown: …``
when the log was not read.

Which events change which setting: the event's action ID says which kind of setting (the
platform's vocabulary, one list in :mod:`docsapi.core.audit_actions`: ``space.permission.added``
changes a permission, ``organization.team.member-added`` a membership ...; the sandbox's older
names, as snapshots made before hold them, are read as the IDs that replaced them; an
audit's ``log_actions`` adds more), its target which one, and its past-tense verb whether it
removed it (``removed``, ``deleted``, ``unpublished`` ...):

=====================  ==========================================  ===============================
setting                target type and id                          for example
=====================  ==========================================  ===============================
``grant``              ``space-permission`` ``<space>/user/<id>``   ``space.permission.updated``
                       (``/team/<id>``; ``collection-permission``,
                       ``site-permission``)
``org-role``           ``user`` ``<id>``                           ``organization.member.updated``
``default-level``      ``space`` / ``collection`` / ``site``       ``space.default-level.updated``
``published``          ``site``                                    ``site.published``
``visibility``         ``site``                                    ``site.visibility.updated``
``share-link``         ``share-link`` ``<id>``                     ``site.share-link.created``
``invite-link``        ``invite`` ``<id>``                         ``organization.link-invite.…``
``team-member``        ``team-member`` ``<team>/<user>``           ``organization.team.member-…``
``parent``             ``space`` / ``collection``                  ``space.moved``
=====================  ==========================================  ===============================

An event of an action the mapping does not know changes no setting (coverage counts them:
"N events of K actions not used for provenance"). When the organization's own list of
actions (``audit-event-actions``) holds no action for a kind of setting, the platform does
not record its changes: a setting of that kind says "not recorded by the platform".

Paths take the provenance of the setting that opens them: an organization admin's path and
an ``inherit`` default take the member's role, another default the default level of the space
or of the collection that decides it, and the others their permission.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from docsapi.audit.data import STRING, AuditData
from docsapi.audit.resolve import (
    COLLECTION,
    COLLECTION_TEAM,
    DEFAULT,
    DIRECT,
    INHERIT,
    ORG_ADMIN,
    SITE,
    SITE_DEFAULT,
    SITE_TEAM,
    TEAM,
    Resolution,
    categorical,
    level_codes,
)
from docsapi.core.audit_actions import SETTINGS, action_id, action_settings, removes

__all__ = [
    "EVENT_COLUMNS",
    "PROVENANCE_COLUMNS",
    "SETTING_COLUMNS",
    "Provenance",
    "event_keys",
    "grant_key",
    "path_doors",
]

#: Columns every table with provenance gains (grants, paths, findings, explain).
PROVENANCE_COLUMNS = [
    "granted_by",
    "granted_by_id",
    "granted_at",
    "granted_via",
    "event_id",
    "provenance",
]
#: Columns of ``audit.provenance``: one row per access setting, with its last event.
SETTING_COLUMNS = [
    "setting",
    "target_type",
    "target_id",
    "target_title",
    "principal_type",
    "principal_id",
    "principal_name",
    "value",
    *PROVENANCE_COLUMNS,
    "action",
]
#: Columns of ``audit.events``: the log as read, newest first, with the setting each changes.
EVENT_COLUMNS = [
    "id",
    "occurred_at",
    "action",
    "source",
    "actor_type",
    "actor_id",
    "actor_label",
    "target_type",
    "target_id",
    "target_label",
    "setting",
    "key",
    "removal",
]

_CONTENT = ("space", "collection", "site")


def grant_key(target_type: str, target_id: str, principal_type: str, principal_id: str) -> str:
    """The key of an explicit permission.

    Examples
    --------
    >>> grant_key("space", "s1", "user", "u1")
    'grant|space|s1|user|u1'
    """
    return f"grant|{target_type}|{target_id}|{principal_type}|{principal_id}"


def _key(setting: str | None, target_type: str, target_id: str) -> str | None:
    """The key of the setting of kind ``setting`` an event on this target changes; None for
    an event about anything else (or a target of another shape)."""
    if setting == "grant":
        parts = target_id.split("/")
        kind = target_type.removesuffix("-permission")
        if (
            target_type.endswith("-permission")
            and len(parts) == 3
            and parts[1] in ("user", "team")
            and kind in _CONTENT
        ):
            return grant_key(kind, *parts)
        return None
    if setting == "org-role" and target_type == "user":
        return f"org-role|{target_id}"
    if setting == "default-level" and target_type in _CONTENT:
        return f"default-level|{target_type}|{target_id}"
    if setting in ("published", "visibility") and target_type == "site":
        return f"{setting}|{target_id}"
    if setting == "share-link":
        return f"share-link|{target_id}"
    if setting == "invite-link":
        return f"invite-link|{target_id}"
    if setting == "team-member" and target_id.count("/") == 1:
        return f"team-member|{target_id.replace('/', '|')}"
    if setting == "parent" and target_type in ("space", "collection"):
        return f"parent|{target_type}|{target_id}"
    return None


def event_keys(
    events: pd.DataFrame, settings: Mapping[str, str] | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The setting key each event changes (None when none), and whether it removes it.

    ``settings``: action ID → kind of setting (default: ``action_settings()``). The key is
    made once per distinct (action, target type, target id), events share it.

    Examples
    --------
    >>> log = pd.DataFrame({"action": ["space.permission.removed"],
    ...                     "target_type": ["space-permission"], "target_id": ["s1/team/t1"]})
    >>> keys, removal = event_keys(log)
    >>> keys[0], bool(removal[0])
    ('grant|space|s1|team|t1', True)
    """
    codes, keys, removal = event_key_codes(events, settings)
    return _with_none(keys)[codes], removal


def event_key_codes(
    events: pd.DataFrame, settings: Mapping[str, str] | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`event_keys` as codes: each event's row in the distinct keys (-1: none), the
    distinct keys in the order they first appear, and whether each event removes its setting.

    The events' columns are coded first (they are categorical or Arrow text), so a key is
    made once per distinct (action, target type, target id) and no text is made per event.

    Examples
    --------
    >>> log = pd.DataFrame({"action": ["site.published", "x.y", "site.unpublished"],
    ...                     "target_type": ["site", "site", "site"], "target_id": ["a", "a", "a"]})
    >>> codes, keys, removal = event_key_codes(log)
    >>> codes.tolist(), keys.tolist(), removal.tolist()
    ([0, -1, 0], ['published|a'], [False, False, True])
    """
    kinds = action_settings() if settings is None else settings
    columns = [events[name] for name in ("action", "target_type", "target_id")]
    coded = [pd.factorize(column, use_na_sentinel=True) for column in columns]
    # one integer per event for its (action, type, id); a key is made once per distinct one
    packed = np.zeros(len(events), dtype=np.int64)
    for found, labels in coded:
        packed = packed * (len(labels) + 1) + (found + 1)
    _, first, inverse = np.unique(packed, return_index=True, return_inverse=True)
    actions, types, ids = (
        _with_none(np.asarray(labels, dtype=object))[found[first]] for found, labels in coded
    )
    del coded, packed
    keys = np.array(
        [
            _key(kinds.get(a), t, i)
            if isinstance(a, str) and isinstance(t, str) and isinstance(i, str)
            else None
            for a, t, i in zip(actions, types, ids, strict=True)
        ],
        dtype=object,
    )
    removal = np.array([isinstance(a, str) and removes(action_id(a)) for a in actions], dtype=bool)
    # the triples in the order they first appear, then their keys numbered the same way
    spread = inverse.reshape(-1)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    key_codes, distinct = pd.factorize(keys[order], use_na_sentinel=True)
    codes = key_codes.astype(np.int64)[rank][spread]
    return codes, np.asarray(distinct, dtype=object), removal[spread]


#: The provenance of a path or finding that no setting the log records opens (a rule about a
#: space as a whole, a path of a kind this version does not know).
_NO_SETTING = "unknown: no setting of the audit log opens it"
#: The provenance of a setting of a kind whose changes the organization's log does not record.
NOT_RECORDED = "not recorded by the platform"


#: How many keys :meth:`Provenance.positions` looks up at once.
_BATCH = 16_384


def _unless(removed: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``values`` with None where ``removed``."""
    result = values.copy()
    result[removed] = None
    return result


def _with_none(values: np.ndarray) -> np.ndarray:
    """``values`` (objects) with None after the last: where a code of -1 lands."""
    return np.concatenate([values, np.array([None], dtype=object)])


def _day(moment: pd.Timestamp) -> str:
    return f"{moment:%Y-%m-%d}"


@dataclass
class Provenance:
    """The audit log joined to the settings it changed (see the module docstring).

    Attributes
    ----------
    data : AuditData
        The raw tables, ``events`` and ``events_since`` among them.
    log_read : bool
        Whether the audit log was read (asked for, and the read succeeded).
    action_kinds : dict of str to str
        Action ID → the kind of setting its events change (``action_settings``, with the
        audit's ``log_actions``).
    """

    data: AuditData
    log_read: bool
    action_kinds: dict[str, str] = field(default_factory=action_settings)

    @classmethod
    def of(
        cls, data: AuditData, failed: bool, log_actions: Mapping[str, str] | None = None
    ) -> Provenance:
        """The provenance of ``data`` (``failed``: the log was asked for but not read;
        ``log_actions``: more action IDs, each with the setting it changes)."""
        return cls(
            data,
            log_read=data.events_since is not None and not failed,
            action_kinds=action_settings(log_actions),
        )

    @cached_property
    def unrecorded(self) -> frozenset[str]:
        """Kinds of setting whose changes the organization's log does not record: none of its
        supported actions (``data.log_actions``, when read) changes them."""
        supported = self.data.log_actions
        if supported is None or not self.log_read:
            return frozenset()
        recorded = {self.action_kinds.get(action) for action in supported}
        return frozenset(setting for setting in SETTINGS if setting not in recorded)

    # -- the log --------------------------------------------------------------------------
    @cached_property
    def _log(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The log's rows newest first, each one's key code (-1: none) into the distinct
        keys, the distinct keys, and whether each removes its setting (all in that order)."""
        times = self.data.events["occurred_at"].reset_index(drop=True)
        order = times.sort_values(ascending=False, kind="stable").index.to_numpy(np.int64)
        codes, distinct, removal = event_key_codes(self.data.events.take(order), self.action_kinds)
        return order, codes, distinct, removal

    @cached_property
    def events(self) -> pd.DataFrame:
        """The log as read, newest first, with ``setting``, ``key`` and ``removal``."""
        order, codes, distinct, removal = self._log
        log = self.data.events.take(order).reset_index(drop=True)
        kinds = np.array([key.split("|", 1)[0] for key in distinct], dtype=object)
        # the categories pd.Categorical would infer from the events' settings (None included)
        categories = pd.Categorical([*np.unique(kinds), None] if len(codes) else []).categories
        kind_codes = categories.get_indexer(pd.Index(kinds, dtype=object)).astype(np.int64)
        setting_codes = np.append(kind_codes, -1)[codes]  # -1 (no key) stays -1
        settings = pd.Categorical.from_codes(setting_codes, categories=categories)
        return log.assign(
            setting=settings,
            key=pd.array(_with_none(distinct)[codes], dtype=STRING),
            removal=removal,
        )[EVENT_COLUMNS]

    @cached_property
    def first_date(self) -> pd.Timestamp | None:
        """How far the log read reaches back: its oldest event (or where the read started
        when it holds none); None when the log was not read."""
        if not self.log_read:
            return None
        times = self.data.events["occurred_at"].dropna()
        return times.min() if len(times) else self.data.events_since

    @cached_property
    def fallback(self) -> str:
        """What ``provenance`` says of a setting no event explains."""
        if self.data.events_since is None:
            return "unknown: the audit log was not read"
        if not self.log_read:
            return "unknown: the audit log could not be read"
        assert self.first_date is not None
        return f"before {_day(self.first_date)}"

    @cached_property
    def _latest(self) -> pd.DataFrame:
        """The last event on each key, one row per key, indexed by key; its last three rows
        (index None) are the fallbacks of keys without an event, of no key and of keys whose
        kind the platform does not record.

        Every event read happened before the crawl ended (the log is read during it), so none
        is dropped by time: ``generated_at`` comes from the server's clock, to the second.
        """
        order, codes, distinct, removal = self._log
        # codes number the keys in the order they first appear, newest event first: the
        # first event of each code is the latest on its key, and the rows come in key order
        _, newest = np.unique(codes, return_index=True)
        newest = newest[codes[newest] >= 0] if len(newest) else newest
        latest = self.data.events.take(order[newest])
        who = (
            latest["actor_label"]
            .astype(object)
            .where(latest["actor_label"].notna(), latest["actor_id"].astype(object))
        )
        removed = removal[newest]
        when = latest["occurred_at"]
        # the text made once per distinct (who, day, source, action, removed): keys share it
        parts = [
            who,
            when.dt.normalize(),
            latest["source"],
            latest["action"],
            pd.Series(removed, index=latest.index),
        ]
        coded = [pd.factorize(part, use_na_sentinel=False) for part in parts]
        packed = np.zeros(len(latest), dtype=np.int64)
        for found, labels in coded:
            packed = packed * (len(labels) + 1) + found
        _, first, inverse = np.unique(packed, return_index=True, return_inverse=True)
        # each distinct combination's values as its first row has them
        name, via, action = (
            part.astype(object).to_numpy()[first] for part in (who, parts[2], parts[3])
        )
        days = when.iloc[first].dt.strftime("%Y-%m-%d").astype(object).to_numpy()
        gone = removed[first]
        text = np.array(
            [
                (
                    f"unexplained: the last event on it ({a} by {n} on {d}) removed it"
                    if g
                    else f"{n} on {d} ({v})"
                )
                for n, d, v, a, g in zip(name, days, via, action, gone, strict=True)
            ],
            dtype=object,
        )[inverse.reshape(-1)]
        table = pd.DataFrame(
            {
                "granted_by": _unless(removed, who.to_numpy(dtype=object)),
                "granted_by_id": _unless(removed, latest["actor_id"].astype(object).to_numpy()),
                "granted_at": when.where(~removed).to_numpy(),
                "granted_via": _unless(removed, latest["source"].astype(object).to_numpy()),
                "event_id": _unless(removed, latest["id"].astype(object).to_numpy()),
                "provenance": text,
                "action": latest["action"].astype(object).to_numpy(),
            },
            index=pd.Index(distinct, dtype=object),
        )
        fallback = pd.DataFrame(
            {"provenance": [self.fallback, _NO_SETTING, NOT_RECORDED]},
            index=pd.Index([None, None, None], dtype=object),
        )
        return pd.concat([table, fallback])

    def keyed_positions(self, count: int, keys: Callable[[], Iterable[str | None]]) -> np.ndarray:
        """:meth:`positions` of ``count`` keys that are never None, made by ``keys()`` only when
        the log holds an event to find (else every one is the fallback row)."""
        if len(self._latest) > 3 or self.unrecorded:
            return self.positions(keys())
        return np.zeros(count, dtype=np.int64)  # the fallback row: the only one before "no key"

    def positions(self, keys: Iterable[str | None]) -> np.ndarray:
        """Row of :attr:`_latest` for each key: the fallback row for a key without an event,
        the one after it for no key (a path or finding no setting of the log opens), the
        last for a key of a kind the platform does not record."""
        index = pd.Index(self._latest.index[:-3], dtype=object)
        keys = iter(keys)
        parts = []
        # in batches: a table's keys are made (and dropped) a batch at a time
        while batch := list(itertools.islice(keys, _BATCH)):
            wanted = pd.Index(batch, dtype=object)
            found = index.get_indexer(wanted)
            missing = np.where(wanted.isna(), len(index) + 1, len(index))
            if self.unrecorded:
                kinds = np.array(
                    [k.split("|", 1)[0] if isinstance(k, str) else None for k in batch],
                    dtype=object,
                )
                missing = np.where(np.isin(kinds, list(self.unrecorded)), len(index) + 2, missing)
            parts.append(np.where(found >= 0, found, missing).astype(np.int64))
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)

    def columns(self, positions: np.ndarray, *, large: bool = False) -> dict[str, Any]:
        """The :data:`PROVENANCE_COLUMNS` at rows ``positions`` of :attr:`_latest`.

        ``large``: text as categoricals (each distinct value stored once), for big tables.
        """
        latest = self._latest
        result: dict[str, Any] = {}
        for column in PROVENANCE_COLUMNS:
            values = latest[column]
            if column == "granted_at":
                times = pd.to_datetime(values, utc=True).astype("datetime64[ns, UTC]").array
                result[column] = times.take(positions) if len(times) else times
            elif large:
                result[column] = categorical(positions, values.to_numpy(dtype=object))
            else:
                wanted = values.iloc[positions]  # taken first: only these become Python text
                result[column] = pd.array(wanted.to_numpy(dtype=object), dtype=STRING)
        return result

    def lookup(self, keys: Iterable[str | None], *, large: bool = False) -> pd.DataFrame:
        """The provenance columns of each key, in order."""
        positions = self.positions(keys)
        return pd.DataFrame(self.columns(positions, large=large), columns=PROVENANCE_COLUMNS)

    # -- the settings -----------------------------------------------------------------------
    def settings(self, grants: pd.DataFrame) -> pd.DataFrame:
        """``audit.provenance``: every access setting the audit saw, with its last event.

        Parameters
        ----------
        grants : DataFrame
            The audit's ``grants`` table (target and principal with their names).
        """
        data = self.data
        parts = [
            pd.DataFrame(
                {
                    "setting": "grant",
                    "target_type": grants["target_type"].astype(object),
                    "target_id": grants["target_id"].astype(object),
                    "target_title": grants["target_title"].astype(object),
                    "principal_type": grants["principal_type"].astype(object),
                    "principal_id": grants["principal_id"].astype(object),
                    "principal_name": grants["principal_name"].astype(object),
                    "value": grants["role"].astype(object),
                }
            ),
            _org_roles(data),
            _default_levels(data),
            _sites(data),
            _share_links(data),
            _invite_links(data),
            _memberships(data),
        ]
        table = pd.concat(parts, ignore_index=True)
        keys = [_setting_key(row) for row in table.itertuples(index=False)]
        positions = self.positions(keys)
        found = pd.DataFrame(self.columns(positions), columns=PROVENANCE_COLUMNS)
        action = self._latest["action"].to_numpy(dtype=object)[positions]
        table = pd.concat([table, found], axis=1).assign(action=action)
        for column in SETTING_COLUMNS:
            if column == "granted_at":
                continue
            table[column] = _texts(table[column])
        return table[SETTING_COLUMNS]

    # -- paths ------------------------------------------------------------------------------
    def path_positions(self, resolution: Resolution, paths: pd.DataFrame) -> np.ndarray:
        """Row of :attr:`_latest` for each coded path (see :func:`path_doors`): found once per
        distinct door, then spread over the paths by their door codes."""
        keys, codes = door_codes(self.data, resolution, paths)
        found = self.positions(_with_none(keys))  # the last: no door
        return found[codes]


def _texts(values: pd.Series) -> Any:
    """``values`` as text (``STRING``): missing values stay missing, others become their
    ``str``; one array operation for the missing ones, ``str`` only where not text already."""
    objects = values.astype(object).to_numpy()
    texts = objects.copy()
    texts[pd.isna(objects)] = None
    for i in [i for i, v in enumerate(texts) if v is not None and type(v) is not str]:
        texts[i] = str(texts[i])
    return pd.array(texts, dtype=STRING)


def _setting_key(row: object) -> str | None:
    setting = row.setting  # type: ignore[attr-defined]
    if setting == "grant":
        return grant_key(row.target_type, row.target_id, row.principal_type, row.principal_id)  # type: ignore[attr-defined]
    if setting == "org-role":
        return f"org-role|{row.principal_id}"  # type: ignore[attr-defined]
    if setting == "default-level":
        return f"default-level|{row.target_type}|{row.target_id}"  # type: ignore[attr-defined]
    if setting == "team-member":
        return f"team-member|{row.target_id}|{row.principal_id}"  # type: ignore[attr-defined]
    return f"{setting}|{row.target_id}"  # type: ignore[attr-defined]


def _frame(setting: str, **columns: object) -> pd.DataFrame:
    frame = pd.DataFrame(columns)
    frame.insert(0, "setting", setting)
    return frame


def _org_roles(data: AuditData) -> pd.DataFrame:
    members = data.members
    return _frame(
        "org-role",
        target_type="organization",
        target_id=data.org_id,
        target_title=data.org_name,
        principal_type="user",
        principal_id=members["user_id"].astype(object),
        principal_name=members["display_name"].astype(object),
        value=members["role"].astype(object).fillna("guest"),
    )


def _default_levels(data: AuditData) -> pd.DataFrame:
    parts = []
    tables = (("space", data.spaces), ("collection", data.collections), ("site", data.sites))
    for kind, table in tables:
        if kind == "space":
            table = table[table["deleted_at"].isna().to_numpy(dtype=bool)]
        parts.append(
            _frame(
                "default-level",
                target_type=kind,
                target_id=table["id"].astype(object),
                target_title=table["title"].astype(object),
                value=table["default_level"].astype(object).fillna("private"),
            )
        )
    return pd.concat(parts, ignore_index=True)


def _sites(data: AuditData) -> pd.DataFrame:
    sites = data.sites[~(data.sites["published"] == False).fillna(False).to_numpy(dtype=bool)]  # noqa: E712
    return _frame(
        "published",
        target_type="site",
        target_id=sites["id"].astype(object),
        target_title=sites["title"].astype(object),
        value=sites["visibility"].astype(object),
    )


def _share_links(data: AuditData) -> pd.DataFrame:
    links = data.share_links
    titles = data.sites.set_index("id")["title"]
    return _frame(
        "share-link",
        target_type="share-link",
        target_id=links["id"].astype(object),
        target_title=(
            links["site_id"].map(titles).astype(object).fillna("")
            + ": "
            + links["name"].astype(object)
        ),
        value=np.where(links["active"].fillna(True).to_numpy(dtype=bool), "active", "inactive"),
    )


def _invite_links(data: AuditData) -> pd.DataFrame:
    links = data.invite_links
    return _frame(
        "invite-link",
        target_type="invite",
        target_id=links["id"].astype(object),
        target_title=links["target_type"].astype(object),
        value=links["role"].astype(object).fillna("guest"),
    )


def _memberships(data: AuditData) -> pd.DataFrame:
    members = data.team_members
    titles = data.teams.set_index("id")["title"]
    team_ids = members["team_id"].astype(object)
    return _frame(
        "team-member",
        target_type="team",
        target_id=team_ids,
        target_title=team_ids.map(titles).astype(object),
        principal_type="user",
        principal_id=members["user_id"].astype(object),
        principal_name=members["display_name"].astype(object),
        value="member",
    )


def _deciders(data: AuditData, resolution: Resolution) -> np.ndarray:
    """Per space code: the key of the default level that decides its default (the space's
    own, or that of the nearest collection above with a level of its own); None when the
    level is ``inherit`` all the way up (the member's own role decides)."""
    spaces = resolution.spaces
    ids = spaces["id"].to_numpy(dtype=object)
    keys = np.array([f"default-level|space|{i}" for i in ids], dtype=object)
    own = level_codes(spaces["default_level"])
    collections = resolution.collections
    ancestors = resolution.ancestors
    collection_level = level_codes(collections["default_level"])
    above = ancestors[collection_level[ancestors["collection"].to_numpy()] != INHERIT]
    above = above.sort_values(["space", "depth"]).drop_duplicates("space")
    chosen = np.full(len(spaces), -1, dtype=np.int64)
    chosen[above["space"].to_numpy()] = above["collection"].to_numpy()
    collection_ids = collections["id"].to_numpy(dtype=object)
    result = np.full(len(spaces), None, dtype=object)
    inherits = own == INHERIT
    result[~inherits] = keys[~inherits]
    from_collection = inherits & (chosen >= 0)
    result[from_collection] = [
        f"default-level|collection|{collection_ids[c]}" for c in chosen[from_collection]
    ]
    return result


def path_doors(data: AuditData, resolution: Resolution, paths: pd.DataFrame) -> np.ndarray:
    """The key of the setting that opens each coded path (rows of ``resolution.paths``).

    Built per distinct door: one key per user (roles), per space (defaults) and per grant,
    then spread over the paths with array indexing (see :func:`door_codes`).
    """
    keys, codes = door_codes(data, resolution, paths)
    return _with_none(keys)[codes]  # code -1 (no door): the appended None


def door_codes(
    data: AuditData, resolution: Resolution, paths: pd.DataFrame
) -> tuple[np.ndarray, np.ndarray]:
    """The distinct doors of the coded ``paths`` and each path's door among them.

    Returns
    -------
    keys : ndarray of object
        One setting key per distinct door (None: a space whose default no setting decides).
    codes : ndarray of int64
        Per path, its door's row in ``keys`` (-1: no setting of the log opens it).
    """
    users = resolution.users["user_id"].to_numpy(dtype=object)
    user_keys = np.array([f"org-role|{u}" for u in users], dtype=object)
    space_ids = resolution.spaces["id"].to_numpy(dtype=object)
    team_ids = resolution.teams["id"].to_numpy(dtype=object)
    collection_ids = resolution.collections["id"].to_numpy(dtype=object)
    site_ids = resolution.sites["id"].to_numpy(dtype=object)
    site_keys = np.array([f"default-level|site|{s}" for s in site_ids], dtype=object)
    deciders = _deciders(data, resolution)
    kind = paths["kind"].to_numpy()
    space = paths["space"].to_numpy()
    user = paths["user"].to_numpy()
    team = paths["team"].to_numpy()
    collection = paths["collection"].to_numpy()
    site = paths["site"].to_numpy()
    codes = np.full(len(paths), -1, dtype=np.int64)
    parts: list[np.ndarray] = [user_keys, deciders, site_keys]
    user_start, decider_start, site_start = 0, len(user_keys), len(user_keys) + len(deciders)
    size = site_start + len(site_keys)

    no_decider = pd.isna(deciders)
    by_role = (kind == ORG_ADMIN) | ((kind == DEFAULT) & no_decider[space])
    codes[by_role] = user_start + user[by_role]
    by_level = (kind == DEFAULT) & ~by_role
    codes[by_level] = decider_start + space[by_level]
    by_site_level = kind == SITE_DEFAULT
    codes[by_site_level] = site_start + site[by_site_level]

    def grant_doors(
        mask: np.ndarray,
        target: str,
        targets: np.ndarray,
        principal: str,
        principals: np.ndarray,
        target_codes: np.ndarray,
        principal_codes: np.ndarray,
    ) -> None:
        nonlocal size
        width = len(principals) + 1
        pairs = target_codes[mask].astype(np.int64) * width + principal_codes[mask]
        distinct, inverse = np.unique(pairs, return_inverse=True)
        parts.append(
            np.array(
                [
                    grant_key(target, targets[p // width], principal, principals[p % width])
                    for p in distinct.tolist()
                ],
                dtype=object,
            )
        )
        codes[mask] = size + inverse.reshape(-1)
        size += len(distinct)

    grant_doors(kind == DIRECT, "space", space_ids, "user", users, space, user)
    grant_doors(kind == TEAM, "space", space_ids, "team", team_ids, space, team)
    grant_doors(kind == COLLECTION, "collection", collection_ids, "user", users, collection, user)
    grant_doors(
        kind == COLLECTION_TEAM, "collection", collection_ids, "team", team_ids, collection, team
    )
    grant_doors(kind == SITE, "site", site_ids, "user", users, site, user)
    grant_doors(kind == SITE_TEAM, "site", site_ids, "team", team_ids, site, team)
    return np.concatenate(parts).astype(object, copy=False), codes
