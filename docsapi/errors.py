"""Exceptions raised by docsapi.

Every exception derives from :class:`DocsAPIError`, so one ``except`` catches them all::

    DocsAPIError
    ├── ValidationError (also ValueError, TypeError)  bad input caught before any request is sent
    ├── APIConnectionError                   the request may not have reached the server
    │   └── APITimeoutError
    ├── PaginationError                      a server repeated a cursor (loop guard)
    │   └── ReadBoundError                   a paged read reached its page, item or time bound
    ├── ResponseFormatError                  a body that is not the JSON the API promises
    ├── SnapshotError                        a saved audit that cannot be loaded as it was saved
    └── APIStatusError(status, message, method, path, request_id, body, headers)
        ├── BadRequestError 400       ├── AuthenticationError 401
        │                             │   └── MissingCredentialError (no status: nothing sent)
        ├── PermissionDeniedError 403 ├── NotFoundError 404
        ├── ConflictError 409         ├── RateLimitError 429 (.reset_at)
        └── ServerError 5xx

One warning category: :class:`AdminRoleWarning` (a ``UserWarning``), when a change about to
be sent takes the admin role away from the token's own user.

Messages say what to do next. Every string an error holds (message, request id, the
parsed body, the headers) has registered credentials masked, whatever the server echoed.
Whether a failed request may be tried again is decided in one place, :func:`retry_flags`.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from docsapi.core.redact import scrub, scrub_data

__all__ = [
    "RETRYABLE_STATUSES",
    "APIConnectionError",
    "APIStatusError",
    "APITimeoutError",
    "AdminRoleWarning",
    "AuthenticationError",
    "BadRequestError",
    "ConflictError",
    "DocsAPIError",
    "MissingCredentialError",
    "NotFoundError",
    "PaginationError",
    "PermissionDeniedError",
    "RateLimitError",
    "ReadBoundError",
    "ResponseFormatError",
    "ServerError",
    "SnapshotError",
    "ValidationError",
    "retry_flags",
    "status_error_class",
]


#: Statuses worth another try on an idempotent request.
RETRYABLE_STATUSES = frozenset({408, 429, 500, 502, 503, 504})


class DocsAPIError(Exception):
    """Base class of every error docsapi raises; its message has credentials masked."""

    def __init__(self, message: str) -> None:
        super().__init__(scrub(message))

    @property
    def retryable(self) -> bool:
        """Whether the failure may pass, so an idempotent request may be tried again."""
        return retry_flags(self)[0]

    @property
    def unprocessed(self) -> bool:
        """Whether the server surely did not act on the request, so any method may be retried."""
        return retry_flags(self)[1]


class AdminRoleWarning(UserWarning):
    """A change about to be sent takes the admin role away from the token's own user.

    Sent when ``review apply`` is allowed to send such a change (``allow_self_demotion``);
    afterwards the token answers 401 or 403 wherever an organization admin is needed.
    """


class ValidationError(DocsAPIError, ValueError, TypeError):
    """An argument broke a rule; raised before any request is sent.

    It is also a :class:`ValueError` and a :class:`TypeError`, so code written for
    either keeps working whatever the problem (a bad value or a wrong type).

    Parameters
    ----------
    argument : str
        The name of the offending argument, as the Python caller wrote it.
    message : str
        The rule it broke and what to pass instead.

    Examples
    --------
    >>> str(ValidationError("title", "must have at most 50 characters"))
    'title: must have at most 50 characters'
    """

    def __init__(self, argument: str, message: str) -> None:
        self.argument = argument
        super().__init__(f"{argument}: {message}")


class APIConnectionError(DocsAPIError):
    """The request failed on the way: it may or may not have reached the server.

    Attributes
    ----------
    method, path : str
        The request, without its query string.
    reached : bool
        False when the connection was never made, so the server surely did nothing.
    transient : bool
        False for a failure that another try would repeat (e.g. a redirect loop).
    """

    def __init__(
        self,
        message: str,
        *,
        method: str = "",
        path: str = "",
        reached: bool = True,
        transient: bool = True,
    ) -> None:
        self.method = method
        self.path = path
        self.reached = reached
        self.transient = transient
        super().__init__(message)


class APITimeoutError(APIConnectionError):
    """The server did not answer within the configured timeout."""


class PaginationError(DocsAPIError):
    """The server sent a cursor it had already sent: following it would never end."""


class ReadBoundError(PaginationError):
    """A paged read reached one of its bounds (pages, items or seconds) and still had a next
    page: it stopped (see :class:`~docsapi.core.config.ReadBounds`).

    Attributes
    ----------
    bound : str
        Which bound was reached: ``"pages"``, ``"items"`` or ``"seconds"``.
    pages, items : int
        How many pages and items the read had read when it stopped.
    seconds : float
        How long the read had taken.
    """

    def __init__(self, message: str, *, bound: str, pages: int, items: int, seconds: float) -> None:
        super().__init__(message)
        self.bound = bound
        self.pages = pages
        self.items = items
        self.seconds = seconds


class ResponseFormatError(DocsAPIError):
    """The server answered with a body that is not the JSON the API promises.

    Attributes
    ----------
    status : int
        The HTTP status of the answer (0 when unknown).
    truncated : bool
        True when the body looked cut short in transit (worth another try on a GET).
    """

    def __init__(self, message: str, *, status: int = 0, truncated: bool = False) -> None:
        self.status = status
        self.truncated = truncated
        super().__init__(message)


class SnapshotError(DocsAPIError):
    """A saved audit (a snapshot folder) cannot be loaded as it was saved.

    The folder is not a snapshot, was written in a snapshot format this docsapi does not
    read (the message names both versions), or a file in it is missing, changed or cut
    short. Nothing is loaded: the message says which file and what to do.
    """


class APIStatusError(DocsAPIError):
    """The server answered with an error status.

    Attributes
    ----------
    status : int or None
        The HTTP status code (None only for :class:`MissingCredentialError`).
    message : str
        The API's own message, followed by a hint on what to do next.
    method, path : str
        The request, without its query string.
    request_id : str or None
        The server's request identifier, useful when reporting a problem.
    code : str or int or None
        The API's error code from the body, when it sent one.
    body : Any
        The parsed JSON body of the answer (None if it had none or was not JSON).
    headers : dict
        The answer's headers.
    """

    #: True when an answer of this kind says the server did nothing (a rate limit, an
    #: upgrade): :func:`retry_flags` then lets any method be tried again.
    server_did_nothing: bool = False

    def __init__(
        self,
        status: int | None,
        message: str,
        *,
        method: str = "",
        path: str = "",
        request_id: str | None = None,
        code: str | int | None = None,
        body: Any = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        self.status = status
        self.message = scrub(message)
        self.method = method
        self.path = path
        self.request_id = None if request_id is None else scrub(request_id)
        self.code = scrub(code) if isinstance(code, str) else code
        self.body = scrub_data(body)
        self.headers: dict[str, str] = scrub_data(dict(headers or {}))
        super().__init__(self._render())

    def _render(self) -> str:
        where = f" ({self.method} {self.path})" if self.method else ""
        rid = f" [request id {self.request_id}]" if self.request_id else ""
        return f"{self.status}{where}: {self.message}{rid}"

    def add_detail(self, detail: str) -> None:
        """Append a sentence to the message (before the request id)."""
        self.message = scrub(f"{self.message.rstrip()} {detail}")
        self.args = (self._render(),)


class BadRequestError(APIStatusError):
    """400: the server rejected the request's parameters or body."""


