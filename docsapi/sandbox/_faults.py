"""Injected faults, latency and rate limiting.

Faults are queued rules: the next request that matches a rule's methods and path suffers the
fault, until the rule's count is used up.
"""

from __future__ import annotations

import fnmatch
import math
import re
import socket
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass

#: Faults answered at the HTTP level or by cutting the connection.
FAULTS = ("503", "500", "429", "drop", "reset-before-read", "truncate", "stall", "html")
_RETRY_AFTER = re.compile(r"^retry-after:(\d+(?:\.\d+)?)$")
_REQUEST_LINE = re.compile(rb"^([A-Z]+) (\S+) HTTP/")


def check_fault(fault: str) -> str:
    """Return ``fault`` if it names a known fault.

    Raises
    ------
    ValueError
        For anything else, listing the known faults.

    Examples
    --------
    >>> check_fault("retry-after:3")
    'retry-after:3'
    """
    if fault in FAULTS or (isinstance(fault, str) and _RETRY_AFTER.match(fault)):
        return fault
    raise ValueError(
        f"unknown fault {fault!r}; use one of {', '.join(FAULTS)} or 'retry-after:<seconds>'"
    )


def retry_after_seconds(fault: str) -> float | None:
    """The seconds of a ``retry-after:<s>`` fault, else None."""
    match = _RETRY_AFTER.match(fault)
    return float(match.group(1)) if match else None


@dataclass
class _Rule:
    fault: str
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
        self.stall_seconds = stall_seconds
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
        fault: str,
        count: int = 1,
        *,
        methods: Iterable[str] | None = None,
        path: str | None = None,
    ) -> None:
        """Queue ``fault`` for the next ``count`` matching requests."""
        check_fault(fault)
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            raise ValueError(f"count must be a positive integer, got {count!r}")
        if isinstance(methods, str):
            methods = [methods]
        chosen = frozenset(m.upper() for m in methods) if methods is not None else None
        if path is not None and not isinstance(path, str):
            raise ValueError("path must be a string such as '/spaces/' or '/v1/spaces/*/content'")
        with self._lock:
            self._rules.append(_Rule(fault, count, chosen, path))

    def pending(self) -> int:
        """How many faulty requests are still queued."""
        with self._lock:
            return sum(rule.remaining for rule in self._rules)

    def take(self, method: str, path: str, *, before_read: bool = False) -> str | None:
        """Consume and return the fault for this request, if a rule matches.

        ``before_read`` selects connection-level rules (``reset-before-read``); otherwise
        those are skipped.
        """
        with self._lock:
            for rule in self._rules:
                if (rule.fault == "reset-before-read") != before_read or not rule.matches(
                    method, path
                ):
                    continue
                rule.remaining -= 1
                if rule.remaining == 0:
                    self._rules.remove(rule)
                return rule.fault
        return None

    def wants_peek(self) -> bool:
        """True when a ``reset-before-read`` rule waits, so connections must be inspected."""
        with self._lock:
            return any(rule.fault == "reset-before-read" for rule in self._rules)

    def screen_connection(self, connection: socket.socket) -> tuple[str, str] | None:
        """Peek at a new connection; return (method, path) when it must be reset unread."""
        if not self.wants_peek():
            return None
        try:
            connection.settimeout(5.0)
            head = connection.recv(2048, socket.MSG_PEEK)
        except OSError:
            return None
        finally:
            connection.settimeout(None)
        match = _REQUEST_LINE.match(head)
        if not match:
            return None
        method, target = match.group(1).decode(), match.group(2).decode("latin-1")
        path = target.split("?", 1)[0]
        if self.take(method, path, before_read=True):
            return method, target
        return None

    # -- rate limit -----------------------------------------------------------------------
    def set_rate_limit(self, limit: int | None, per_seconds: float = 60.0) -> None:
        """Allow ``limit`` requests per ``per_seconds`` window; None turns limiting off."""
        if limit is not None and (
            not isinstance(limit, int) or isinstance(limit, bool) or limit < 1
        ):
            raise ValueError(f"the rate limit must be a positive integer or None, got {limit!r}")
        if not isinstance(per_seconds, int | float) or per_seconds <= 0:
            raise ValueError(f"per_seconds must be a positive number, got {per_seconds!r}")
        with self._lock:
            self._limit = limit
            self._period = float(per_seconds)
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
                self._window_start, self._window_count = now, 0
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
