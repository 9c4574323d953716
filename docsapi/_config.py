"""Settings as small value objects: :class:`Timeout` and :class:`RetryPolicy`."""

from __future__ import annotations

import random
from dataclasses import dataclass

__all__ = [
    "DEFAULT_BASE_URL",
    "DEFAULT_MAX_RATE_LIMIT_WAIT",
    "DEFAULT_MAX_RETRIES",
    "IDEMPOTENT_METHODS",
    "RETRYABLE_STATUSES",
    "RetryPolicy",
    "Timeout",
]

DEFAULT_BASE_URL = "https://api.gitbook.com/v1"
DEFAULT_MAX_RETRIES = 3
DEFAULT_MAX_RATE_LIMIT_WAIT = 60.0

#: Methods whose repetition cannot change the outcome; retried on any transient failure.
IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "PUT", "DELETE", "OPTIONS"})

#: Statuses worth another try on an idempotent request.
RETRYABLE_STATUSES = frozenset({408, 429, 500, 502, 503, 504})


@dataclass(frozen=True)
class Timeout:
    """How long to wait for the server.

    Parameters
    ----------
    connect : float
        Seconds to establish the connection.
    read : float
        Seconds to wait for each chunk of the answer.

    Examples
    --------
    >>> Timeout(read=10)
    Timeout(connect=5.0, read=10)
    """

    connect: float = 5.0
    read: float = 30.0

    @classmethod
    def coerce(cls, value: float | tuple[float, float] | Timeout | None) -> Timeout:
        """Build a Timeout from a number (read timeout), a (connect, read) pair or a Timeout."""
        if value is None:
            return cls()
        if isinstance(value, Timeout):
            return value
        if isinstance(value, tuple):
            connect, read = value
            return cls(float(connect), float(read))
        if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
            raise TypeError(f"timeout must be a positive number of seconds, got {value!r}")
        return cls(connect=min(5.0, float(value)), read=float(value))

    def as_requests(self) -> tuple[float, float]:
        """The (connect, read) tuple that ``requests`` expects."""
        return (self.connect, self.read)


@dataclass(frozen=True)
class RetryPolicy:
    """When and how long to wait before trying a request again.

    Idempotent requests (GET, HEAD, PUT, DELETE) are retried on connection errors,
    timeouts, truncated bodies and the statuses in ``RETRYABLE_STATUSES``. POST and
    PATCH are retried only when the request surely never reached the server (a failed
    connect) and on 429, whose answer says nothing was done.

    Parameters
    ----------
    max_retries : int
        How many times to try again after the first attempt.
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

    Examples
    --------
    >>> RetryPolicy(max_retries=0)  # never retry
    RetryPolicy(max_retries=0, backoff=0.5, max_backoff=8.0, max_rate_limit_wait=60.0, jitter=True)
    """

    max_retries: int = DEFAULT_MAX_RETRIES
    backoff: float = 0.5
    max_backoff: float = 8.0
    max_rate_limit_wait: float = DEFAULT_MAX_RATE_LIMIT_WAIT
    jitter: bool = True

    def __post_init__(self) -> None:
        if isinstance(self.max_retries, bool) or not isinstance(self.max_retries, int):
            raise TypeError(f"max_retries must be an int, got {self.max_retries!r}")
        if self.max_retries < 0:
            raise ValueError(f"max_retries must be 0 or more, got {self.max_retries}")
        if self.max_rate_limit_wait < 0:
            raise ValueError("max_rate_limit_wait must be 0 or more seconds")

    def backoff_delay(self, attempt: int) -> float:
        """Seconds to wait before retry number ``attempt`` (0-based): 0.5 s * 2**n, capped."""
        delay = min(self.max_backoff, self.backoff * (2**attempt))
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