class AuthenticationError(APIStatusError):
    """401: the token is missing, unknown or expired."""


class MissingCredentialError(AuthenticationError):
    """No token or key was found, so nothing was sent: there is no HTTP status.

    Examples
    --------
    >>> error = MissingCredentialError("No API token found.", method="GET", path="/user")
    >>> error.status is None, str(error)
    (True, 'No API token found. Nothing was sent (GET /user).')
    """

    def __init__(self, message: str, *, method: str = "", path: str = "") -> None:
        super().__init__(None, message, method=method, path=path)

    def _render(self) -> str:
        where = f" ({self.method} {self.path})" if self.method else ""
        return f"{self.message.rstrip()} Nothing was sent{where}."


class PermissionDeniedError(APIStatusError):
    """403: the token is valid but does not allow this operation."""


class NotFoundError(APIStatusError):
    """404: the resource does not exist, or is not visible to this token."""


class ConflictError(APIStatusError):
    """409: the operation would not change anything, or conflicts with the current state."""


class RateLimitError(APIStatusError):
    """429: too many requests; the server did nothing, so any method may be retried.

    Attributes
    ----------
    reset_at : datetime or None
        When the server said the limit resets (UTC), if it said.
    """

    server_did_nothing = True

    def __init__(self, *args: Any, reset_at: datetime | None = None, **kwargs: Any) -> None:
        self.reset_at = reset_at
        super().__init__(*args, **kwargs)


