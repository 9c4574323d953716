"""Exceptions raised by docsapi.

Every exception derives from :class:`DocsAPIError`, so one ``except`` catches them all::

    DocsAPIError
    ├── ValidationError (also ValueError)    bad input caught before any request is sent
    ├── APIConnectionError                   the request may not have reached the server
    │   └── APITimeoutError
    ├── PaginationError                      a server repeated a cursor (loop guard)
    ├── ResponseFormatError                  a body that is not the JSON the API promises
    └── APIStatusError(status, message, method, path, request_id)
        ├── BadRequestError 400       ├── AuthenticationError 401
        ├── PermissionDeniedError 403 ├── NotFoundError 404
        ├── ConflictError 409         ├── RateLimitError 429 (.reset_at)
        └── ServerError 5xx

Messages say what to do next and never contain a token or a query string.
"""

from __future__ import annotations

from datetime import datetime

from docsapi._config import RETRYABLE_STATUSES

__all__ = [
    "APIConnectionError",
    "APIStatusError",
    "APITimeoutError",
    "AuthenticationError",
    "BadRequestError",
    "ConflictError",
    "DocsAPIError",
    "NotFoundError",
    "PaginationError",
    "PermissionDeniedError",
    "RateLimitError",
    "ResponseFormatError",
    "ServerError",
    "ValidationError",
    "status_error_class",
]


class DocsAPIError(Exception):
    """Base class of every error docsapi raises."""

    #: Whether the failure may pass, so an idempotent request may be tried again.
    retryable: bool = False
    #: Whether the server surely did not act on the request, so any method may be tried again.
    unprocessed: bool = False


class ValidationError(DocsAPIError, ValueError):
    """An argument broke a rule of the API; raised before any request is sent.

    Parameters
    ----------
    argument : str
        The name of the offending argument, as the Python caller wrote it.
    message : str
        The rule it broke and what to pass instead.
    """

    def __init__(self, argument: str, message: str) -> None:
        self.argument = argument
        super().__init__(f"{argument}: {message}")


class APIConnectionError(DocsAPIError):
    """The request failed on the way: it may or may not have reached the server."""

    def __init__(self, message: str, *, method: str = "", path: str = "") -> None:
        self.method = method
        self.path = path
        super().__init__(message)


class APITimeoutError(APIConnectionError):
    """The server did not answer within the configured timeout."""


class PaginationError(DocsAPIError):
    """The server sent a cursor it had already sent: following it would never end."""


class ResponseFormatError(DocsAPIError):
    """The server answered with a body that is not the JSON the API promises."""

    def __init__(self, message: str, *, status: int = 0, truncated: bool = False) -> None:
        self.status = status
        self.truncated = truncated
        # A body cut short in transit is worth another try on an idempotent request.
        self.retryable = truncated
        super().__init__(message)


class APIStatusError(DocsAPIError):
    """The server answered with an error status.

    Attributes
    ----------
    status : int
        The HTTP status code.
    message : str
        The API's own message, followed by a hint on what to do next.
    method, path : str
        The request, without its query string.
    request_id : str or None
        The server's request identifier, useful when reporting a problem.
    code : str or int or None
        The API's error code from the body, when it sent one.
    """

    def __init__(
        self,
        status: int,
        message: str,
        *,
        method: str = "",
        path: str = "",
        request_id: str | None = None,
        code: str | int | None = None,
    ) -> None:
        self.status = status
        self.message = message
        self.method = method
        self.path = path
        self.request_id = request_id
        self.code = code
        if status in RETRYABLE_STATUSES:
            self.retryable = True
        super().__init__(self._render())

    def _render(self) -> str:
        where = f" ({self.method} {self.path})" if self.method else ""
        rid = f" [request id {self.request_id}]" if self.request_id else ""
        return f"{self.status}{where}: {self.message}{rid}"

    def add_detail(self, detail: str) -> None:
        """Append a sentence to the message (before the request id)."""
        self.message = f"{self.message.rstrip()} {detail}"
        self.args = (self._render(),)


class BadRequestError(APIStatusError):
    """400: the server rejected the request's parameters or body."""


class AuthenticationError(APIStatusError):
    """401: the token is missing, unknown or expired."""


class PermissionDeniedError(APIStatusError):
    """403: the token is valid but does not allow this operation."""


class NotFoundError(APIStatusError):
    """404: the resource does not exist, or is not visible to this token."""


class ConflictError(APIStatusError):
    """409: the operation would not change anything, or conflicts with the current state."""


class RateLimitError(APIStatusError):
    """429: too many requests.

    Attributes
    ----------
    reset_at : datetime or None
        When the server said the limit resets (UTC), if it said.
    """

    retryable = True
    unprocessed = True

    def __init__(self, *args, reset_at: datetime | None = None, **kwargs) -> None:
        self.reset_at = reset_at
        super().__init__(*args, **kwargs)


class ServerError(APIStatusError):
    """5xx: the server failed; 500, 502, 503 and 504 are retried on idempotent requests."""


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
    """Return a short sentence saying what to do about an error status."""
    if status >= 500:
        return "The server failed; try again later. If it persists, report the request id."
    return _HINTS.get(status, "")
