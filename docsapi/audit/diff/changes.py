"""What changed between two audits of one organization: access, findings and exposure.

``current.diff(previous)`` (:func:`~docsapi.audit.diff.access_diff.diff_audits`) compares the
public tables of two :class:`~docsapi.audit.PermissionAudit` objects (fresh, or loaded from
snapshots) and returns an AccessDiff:

- access per (space, user), from ``effective`` and ``paths``: ``granted`` (reaches the space
  now, did not before), ``revoked``, ``raised`` and ``lowered`` (a higher or lower role
  than before), ``rerouted`` (the same role through other paths); each row with the role and
  the sources before and after, and the paths that appeared and disappeared;
- ``changed_paths``: every path (space, user, source, role) that appeared or disappeared;
- ``changed_grants``: every explicit permission given, taken away or changed;
- ``new_findings`` and ``resolved_findings``, matched on the rule, the target, the space and
  the principal (not on the sentence, whose wording may change);
- ``exposure_added`` and ``exposure_removed``: ways to read a space without an account.

Every change is attributed to the event of the audit log that made it
(:mod:`~docsapi.audit.diff.attribution`): ``changed_by``, ``changed_at``, ``changed_via``,
``event_id``, and ``explained`` False for a change no event explains (``unexplained`` lists
them all).

Every table has a ``complete`` column, False where a space could not be read in full on
either side: such a change may be an artefact of missing data. ``notes``
states at the top what makes the comparison less than exact (a partial audit, changed
thresholds, audits in reverse order).

The comparison works on whole columns: each key column of both sides is mapped to one
shared code space, so rows are matched as integers (fine at 2,000 spaces x 5,000 users).
"""

from __future__ import annotations

import itertools
from dataclasses import asdict, dataclass, field
from typing import Any, TypeVar

import numpy as np
import pandas as pd

from docsapi.audit.data import BOOLEAN, ROLE_DTYPE, STRING
from docsapi.audit.diff.attribution import ATTRIBUTION_COLUMNS, Attribution
from docsapi.audit.tables import GRANT_COLUMNS, PATH_COLUMNS
from docsapi.audit.view import AuditView, check_audit
from docsapi.errors import ValidationError

__all__ = [
    "ACCESS_CHANGE_COLUMNS",
    "CHANGE_KINDS",
    "GRANT_CHANGE_COLUMNS",
    "PATH_CHANGE_COLUMNS",
    "Changes",
    "compare",
]

#: A subclass of :class:`Changes`.
C = TypeVar("C", bound="Changes")

#: Columns of ``granted``, ``revoked``, ``raised``, ``lowered`` and ``rerouted``.
ACCESS_CHANGE_COLUMNS = [
    "space_id",
    "space_title",
    "user_id",
    "display_name",
    "email",
    "member_role",
    "role_before",
    "role_after",
    "sources_before",
    "sources_after",
    "paths_added",
    "paths_removed",
    "complete",
    "changed_by",
    "changed_at",
    "explained",
]
#: Columns of ``changed_paths``.
PATH_CHANGE_COLUMNS = [
    "change",
    "space_id",
    "space_title",
    "user_id",
    "display_name",
    *PATH_COLUMNS[2:7],  # kind, source, source_name, collection_id, team_id
    "site_id",
    "role",
    "complete",
    *ATTRIBUTION_COLUMNS,
]
#: Columns of ``changed_grants``: ``change`` is added, removed or changed.
GRANT_CHANGE_COLUMNS = [
    "change",
    *GRANT_COLUMNS[:6],  # target_type ... principal_name
    "role_before",
    "role_after",
    *ATTRIBUTION_COLUMNS,
]
_GRANT_KEY = ["target_type", "target_id", "principal_type", "principal_id"]
#: The kinds of change, in the order of :attr:`AccessDiff.summary`.
CHANGE_KINDS: tuple[str, ...] = (
    "granted",
    "revoked",
    "raised",
    "lowered",
    "rerouted",
    "new findings",
    "resolved findings",
    "exposure added",
    "exposure removed",
)
_FINDING_KEY = ["rule", "target_type", "target_id", "space_id", "principal_type", "principal_id"]
_EXPOSURE_KEY = ["space_id", "site_id", "visibility", "share_link_id"]
_PATH_KEY = ["space_id", "user_id", "source", "role"]
_PAIR_KEY = ["space_id", "user_id"]
#: Paths whose name already says the role (``default:read`` is ``default level read``).
_ROLE_IN_NAME = frozenset({"org-admin"})
_INHERIT = "default:inherit"


