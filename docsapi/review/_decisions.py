"""The decisions table of an access review: one row per (space, user) access, and its checks.

:func:`decisions_table` builds it from an audit's ``effective`` table (every access, none
decided yet) with the findings that concern each access; :func:`select` picks rows by
space, user, role, path or finding; :func:`decide` records a decision on rows after
checking it; :func:`conform_saved` checks a table read back from a snapshot.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from docsapi.audit.data import ROLE_DTYPE, ROLES
from docsapi.core.checks import check_text
from docsapi.errors import ValidationError

if TYPE_CHECKING:
    from docsapi.audit import PermissionAudit

__all__ = [
    "DECISIONS",
    "DECISION_COLUMNS",
    "FILTERS",
    "LOWER_TO",
    "MAX_NAME",
    "MAX_NOTE",
    "check_note",
    "check_person",
    "conform_saved",
    "decide",
    "decisions_table",
    "select",
]

#: Longest name of a reviewer or signer, and longest comment or note.
MAX_NAME = 100
MAX_NOTE = 2000


def check_person(value: Any, argument: str) -> str:
    """A reviewer's or signer's name: one line of visible text, at most ``MAX_NAME`` long."""
    return check_text(
        value.strip() if isinstance(value, str) else value,
        argument,
        min_length=1,
        max_length=MAX_NAME,
    )


def check_note(value: Any, argument: str) -> str:
    """A comment or note: text of several lines, at most ``MAX_NOTE`` characters."""
    return check_text(value, argument, max_length=MAX_NOTE, multiline=True)


#: What a reviewer can decide about an access.
DECISIONS: tuple[str, ...] = ("keep", "revoke", "lower")
#: The roles an access can be lowered to (to guest: revoke it instead).
LOWER_TO: tuple[str, ...] = tuple(r for r in ROLES if r not in ("guest", "admin"))
#: The filters of :func:`select` (and of the panel), in the order they are shown.
FILTERS: tuple[str, ...] = ("space", "user", "role", "path", "finding")

_STRING = pd.StringDtype("python")
#: The decisions table's columns and dtypes, declared once.
DECISION_COLUMNS: dict[str, Any] = {
    "space_id": _STRING,
    "space_title": _STRING,
    "user_id": _STRING,
    "display_name": _STRING,
    "email": _STRING,
    "member_role": _STRING,
    "role": ROLE_DTYPE,
    "sources": _STRING,
    "source_names": _STRING,
    "granted_by": _STRING,
    "granted_at": pd.DatetimeTZDtype("ns", "UTC"),
    "findings": _STRING,
    "decision": _STRING,
    "lower_to": ROLE_DTYPE,
    "comment": _STRING,
    "reviewer": _STRING,
    "decided_at": pd.DatetimeTZDtype("ns", "UTC"),
}
_KEYS = ["space_id", "user_id"]


def _findings_by_access(audit: PermissionAudit, accesses: pd.DataFrame) -> pd.Series:
    """The rules of the findings about each access, ``"; "``-joined (missing when none).

    A finding about a person on a space names that access; one about a person on a
    collection names their accesses through that collection; one about a person across
    spaces (``admin_sprawl``) names their admin accesses.
    """
    found: dict[tuple[str, str], list[str]] = {}
    findings = audit.findings
    people = findings[findings["principal_type"].astype("string") == "user"]
    spaces = accesses["space_id"].to_numpy(dtype=object)
    users = accesses["user_id"].to_numpy(dtype=object)
    sources = accesses["sources"].fillna("").to_numpy(dtype=object)
    admins = (accesses["role"] == "admin").to_numpy(dtype=bool)
    row: Any
    for row in people.itertuples(index=False):
        user, rule, target = str(row.principal_id), str(row.rule), str(row.target_type)
        if target == "space" and not pd.isna(row.space_id):
            hits = (users == user) & (spaces == str(row.space_id))
        elif target == "collection":
            through = np.array([f"collection:{row.target_id}" in s for s in sources], dtype=bool)
            hits = (users == user) & through
        elif target == "user":
            hits = (users == user) & admins
        else:
            continue
        for position in np.flatnonzero(hits):
            key = (spaces[position], users[position])
            if rule not in found.setdefault(key, []):
                found[key].append(rule)
    texts = [
        "; ".join(found[(s, u)]) if (s, u) in found else None
        for s, u in zip(spaces, users, strict=True)
    ]
    return pd.Series(texts, index=accesses.index, dtype=_STRING)


def _granted(audit: PermissionAudit, accesses: pd.DataFrame) -> pd.DataFrame:
    """Who opened each access and when: the provenance of its highest path (``paths`` lists
    a pair's paths highest role first); missing when the audit log does not say."""
    paths = audit.paths
    first = paths.drop_duplicates(["space_id", "user_id"])
    found = first.set_index([first["space_id"].astype(object), first["user_id"].astype(object)])[
        ["granted_by", "granted_at"]
    ].reindex(
        pd.MultiIndex.from_arrays(
            [accesses["space_id"].astype(object), accesses["user_id"].astype(object)]
        )
    )
    return pd.DataFrame(
        {
            "granted_by": found["granted_by"].astype(object).to_numpy(),
            "granted_at": pd.to_datetime(found["granted_at"], utc=True)
            .astype("datetime64[ns, UTC]")
            .array,
        },
        index=accesses.index,
    )


def decisions_table(audit: PermissionAudit) -> pd.DataFrame:
    """Every access of ``audit.effective``, undecided, with who opened it (``granted_by``,
    ``granted_at``) and the findings about it."""
    effective = audit.effective
    frame = pd.DataFrame(
        {
            name: effective[name].astype(dtype)
            for name, dtype in DECISION_COLUMNS.items()
            if name in effective.columns
        }
    ).reset_index(drop=True)
    frame["findings"] = _findings_by_access(audit, frame)
    granted = _granted(audit, frame)
    frame["granted_by"] = granted["granted_by"].astype(_STRING)
    frame["granted_at"] = granted["granted_at"]
    for name, dtype in DECISION_COLUMNS.items():
        if name not in frame.columns:
            frame[name] = pd.Series(pd.NA, index=frame.index).astype(dtype)
    return frame[list(DECISION_COLUMNS)]


# -- selecting -----------------------------------------------------------------------------------
def _values(value: object, name: str) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, Iterable) and not isinstance(value, Mapping):
        values = list(value)
        if values and all(isinstance(v, str) for v in values):
            return values
    raise ValidationError(name, f"give a text or a list of texts, got {value!r}")


