"""The sandbox clock: real time plus an offset that tests move forward."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta


class Clock:
    """Wall-clock time shifted by a controllable offset.

    Examples
    --------
    >>> clock = Clock()
    >>> before = clock.now()
    >>> clock.advance(timedelta(days=8))
    >>> (clock.now() - before).days
    8
    """

    def __init__(self) -> None:
        self._offset = timedelta(0)
        self._lock = threading.Lock()

    def now(self) -> datetime:
        """Return the current sandbox time (tz-aware UTC)."""
        with self._lock:
            return datetime.now(UTC) + self._offset

    def advance(self, delta: timedelta) -> None:
        """Move the clock forward by ``delta``.

        Raises
        ------
        ValueError
            If ``delta`` is negative: the sandbox clock never runs backwards.
        """
        if delta < timedelta(0):
            raise ValueError("the sandbox clock only moves forward; pass a positive duration")
        with self._lock:
            self._offset += delta

    def reset(self) -> None:
        """Remove any offset, back to real time."""
        with self._lock:
            self._offset = timedelta(0)

    @property
    def offset(self) -> timedelta:
        """How far the clock has been moved forward."""
        with self._lock:
            return self._offset


def iso(moment: datetime) -> str:
    """Format a UTC datetime the way the API does (``2024-05-01T09:30:00.000Z``)."""
    return (
        moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
    )