# -- matching rows as integers --------------------------------------------------------------------
def _codes(columns: list[pd.Series]) -> list[np.ndarray]:
    """For one key column of several tables: int codes equal exactly where values are equal
    (missing values equal each other)."""
    if all(isinstance(c.dtype, pd.CategoricalDtype) for c in columns):
        categories = pd.Index(
            np.concatenate([np.asarray(c.cat.categories, dtype=object) for c in columns])
        ).unique()
        missing = len(categories)
        result = []
        for column in columns:
            mapping = np.append(categories.get_indexer(column.cat.categories), missing)
            result.append(mapping[column.cat.codes.to_numpy()])  # code -1 picks `missing`
        return result
    values = np.concatenate([_texts(c) for c in columns])
    codes, _ = pd.factorize(values, use_na_sentinel=False)
    bounds = np.cumsum([0, *(len(c) for c in columns)])
    return [codes[start:end] for start, end in itertools.pairwise(bounds)]


def _keys(frames: list[pd.DataFrame], columns: list[str]) -> list[np.ndarray]:
    """One int64 key per row of each frame, equal where all ``columns`` are equal."""
    keys = [np.zeros(len(frame), dtype=np.int64) for frame in frames]
    for column in columns:
        codes = _codes([frame[column] for frame in frames])
        width = int(max((int(c.max()) for c in codes if len(c)), default=0)) + 1
        combined = np.concatenate([k * width + c for k, c in zip(keys, codes, strict=True)])
        dense, _ = pd.factorize(combined)  # keep the numbers small, whatever the columns
        bounds = np.cumsum([0, *(len(k) for k in keys)])
        keys = [dense[a:b].astype(np.int64) for a, b in itertools.pairwise(bounds)]
    return keys


