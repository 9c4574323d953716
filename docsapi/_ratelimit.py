"""Keep a client under the rate limit a server announces in ``X-RateLimit-*`` headers."""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from datetime import UTC, datetime

from docsapi.errors import RateLimitError

__all__ = ["RateGate", "rate_limit_reset"]


def rate_limit_reset(headers: Mapping[str, str]) -> datetime | None:
    """When the current rate-limit window resets, from ``X-RateLimit-Reset``.

    Accepts epoch seconds, epoch milliseconds, or seconds from now (small numbers).

    Examples
    --------
    >>> rate_limit_reset({"X-RateLimit-Reset": "1700000000"}).year
    2023
    """
    raw = headers.get("X-RateLimit-Reset")
    if raw is None:
        return None
    try:
        value = float(raw)
    except ValueError:
        return None
    if value > 1e12:
        value /= 1000.0
    elif value < 1e9:
        value += time.time()
    return datetime.fromtimestamp(value, tz=UTC)


def _int_header(headers: Mapping[str, str], name: str) -> int | None:
    try:
        return int(float(headers[name]))
    except (KeyError, ValueError):
        return None


class RateGate:
    """A permit counter shared by every thread using one transport.

    Until the first answer says whether the server limits the rate, one request at a time
    goes out. Once a limit is known, each request takes a permit from the remaining
    budget; when none is left, callers sleep until the window resets. After a reset a
    single request probes the new window before the others follow, so a pool of threads
    never sends more than the server allows.
    """

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._known = False
        self._limited = False
        self._remaining = 0
        self._reset: float | None = None
        self._in_flight = 0

    def acquire(self, max_wait: float) -> float:
        """Wait for a permit; return the seconds spent waiting.

        Raises
        ------
        RateLimitError
            The budget is spent and the window resets later than ``max_wait`` seconds.
        """
        started = time.monotonic()
        with self._cond:
            while True:
                if not self._known:
                    if self._in_flight == 0:
                        break
                    self._cond.wait()
                    continue
                if not self._limited:
                    break
                now = time.time()
                if self._reset is not None and now >= self._reset:
                    self._known = False
                    continue
                if self._remaining > 0 or self._reset is None:
                    self._remaining -= 1
                    break
                wait = self._reset - now
                if wait > max_wait:
                    reset_at = datetime.fromtimestamp(self._reset, tz=UTC)
                    raise RateLimitError(
                        429,
                        f"The rate limit is used up until {reset_at:%H:%M:%S} UTC ({wait:.0f} s), "
                        f"longer than max_rate_limit_wait={max_wait:g} s. Wait, or raise "
                        "max_rate_limit_wait.",
                        reset_at=reset_at,
                    )
                self._cond.wait(timeout=wait + 0.01)
            self._in_flight += 1
        return time.monotonic() - started

    def release(self) -> None:
        """Give back the in-flight slot of a finished attempt."""
        with self._cond:
            self._in_flight -= 1
            self._cond.notify_all()

    def update(self, headers: Mapping[str, str]) -> None:
        """Learn the budget from an answer's ``X-RateLimit-*`` headers."""
        remaining = _int_header(headers, "X-RateLimit-Remaining")
        reset = rate_limit_reset(headers)
        with self._cond:
            if remaining is None:
                self._known, self._limited = True, False
            else:
                reset_ts = reset.timestamp() if reset is not None else None
                budget = remaining - self._in_flight
                same_window = self._known and self._limited and reset_ts == self._reset
                self._remaining = min(self._remaining, budget) if same_window else budget
                self._reset = reset_ts
                self._known, self._limited = True, True
            self._cond.notify_all()
