"""Injected faults, latency and rate limiting.

Faults are queued rules: the next request that matches a rule's methods and path suffers the
fault, until the rule's count is used up. Fault names arrive as strings (Python calls and the
``/_sandbox/faults`` control) and are turned into :class:`Fault` members here, at the edge.
"""

from __future__ import annotations

import fnmatch
import math
import re
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import NamedTuple

#: Longest latency, stall or ``Retry-After`` a control accepts, in seconds.
MAX_LATENCY = 60.0
MAX_STALL = 600.0
MAX_RETRY_AFTER = 86400.0
MAX_RATE_PERIOD = 86400.0
_RETRY_AFTER = re.compile(r"retry-after:(\d{1,9}(?:\.\d{1,6})?)")
_METHOD = re.compile(r"[A-Za-z]{1,20}")


class Fault(StrEnum):
    """The faults a sandbox can inject; the value is the name used on the wire.

    ``RETRY_AFTER`` is written ``"retry-after:<seconds>"``: a 429 with that ``Retry-After``.
    """

    SERVICE_UNAVAILABLE = "503"
    SERVER_ERROR = "500"
    TOO_MANY_REQUESTS = "429"
    RETRY_AFTER = "retry-after"
    DROP = "drop"
    RESET_BEFORE_READ = "reset-before-read"
    TRUNCATE = "truncate"
    STALL = "stall"
    HTML = "html"


class Planned(NamedTuple):
    """A fault chosen for one request: the fault and, for ``RETRY_AFTER``, its seconds."""

    fault: Fault
    retry_after: float | None = None


def parse_fault(name: object) -> Planned:
    """Turn a fault name into a :class:`Planned` fault.

    Raises
    ------
    ValueError
        For anything but a :class:`Fault` value or ``"retry-after:<seconds>"`` (at most one
        day), listing the known names.

    Examples
    --------
    >>> parse_fault("drop")
    Planned(fault=<Fault.DROP: 'drop'>, retry_after=None)
    >>> parse_fault("retry-after:3").retry_after
    3.0
    """
    if isinstance(name, str):
        match = _RETRY_AFTER.fullmatch(name)
        if match and float(match.group(1)) <= MAX_RETRY_AFTER:
            return Planned(Fault.RETRY_AFTER, float(match.group(1)))
        if name != Fault.RETRY_AFTER and name in Fault._value2member_map_:
            return Planned(Fault(name))
    names = ", ".join(f.value for f in Fault if f is not Fault.RETRY_AFTER)
    raise ValueError(
        f"unknown fault {name!r}; use one of {names} or 'retry-after:<seconds>' "
        f"(at most {MAX_RETRY_AFTER:g} seconds)"
    )


def check_seconds(value: object, name: str, maximum: float, *, positive: bool = False) -> float:
    """A finite number of seconds from 0 (or above 0) to ``maximum``.

    Raises
    ------
    ValueError
        Naming ``name`` and the accepted range.
    """
    low = "above 0" if positive else "from 0"
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or value < 0
        or (positive and value == 0)
        or value > maximum
    ):
        raise ValueError(f"{name} must be a number of seconds {low} to {maximum:g}, got {value!r}")
    return float(value)


def _check_methods(methods: Iterable[str] | str | None) -> frozenset[str] | None:
    if methods is None:
        return None
    if isinstance(methods, str):
        methods = [methods]
    if not isinstance(methods, list | tuple | set | frozenset) or not all(
        isinstance(m, str) and _METHOD.fullmatch(m) for m in methods
    ):
        raise ValueError(
            f"methods must be a list of HTTP methods such as ['POST'], got {methods!r}"
        )
    return frozenset(m.upper() for m in methods)


@dataclass
class _Rule:
    planned: Planned
    remaining: int
    methods: frozenset[str] | None
    path: str | None

    def matches(self, method: str, path: str) -> bool:
        if self.methods is not None and method.upper() not in self.methods:
            return False
        if self.path is None:
            return True
        relative = path[3:] if path.startswith("/v1/") else path
        for candidate in (path, relative):
            if any(ch in self.path for ch in "*?[") and fnmatch.fnmatchcase(candidate, self.path):
                return True
            if candidate.startswith(self.path):
                return True
        return False


