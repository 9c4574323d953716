"""The audit log's events, decoded defensively, page by page, into coded columns.

The log is data the server sends, and the audit must finish whatever it holds. Each event
is checked against the API's description of an ``AuditEvent`` before it is kept:

- ``id``, ``action``, ``source``, ``actor.type``, ``actor.id``, ``target.type`` and
  ``target.id`` are required text (the description requires them); ``actor.label`` and
  ``target.label`` are optional text;
- ``occurredAt`` is an ISO 8601 time from 1970-01-01 (:data:`EARLIEST`) to a day after the
  audit's time (:data:`LATE_SLACK`; checked once the crawl knows the server's clock);
- ``actor.type`` is one the API lists (:data:`ACTOR_TYPES`).

An event that breaks a rule is **set aside**: not kept, counted by its first broken rule,
and the first of each reason is kept as an example (its id and the value, escaped and cut
short). The coverage of the audit shows them, e.g. "the log: 3 events set aside: 1 time out
of range, 2 without a target (e.g. event 'e1': occurredAt '9999-12-31T23:59:59.999Z')".

Events that share an id: identical copies (a slice of the log read twice at its edge) are
one event. Copies that differ are a **conflict**: one is kept, chosen by content, never by
the order they arrived in: the latest ``occurred_at``, then the smallest text of (action,
source, actor type, actor id, actor label, target type, target id, target label), a missing
value after any text. The coverage counts them.

The kept events become the ``events`` raw table through a
:class:`~docsapi.audit.data.ColumnAccumulator` (a code per cell, each distinct text once)
and an array of nanoseconds for the time, one batch of a thousand events at a time: no
decoded event or per-event Python string outlives its batch, beyond the distinct values.

Examples
--------
>>> log = EventColumns()
>>> log.add([{"id": "e1", "occurredAt": "2026-01-05T10:00:00Z", "action": "space.created",
...     "source": "ui", "actor": {"type": "user", "id": "u1"},
...     "target": {"type": "space", "id": "s1"}},
...     {"id": "e2", "occurredAt": "9999-12-31T23:59:59.999Z", "action": "space.created",
...     "source": "ui", "actor": {"type": "user", "id": "u1"},
...     "target": {"type": "space", "id": "s2"}}])
>>> log.frame()["id"].tolist()
['e1']
>>> log.set_aside.summary()
"1 event set aside: 1 time out of range (e.g. event 'e2': occurredAt '9999-12-31T23:59:59.999Z')"
"""

from __future__ import annotations

import reprlib
from collections import Counter
from collections.abc import Callable
from datetime import datetime
from typing import Any

import numpy as np
import pandas as pd
from pandas.api.types import union_categoricals

from docsapi.audit.data import RAW_SCHEMAS, ColumnAccumulator
from docsapi.data.fields import AuditEventFields
from docsapi.data.shapes import Shape

__all__ = [
    "ACTOR_TYPES",
    "EARLIEST",
    "EVENT_SHAPE",
    "LATE_SLACK",
    "LOG_CONTENT_STAGE",
    "EventColumns",
    "SetAside",
    "conflicting_duplicates",
    "joined",
    "late_events",
]

#: The columns of the ``events`` raw table, as decoded from each event.
_COLUMNS: tuple[str, ...] = tuple(RAW_SCHEMAS["events"])
#: The msgspec shape a page of the log is decoded into (these columns' JSON paths only).
EVENT_SHAPE = Shape(AuditEventFields, _COLUMNS)
#: The kinds of actor the API describes (``AuditEventActor.type``).
ACTOR_TYPES = frozenset({"user", "integration", "installation", "system", "support"})
#: No audit log holds an event before this moment.
EARLIEST = pd.Timestamp("1970-01-01", tz="UTC")
#: How far after the audit's time (the server's clock) an event may be dated.
LATE_SLACK = pd.Timedelta(days=1)
#: The stage of the row of ``errors`` that counts the events set aside (not a failed read:
#: the log was read, and the rest of it is used).
LOG_CONTENT_STAGE = "audit log events"

#: Required text columns, in the order they are checked, with what an event lacks without.
_REQUIRED = (
    ("id", "an id"),
    ("action", "an action"),
    ("source", "a source"),
    ("actor_type", "an actor"),
    ("actor_id", "an actor"),
    ("target_type", "a target"),
    ("target_id", "a target"),
)
_OPTIONAL = ("actor_label", "target_label")
#: The JSON names of the columns, for the examples.
_JSON = {
    "id": "id",
    "occurred_at": "occurredAt",
    "action": "action",
    "source": "source",
    "actor_type": "actor.type",
    "actor_id": "actor.id",
    "actor_label": "actor.label",
    "target_type": "target.type",
    "target_id": "target.id",
    "target_label": "target.label",
}
_NAT = np.iinfo(np.int64).min
_EARLIEST_NS = EARLIEST.value
_SHOWN = 60  # characters of a value shown in an example


