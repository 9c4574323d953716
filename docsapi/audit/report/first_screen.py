"""The report's first screen, for a security reviewer: what to fix first, and what changed.

"Fix first" lists the high findings as sentences: who and what (the finding's own words),
through which door (the paths that decide the access, for a user's access to a space), since
when and by whom (the provenance every finding carries), and the one action that fixes it,
each linking to its row of the findings table. "What changed since <date>" is the diff
against the previous snapshot, when there is one: the changes to look at first (new
findings, then access granted or raised), then the counts.
"""

from __future__ import annotations

import re
from typing import Any, Protocol

import pandas as pd

from docsapi.audit.report.tables import text
from docsapi.audit.report.words import rule_hover, rule_words
from docsapi.audit.view import AuditView

__all__ = ["FIX_FIRST_LIMIT", "ChangesView", "finding_anchor", "fix_first", "what_changed"]

#: The most high findings "Fix first" spells out, one of each rule before a second of any
#: (the rest are counted, and in the table).
FIX_FIRST_LIMIT = 6
#: The most changes "What changed" spells out.
CHANGES_LIMIT = 5
#: A sentence's end: a full stop, then a capital (the last sentence of a finding is its fix).
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
#: The door of a path kind, as "through ..." reads it, when the path has no name of its own.
_DOORS = {"org-admin": "the organization admin role", "direct": "a direct grant"}


class ChangesView(Protocol):
    """What the first screen reads of a diff (:class:`~docsapi.audit.diff.AccessDiff`)."""

    notes: list[str]

    @property
    def before(self) -> pd.Timestamp:
        """When the previous audit was taken."""

    @property
    def empty(self) -> bool:
        """True when nothing changed."""

    def count(self, kind: str) -> int:
        """The number of changes of one kind."""

    def top_changes(self, limit: int = 10) -> pd.DataFrame:
        """``change``, ``space``, ``who``, ``what``: the changes to look at first."""


def finding_anchor(position: int) -> str:
    """The id of the findings table's row at ``position`` (``finding-3``)."""
    return f"finding-{position}"


def _split(detail: str) -> tuple[str, str]:
    """A finding's detail as (what is wrong, the action that fixes it)."""
    sentences = _SENTENCE_END.split(detail.strip())
    if len(sentences) < 2:
        return detail.strip().rstrip("."), ""
    return " ".join(sentences[:-1]).rstrip("."), sentences[-1]


def _doors(audit: AuditView, findings: pd.DataFrame) -> dict[tuple[str, str], str]:
    """For each (space, user) of the findings, the paths that decide its access, in words."""
    users = findings[findings["principal_type"].astype(object) == "user"]
    wanted = set(
        zip(users["space_id"].astype(object), users["principal_id"].astype(object), strict=True)
    )
    if not wanted:
        return {}
    paths = audit.paths  # millions of rows in a large organization: narrowed by columns first
    near = paths[
        paths["user_id"].isin([user for _, user in wanted]).to_numpy(dtype=bool)
        & paths["space_id"].isin([space for space, _ in wanted]).to_numpy(dtype=bool)
        & (paths["status"].astype(object) == "decides").to_numpy(dtype=bool)
    ]
    pairs = zip(near["space_id"].astype(object), near["user_id"].astype(object), strict=True)
    chosen = near.iloc[[i for i, pair in enumerate(pairs) if pair in wanted]]
    doors: dict[tuple[str, str], list[str]] = {}
    for space, user, kind, name in zip(
        chosen["space_id"], chosen["user_id"], chosen["kind"], chosen["source_name"], strict=True
    ):
        said = _DOORS.get(str(kind)) or (str(name) if pd.notna(name) else str(kind))
        doors.setdefault((str(space), str(user)), [])
        if said not in doors[(str(space), str(user))]:
            doors[(str(space), str(user))].append(said)
    return {key: " and ".join(names) for key, names in doors.items()}