class ServerError(APIStatusError):
    """5xx: the server failed; 500, 502, 503 and 504 are retried on idempotent requests."""


def retry_flags(error: DocsAPIError) -> tuple[bool, bool]:
    """Whether a failed request may be tried again: ``(retryable, unprocessed)``.

    ``retryable``: the failure may pass (a dropped connection, a timeout, a body cut
    short, a status in ``RETRYABLE_STATUSES``), so an idempotent request may be repeated.
    ``unprocessed``: the server surely did nothing (the connection was never made, or the
    answer says so), so any method may be repeated. This is the only place deciding them.

    Examples
    --------
    >>> retry_flags(ServerError(503, "busy")), retry_flags(RateLimitError(429, "slow"))
    ((True, False), (True, True))
    >>> retry_flags(APIConnectionError("refused", reached=False))
    (True, True)
    """
    if isinstance(error, APIConnectionError):
        return error.transient, error.transient and not error.reached
    if isinstance(error, ResponseFormatError):
        return error.truncated, False
    if isinstance(error, APIStatusError):
        if error.server_did_nothing:
            return True, True
        return error.status in RETRYABLE_STATUSES, False
    return False, False


_STATUS_CLASSES: dict[int, type[APIStatusError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    429: RateLimitError,
}

_HINTS: dict[int, str] = {
    400: "Check the arguments against the API reference.",
    401: "Pass token=... to DocsClient or set GITBOOK_API_TOKEN to a valid API token.",
    403: "The token is valid but lacks the scope or role this operation needs; "
    "use a token with more access or ask an administrator.",
    404: "Check the id; the resource may have been deleted, or the token cannot see it.",
    409: "The request would not change anything; compare with the current state first.",
    429: "Lower the request rate (e.g. fewer audit workers).",
}


def status_error_class(status: int) -> type[APIStatusError]:
    """Return the exception class for an HTTP error status.

    Parameters
    ----------
    status : int
        An HTTP status code of 400 or more.

    Returns
    -------
    type[APIStatusError]
        The most specific subclass; :class:`ServerError` for 5xx,
        :class:`APIStatusError` for any other unlisted status.

    Examples
    --------
    >>> status_error_class(404).__name__
    'NotFoundError'
    """
    if status >= 500:
        return ServerError
    return _STATUS_CLASSES.get(status, APIStatusError)


def status_hint(status: int) -> str:
    """Return a short sentence saying what to do about an error status.

    Examples
    --------
    >>> status_hint(409)
    'The request would not change anything; compare with the current state first.'
    """
    if status >= 500:
        return "The server failed; try again later. If it persists, report the request id."
    return _HINTS.get(status, "")