def _path_hits(sources: pd.Series, wanted: list[str]) -> np.ndarray:
    """Rows with a source equal to a wanted one, or of a wanted kind (``team`` matches
    ``team:<id>``; ``default`` matches every default level)."""
    hits = np.zeros(len(sources), dtype=bool)
    for row, text in enumerate(sources.fillna("").to_numpy(dtype=object)):
        for source in text.split("; ") if text else []:
            kind = source.split(":", 1)[0]
            if source in wanted or kind in wanted:
                hits[row] = True
                break
    return hits


def _contains(texts: pd.Series, wanted: list[str]) -> np.ndarray:
    return np.array(
        [bool(t) and any(w in t.split("; ") for w in wanted) for t in texts.fillna("")],
        dtype=bool,
    )


def select(decisions: pd.DataFrame, **filters: object) -> pd.DataFrame:
    """The rows matching every filter given (each a text or a list of texts).

    ``space`` matches a space id or title, ``user`` a user id, display name or email,
    ``role`` the effective role, ``path`` a source (``team:<id>``) or a kind of source
    (``direct``, ``team``, ``collection``, ``collection-team``, ``site``, ``site-team``,
    ``site-default``, ``default``, ``creator``, ``org-admin``), ``finding`` a rule name.
    """
    unknown = sorted(set(filters) - set(FILTERS))
    if unknown:
        raise ValidationError(
            ", ".join(unknown), f"is not a filter; filter by {', '.join(FILTERS)}"
        )
    keep = np.ones(len(decisions), dtype=bool)
    for name, value in filters.items():
        if value is None:
            continue
        wanted = _values(value, name)
        if name == "space":
            in_space = decisions["space_id"].isin(wanted) | decisions["space_title"].isin(wanted)
            keep = keep & in_space.to_numpy(dtype=bool)
            keep = np.asarray(keep, dtype=bool)
        elif name == "user":
            columns = ("user_id", "display_name", "email")
            hits = np.zeros(len(decisions), dtype=bool)
            for column in columns:
                hits = hits | decisions[column].isin(wanted).to_numpy(dtype=bool)
            keep = keep & hits
        elif name == "role":
            bad = [w for w in wanted if w not in ROLES]
            if bad:
                raise ValidationError("role", f"must be one of {', '.join(ROLES)}; got {bad}")
            keep = keep & decisions["role"].astype(object).isin(wanted).to_numpy(dtype=bool)
        elif name == "path":
            keep = keep & _path_hits(decisions["sources"], wanted)
        else:
            keep = keep & _contains(decisions["findings"], wanted)
    return decisions[keep]


