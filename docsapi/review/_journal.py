"""The journal and the lock of ``docsapi review apply``: every call on disk before the next.

Both are keyed by the plan's content (``_plan_seal.plan_key``: the SHA-256 of its calls, every
column, whatever the file's name, folder or format) and kept in the user's state folder
(``plans/<key>.journal.jsonl`` and ``plans/<key>.lock``; see
:mod:`docsapi.credentials.user_folders`, ``DOCSAPI_STATE_DIR`` overrides it): a copy, a
symlink or a renamed file of a plan is the same plan, applied once.

The journal gets one JSON line per event, written, flushed and ``fsync``'d before the run
goes on: ``start`` (who applies, how it was approved), ``sending`` just before a call is
sent, ``done``, ``failed`` or ``stale`` (not sent: its target changed since the review) as
soon as its answer is in, and ``complete`` when every call of the plan is done. A run
killed at any point (SIGKILL, a power cut) leaves every confirmed result on disk; the next
run skips the calls ``done`` and sends the others. A plan whose journal says ``complete``
is refused unless asked again (``--again``); its calls' preconditions make a replay
harmless in any case.

A call ``sending`` without a result was *in doubt* when the run stopped: it may or may
not have reached the server. Every call a review plan makes is idempotent (removing a
permission that is gone answers 204 "already absent"; setting a role sets it again), so
the next run sends it again and says so: at most once more.

The lock (``flock``'d exclusively and without waiting) makes a second ``apply`` of the same
plan, through any file, stop before sending anything, naming the process that holds it. The
operating system releases it when that process ends, however it ends.
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

from docsapi.core.file_lock import lock_file
from docsapi.core.json_files import MAX_BYTES, JSONFileError, parse_json
from docsapi.credentials.user_folders import state_folder
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


def _plans_folder() -> Path:
    folder = state_folder(create=True) / "plans"
    folder.mkdir(mode=0o700, exist_ok=True)
    return folder


def journal_path(key: str) -> Path:
    """The journal of the plan of content digest ``key`` (in the user's state folder)."""
    return _plans_folder() / f"{key}.journal.jsonl"


def lock_path(key: str) -> Path:
    """The lock of the plan of content digest ``key`` (in the user's state folder)."""
    return _plans_folder() / f"{key}.lock"


def _now() -> str:
    return pd.Timestamp.now(tz="UTC").isoformat()


class PlanLock:
    """An exclusive, non-blocking lock on a plan, held while it is applied.

    Parameters
    ----------
    key : str
        The plan's content digest (:func:`~docsapi.review._plan_seal.plan_key`).

    Raises
    ------
    PlanBusyError
        On entering, when another process holds the lock (the message names its pid).
    """

    def __init__(self, key: str) -> None:
        self.path = lock_path(key)
        self._file: IO[str] | None = None

    def __repr__(self) -> str:
        return f"PlanLock({str(self.path)!r}, held={self._file is not None})"

    def __enter__(self) -> PlanLock:
        handle = self.path.open("a+", encoding="utf-8")
        try:
            lock_file(handle, wait=False)
        except OSError:
            handle.seek(0)
            holder = handle.read().strip() or "a process that did not say"
            handle.close()
            raise PlanBusyError(
                f"the plan is being applied by another docsapi review apply ({holder}; the "
                "same calls, whatever the file is called; lock "
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


@dataclass
class JournalState:
    """What a journal says: each call's last event, and the results it records."""

    last: dict[str, str] = field(default_factory=dict)
    results: list[dict[str, Any]] = field(default_factory=list)
    complete: str | None = None  # when a run recorded every call done

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
    JSONFileError
        When it is larger than the limit for a JSON file, or a line other than the last is
        not a journal event (one line naming the file).
    """
    state = JournalState()
    if not path.is_file():
        return state
    if path.stat().st_size > MAX_BYTES:
        raise JSONFileError(str(path), f"is larger than {MAX_BYTES // 2**20} MiB")
    lines = path.read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines, start=1):
        try:
            event = parse_json(line, name=f"{path} line {number}")
            kind, call = event["event"], event.get("call_id")
        except JSONFileError:
            if number == len(lines):
                break  # written halfway when the run was killed
            raise
        except (ValueError, KeyError, TypeError):
            if number == len(lines):
                break  # written halfway when the run was killed
            raise JSONFileError(str(path), f"line {number} is not a journal event") from None
        if kind == "complete":
            state.complete = str(event.get("at"))
        elif kind == "start":
            state.complete = None
        elif kind in ("sending", "done", "failed", "stale") and isinstance(call, str):
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