def _positions(keys: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """Where each of ``wanted`` sits in ``keys`` (unique), -1 when absent."""
    return pd.Index(keys).get_indexer(wanted)


# -- completeness --------------------------------------------------------------------------------
def _space_completeness(audit: AuditView, space_ids: pd.Series) -> np.ndarray:
    """For each space: whether the audit read it in full (a space it does not list counts
    as complete only in a complete audit)."""
    effective = audit.effective
    incomplete = effective.loc[~effective["complete"].to_numpy(dtype=bool), "space_id"]
    known = set(effective["space_id"].astype(object).unique())
    partial = set(incomplete.astype(object).unique())
    values = space_ids.astype(object).to_numpy()
    return np.array(
        [
            (v not in partial) if v in known else bool(audit.complete)
            for v in values  # one per changed row
        ],
        dtype=bool,
    )


def _both_complete(
    previous: AuditView, current: AuditView, space_ids: pd.Series
) -> pd.arrays.BooleanArray:
    flags = _space_completeness(previous, space_ids) & _space_completeness(current, space_ids)
    return pd.array(flags, dtype=BOOLEAN)


# -- access ---------------------------------------------------------------------------------------
def _described(paths: pd.DataFrame) -> pd.Series:
    """Each path as people read it: ``team Writers (edit)``, ``default level read``."""
    names = paths["source_name"].astype(object).to_numpy()
    roles = paths["role"].astype(object).to_numpy()
    sources = paths["source"].astype(object).to_numpy()
    return pd.Series(
        [
            n
            if s in _ROLE_IN_NAME or (s.startswith("default:") and s != _INHERIT)
            else f"{n} ({r})"
            for n, r, s in zip(names, roles, sources, strict=True)
        ],
        index=paths.index,
        dtype=object,
    )


def _joined(pair_keys: np.ndarray, texts: pd.Series) -> dict[int, str]:
    """Texts joined with ``"; "`` per pair key (in their order within each pair)."""
    if not len(pair_keys):
        return {}
    order = np.argsort(pair_keys, kind="stable")
    keys = pair_keys[order]
    values = texts.to_numpy(dtype=object)[order].tolist()
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    ends = [*starts[1:].tolist(), len(keys)]
    return {
        int(keys[start]): "; ".join(values[start:end])
        for start, end in zip(starts.tolist(), ends, strict=True)
    }


def _change_frame(
    rows: pd.DataFrame,
    *,
    role_before: Any,
    role_after: Any,
    sources_before: Any,
    sources_after: Any,
    added: Any,
    removed: Any,
    complete: Any,
) -> pd.DataFrame:
    frame = pd.DataFrame(
        {
            "space_id": rows["space_id"].astype(STRING).array,
            "space_title": rows["space_title"].astype(STRING).array,
            "user_id": rows["user_id"].astype(STRING).array,
            "display_name": rows["display_name"].astype(STRING).array,
            "email": rows["email"].astype(STRING).array,
            "member_role": rows["member_role"].astype(STRING).array,
            "role_before": pd.Categorical(role_before, dtype=ROLE_DTYPE),
            "role_after": pd.Categorical(role_after, dtype=ROLE_DTYPE),
            "sources_before": pd.array(sources_before, dtype=STRING),
            "sources_after": pd.array(sources_after, dtype=STRING),
            "paths_added": pd.array(added, dtype=STRING),
            "paths_removed": pd.array(removed, dtype=STRING),
            "complete": complete,
        },
        columns=ACCESS_CHANGE_COLUMNS,
    )
    return frame.sort_values(
        ["space_title", "display_name", "user_id"], key=_casefold, kind="stable"
    ).reset_index(drop=True)


def _casefold(column: pd.Series) -> pd.Series:
    return column.str.casefold() if column.dtype == STRING else column


def _texts(values: pd.Series | pd.Index) -> np.ndarray:
    """The values as Python objects, missing ones as None."""
    array = np.array(values.astype(object), dtype=object)
    array[pd.isna(array)] = None
    return array


@dataclass
class _Access:
    granted: pd.DataFrame
    revoked: pd.DataFrame
    raised: pd.DataFrame
    lowered: pd.DataFrame
    rerouted: pd.DataFrame
    changed_paths: pd.DataFrame

    def attributed(self, by_pair: pd.DataFrame) -> _Access:
        """Each access change with who made the path changes behind it (see :func:`_by_pair`)."""
        for name in ("granted", "revoked", "raised", "lowered", "rerouted"):
            frame = getattr(self, name)
            found = by_pair.reindex(
                pd.MultiIndex.from_arrays(
                    [frame["space_id"].astype(object), frame["user_id"].astype(object)]
                )
            )
            setattr(
                self,
                name,
                frame.assign(
                    changed_by=pd.array(found["changed_by"].to_numpy(dtype=object), dtype=STRING),
                    changed_at=pd.to_datetime(found["changed_at"], utc=True)
                    .astype("datetime64[ns, UTC]")
                    .array,
                    explained=pd.array(found["explained"].to_numpy(dtype=object), dtype=BOOLEAN),
                )[ACCESS_CHANGE_COLUMNS],
            )
        return self


def _by_pair(changed_paths: pd.DataFrame) -> pd.DataFrame:
    """Per (space, user): who changed its paths ("; "-joined), the latest time, and whether
    every one of its path changes is explained (missing when that cannot be told)."""
    if changed_paths.empty:
        return pd.DataFrame(
            {"changed_by": [], "changed_at": [], "explained": []},
            index=pd.MultiIndex.from_arrays([[], []]),
        )
    frame = changed_paths.astype({"space_id": object, "user_id": object})

    def explained(values: pd.Series) -> object:
        return None if values.isna().any() else bool(values.all())

    def actors(values: pd.Series) -> object:
        return "; ".join(dict.fromkeys(values.dropna().astype(str))) or None

    return frame.groupby(["space_id", "user_id"], sort=False).agg(
        changed_by=("changed_by", actors),
        changed_at=("changed_at", "max"),
        explained=("explained", explained),
    )


def _access_changes(previous: AuditView, current: AuditView, attribution: Attribution) -> _Access:
    old, new = previous.effective, current.effective
    old_paths, new_paths = previous.paths, current.paths
    old_key, new_key = _keys([old_paths, new_paths], _PATH_KEY)
    gone = old_paths[~np.isin(old_key, new_key)]
    came = new_paths[~np.isin(new_key, old_key)]
    old_pair, new_pair, gone_pair, came_pair = _keys([old, new, gone, came], _PAIR_KEY)
    removed = _joined(gone_pair, _described(gone))
    added = _joined(came_pair, _described(came))

    in_new = _positions(new_pair, old_pair)  # for each old row, its new row (or -1)
    in_old = _positions(old_pair, new_pair)
    kept_old = np.flatnonzero(in_new >= 0)
    kept_new = in_new[kept_old]
    before_codes = old["role"].cat.codes.to_numpy()[kept_old]
    after_codes = new["role"].cat.codes.to_numpy()[kept_new]
    moved = np.array([k in added or k in removed for k in old_pair[kept_old]], dtype=bool)

    def changed(old_rows: np.ndarray, new_rows: np.ndarray) -> pd.DataFrame:
        rows = new.iloc[new_rows] if len(new_rows) else new.iloc[:0]
        pairs = new_pair[new_rows]
        return _change_frame(
            rows,
            role_before=old["role"].to_numpy()[old_rows],
            role_after=new["role"].to_numpy()[new_rows],
            sources_before=_texts(old["source_names"].iloc[old_rows]),
            sources_after=_texts(new["source_names"].iloc[new_rows]),
            added=[added.get(k) for k in pairs],
            removed=[removed.get(k) for k in pairs],
            complete=_complete_pairs(old, new, old_rows, new_rows),
        )

    revoked_rows = np.flatnonzero(in_new < 0)
    granted_rows = np.flatnonzero(in_old < 0)
    revoked = old.iloc[revoked_rows]
    granted = new.iloc[granted_rows]
    changed_paths = _path_changes(previous, current, gone, came, attribution)
    by_pair = _by_pair(changed_paths)
    return _Access(
        granted=_change_frame(
            granted,
            role_before=[None] * len(granted),
            role_after=granted["role"].to_numpy(),
            sources_before=[None] * len(granted),
            sources_after=_texts(granted["source_names"]),
            added=[added.get(k) for k in new_pair[granted_rows]],
            removed=[removed.get(k) for k in new_pair[granted_rows]],
            complete=_one_side(previous, current, granted, new_side=True),
        ),
        revoked=_change_frame(
            revoked,
            role_before=revoked["role"].to_numpy(),
            role_after=[None] * len(revoked),
            sources_before=_texts(revoked["source_names"]),
            sources_after=[None] * len(revoked),
            added=[added.get(k) for k in old_pair[revoked_rows]],
            removed=[removed.get(k) for k in old_pair[revoked_rows]],
            complete=_one_side(previous, current, revoked, new_side=False),
        ),
        raised=changed(kept_old[after_codes > before_codes], kept_new[after_codes > before_codes]),
        lowered=changed(kept_old[after_codes < before_codes], kept_new[after_codes < before_codes]),
        rerouted=changed(
            kept_old[(after_codes == before_codes) & moved],
            kept_new[(after_codes == before_codes) & moved],
        ),
        changed_paths=changed_paths,
    ).attributed(by_pair)


def _complete_pairs(
    old: pd.DataFrame, new: pd.DataFrame, old_rows: np.ndarray, new_rows: np.ndarray
) -> pd.arrays.BooleanArray:
    flags = (
        old["complete"].to_numpy(dtype=bool)[old_rows]
        & new["complete"].to_numpy(dtype=bool)[new_rows]
    )
    return pd.array(flags, dtype=BOOLEAN)


def _one_side(
    previous: AuditView, current: AuditView, rows: pd.DataFrame, *, new_side: bool
) -> pd.arrays.BooleanArray:
    """A row present on one side: its own flag there, the space's completeness on the other."""
    own = rows["complete"].to_numpy(dtype=bool)
    other = _space_completeness(previous if new_side else current, rows["space_id"])
    return pd.array(own & other, dtype=BOOLEAN)


def _names(table: pd.DataFrame, ids: str, names: str) -> dict[object, object]:
    """Id -> name, from the first row of each id."""
    first = table[[ids, names]].drop_duplicates(ids)
    return dict(zip(_texts(first[ids]), _texts(first[names]), strict=True))


def _path_changes(
    previous: AuditView,
    current: AuditView,
    gone: pd.DataFrame,
    came: pd.DataFrame,
    attribution: Attribution,
) -> pd.DataFrame:
    parts = []
    for change, rows, audit in (("removed", gone, previous), ("added", came, current)):
        spaces = _names(audit.effective, "space_id", "space_title")
        people = _names(audit.effective, "user_id", "display_name")
        frame = pd.DataFrame(
            {
                "change": [change] * len(rows),
                "space_id": _texts(rows["space_id"]),
                "user_id": _texts(rows["user_id"]),
                "kind": _texts(rows["kind"]),
                "source": _texts(rows["source"]),
                "source_name": _texts(rows["source_name"]),
                "collection_id": _texts(rows["collection_id"]),
                "team_id": _texts(rows["team_id"]),
                "site_id": _texts(rows["site_id"]),
                "role": rows["role"].to_numpy(),
            }
        )
        frame["space_title"] = frame["space_id"].map(spaces)
        frame["display_name"] = frame["user_id"].map(people)
        parts.append(frame)
    table = pd.concat(parts, ignore_index=True)
    complete = _both_complete(previous, current, table["space_id"])
    table = table.assign(complete=complete)
    for column in PATH_CHANGE_COLUMNS[: PATH_CHANGE_COLUMNS.index("complete")]:
        if column == "role":
            table[column] = pd.Categorical(table[column], dtype=ROLE_DTYPE)
        else:
            table[column] = table[column].astype(STRING)
    table = attribution.attribute(table, "paths")
    return (
        table[PATH_CHANGE_COLUMNS]
        .sort_values(["space_title", "display_name", "change", "source"], kind="stable")
        .reset_index(drop=True)
    )


def _grant_changes(
    previous: AuditView, current: AuditView, attribution: Attribution
) -> pd.DataFrame:
    """Every explicit permission given (``added``), taken (``removed``) or ``changed``."""
    old, new = previous.grants, current.grants
    old_key, new_key = _keys([old, new], _GRANT_KEY)
    in_new = _positions(new_key, old_key)
    in_old = _positions(old_key, new_key)
    kept = np.flatnonzero(in_new >= 0)
    before = old["role"].cat.codes.to_numpy()[kept]
    after = new["role"].cat.codes.to_numpy()[in_new[kept]]
    moved = kept[before != after]
    parts = [
        (old.iloc[np.flatnonzero(in_new < 0)], "removed", True, False),
        (new.iloc[np.flatnonzero(in_old < 0)], "added", False, True),
        (new.iloc[in_new[moved]], "changed", True, True),
    ]
    frames = []
    for rows, change, has_before, has_after in parts:
        frame = rows[GRANT_COLUMNS[:6]].astype(object).reset_index(drop=True)
        frame.insert(0, "change", change)
        frame["role_before"] = (
            old["role"].to_numpy()[moved]
            if change == "changed"
            else rows["role"].to_numpy()
            if has_before
            else None
        )
        frame["role_after"] = rows["role"].to_numpy() if has_after else None
        frames.append(frame)
    table = pd.concat(frames, ignore_index=True)
    for column in ("role_before", "role_after"):
        table[column] = pd.Categorical(table[column], dtype=ROLE_DTYPE)
    for column in GRANT_CHANGE_COLUMNS[:7]:
        table[column] = table[column].astype(STRING)
    table = attribution.attribute(table, "grants")
    return (
        table[GRANT_CHANGE_COLUMNS]
        .sort_values(["target_title", "principal_name", "change"], kind="stable", key=_casefold)
        .reset_index(drop=True)
    )


# -- findings and exposure ------------------------------------------------------------------------
def _unmatched(
    previous: AuditView, current: AuditView, table: str, key: list[str]
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Rows of ``table`` only in the previous audit, and only in the current one."""
    old, new = getattr(previous, table), getattr(current, table)
    old_key, new_key = _keys([old, new], key)
    only_old = old[~np.isin(old_key, new_key)].reset_index(drop=True)
    only_new = new[~np.isin(new_key, old_key)].reset_index(drop=True)
    return (
        only_old.assign(complete=_both_complete(previous, current, only_old["space_id"])),
        only_new.assign(complete=_both_complete(previous, current, only_new["space_id"])),
    )


# -- the result -----------------------------------------------------------------------------------
@dataclass(eq=False)
class Changes:
    """What changed between two audits of one organization, as tables (see :func:`compare`).

    Attributes
    ----------
    previous, current : AuditView
        The two audits compared.
    granted, revoked, raised, lowered, rerouted : DataFrame
        Access per (space, user), columns :data:`ACCESS_CHANGE_COLUMNS`: ``role_before``
        and ``role_after`` (ordered roles, missing on the side without access),
        ``sources_before`` and ``sources_after`` (every path, with names),
        ``paths_added`` and ``paths_removed`` (``team Writers (edit)``, ``"; "``-joined),
        ``complete`` (False when either side could not read the space in full).
    changed_paths : DataFrame
        Every path that appeared (``change == "added"``) or disappeared, with the ids a fix
        would touch (``source``, ``collection_id``, ``team_id``): :data:`PATH_CHANGE_COLUMNS`.
    changed_grants : DataFrame
        Every explicit permission added, removed or changed: :data:`GRANT_CHANGE_COLUMNS`.
    new_findings, resolved_findings : DataFrame
        The findings' columns plus ``complete``.
    exposure_added, exposure_removed : DataFrame
        The exposure table's columns plus ``complete``.
    notes : list of str
        What makes the comparison less than exact (partial audits, changed thresholds,
        audits in reverse order, a log that does not reach back); empty when nothing does.

    Every table but the findings says who made each change: ``changed_by``, ``changed_at``
    and ``explained`` (the paths, grants and exposure also ``changed_by_id``,
    ``changed_via``, ``event_id``; see :mod:`~docsapi.audit.diff.attribution`).
    """

    previous: AuditView = field(repr=False)
    current: AuditView = field(repr=False)
    granted: pd.DataFrame = field(repr=False)
    revoked: pd.DataFrame = field(repr=False)
    raised: pd.DataFrame = field(repr=False)
    lowered: pd.DataFrame = field(repr=False)
    rerouted: pd.DataFrame = field(repr=False)
    changed_paths: pd.DataFrame = field(repr=False)
    changed_grants: pd.DataFrame = field(repr=False)
    new_findings: pd.DataFrame = field(repr=False)
    resolved_findings: pd.DataFrame = field(repr=False)
    exposure_added: pd.DataFrame = field(repr=False)
    exposure_removed: pd.DataFrame = field(repr=False)
    notes: list[str] = field(default_factory=list)

    @property
    def org_id(self) -> str:
        """The organization compared."""
        return str(self.current.org_id)

    @property
    def org_name(self) -> str | None:
        """Its name (as the current audit has it)."""
        return self.current.org_name

    @property
    def before(self) -> pd.Timestamp:
        """When the previous audit's crawl finished."""
        return pd.Timestamp(self.previous.generated_at)

    @property
    def after(self) -> pd.Timestamp:
        """When the current audit's crawl finished."""
        return pd.Timestamp(self.current.generated_at)

    @property
    def complete(self) -> bool:
        """Whether both audits saw everything (else changes may be artefacts)."""
        return bool(self.previous.complete and self.current.complete)

    def tables(self) -> dict[str, pd.DataFrame]:
        """The change tables by kind, in :data:`CHANGE_KINDS` order (plus ``changed paths``)."""
        return {
            "granted": self.granted,
            "revoked": self.revoked,
            "raised": self.raised,
            "lowered": self.lowered,
            "rerouted": self.rerouted,
            "new findings": self.new_findings,
            "resolved findings": self.resolved_findings,
            "exposure added": self.exposure_added,
            "exposure removed": self.exposure_removed,
            "changed paths": self.changed_paths,
            "changed grants": self.changed_grants,
        }

    @property
    def unexplained(self) -> pd.DataFrame:
        """Changes no event of the audit log explains: grants, paths and exposure whose
        ``explained`` is False, one row each (``table``, ``change``, what, who, ``detail``).

        Empty when every change is explained, or when the log does not reach back to the
        previous audit (then nothing can be told: see ``notes``).
        """
        rows = []
        for name, table, describe in (
            ("changed grants", self.changed_grants, _grant_text),
            ("changed paths", self.changed_paths, _path_text),
            ("exposure added", self.exposure_added, _exposure_text),
            ("exposure removed", self.exposure_removed, _exposure_text),
        ):
            flagged = table[(table["explained"] == False).fillna(False).to_numpy(dtype=bool)]  # noqa: E712
            records = flagged.astype(object).where(flagged.notna(), None).to_dict("records")
            for record in records:
                rows.append({"table": name, "detail": describe(record)})  # type: ignore[arg-type]
        return pd.DataFrame(rows, columns=["table", "detail"], dtype=STRING)

    @property
    def summary(self) -> pd.DataFrame:
        """Rows per kind of change: ``count``, and ``incomplete`` (rows from spaces either
        side could not read in full), indexed by ``change`` in :data:`CHANGE_KINDS` order."""
        tables = self.tables()
        counts = [len(tables[kind]) for kind in CHANGE_KINDS]
        unsure = [
            int((~tables[kind]["complete"].to_numpy(dtype=bool)).sum()) for kind in CHANGE_KINDS
        ]
        return pd.DataFrame(
            {"count": counts, "incomplete": unsure},
            index=pd.Index(list(CHANGE_KINDS), name="change", dtype=STRING),
        )

    def count(self, kind: str) -> int:
        """The number of changes of one kind: ``diff.count("granted")``."""
        if kind not in CHANGE_KINDS:
            raise ValidationError("kind", f"must be one of {list(CHANGE_KINDS)}, got {kind!r}")
        return len(self.tables()[kind])

    @property
    def empty(self) -> bool:
        """True when nothing changed."""
        return not any(self.count(kind) for kind in CHANGE_KINDS)

    def __repr__(self) -> str:
        counts = ", ".join(f"{kind}={self.count(kind)}" for kind in CHANGE_KINDS[:5])
        findings = f"findings +{self.count('new findings')}/-{self.count('resolved findings')}"
        exposure = f"exposure +{self.count('exposure added')}/-{self.count('exposure removed')}"
        state = "" if self.complete else ", PARTIAL"
        name = type(self).__name__
        return f"{name}(org_id={self.org_id!r}, {counts}, {findings}, {exposure}{state})"


def _grant_text(row: dict[str, Any]) -> str:
    roles = f"{row['role_before'] or 'none'} -> {row['role_after'] or 'none'}"
    who = row["principal_name"] or row["principal_id"]
    where = row["target_title"] or row["target_id"]
    return (
        f"{row['change']}: {row['principal_type']} {who} on {row['target_type']} {where} ({roles})"
    )


def _path_text(row: dict[str, Any]) -> str:
    who = row["display_name"] or row["user_id"]
    where = row["space_title"] or row["space_id"]
    return f"path {row['change']}: {who} on {where} through {row['source_name']} ({row['role']})"


def _exposure_text(row: dict[str, Any]) -> str:
    where = row["space_title"] or row["space_id"]
    way = row["share_link_name"] or row["site_title"] or row["visibility"]
    return f"{where} readable without an account through {way} ({row['visibility']})"


def _side(audit: AuditView) -> str:
    return f"{pd.Timestamp(audit.generated_at):%Y-%m-%d %H:%M} UTC"


def _notes(previous: AuditView, current: AuditView) -> list[str]:
    notes = []
    for label, audit in (("previous", previous), ("current", current)):
        if not audit.complete:
            missing = "; ".join(
                f"{item} ({str(detail).rstrip('.')})"
                for item, detail in zip(
                    audit.incomplete["item"], audit.incomplete["detail"], strict=True
                )
            )
            notes.append(
                f"The {label} audit ({_side(audit)}) is partial, so changes may be artefacts of "
                f"missing data; rows from spaces it could not read in full have complete=False. "
                f"It could not see: {missing}."
            )
    if pd.Timestamp(previous.generated_at) > pd.Timestamp(current.generated_at):
        notes.append(
            f"The previous audit ({_side(previous)}) is newer than the current one "
            f"({_side(current)}): the changes read backwards in time."
        )
    if previous.thresholds != current.thresholds:
        old, new = asdict(previous.thresholds), asdict(current.thresholds)
        changed = ", ".join(f"{k} {old[k]:g} -> {new[k]:g}" for k in old if old[k] != new[k])
        notes.append(
            f"The rule thresholds changed ({changed}): some findings are new or resolved "
            "because of that, not because access changed."
        )
    return notes


def compare(previous: AuditView, current: AuditView, kind: type[C]) -> C:
    """Compare two audits of one organization into a ``kind`` (:class:`Changes` or a subclass).

    Parameters
    ----------
    previous : AuditView
        The earlier audit (for instance ``docsapi.load_audit(last_quarter)``).
    current : AuditView
        The later audit.
    kind : type
        :class:`Changes` or a subclass of it (:class:`~docsapi.audit.diff.access_diff.AccessDiff`).

    Returns
    -------
    Changes
        The changes, of type ``kind``; its ``notes`` say when either audit is partial.

    Raises
    ------
    ValidationError
        When an argument is not an audit, or the audits are of different organizations.

    Examples
    --------
    >>> changes = compare(previous, audit, Changes)  # the guest was given edit since
    >>> changes.count("granted")
    1
    """
    previous, current = check_audit(previous, "previous"), check_audit(current, "current")
    if previous.org_id != current.org_id:
        raise ValidationError(
            "previous",
            f"is an audit of organization {previous.org_id!r}, not {current.org_id!r}: only "
            "audits of one organization can be compared",
        )
    attribution = Attribution(previous, current)
    access = _access_changes(previous, current, attribution)
    resolved, new = _unmatched(previous, current, "findings", _FINDING_KEY)
    removed, added = _unmatched(previous, current, "exposure", _EXPOSURE_KEY)
    notes = _notes(previous, current)
    if attribution.note:
        notes.append(attribution.note)
    return kind(
        previous=previous,
        current=current,
        granted=access.granted,
        revoked=access.revoked,
        raised=access.raised,
        lowered=access.lowered,
        rerouted=access.rerouted,
        changed_paths=access.changed_paths,
        changed_grants=_grant_changes(previous, current, attribution),
        new_findings=new,
        resolved_findings=resolved,
        exposure_added=attribution.attribute(added, "exposure"),
        exposure_removed=attribution.attribute(removed, "exposure"),
        notes=notes,
    )