# -- deciding ------------------------------------------------------------------------------------
def _positions(decisions: pd.DataFrame, rows: object) -> np.ndarray:
    """The row labels of ``decisions`` that ``rows`` names."""
    if isinstance(rows, Mapping):
        return select(decisions, **{str(k): v for k, v in rows.items()}).index.to_numpy()
    if isinstance(rows, pd.DataFrame):
        labels = rows.index
    elif isinstance(rows, pd.Series) and rows.dtype == bool:
        labels = rows[rows.to_numpy(dtype=bool)].index
    elif isinstance(rows, int | np.integer) and not isinstance(rows, bool):
        labels = pd.Index([rows])
    elif isinstance(rows, Iterable) and not isinstance(rows, str | bytes):
        labels = pd.Index(list(rows))
    else:
        raise ValidationError(
            "rows",
            "give rows of review.decisions (a slice of it, a boolean Series, row labels) "
            f"or a filter dict such as {{'space': 'Guides'}}; got {rows!r}",
        )
    missing = labels.difference(decisions.index)
    if len(missing):
        raise ValidationError("rows", f"names rows that are not decisions: {list(missing)[:5]}")
    return labels.to_numpy()


def decide(
    decisions: pd.DataFrame,
    rows: object,
    decision: object,
    *,
    lower_to: object = None,
    comment: object = None,
    reviewer: str,
    now: pd.Timestamp,
) -> int:
    """Record ``decision`` on ``rows`` of ``decisions`` (in place); the number of rows.

    Everything is checked before any row changes.
    """
    if decision not in DECISIONS:
        raise ValidationError(
            "decision", f"must be one of {', '.join(DECISIONS)}; got {decision!r}"
        )
    note = None if comment is None else check_note(comment, "comment")
    labels = _positions(decisions, rows)
    if not len(labels):
        raise ValidationError("rows", "match no access: check the filter against review.decisions")
    if decision == "lower":
        if lower_to not in LOWER_TO:
            raise ValidationError(
                "lower_to",
                f"lowering needs a role: one of {', '.join(LOWER_TO)} (to take the access "
                "away, decide revoke)",
            )
        roles = decisions.loc[labels, "role"]
        not_lower = roles[roles <= lower_to]
        if len(not_lower):
            sample = decisions.loc[not_lower.index[:3], ["display_name", "space_title", "role"]]
            raise ValidationError(
                "lower_to",
                f"{lower_to!r} is not lower than the role of {len(not_lower)} selected "
                f"access(es), e.g. {sample.to_dict(orient='records')}: lower only those above it",
            )
    elif lower_to is not None:
        raise ValidationError("lower_to", f"goes with decision 'lower' only, not {decision!r}")
    decisions.loc[labels, "decision"] = decision
    decisions.loc[labels, "lower_to"] = lower_to if decision == "lower" else np.nan
    decisions.loc[labels, "comment"] = note if note else pd.NA
    decisions.loc[labels, "reviewer"] = reviewer
    decisions.loc[labels, "decided_at"] = now
    return len(labels)


def conform_saved(saved: pd.DataFrame, fresh: pd.DataFrame) -> pd.DataFrame:
    """Saved decisions checked against the audit's accesses (``fresh``), as the table.

    Decisions saved before provenance existed get it from ``fresh``.
    """
    if "granted_by" not in saved.columns and "granted_at" not in saved.columns:
        saved = saved.merge(
            fresh[[*_KEYS, "granted_by", "granted_at"]], on=_KEYS, how="left", validate="1:1"
        )
    lacking = [c for c in DECISION_COLUMNS if c not in saved.columns]
    if lacking:
        raise ValidationError("decisions", f"the saved decisions lack columns {lacking}")
    keys_saved = saved[_KEYS].astype(object).apply(tuple, axis=1)
    keys_fresh = fresh[_KEYS].astype(object).apply(tuple, axis=1)
    if set(keys_saved) != set(keys_fresh):
        raise ValidationError(
            "decisions",
            "the saved decisions are about other accesses than this audit's: load them with "
            "the snapshot they were saved with",
        )
    table = saved[list(DECISION_COLUMNS)].astype(DECISION_COLUMNS)
    return table.reset_index(drop=True).copy(deep=True)  # writable, unlike what was read
