"""A clock for tests: time moves only when the code under test sleeps (or the test advances it)."""

from __future__ import annotations

import threading
import time


class FakeClock:
    """``time``, ``monotonic`` and ``sleep`` without waiting; every sleep is recorded.

    It starts at the real wall-clock time, so reset times a real server announces make sense.
    """

    def __init__(self, start: float | None = None) -> None:
        self._lock = threading.Lock()
        self._now = time.time() if start is None else start
        self._monotonic = 1_000.0
        self.sleeps: list[float] = []

    def time(self) -> float:
        with self._lock:
            return self._now

    def monotonic(self) -> float:
        with self._lock:
            return self._monotonic

    def sleep(self, seconds: float) -> None:
        with self._lock:
            self.sleeps.append(seconds)
            self.advance_locked(max(0.0, seconds))

    def advance(self, seconds: float) -> None:
        with self._lock:
            self.advance_locked(seconds)

    def advance_locked(self, seconds: float) -> None:
        self._now += seconds
        self._monotonic += seconds

    @property
    def slept(self) -> float:
        return sum(self.sleeps)
