"""Which part of the audit log an audit reads, and what it keeps from an earlier audit.

A year of a large organization's log is hundreds of pages: the first audit pays for it, and
an audit given an earlier one (``previous=``, or the last snapshot of ``--save``) reads only
what the earlier one could not have seen, then joins the two:

- the log from the newest event the earlier audit holds (or, when it holds none, from a
  little before its time), so an event at that edge is read twice and kept once;
- no create action before the window: the earlier audit's creators already say who created
  what before it, and the new window's create events add the rest.

An earlier audit whose log or creators could not be read lends nothing: the log is then
read as without it. The result is the same tables as one read of the whole window (see
``tests/test_log_window.py``).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pandas as pd

from docsapi.audit.coverage import find_gaps
from docsapi.audit.data import AuditData

__all__ = ["OVERLAP", "known_creators", "log_start_after", "with_earlier_events"]

#: How far before the earlier audit's time its log is read again when it holds no event
#: (the client's and the server's clocks differ a little; an event read twice is kept once).
OVERLAP = timedelta(minutes=10)


def _log_read(data: AuditData) -> bool:
    """Whether ``data`` holds a log it read (asked for, and not lost)."""
    return data.events_since is not None and "audit_log" not in find_gaps(data).lost


def log_start_after(earlier: AuditData) -> pd.Timestamp | None:
    """Where the log of an audit following ``earlier`` starts: at the newest event it holds,
    at most :data:`OVERLAP` before its time; None when ``earlier`` read no log (the whole
    window is read again).

    Examples
    --------
    >>> data = AuditData("o", generated_at=pd.Timestamp("2026-03-02T12:00Z"),
    ...     events_since=pd.Timestamp("2025-03-02T00:00Z"))
    >>> str(log_start_after(data))
    '2026-03-02 11:50:00+00:00'
    """
    if not _log_read(earlier):
        return None
    start = pd.Timestamp(earlier.generated_at) - OVERLAP
    newest = earlier.events["occurred_at"].max() if len(earlier.events) else pd.NaT
    return start if pd.isna(newest) else min(pd.Timestamp(newest), start)


def known_creators(earlier: AuditData | None, since: pd.Timestamp | None) -> pd.DataFrame | None:
    """The creators ``earlier`` read, when they reach up to ``since`` (where the new log
    window starts): the create actions before ``since`` need no read. None: read them."""
    if earlier is None or since is None or "creators" in earlier.not_read:
        return None
    end = log_start_after(earlier)
    return None if end is None or since > end else earlier.creators


def with_earlier_events(data: AuditData, earlier: AuditData) -> AuditData:
    """``data`` with the events ``earlier`` read before its window, when both logs were read
    and they meet (the new window starts where ``earlier``'s events end, or before): the
    events of both, each once, newest first, and the window from ``earlier``'s start."""
    end = log_start_after(earlier)
    if (
        not _log_read(data)
        or end is None
        or data.events_since is None
        or earlier.events_since is None
        or data.events_since > end
        or earlier.events_since >= data.events_since
    ):
        return data
    # newest first: the new window's events are newer than the earlier ones it did not re-read
    events = pd.concat([data.events, earlier.events], ignore_index=True)
    events = events.drop_duplicates("id", ignore_index=True)
    return replace(data, events=events, events_since=earlier.events_since)
