"""Keep a client under the rate limit a server announces in ``X-RateLimit-*`` headers.

Header values come from the network and are not trusted: anything that is not a sane
number or date is ignored, and waits are clamped, so an odd header never fails a call.
"""

from __future__ import annotations

import math
import re
import threading
from collections.abc import Mapping
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

from docsapi.core.clock import SYSTEM_CLOCK, Clock
from docsapi.errors import RateLimitError

__all__ = [
    "MAX_WAIT",
    "RateGate",
    "as_datetime",
    "rate_limit_reset",
    "rate_limit_wait",
    "remaining_budget",
    "retry_after",
]

#: The longest wait a header may announce; anything later is treated as this far away.
MAX_WAIT = 365 * 86_400.0
#: The largest budget taken from ``X-RateLimit-Remaining``.
_MAX_BUDGET = 1_000_000_000
_NUMBER = re.compile(r"\s*[0-9]{1,20}(?:\.[0-9]{1,9})?\s*")
_INTEGER = re.compile(r"\s*-?[0-9]{1,20}\s*")


def _number(raw: str | None) -> float | None:
    """A non-negative finite decimal such as ``"30"`` or ``"1.5"``; None for anything else."""
    if raw is None or not _NUMBER.fullmatch(raw):
        return None
    value = float(raw)
    return value if math.isfinite(value) else None


def rate_limit_reset(headers: Mapping[str, str], now: float) -> float | None:
    """When the current window resets, as a Unix time, from ``X-RateLimit-Reset``.

    Accepts epoch seconds, epoch milliseconds, or seconds from now (numbers below 1e9);
    a time more than :data:`MAX_WAIT` away is clamped to it, garbage is ignored.

    Parameters
    ----------
    headers : Mapping[str, str]
        The answer's headers.
    now : float
        The current Unix time.

    Examples
    --------
    >>> rate_limit_reset({"X-RateLimit-Reset": "1700000000"}, now=1699999990.0)
    1700000000.0
    >>> rate_limit_reset({"X-RateLimit-Reset": "inf"}, now=0.0) is None
    True
    """
    value = _number(headers.get("X-RateLimit-Reset"))
    if value is None:
        return None
    if value > 1e12:
        value /= 1000.0
    elif value < 1e9:
        value += now
    return min(value, now + MAX_WAIT)


def retry_after(headers: Mapping[str, str], now: float) -> float | None:
    """Seconds ``Retry-After`` asks to wait: a number of seconds or an HTTP date.

    Examples
    --------
    >>> retry_after({"Retry-After": "Wed, 21 Oct 2015 07:28:10 GMT"}, now=1445412480.0)
    10.0
    >>> retry_after({"Retry-After": "-5"}, now=0.0) is None
    True
    """
    raw = headers.get("Retry-After")
    if raw is None:
        return None
    seconds = _number(raw)
    if seconds is None:
        try:
            when = parsedate_to_datetime(raw)
        except (TypeError, ValueError, IndexError, OverflowError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        seconds = when.timestamp() - now
    return min(max(0.0, seconds), MAX_WAIT)


def rate_limit_wait(headers: Mapping[str, str], now: float) -> float | None:
    """Seconds a 429 asks to wait: ``Retry-After``, else ``X-RateLimit-Reset`` minus now.

    Examples
    --------
    >>> rate_limit_wait({"Retry-After": "2", "X-RateLimit-Reset": "60"}, now=0.0)
    2.0
    >>> rate_limit_wait({"X-RateLimit-Reset": "99999999999999999999"}, now=0.0)
    31536000.0
    """
    wait = retry_after(headers, now)
    if wait is not None:
        return wait
    reset = rate_limit_reset(headers, now)
    return None if reset is None else max(0.0, reset - now)


def remaining_budget(headers: Mapping[str, str]) -> int | None:
    """``X-RateLimit-Remaining`` as a count: negatives read as 0, huge values clamped.

    Examples
    --------
    >>> remaining_budget({"X-RateLimit-Remaining": "-3"}), remaining_budget({})
    (0, None)
    >>> remaining_budget({"X-RateLimit-Remaining": "inf"}) is None
    True
    """
    raw = headers.get("X-RateLimit-Remaining")
    if raw is None or not _INTEGER.fullmatch(raw):
        return None
    return min(max(0, int(raw)), _MAX_BUDGET)


def as_datetime(timestamp: float) -> datetime:
    """A Unix time as an aware UTC datetime (within the range :data:`MAX_WAIT` allows)."""
    return datetime.fromtimestamp(timestamp, tz=UTC)


class RateGate:
    """A permit counter shared by every thread using one transport.

    Until the first answer says whether the server limits the rate, one request at a time
    goes out. Once a limit is known, each request takes a permit from the remaining
    budget; when none is left, callers sleep until the window resets. After a reset a
    single request probes the new window before the others follow, so a pool of threads
    never sends more than the server allows.

    Parameters
    ----------
    clock : Clock
        Where time is read and waited; a fake clock makes waits instant in tests.
    """

    def __init__(self, clock: Clock = SYSTEM_CLOCK) -> None:
        self._clock = clock
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
        started = self._clock.monotonic()
        while True:
            with self._cond:
                wait = self._permit_or_wait(max_wait)
                if wait is None:
                    self._in_flight += 1
                    return self._clock.monotonic() - started
            self._clock.sleep(wait)

    def _permit_or_wait(self, max_wait: float) -> float | None:
        """Under the lock: None when a permit is taken, else the seconds to sleep first."""
        while True:
            if not self._known:
                if self._in_flight == 0:
                    return None
                self._cond.wait()
                continue
            if not self._limited:
                return None
            now = self._clock.time()
            if self._reset is not None and now >= self._reset:
                self._known = False
                continue
            if self._remaining > 0 or self._reset is None:
                self._remaining -= 1
                return None
            wait = self._reset - now
            if wait > max_wait:
                reset_at = as_datetime(self._reset)
                raise RateLimitError(
                    429,
                    f"The rate limit is used up until {reset_at:%Y-%m-%d %H:%M:%S} UTC "
                    f"({wait:.0f} s), longer than max_rate_limit_wait={max_wait:g} s. Wait, "
                    "or raise max_rate_limit_wait.",
                    reset_at=reset_at,
                )
            return wait

    def release(self) -> None:
        """Give back the in-flight slot of a finished attempt."""
        with self._cond:
            self._in_flight -= 1
            self._cond.notify_all()

    def update(self, headers: Mapping[str, str]) -> None:
        """Learn the budget from an answer's ``X-RateLimit-*`` headers."""
        remaining = remaining_budget(headers)
        reset = rate_limit_reset(headers, self._clock.time())
        with self._cond:
            if remaining is None:
                self._known, self._limited = True, False
            else:
                budget = remaining - self._in_flight
                same_window = self._known and self._limited and reset == self._reset
                self._remaining = min(self._remaining, budget) if same_window else budget
                self._reset = reset
                self._known, self._limited = True, True
            self._cond.notify_all()
