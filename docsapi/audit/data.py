"""The raw tables a permission audit is computed from, declared once.

:data:`RAW_SCHEMAS` states every table of :class:`AuditData` (column → dtype, in order).
The crawl maps the client's frames onto these columns (or appends page by page through
:class:`ColumnAccumulator`), hand-made organizations in tests use the same declaration, and
:class:`AuditData` conforms whatever it is given to it, so the analysis can rely on every
column being there with its dtype.

Text columns are ``string`` in the small tables (spaces, members, sites, ...) and
categoricals of strings in the large ones (permissions, team members, the aggregate): a
table of hundreds of thousands of rows holds each id and name once, and the analysis maps
the few distinct values instead of every row. Roles are the API's strings (``admin`` …
``read``) with a guest (``null``) as missing; default levels add ``inherit``.

Which parts of the organization the crawl could not read at all is stated by
:attr:`AuditData.not_read`; single reads that failed are rows of :attr:`AuditData.errors`.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from docsapi.core.reprs import safe_display
from docsapi.errors import ValidationError

__all__ = [
    "BOOLEAN",
    "PARTS",
    "RAW_SCHEMAS",
    "ROLES",
    "ROLE_DTYPE",
    "SEVERITY_DTYPE",
    "STAGES",
    "STRING",
    "AuditData",
    "ColumnAccumulator",
    "conform",
    "text_categorical",
]

#: Content roles from lowest to highest; ``"guest"`` spells the API's ``null``.
ROLES: tuple[str, ...] = ("guest", "read", "comment", "edit", "review", "create", "admin")

#: Ordered categorical for role columns: ``effective.role >= "edit"`` and sorting just work.
ROLE_DTYPE = pd.CategoricalDtype(list(ROLES), ordered=True)

#: Ordered categorical for severities (``low < medium < high``).
SEVERITY_DTYPE = pd.CategoricalDtype(["low", "medium", "high"], ordered=True)

_STR = "string[python]"
#: The dtype objects behind the schema's names (``string[python]`` whatever is installed).
STRING = pd.StringDtype("python")
BOOLEAN = pd.BooleanDtype()
_CAT = "category"  # of strings, for the large tables: see text_categorical
#: Text with a value per row (an event's id): Arrow strings, one buffer, no object per cell.
_LONG = "string[pyarrow]"
_TIME = "datetime64[ns, UTC]"
_BOOL = "boolean"
_INT = "Int64"

#: Every raw table of :class:`AuditData`: name → {column: dtype}, columns in order.
RAW_SCHEMAS: dict[str, dict[str, str]] = {
    # Spaces of the organization. parent: the collection holding it; default_level: inherit,
    # a role, or missing (null: private); deleted_at set for a space in the trash.
    "spaces": {
        "id": _STR,
        "title": _STR,
        "parent": _STR,
        "default_level": _STR,
        "visibility": _STR,
        "deleted_at": _TIME,
        "url_published": _STR,
    },
    # Collections, nested through parent; default_level as for spaces.
    "collections": {"id": _STR, "title": _STR, "parent": _STR, "default_level": _STR},
    # Current members: role missing for a guest.
    "members": {
        "user_id": _STR,
        "display_name": _STR,
        "email": _STR,
        "role": _STR,
        "disabled": _BOOL,
        "joined_at": _TIME,
        "last_seen_at": _TIME,
    },
    "teams": {"id": _STR, "title": _STR, "members": _INT},
    "team_members": {"team_id": _CAT, "user_id": _CAT, "display_name": _CAT, "email": _CAT},
    # Explicit permissions of users and teams; target_type: space, collection or site.
    "user_permissions": {
        "target_type": _CAT,
        "target_id": _CAT,
        "user_id": _CAT,
        "display_name": _CAT,
        "email": _CAT,
        "role": _CAT,
    },
    "team_permissions": {
        "target_type": _CAT,
        "target_id": _CAT,
        "team_id": _CAT,
        "title": _CAT,
        "role": _CAT,
    },
    # Sites: visibility public, unlisted, share-link or visitor-auth; a site whose published
    # flag is False exposes nothing (missing counts as published). default_level as for
    # spaces: it reaches the spaces the site links that inherit.
    "sites": {
        "id": _STR,
        "title": _STR,
        "visibility": _STR,
        "published": _BOOL,
        "url_published": _STR,
        "default_level": _STR,
    },
    # The spaces each site links (publishes); a draft site space is not live.
    "site_spaces": {"site_id": _STR, "space_id": _STR, "draft": _BOOL, "url_published": _STR},
    # Share links of sites; a link whose active flag is missing counts as active.
    "share_links": {
        "site_id": _STR,
        "id": _STR,
        "name": _STR,
        "active": _BOOL,
        "created_at": _TIME,
        "url_published": _STR,
    },
    # Invite links; target_type organization (role: an organization role), space or collection
    # (role: the level on that content, target_id its id).
    "invite_links": {"id": _STR, "target_type": _STR, "target_id": _STR, "role": _STR},
    # The platform's own answer: who can access each space, with their effective role.
    "aggregate": {"space_id": _CAT, "user_id": _CAT, "display_name": _CAT, "role": _CAT},
    # Who created each space and collection (target_type space or collection), from the
    # audit log's create events; user_id missing when an integration did. A space or
    # collection without a row has an unknown creator (the log does not reach back).
    "creators": {"target_type": _STR, "target_id": _STR, "user_id": _STR, "created_at": _TIME},
    # The organization's audit log as read (newest first): who changed what, when, through
    # which entry point (source: ui, api, ...). Target ids name what changed; see
    # docsapi.audit.provenance for the targets it reads.
    "events": {
        "id": _LONG,
        "occurred_at": _TIME,
        "action": _CAT,
        "source": _CAT,
        "actor_type": _CAT,
        "actor_id": _CAT,
        "actor_label": _CAT,
        "target_type": _CAT,
        "target_id": _LONG,
        "target_label": _LONG,
    },
    # Reads that failed: target_type organization, space, collection, site or team.
    "errors": {
        "target_type": _STR,
        "target_id": _STR,
        "stage": _STR,
        "error_type": _STR,
        "message": _STR,
    },
}

#: The parts of an organization an audit reads; :attr:`AuditData.not_read` names those the
#: crawl could not read at all.
PARTS: dict[str, str] = {
    "spaces": "the organization's spaces",
    "members": "the organization's members",
    "teams": "the organization's teams",
    "team_members": "the members of each team",
    "space_permissions": "the user and team permissions of each space",
    "collections": "the organization's collections",
    "collection_permissions": "the user and team permissions of each collection",
    "sites": "the organization's sites",
    "site_spaces": "the spaces each site publishes",
    "share_links": "the share links of each site",
    "site_permissions": "the user and team permissions of each site",
    "invite_links": "the organization's invite links",
    "aggregate": "the platform's own lists of who can access each space",
    "creators": "the audit log's record of who created each space and collection",
    "audit_log": "the organization's audit log (who made each change, and when)",
}

#: Stage of a read (``errors.stage``) → the part of :data:`PARTS` it belongs to. A failed
#: read of a whole list (target_type ``organization``) loses that part entirely.
STAGES: dict[str, str] = {
    "spaces": "spaces",
    "members": "members",
    "teams": "teams",
    "team members": "team_members",
    "space users": "space_permissions",
    "space teams": "space_permissions",
    "collections": "collections",
    "collection users": "collection_permissions",
    "collection teams": "collection_permissions",
    "sites": "sites",
    "site spaces": "site_spaces",
    "share links": "share_links",
    "site users": "site_permissions",
    "site teams": "site_permissions",
    "invite links": "invite_links",
    "aggregate": "aggregate",
    "creators": "creators",
    "audit log": "audit_log",
}

#: Keys that identify a row; duplicates (e.g. from pages that shifted) are dropped.
_KEYS: dict[str, list[str]] = {
    "spaces": ["id"],
    "collections": ["id"],
    "members": ["user_id"],
    "teams": ["id"],
    "team_members": ["team_id", "user_id"],
    "user_permissions": ["target_type", "target_id", "user_id"],
    "team_permissions": ["target_type", "target_id", "team_id"],
    "sites": ["id"],
    "site_spaces": ["site_id", "space_id"],
    "share_links": ["site_id", "id"],
    "invite_links": ["id"],
    "aggregate": ["space_id", "user_id"],
    "creators": ["target_type", "target_id"],
    "events": ["id"],
}

_ROLE_COLUMNS = {
    "members": ("role", ROLES[1:]),
    "user_permissions": ("role", ROLES[1:]),
    "team_permissions": ("role", ROLES[1:]),
    "invite_links": ("role", ROLES[1:]),
    "aggregate": ("role", ROLES[1:]),
    "spaces": ("default_level", (*ROLES[1:], "inherit")),
    "collections": ("default_level", (*ROLES[1:], "inherit")),
    "sites": ("default_level", (*ROLES[1:], "inherit")),
}


def text_categorical(values: Any) -> pd.Categorical:
    """Values as a categorical whose categories are Python strings (``string[python]``).

    Missing values (None, NaN, ``pd.NA``) stay missing; other values become their text.

    Examples
    --------
    >>> text_categorical(["a", None, "a"]).codes.tolist()
    [0, -1, 0]
    """
    if isinstance(getattr(values, "dtype", None), pd.CategoricalDtype):
        codes = np.asarray(pd.Series(values).cat.codes)
        uniques = np.asarray(pd.Series(values).cat.categories, dtype=object)
    else:
        codes, uniques = pd.factorize(np.asarray(values, dtype=object))
    if not all(isinstance(value, str) for value in uniques):  # distinct values: few
        merged, uniques = pd.factorize(np.array([str(value) for value in uniques], dtype=object))
        codes = np.where(codes >= 0, merged[codes], -1)
    dtype = pd.CategoricalDtype(pd.Index(uniques, dtype=STRING))
    return pd.Categorical.from_codes(codes, dtype=dtype)


def _column(values: Any, dtype: str, length: int) -> Any:
    if values is None:
        values = [None] * length
    if dtype == _CAT:
        return text_categorical(values)
    if dtype == _LONG:
        return long_texts(values)
    if dtype == _STR:
        return _strings(values)
    if dtype == _TIME:
        return _times(values)
    if dtype == _BOOL:
        series = pd.Series(values)
        if series.dtype == BOOLEAN:
            return series.array
        return pd.array([v if isinstance(v, bool) else None for v in series], dtype=BOOLEAN)
    return pd.Series(values).astype(pd.Int64Dtype()).array


def long_texts(values: Any) -> Any:
    """Values as Arrow strings (``string[pyarrow]``): the text of every row in one buffer,
    for columns whose values are mostly distinct (an event's id), where a categorical would
    hold a Python string per row. Missing values stay missing; others become their text.

    Examples
    --------
    >>> long_texts(["e1", None, 3]).tolist()
    ['e1', <NA>, '3']
    """
    dtype = pd.StringDtype("pyarrow")
    if getattr(values, "dtype", None) == dtype:
        return pd.array(values, dtype=dtype)
    objects = np.asarray(values, dtype=object)
    if not all(type(value) is str for value in objects):
        objects = np.array([v if pd.isna(v) else str(v) for v in objects], dtype=object)
    return pd.array(objects, dtype=dtype)


def _strings(values: Any) -> Any:
    objects = np.asarray(values, dtype=object)
    try:
        return pd.array(objects, dtype=STRING)
    except (TypeError, ValueError):
        return pd.array([v if pd.isna(v) else str(v) for v in objects], dtype=STRING)


def _times(values: Any) -> Any:
    series = pd.Series(values)
    if isinstance(series.dtype, pd.DatetimeTZDtype):
        return series.dt.tz_convert("UTC").astype("datetime64[ns, UTC]").array
    parsed = pd.to_datetime(series.astype(object), utc=True, format="ISO8601", errors="coerce")
    return parsed.astype("datetime64[ns, UTC]").array


def conform(name: str, frame: pd.DataFrame | None = None, **constants: object) -> pd.DataFrame:
    """Return ``frame`` with exactly the columns and dtypes of raw table ``name``.

    Missing columns are added (``constants`` give their value, e.g. ``target_type="space"``,
    otherwise missing), extra columns are dropped, duplicate keys are dropped (first kept),
    and role columns are checked.

    Parameters
    ----------
    name : str
        A key of :data:`RAW_SCHEMAS`.
    frame : DataFrame, optional
        The rows; an empty table when omitted.
    **constants
        Values for columns absent from ``frame``.

    Returns
    -------
    DataFrame

    Raises
    ------
    ValidationError
        For an unknown table or a role that is not one of the API's.

    Examples
    --------
    >>> conform("teams").columns.tolist()
    ['id', 'title', 'members']
    """
    if name not in RAW_SCHEMAS:
        raise ValidationError("name", f"unknown audit table {name!r}; known: {sorted(RAW_SCHEMAS)}")
    schema = RAW_SCHEMAS[name]
    frame = pd.DataFrame() if frame is None else frame
    length = len(frame)
    columns = {}
    for column, dtype in schema.items():
        if column in frame.columns:
            columns[column] = _column(frame[column], dtype, length)
        elif column in constants:
            columns[column] = _column([constants[column]] * length, dtype, length)
        else:
            columns[column] = _column(None, dtype, length)
    result = pd.DataFrame(columns, columns=list(schema), copy=False)
    if name in _ROLE_COLUMNS:
        column, allowed = _ROLE_COLUMNS[name]
        unknown = set(result[column].dropna().unique()) - set(allowed)
        if unknown:
            raise ValidationError(
                f"{name}.{column}", f"unknown roles {sorted(unknown)}; expected {list(allowed)}"
            )
    if name in _KEYS and length:
        duplicated = _duplicated(result, _KEYS[name])
        if duplicated.any():
            result = result[~duplicated].reset_index(drop=True)
    return result


def _duplicated(frame: pd.DataFrame, keys: list[str]) -> np.ndarray:
    """Rows whose key repeats an earlier row's, as :meth:`DataFrame.duplicated` finds them.

    The key columns' codes are packed into one integer per row (32 bits where they fit) and
    sorted: a table without duplicates (the usual case) costs two arrays of a row's size,
    where a hash table of a large table's keys would cost several times more memory; only
    a table with duplicates is sorted again to tell the first of each key.
    """
    parts = []
    size = 1
    for key in keys:
        column = frame[key]
        if isinstance(column.dtype, pd.CategoricalDtype):
            codes, count = column.cat.codes.to_numpy(), len(column.cat.categories)
        else:
            codes, uniques = pd.factorize(column)
            count = len(uniques)
        parts.append((codes, count + 1))
        size *= count + 1
    if size >= 2**62:
        return frame.duplicated(keys).to_numpy()
    packed: np.ndarray[Any, np.dtype[np.signedinteger]] = np.zeros(
        len(frame), dtype=np.int32 if size < 2**31 else np.int64
    )
    for codes, count in parts:
        packed *= count
        packed += codes
        packed += 1  # missing (-1) becomes 0
    ordered = np.sort(packed)
    if not (ordered[1:] == ordered[:-1]).any():
        return np.zeros(len(frame), dtype=bool)
    order = np.argsort(packed, kind="stable")  # the first of equal keys comes first
    ordered = packed[order]
    repeated = np.zeros(len(frame), dtype=bool)
    repeated[order[1:]] = ordered[1:] == ordered[:-1]
    return repeated


@dataclass
class AuditData:
    """The raw tables of one organization, with the columns of :data:`RAW_SCHEMAS`.

    Every table is conformed on construction (columns added or dropped, dtypes set,
    duplicate rows dropped), so a hand-made organization only needs the columns it uses.

    Attributes
    ----------
    org_id : str
        The organization audited.
    org_name : str or None
        Its title.
    generated_at : Timestamp
        When the crawl finished (UTC); ages (share links, inactivity) are counted to it.
    token_role : str or None
        The organization role of the token's user (``"guest"``, ``"non-member"``, a role),
        or None when it could not be told (e.g. an integration token). Only an organization
        admin sees every space, so only then can the audit be complete.
    spaces_reported : int or None
        The number of spaces the API said the list holds, when it said.
    invite_links_enabled : bool or None
        The organization's ``inviteLinks`` setting: while it is off no invite link is
        active. None when it could not be told (links then count as active).
    events_since : Timestamp or None
        Where the audit log read starts (``events`` holds what happened from then on);
        None when the log was not asked for.
    log_actions : tuple of str or None
        The action IDs the organization's log records (its ``audit-event-actions``, read with
        the log); None when not read.
    spaces, collections, members, teams, team_members, user_permissions, team_permissions,
    sites, site_spaces, share_links, invite_links, aggregate, creators, events, errors : DataFrame
        The tables of :data:`RAW_SCHEMAS`.
    not_read : frozenset of str
        Parts of :data:`PARTS` the crawl could not read at all.
    """

    org_id: str
    org_name: str | None = None
    generated_at: pd.Timestamp = field(default_factory=lambda: pd.Timestamp.now(tz="UTC"))
    token_role: str | None = None
    spaces_reported: int | None = None
    invite_links_enabled: bool | None = None
    events_since: pd.Timestamp | None = None
    log_actions: tuple[str, ...] | None = None
    spaces: pd.DataFrame = field(default_factory=lambda: conform("spaces"))
    collections: pd.DataFrame = field(default_factory=lambda: conform("collections"))
    members: pd.DataFrame = field(default_factory=lambda: conform("members"))
    teams: pd.DataFrame = field(default_factory=lambda: conform("teams"))
    team_members: pd.DataFrame = field(default_factory=lambda: conform("team_members"))
    user_permissions: pd.DataFrame = field(default_factory=lambda: conform("user_permissions"))
    team_permissions: pd.DataFrame = field(default_factory=lambda: conform("team_permissions"))
    sites: pd.DataFrame = field(default_factory=lambda: conform("sites"))
    site_spaces: pd.DataFrame = field(default_factory=lambda: conform("site_spaces"))
    share_links: pd.DataFrame = field(default_factory=lambda: conform("share_links"))
    invite_links: pd.DataFrame = field(default_factory=lambda: conform("invite_links"))
    aggregate: pd.DataFrame = field(default_factory=lambda: conform("aggregate"))
    creators: pd.DataFrame = field(default_factory=lambda: conform("creators"))
    events: pd.DataFrame = field(default_factory=lambda: conform("events"))
    errors: pd.DataFrame = field(default_factory=lambda: conform("errors"))
    not_read: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        for name in RAW_SCHEMAS:
            setattr(self, name, conform(name, getattr(self, name)))
        unknown = set(self.not_read) - set(PARTS)
        if unknown:
            raise ValidationError(
                "not_read", f"unknown parts {sorted(unknown)}; known: {list(PARTS)}"
            )
        self.not_read = frozenset(self.not_read)
        self.generated_at = _utc(self.generated_at)
        if self.events_since is not None:
            self.events_since = _utc(self.events_since)

    def tables(self) -> dict[str, pd.DataFrame]:
        """The raw tables by name, in :data:`RAW_SCHEMAS` order."""
        return {name: getattr(self, name) for name in RAW_SCHEMAS}

    @safe_display
    def __repr__(self) -> str:
        sizes = ", ".join(f"{name}={len(table)}" for name, table in self.tables().items())
        return f"AuditData(org_id={self.org_id!r}, {sizes}, not_read={sorted(self.not_read)})"


def _utc(moment: object) -> pd.Timestamp:
    stamp = pd.Timestamp(moment)  # type: ignore[arg-type]
    return stamp.tz_localize("UTC") if stamp.tzinfo is None else stamp.tz_convert("UTC")


class _Codes(dict):
    """Distinct values of one column, each numbered on first sight; None is -1 (missing)."""

    def __init__(self) -> None:
        super().__init__({None: -1})

    def __missing__(self, value: Any) -> int:
        code = self[value] = len(self) - 1
        return code


class ColumnAccumulator:
    """Rows of one raw table collected page by page as category codes.

    Each column keeps its distinct values once and a 4-byte code per row (no Python object
    per cell), appended as pages arrive; :meth:`frame` builds the table once at the end,
    its text columns categoricals of those values (nothing to factorize again). A column
    of mostly distinct text (``string[pyarrow]`` in the schema: an event's id) keeps each
    page's text in an Arrow buffer instead, and a time column (``datetime64[ns, UTC]``)
    nanoseconds since the epoch (appended as integers, None for a missing time).

    Parameters
    ----------
    name : str
        A key of :data:`RAW_SCHEMAS`.

    Examples
    --------
    >>> acc = ColumnAccumulator("aggregate")
    >>> acc.append(space_id=["s1", "s1"], user_id=["u1", "u2"], role=["read", "edit"])
    >>> acc.frame()["role"].tolist()
    ['read', 'edit']
    """

    def __init__(self, name: str) -> None:
        if name not in RAW_SCHEMAS:
            raise ValidationError("name", f"unknown audit table {name!r}")
        self.name = name
        schema = RAW_SCHEMAS[name]
        self._schema = schema
        coded = [column for column, dtype in schema.items() if dtype not in (_LONG, _TIME)]
        self._codes: dict[str, array[int]] = {column: array("i") for column in coded}
        self._values: dict[str, _Codes] = {column: _Codes() for column in coded}
        self._texts: dict[str, list[Any]] = {c: [] for c, d in schema.items() if d == _LONG}
        self._times: dict[str, array[int]] = {
            column: array("q") for column, dtype in schema.items() if dtype == _TIME
        }
        self._rows = 0

    def append(self, **columns: Iterable[Any] | str | None) -> None:
        """Add one page: each column a sequence of equal length, or one value for all rows.

        Raises
        ------
        ValidationError
            For an unknown column or columns of different lengths.
        """
        lists = {k: v for k, v in columns.items() if not _is_scalar(v)}
        unknown = set(columns) - set(self._schema)
        if unknown:
            raise ValidationError("columns", f"{self.name} has no columns {sorted(unknown)}")
        lengths = {len(v) for v in lists.values()}  # type: ignore[arg-type]
        if len(lengths) > 1:
            raise ValidationError("columns", f"columns of different lengths {sorted(lengths)}")
        count = lengths.pop() if lengths else 0
        for column, codes in self._codes.items():
            known = self._values[column]
            value = columns.get(column)
            if column in lists:
                codes.extend(map(known.__getitem__, value))  # type: ignore[arg-type]
            else:
                codes.extend([known[value]] * count)
        for column, chunks in self._texts.items():
            value = columns.get(column)
            chunks.append(long_texts(value if column in lists else [value] * count))
        for column, times in self._times.items():
            value = columns.get(column)
            values = value if column in lists else [value] * count
            times.extend(_NAT if moment is None else moment for moment in values)  # type: ignore[misc, union-attr]
        self._rows += count

    def __len__(self) -> int:
        return self._rows

    def frame(self) -> pd.DataFrame:
        """The table built from every page appended: its columns in the schema's order, text
        as categoricals (:class:`AuditData` conforms it, duplicate keys dropped).

        The pages' codes are handed over to the frame: the accumulator is empty afterwards.
        """
        columns: dict[str, Any] = {}
        rows, self._rows = self._rows, 0
        for column in self._codes:
            codes, self._codes[column] = self._codes[column], array("i")
            known, self._values[column] = self._values[column], _Codes()
            values = [value for value in known if value is not None]
            numbers = np.frombuffer(codes, dtype=np.int32) if rows else np.zeros(0, "i4")
            if all(type(value) is str for value in values):
                dtype = pd.CategoricalDtype(pd.Index(values, dtype=STRING))
                columns[column] = pd.Categorical.from_codes(numbers, dtype=dtype)
            else:  # numbers or other JSON values: conform turns them into text as before
                objects = np.array([*values, None], dtype=object)
                columns[column] = objects[numbers]
        for column in self._texts:
            chunks, self._texts[column] = self._texts[column], []
            columns[column] = (
                pd.concat([pd.Series(chunk, copy=False) for chunk in chunks], ignore_index=True)
                if chunks
                else long_texts([])
            )
        for column in self._times:
            times, self._times[column] = self._times[column], array("q")
            nanoseconds = np.frombuffer(times, dtype=np.int64) if rows else np.zeros(0, "i8")
            columns[column] = pd.DatetimeIndex(nanoseconds.view("datetime64[ns]"), tz="UTC")
        return pd.DataFrame(columns, columns=list(self._schema), copy=False)


#: A missing time, in nanoseconds since the epoch.
_NAT = np.iinfo(np.int64).min


def _is_scalar(value: object) -> bool:
    return value is None or isinstance(value, str | int | float | bool)