def _since(row: dict[Any, Any]) -> str:
    """Since when and by whom, from the finding's provenance."""
    by, at, said = row.get("granted_by"), row.get("granted_at"), row.get("provenance")
    if isinstance(by, str) and isinstance(at, pd.Timestamp) and pd.notna(at):
        via = row.get("granted_via")
        how = f" ({via})" if isinstance(via, str) else ""
        return f"since {at:%Y-%m-%d}, by {by}{how}"
    if isinstance(said, str) and said.startswith("before "):
        return f"since {said} (older than the audit log)"
    if isinstance(said, str) and said.startswith("unknown"):
        reason = said.partition(": ")[2]
        return "who opened it is unknown" + (f" ({reason})" if reason else "")
    if isinstance(said, str) and said:
        return f"opened: {said}"
    return ""


def fix_first(audit: AuditView) -> str:
    """The "Fix first" section: each high finding as a sentence, linking to its row.

    Parameters
    ----------
    audit : AuditView
        The audit; its ``findings`` (rows in table order: the links point at
        :func:`finding_anchor` of each row's position) and ``paths`` are read.

    Returns
    -------
    str
        An HTML ``<section>``.
    """
    findings = audit.findings.reset_index(drop=True)
    high = findings[(findings["severity"].astype(object) == "high").to_numpy(dtype=bool)]
    if high.empty:
        medium = int((findings["severity"].astype(object) == "medium").sum())
        rest = f"{medium} of medium severity are listed below." if medium else "Nothing is."
        return (
            '<section class="fix-first"><h2>Fix first</h2>'
            f"<p>No finding is of high severity. {rest}</p></section>"
        )
    turn = high.groupby(high["rule"].astype(object), sort=False).cumcount()
    shown = high.iloc[turn.to_numpy().argsort(kind="stable")].head(FIX_FIRST_LIMIT)
    doors = _doors(audit, shown)
    items = []
    for position, row in zip(shown.index, shown.astype(object).to_dict("records"), strict=True):
        wrong, action = _split(str(row["detail"]))
        door = doors.get((str(row["space_id"]), str(row["principal_id"])))
        parts = [wrong] + ([f"through {door}"] if door else []) + [_since(row)]
        said = ", ".join(p for p in parts if p) + "."
        fix = f' <span class="fix">Fix: {text(action)}</span>' if action else ""
        code = str(row["rule"])
        items.append(
            f'<li><a href="#{finding_anchor(position)}" title="{text(rule_hover(code))}">'
            f"{text(rule_words(code))}</a>: {text(said)}{fix}</li>"
        )
    more = len(high) - len(shown)
    tail = f"<p>… and {more} more of high severity in the findings below.</p>" if more else ""
    return (
        '<section class="fix-first"><h2>Fix first</h2>'
        f'<ol class="fix-list">{"".join(items)}</ol>{tail}</section>'
    )


def what_changed(changes: ChangesView | None) -> str:
    """The "What changed since <date>" section; empty without a previous audit.

    New findings and new or raised access come first (``top_changes``), then the counts
    of every kind of change, then what makes the comparison less than exact.
    """
    if changes is None:
        return ""
    since = pd.Timestamp(changes.before).tz_convert("UTC").strftime("%Y-%m-%d %H:%M UTC")
    heading = f"<h2>What changed since {text(since)}</h2>"
    if changes.empty:
        return f'<section class="changed">{heading}<p>Nothing changed.</p></section>'
    count = changes.count
    counts = (
        f"Access: {count('granted')} granted, {count('raised')} raised, "
        f"{count('revoked')} revoked, {count('lowered')} lowered, "
        f"{count('rerouted')} through other paths. Findings: {count('new findings')} new, "
        f"{count('resolved findings')} resolved. Exposure: {count('exposure added')} added, "
        f"{count('exposure removed')} removed."
    )
    top = changes.top_changes(CHANGES_LIMIT)
    items = []
    for change, space, who, what in top.astype(object).itertuples(index=False):
        where = ", ".join(str(v) for v in (space, who) if isinstance(v, str) and v)
        items.append(
            f"<li><b>{text(str(change).capitalize())}</b>"
            f"{': ' + text(where) if where else ''} — {text(what)}</li>"
        )
    notes = "".join(f'<p class="note">{text(note)}</p>' for note in changes.notes)
    return (
        f'<section class="changed">{heading}<ul class="change-list">{"".join(items)}</ul>'
        f'<p class="meta">{text(counts)}</p>{notes}</section>'
    )
