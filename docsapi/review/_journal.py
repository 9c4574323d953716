"""The journal and the lock of ``docsapi review apply``: every call on disk before the next.

The journal (``<plan>.journal.jsonl`` beside the plan) gets one JSON line per event, written,
flushed and ``fsync``'d before the run goes on: ``start`` (who applies, the plan's digest,
how it was approved), ``sending`` just before a call is sent, ``done`` or ``failed`` as
soon as its answer is in. A run killed at any point (SIGKILL, a power cut) leaves every
confirmed result on disk; the next run skips the calls ``done`` and sends the others.

A call ``sending`` without a result was *in doubt* when the run stopped: it may or may
not have reached the server. Every call a review plan makes is idempotent (removing a
permission that is gone answers 204 "already absent"; setting a role sets it again), so
the next run sends it again and says so: at most once more.

The lock (``<plan>.lock`` beside the plan, ``flock``'d exclusively and without waiting)
makes a second ``apply`` of the same plan stop before sending anything, naming the process
that holds it. The operating system releases it when that process ends, however it ends.
"""

from __future__ import annotations

import json
import os
import socket
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import numpy as np
import pandas as pd

from docsapi.errors import DocsAPIError

__all__ = [
    "Journal",
    "JournalState",
    "PlanBusyError",
    "PlanLock",
    "journal_path",
    "lock_path",
    "read_journal",
]


class PlanBusyError(DocsAPIError):
    """Another ``docsapi review apply`` of the same plan is running (nothing was sent)."""


def journal_path(plan_path: Path) -> Path:
    """``plan.json`` → ``plan.journal.jsonl`` (beside the plan)."""
    return plan_path.with_name(f"{plan_path.stem}.journal.jsonl")


def lock_path(plan_path: Path) -> Path:
    """``plan.json`` → ``plan.json.lock`` (beside the plan)."""
    return plan_path.with_name(f"{plan_path.name}.lock")


def _now() -> str:
    return pd.Timestamp.now(tz="UTC").isoformat()


class PlanLock:
    """An exclusive, non-blocking lock on a plan, held while it is applied.

    Parameters
    ----------
    plan_path : Path
        The plan; the lock file is ``<plan>.lock`` beside it.

    Raises
    ------
    PlanBusyError
        On entering, when another process holds the lock (the message names its pid).
    """

    def __init__(self, plan_path: Path) -> None:
        self.path = lock_path(plan_path)
        self._file: IO[str] | None = None

    def __repr__(self) -> str:
        return f"PlanLock({str(self.path)!r}, held={self._file is not None})"

    def __enter__(self) -> PlanLock:
        handle = self.path.open("a+", encoding="utf-8")
        try:
            _lock(handle)
        except OSError:
            handle.seek(0)
            holder = handle.read().strip() or "a process that did not say"
            handle.close()
            raise PlanBusyError(
                f"the plan is being applied by another docsapi review apply ({holder}; lock "
                f"{self.path}): wait until it ends, then run the command again to resume. "
                "Nothing was sent."
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"pid {os.getpid()} on {socket.gethostname()} since {_now()}\n")
        handle.flush()
        self._file = handle
        return self

    def __exit__(self, *exc: object) -> None:
        if self._file is not None:
            self._file.close()  # closing releases the lock
            self._file = None


if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def _lock(handle: IO[str]) -> None:
        handle.seek(0)
        msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)

else:
    import fcntl

    def _lock(handle: IO[str]) -> None:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)


@dataclass
class JournalState:
    """What a journal says: each call's last event, and the results it records."""

    last: dict[str, str] = field(default_factory=dict)
    results: list[dict[str, Any]] = field(default_factory=list)

    @property
    def done(self) -> set[str]:
        """The calls whose last event is ``done``."""
        return {call for call, event in self.last.items() if event == "done"}

    @property
    def in_doubt(self) -> set[str]:
        """The calls sent without a recorded answer (the run stopped while they were out)."""
        return {call for call, event in self.last.items() if event == "sending"}


def read_journal(path: Path) -> JournalState:
    """Read a journal (a missing one is empty; a last line cut short by a crash is skipped).

    Raises
    ------
    ValueError
        When a line other than the last is not a journal event.
    """
    state = JournalState()
    if not path.is_file():
        return state
    lines = path.read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines, start=1):
        try:
            event = json.loads(line)
            kind, call = event["event"], event.get("call_id")
        except (ValueError, KeyError, TypeError):
            if number == len(lines):
                break  # written halfway when the run was killed
            raise ValueError(f"{path.name} line {number} is not a journal event") from None
        if kind in ("sending", "done", "failed") and isinstance(call, str):
            state.last[call] = kind
            if kind != "sending":
                state.results.append(event["result"])
    return state


class Journal:
    """Append events to a journal, each on disk (``fsync``) before :meth:`record` returns.

    Parameters
    ----------
    path : Path
        The journal file (created when missing).
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        created = not path.exists()
        self._file = path.open("a", encoding="utf-8")
        if created:
            _sync_folder(path.parent)

    def __repr__(self) -> str:
        return f"Journal({str(self.path)!r})"

    def record(self, event: str, **details: Any) -> None:
        """Write one event line and wait until it is on disk."""
        line = json.dumps({"event": event, "at": _now(), **details}, default=_plain)
        self._file.write(line + "\n")
        self._file.flush()
        os.fsync(self._file.fileno())

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _plain(value: Any) -> Any:
    """A value of a results row as JSON: times as ISO 8601, numpy numbers as numbers."""
    if isinstance(value, pd.Timestamp):
        return value.isoformat()
    if isinstance(value, np.generic):
        return value.item()
    if value is pd.NA:
        return None
    return str(value)


def _sync_folder(folder: Path) -> None:
    """Make a new file's name durable (its folder's entry on disk)."""
    if sys.platform == "win32":  # pragma: no cover - folders cannot be opened there
        return
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