#: Reprs of bounded size and cost, whatever a value holds (a string of megabytes, a list
#: nested a thousand deep).
_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxstring, _REPR.maxother, _REPR.maxlong = 2, _SHOWN, _SHOWN, _SHOWN


def _shown(value: object) -> str:
    r"""A value as an example shows it: its repr (control, bidi and NUL escaped), cut short.

    Examples
    --------
    >>> print(_shown("\x1b[31mred\u202e"))
    '\x1b[31mred\u202e'
    >>> len(_shown("x" * 1_000_000)) <= 60
    True
    """
    text = _REPR.repr(value)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"


class SetAside:
    """Events not kept, counted by reason, with the first example of each reason."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.examples: dict[str, str] = {}

    def add(self, reason: str, example: str | Callable[[], str]) -> None:
        """Count one event set aside for ``reason``; ``example`` (or what it returns, called
        only for the first event of a reason) shows it."""
        self.counts[reason] += 1
        if reason not in self.examples:
            self.examples[reason] = example() if callable(example) else example

    def merge(self, other: SetAside) -> None:
        """Add ``other``'s counts (its examples where this one has none)."""
        self.counts.update(other.counts)
        for reason, example in other.examples.items():
            self.examples.setdefault(reason, example)

    def __len__(self) -> int:
        return sum(self.counts.values())

    def summary(self) -> str | None:
        """The events set aside in words (None when none): the count by reason, most
        frequent first, and the example of the most frequent."""
        total = len(self)
        if not total:
            return None
        ranked = sorted(self.counts.items(), key=lambda pair: (-pair[1], pair[0]))
        reasons = ", ".join(f"{count} {reason}" for reason, count in ranked)
        example = self.examples[ranked[0][0]]
        return f"{total} event{'' if total == 1 else 's'} set aside: {reasons} (e.g. {example})"


def _reason(columns: dict[str, list], row: int) -> tuple[str, str] | None:
    """The first rule event ``row`` breaks (the reason, and the column to show), or None."""
    for column, noun in _REQUIRED:
        value = columns[column][row]
        if value is None or value == "":
            return f"without {noun}", column
        if type(value) is not str:
            return f"with {noun} that is not text", column
    if columns["actor_type"][row] not in ACTOR_TYPES:
        return "with an unknown actor type", "actor_type"
    for column in _OPTIONAL:
        value = columns[column][row]
        if value is not None and type(value) is not str:
            return "with a label that is not text", column
    return None


def _example(columns: dict[str, list], row: int, column: str) -> str:
    """One event set aside, as the coverage shows it: its id, and the value it broke."""
    event = columns["id"][row]
    named = f"event {_shown(event)}" if type(event) is str and event else "an event"
    value = columns[column][row]
    shown = "missing" if value is None or value == "" else _shown(value)
    return f"{named}: {_JSON[column]} {shown}"


def _times(values: list) -> tuple[np.ndarray, list[str | None]]:
    """Nanoseconds since the epoch of each time (NaT where none), and why a time is not
    usable (None where it is)."""
    texts = [value if type(value) is str else None for value in values]
    parsed = pd.to_datetime(
        pd.Series(texts, dtype=object), utc=True, format="ISO8601", errors="coerce"
    )
    nanoseconds = parsed.to_numpy(dtype="datetime64[ns]").view(np.int64).copy()
    problems: list[str | None] = [None] * len(values)
    for row in np.flatnonzero(nanoseconds == _NAT).tolist():
        nanoseconds[row] = _NAT
        problems[row] = _time_problem(values[row])
    early = np.flatnonzero((nanoseconds != _NAT) & (nanoseconds < _EARLIEST_NS))
    for row in early.tolist():
        nanoseconds[row] = _NAT
        problems[row] = "time out of range"
    return nanoseconds, problems


def _time_problem(value: object) -> str:
    """Why a time pandas could not read is not usable: missing, not text, out of range (a
    valid ISO 8601 time pandas cannot hold, such as the year 9999), or unreadable."""
    if value is None or value == "":
        return "without a time"
    if type(value) is not str:
        return "with a time that is not text"
    try:
        datetime.fromisoformat(value)
    except ValueError:
        return "time unreadable"
    return "time out of range"


