"""Settings as small value objects: :class:`Timeout` and :class:`RetryPolicy`."""

from __future__ import annotations

import math
import random
from typing import Any

from docsapi.core.values import Value
from docsapi.errors import RETRYABLE_STATUSES, ValidationError

__all__ = [
    "DEFAULT_BASE_URL",
    "DEFAULT_MAX_RATE_LIMIT_WAIT",
    "DEFAULT_MAX_RETRIES",
    "IDEMPOTENT_METHODS",
    "RETRYABLE_STATUSES",
    "ReadBounds",
    "RetryPolicy",
    "Timeout",
]

DEFAULT_BASE_URL = "https://api.gitbook.com/v1"
DEFAULT_MAX_RETRIES = 3
DEFAULT_MAX_RATE_LIMIT_WAIT = 60.0

#: Methods whose repetition cannot change the outcome; retried on any transient failure.
IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "PUT", "DELETE", "OPTIONS"})

#: The longest a single setting may ask to wait: one day.
_MAX_SECONDS = 86_400.0
_MAX_RETRIES = 100


def _seconds(value: Any, argument: str, *, allow_zero: bool = False) -> float:
    """A finite number of seconds, positive (or zero when allowed), at most one day."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValidationError(argument, f"must be a number of seconds, got {type(value).__name__}")
    low_ok = value >= 0 if allow_zero else value > 0
    if not math.isfinite(value) or not low_ok or value > _MAX_SECONDS:
        rule = "0 or more" if allow_zero else "more than 0"
        raise ValidationError(
            argument, f"must be {rule} and at most {_MAX_SECONDS:g} seconds, got {value!r}"
        )
    return float(value)


class Timeout(Value):
    """How long to wait for the server.

    Parameters
    ----------
    connect : float
        Seconds to establish the connection (more than 0, at most a day).
    read : float
        Seconds to wait for each chunk of the answer (more than 0, at most a day).

    Examples
    --------
    >>> Timeout(read=10)
    Timeout(connect=5.0, read=10.0)
    """

    _fields = ("connect", "read")
    __slots__ = _fields
    connect: float
    read: float

    def __init__(self, connect: float = 5.0, read: float = 30.0) -> None:
        self._init(
            connect=_seconds(connect, "timeout (connect)"), read=_seconds(read, "timeout (read)")
        )

    @classmethod
    def coerce(cls, value: float | tuple[float, float] | Timeout | None) -> Timeout:
        """Build a Timeout from a number (read timeout), a (connect, read) pair or a Timeout.

        Raises
        ------
        ValidationError
            Anything else, or a number that is not a positive, finite count of seconds.

        Examples
        --------
        >>> Timeout.coerce((2, 10))
        Timeout(connect=2.0, read=10.0)
        """
        if value is None:
            return cls()
        if isinstance(value, Timeout):
            return value
        if isinstance(value, tuple):
            if len(value) != 2:
                raise ValidationError(
                    "timeout", f"a pair must be (connect, read) seconds, got {len(value)} items"
                )
            return cls(*value)
        read = _seconds(value, "timeout")
        return cls(connect=min(5.0, read), read=read)

    def as_requests(self) -> tuple[float, float]:
        """The (connect, read) tuple that ``requests`` expects."""
        return (self.connect, self.read)


#: The largest page or item bound: far past any organization, small enough to print.
_MAX_BOUND = 10**12


def _bound(value: Any, argument: str) -> int:
    """A whole number from 1 to :data:`_MAX_BOUND`."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= _MAX_BOUND:
        shown = repr(value) if isinstance(value, int) and abs(value) < 10**15 else None
        shown = shown or (f"a {type(value).__name__}" if not isinstance(value, int) else "more")
        raise ValidationError(
            argument, f"must be a whole number from 1 to {_MAX_BOUND:,}, got {shown}"
        )
    return value


