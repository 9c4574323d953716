"""Time as a value the wire layer is given, so tests can run retries and waits on a fake clock."""

from __future__ import annotations

import time
from typing import Protocol

__all__ = ["SYSTEM_CLOCK", "Clock", "SystemClock"]


class Clock(Protocol):
    """What the wire layer needs to know about time.

    ``time`` is wall-clock seconds since the epoch (to compare with a server's reset
    times), ``monotonic`` measures durations, ``sleep`` waits.
    """

    def time(self) -> float: ...

    def monotonic(self) -> float: ...

    def sleep(self, seconds: float) -> None: ...


class SystemClock:
    """The real clock: :func:`time.time`, :func:`time.monotonic` and :func:`time.sleep`.

    Examples
    --------
    >>> SystemClock().monotonic() > 0
    True
    """

    def time(self) -> float:
        return time.time()

    def monotonic(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            time.sleep(seconds)

    def __repr__(self) -> str:
        return "SystemClock()"


#: The clock used unless a client is given another one.
SYSTEM_CLOCK = SystemClock()