class EventColumns:
    """Pages of the log (items of :data:`EVENT_SHAPE`, or plain JSON) as coded columns,
    the events that cannot be trusted set aside (see the module docstring)."""

    def __init__(self) -> None:
        self._columns = ColumnAccumulator("events")
        self.set_aside = SetAside()

    def __len__(self) -> int:
        return len(self._columns)

    def add(self, items: list) -> None:
        """Check and code one batch of events (a few pages)."""
        columns = EVENT_SHAPE.columns(items)
        nanoseconds, time_problems = _times(columns["occurred_at"])
        keep = np.ones(len(items), dtype=bool)
        for row in range(len(items)):
            found = _reason(columns, row)
            problem = time_problems[row]
            if found is None and problem is not None:
                found = problem, "occurred_at"
            if found is not None:
                keep[row] = False
                reason, column = found
                self.set_aside.add(reason, lambda: _example(columns, row, column))  # noqa: B023 (called at once)
        rows = np.flatnonzero(keep)
        kept = {
            name: [values[row] for row in rows.tolist()]
            for name, values in columns.items()
            if name != "occurred_at"
        }
        self._columns.append(occurred_at=nanoseconds[rows].tolist(), **kept)

    def frame(self) -> pd.DataFrame:
        """The events kept, as the ``events`` raw table (text as categoricals); the
        columns are handed over (this object is empty afterwards)."""
        return self._columns.frame()


def joined(parts: list[pd.DataFrame]) -> pd.DataFrame:
    """Frames of :meth:`EventColumns.frame` one after another, their text still codes (the
    categories united), every row kept (copies of one id too).

    Examples
    --------
    >>> a, b = EventColumns(), EventColumns()
    >>> joined([a.frame(), b.frame()]).columns.tolist() == list(RAW_SCHEMAS["events"])
    True
    """
    if len(parts) == 1:
        return parts[0]
    if not parts:
        return EventColumns().frame()
    columns: dict[str, Any] = {}
    for name in _COLUMNS:
        pieces = [part[name] for part in parts]
        if all(isinstance(piece.dtype, pd.CategoricalDtype) for piece in pieces):
            columns[name] = union_categoricals(pieces, ignore_order=True)
        else:  # Arrow text and times: their chunks one after another
            columns[name] = pd.concat(pieces, ignore_index=True).array
    return pd.DataFrame(columns, copy=False)


def late_events(events: pd.DataFrame, latest: pd.Timestamp, set_aside: SetAside) -> pd.DataFrame:
    """``events`` without those dated after ``latest`` (each counted in ``set_aside`` as a
    time out of range): the log cannot hold an event from after the audit."""
    late = (events["occurred_at"] > latest).to_numpy(dtype=bool)
    if not late.any():
        return events
    for event, moment in zip(
        events.loc[late, "id"].astype(object), events.loc[late, "occurred_at"], strict=True
    ):
        set_aside.add(
            "time out of range", f"event {_shown(event)}: occurredAt {moment.isoformat()!r}"
        )
    return events[~late].reset_index(drop=True)


def _content_key(row: tuple) -> tuple:
    """The order in which copies of one event are chosen: latest time first, then the
    smallest text of each other column (a missing value after any text)."""
    moment, *texts = row
    time_key = -moment.value if isinstance(moment, pd.Timestamp) and not pd.isna(moment) else 0
    return (time_key, *((value is None, "" if value is None else str(value)) for value in texts))


def conflicting_duplicates(events: pd.DataFrame, set_aside: SetAside) -> pd.DataFrame:
    """``events`` with each id once: identical copies are one event; of copies that differ,
    one is kept, chosen by content (see the module docstring), and each other is set aside
    (counted in ``set_aside``: "with the id of another event").

    Examples
    --------
    >>> moment = pd.Timestamp("2026-01-05", tz="UTC")
    >>> log = pd.DataFrame({"id": ["e1", "e1", "e1"], "occurred_at": [moment] * 3,
    ...     "action": ["a.removed", "a.added", "a.added"]})
    >>> aside = SetAside()
    >>> conflicting_duplicates(log, aside)["action"].tolist()
    ['a.added']
    >>> aside.summary()
    "1 event set aside: 1 with the id of another event (e.g. event 'e1': 2 versions)"
    """
    repeated = events["id"].duplicated(keep=False).to_numpy(dtype=bool)
    if not repeated.any():
        return events
    others = [c for c in _COLUMNS if c in events.columns and c not in ("id", "occurred_at")]
    positions = np.flatnonzero(repeated)
    copies = events.iloc[positions]
    chosen: dict[Any, tuple[tuple, int]] = {}
    versions: dict[Any, set[tuple]] = {}
    rows = zip(
        positions.tolist(),
        copies["id"].astype(object),
        copies["occurred_at"],
        *(copies[c].astype(object) for c in others),
        strict=True,
    )
    for position, event, moment, *texts in rows:
        key = _content_key((moment, *(None if pd.isna(value) else value for value in texts)))
        versions.setdefault(event, set()).add(key)
        if event not in chosen or key < chosen[event][0]:
            chosen[event] = (key, position)
    for event in sorted(versions, key=str):  # examples in the order of the ids
        for _ in range(len(versions[event]) - 1):
            set_aside.add(
                "with the id of another event",
                f"event {_shown(event)}: {len(versions[event])} versions",
            )
    keep = ~repeated
    keep[[position for _, position in chosen.values()]] = True
    return events[keep].reset_index(drop=True)