class Faults:
    """Queued faults, latency and the rate limiter of one sandbox."""

    def __init__(self, stall_seconds: float = 5.0) -> None:
        self._lock = threading.Lock()
        self._rules: list[_Rule] = []
        self.latency = 0.0
        self.stall_seconds = check_seconds(stall_seconds, "stall_seconds", MAX_STALL)
        self.stop_event = threading.Event()
        self._limit: int | None = None
        self._period = 60.0
        self._window_start = 0.0
        self._window_count = 0

    def reset(self) -> None:
        """Clear faults, latency and the rate limit."""
        with self._lock:
            self._rules.clear()
            self.latency = 0.0
            self._limit = None
            self._window_count = 0

    def inject(
        self,
        fault: Fault | str,
        count: int = 1,
        *,
        methods: Iterable[str] | str | None = None,
        path: str | None = None,
    ) -> None:
        """Queue ``fault`` for the next ``count`` matching requests.

        Raises
        ------
        ValueError
            For an unknown fault, a count that is not a positive integer, methods that are
            not HTTP method names, or a path that is not a string.
        """
        planned = parse_fault(fault)
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            raise ValueError(f"count must be a positive integer, got {count!r}")
        chosen = _check_methods(methods)
        if path is not None and (not isinstance(path, str) or len(path) > 2048):
            raise ValueError("path must be a string such as '/spaces/' or '/v1/spaces/*/content'")
        with self._lock:
            self._rules.append(_Rule(planned, count, chosen, path))

    def pending(self) -> int:
        """How many faulty requests are still queued."""
        with self._lock:
            return sum(rule.remaining for rule in self._rules)

    def take(self, method: str, path: str) -> Planned | None:
        """Consume and return the fault for this request, if a rule matches."""
        with self._lock:
            for rule in self._rules:
                if not rule.matches(method, path):
                    continue
                rule.remaining -= 1
                if rule.remaining == 0:
                    self._rules.remove(rule)
                return rule.planned
        return None

    # -- rate limit -----------------------------------------------------------------------
    def set_rate_limit(self, limit: int | None, per_seconds: float = 60.0) -> None:
        """Allow ``limit`` requests per ``per_seconds`` window; None turns limiting off.

        Raises
        ------
        ValueError
            For a limit that is not a positive integer (or None), or a window that is not a
            number of seconds above 0 and at most one day.
        """
        if limit is not None and (
            not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= 10**9
        ):
            raise ValueError(
                f"the rate limit must be a positive integer (at most 10**9) or None, got {limit!r}"
            )
        period = check_seconds(per_seconds, "per_seconds", MAX_RATE_PERIOD, positive=True)
        with self._lock:
            self._limit = limit
            self._period = period
            self._window_start = time.time()
            self._window_count = 0

    def count_request(self) -> tuple[dict[str, str], float | None]:
        """Count one request against the rate limit.

        Returns
        -------
        (headers, retry_after)
            ``X-RateLimit-*`` headers (empty when limiting is off) and, when the limit is
            exceeded, the seconds until the window resets (else None).
        """
        with self._lock:
            if self._limit is None:
                return {}, None
            now = time.time()
            if now >= self._window_start + self._period:
                # Fixed windows aligned to multiples of the period (whole seconds for a
                # period of one), as the real API's X-RateLimit-Reset moments are.
                self._window_start = now - now % self._period
                self._window_count = 0
            self._window_count += 1
            reset_at = self._window_start + self._period
            headers = {
                "X-RateLimit-Limit": str(self._limit),
                "X-RateLimit-Remaining": str(max(0, self._limit - self._window_count)),
                "X-RateLimit-Reset": str(math.ceil(reset_at)),
            }
            if self._window_count > self._limit:
                return headers, max(1.0, math.ceil(reset_at - now))
            return headers, None