class ReadBounds(Value):
    """How far one paged read (every page of one list) may go before it stops.

    A list's pages follow the server's cursors: a server that hands out a fresh cursor
    forever would be read forever. Each paged read stops, raising
    :class:`~docsapi.errors.ReadBoundError`, when it has read ``pages`` pages, or ``items``
    items, or spent ``seconds`` seconds, and the server still sends a next cursor (the
    bounds are checked before each next page: a list that ends on its last allowed page is
    read whole). The defaults cover the documented scale with room to spare: the largest
    list of an organization of 20,000 spaces (its spaces, or 20,000 people on one space,
    20 pages of 1,000) and a year of a large organization's audit log (up to 2 million
    events, 20,000 pages of 100) read by one worker; six hours for an audit of 20,000 spaces
    at a rate limit of a few requests a second. An audit
    (:func:`~docsapi.audit.audit_permissions`) gives ``seconds`` to the whole crawl: every
    read still going that long after the crawl began stops.

    Parameters
    ----------
    pages : int
        Pages of one read (at least 1).
    items : int
        Items of one read (at least 1).
    seconds : float
        Seconds one read may take, from its first request (more than 0, at most a day).

    Raises
    ------
    ValidationError
        A bound that is not a whole number from 1 to 10**12, or a time that is not a
        positive number of seconds up to a day.

    Examples
    --------
    >>> ReadBounds(pages=50)
    ReadBounds(pages=50, items=2000000, seconds=21600.0)
    """

    _fields = ("pages", "items", "seconds")
    __slots__ = _fields
    pages: int
    items: int
    seconds: float

    def __init__(
        self, pages: int = 20_000, items: int = 2_000_000, seconds: float = 21_600.0
    ) -> None:
        self._init(
            pages=_bound(pages, "pages"),
            items=_bound(items, "items"),
            seconds=_seconds(seconds, "seconds"),
        )


class RetryPolicy(Value):
    """When and how long to wait before trying a request again.

    Idempotent requests (GET, HEAD, PUT, DELETE) are retried on connection errors,
    timeouts, truncated bodies and the statuses in ``RETRYABLE_STATUSES``. POST and
    PATCH are retried only when the request surely never reached the server (a failed
    connect) and on 429, whose answer says nothing was done.

    Parameters
    ----------
    max_retries : int
        How many times to try again after the first attempt (0 to 100).
    backoff : float
        The first wait in seconds; it doubles on every retry.
    max_backoff : float
        The longest wait between two attempts.
    max_rate_limit_wait : float
        The longest the client will sleep for a rate limit to reset; a longer wait
        raises :class:`~docsapi.errors.RateLimitError` at once.
    jitter : bool
        Spread waits randomly over [wait/2, wait] so that parallel clients do not
        retry in lockstep.

    Raises
    ------
    ValidationError
        A setting of the wrong type or out of range.

    Examples
    --------
    >>> RetryPolicy(max_retries=0)  # never retry
    RetryPolicy(max_retries=0, backoff=0.5, max_backoff=8.0, max_rate_limit_wait=60.0, jitter=True)
    """

    _fields = ("max_retries", "backoff", "max_backoff", "max_rate_limit_wait", "jitter")
    __slots__ = _fields
    max_retries: int
    backoff: float
    max_backoff: float
    max_rate_limit_wait: float
    jitter: bool

    def __init__(
        self,
        max_retries: int = DEFAULT_MAX_RETRIES,
        backoff: float = 0.5,
        max_backoff: float = 8.0,
        max_rate_limit_wait: float = DEFAULT_MAX_RATE_LIMIT_WAIT,
        jitter: bool = True,
    ) -> None:
        if isinstance(max_retries, bool) or not isinstance(max_retries, int):
            raise ValidationError(
                "max_retries", f"must be an int, got {type(max_retries).__name__}"
            )
        if not 0 <= max_retries <= _MAX_RETRIES:
            raise ValidationError(
                "max_retries", f"must be between 0 and {_MAX_RETRIES}, got {max_retries}"
            )
        if not isinstance(jitter, bool):
            raise ValidationError("jitter", f"must be True or False, got {jitter!r}")
        self._init(
            max_retries=max_retries,
            backoff=_seconds(backoff, "backoff", allow_zero=True),
            max_backoff=_seconds(max_backoff, "max_backoff", allow_zero=True),
            max_rate_limit_wait=_seconds(
                max_rate_limit_wait, "max_rate_limit_wait", allow_zero=True
            ),
            jitter=jitter,
        )

    def backoff_delay(self, attempt: int) -> float:
        """Seconds to wait before retry number ``attempt`` (0-based): 0.5 s * 2**n, capped."""
        delay = min(self.max_backoff, self.backoff * (2 ** min(attempt, 64)))
        if self.jitter:
            delay = random.uniform(delay / 2, delay)
        return delay

    def may_retry(self, method: str, *, surely_unprocessed: bool, transient: bool) -> bool:
        """Whether a failed attempt may be repeated.

        Parameters
        ----------
        method : str
            The HTTP method.
        surely_unprocessed : bool
            True when the server surely did not act on the request: the connection was
            never made, or the server said so (429). Any method may then be repeated.
        transient : bool
            Whether the failure may pass (a retryable status or a broken transfer);
            only idempotent methods are repeated after such a failure.
        """
        if surely_unprocessed:
            return True
        return transient and method.upper() in IDEMPOTENT_METHODS
