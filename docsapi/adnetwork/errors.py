"""Errors of the ad-network API: one class per application code.

The API answers an error as ``{"code": <application code>, "message": "<text>"}``, with an
HTTP status that usually matches the meaning (and sometimes HTTP 200: a body whose code
is not 0 is an error whatever the status). Each class below is an
:class:`AdNetworkError` and, where the meaning fits, also the matching class of
:mod:`docsapi.errors`, so ``except docsapi.AuthenticationError`` catches a bad key from
either API::

    AdNetworkError(APIStatusError)        .code (application code), .status (HTTP status)
    ├── InsufficientPermissionError    5   403  (also PermissionDeniedError)
    ├── OperationNotAllowedError      11   409  (also ConflictError)
    ├── UnauthorizedRequestError      12   401  (also AuthenticationError)
    ├── InvalidAPIKeyError            13   401  (also AuthenticationError)
    ├── ParameterError                20   400  (also BadRequestError)
    ├── MalformedRequestError         30   400  (also BadRequestError)
    ├── ResourceNotFoundError         31   404  (also NotFoundError)
    ├── InvalidRequestMethodError     32   405
    │   └── RequestURINotFoundError   32   501
    ├── DuplicatedResourceError       33   409  (also ConflictError)
    ├── TooManyRequestsError          40   429  (also RateLimitError; retried)
    ├── IPNotWhitelistedError         41   403  (also PermissionDeniedError)
    ├── AccountLockedError            42   403  (also PermissionDeniedError)
    ├── SystemUpgradeError            50   503  (also ServerError; retried)
    ├── ServerInternalError           51   500  (also ServerError; GET/PUT/DELETE retried)
    └── IllegalOperationError         60   400  (also BadRequestError)

Examples
--------
>>> parse = make_error_parser("https://demo.example.com/admin/settings.html")
>>> err = parse(401, {"code": 13, "message": "Invalid API Key"}, "",
...             method="GET", path="/affiliate", request_id=None)
>>> type(err).__name__, err.code, err.status
('InvalidAPIKeyError', 13, 401)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from docsapi.core.redact import excerpt
from docsapi.errors import (
    APIStatusError,
    AuthenticationError,
    BadRequestError,
    ConflictError,
    DocsAPIError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    ServerError,
)

__all__ = [
    "ERROR_CLASSES",
    "AccountLockedError",
    "AdNetworkError",
    "DuplicatedResourceError",
    "IPNotWhitelistedError",
    "IllegalOperationError",
    "InsufficientPermissionError",
    "InvalidAPIKeyError",
    "InvalidRequestMethodError",
    "MalformedRequestError",
    "OperationNotAllowedError",
    "ParameterError",
    "RequestURINotFoundError",
    "ResourceNotFoundError",
    "ServerInternalError",
    "SystemUpgradeError",
    "TooManyRequestsError",
    "UnauthorizedRequestError",
    "error_class",
    "make_error_parser",
]


class AdNetworkError(APIStatusError):
    """An error answered by the ad-network API.

    Attributes
    ----------
    code : int or None
        The application code of the body (``None`` when the body had none).
    status : int
        The HTTP status (200 when the server put an error code in a 200 answer).
    message : str
        The API's message followed by what to do next.
    """

    #: What to do about this error; ``{settings}`` is the network's admin settings page.
    hint: str = "Check the request against the ad network's API documentation."


class InsufficientPermissionError(AdNetworkError, PermissionDeniedError):
    """Code 5: the key is valid but may not do this (for example a read-only key writing)."""

    hint = (
        "This API key lacks the permission for this operation; use a key with more rights, "
        "created in the network's admin settings ({settings})."
    )


class OperationNotAllowedError(AdNetworkError, ConflictError):
    """Code 11: the resource's current state forbids the operation (e.g. deleting an active one)."""

    hint = (
        "The resource's current state does not allow this; change its state first "
        "(for example pause an active affiliate before deleting it)."
    )


class UnauthorizedRequestError(AdNetworkError, AuthenticationError):
    """Code 12: the key is not accepted here (expired, or from another data center)."""

    hint = (
        "The API key is wrong, expired, or belongs to a network in another data center; "
        "check the network address, and pass api_key=... or set ADNETWORK_API_KEY to a key "
        "generated in the network's admin settings ({settings})."
    )


class InvalidAPIKeyError(AdNetworkError, AuthenticationError):
    """Code 13: the key is missing or unknown."""

    hint = UnauthorizedRequestError.hint


class ParameterError(AdNetworkError, BadRequestError):
    """Code 20: a parameter has a bad type or value, or a required field is missing."""

    hint = "Fix the parameters named in the message and send the request again."


class MalformedRequestError(AdNetworkError, BadRequestError):
    """Code 30: the request could not be read (for example its body is not valid JSON)."""

    hint = "Send a JSON object body with Content-Type: application/json."


class ResourceNotFoundError(AdNetworkError, NotFoundError):
    """Code 31: no resource has this id (it may have been deleted, or the id is mistyped)."""

    hint = "Check the id; list the collection to see which ids exist."


class InvalidRequestMethodError(AdNetworkError):
    """Code 32 with HTTP 405: the resource does not support this method."""

    hint = (
        "This path does not support the method: use GET or POST on a collection, "
        "GET, PUT, PATCH or DELETE on one resource."
    )


class RequestURINotFoundError(InvalidRequestMethodError):
    """HTTP 501: the server does not know this path (a mistyped resource name)."""

    hint = "The server does not know this path; check the resource name (e.g. 'affiliate')."


class DuplicatedResourceError(AdNetworkError, ConflictError):
    """Code 33: a resource with the same unique field (such as an email) already exists."""

    hint = "A resource with the same unique value exists; look it up instead of creating it again."


class TooManyRequestsError(AdNetworkError, RateLimitError):
    """Code 40: too many requests; the server did nothing, so the client retries after a wait.

    Being a :class:`~docsapi.errors.RateLimitError`, it declares that the server did nothing.
    """

    hint = "Too many requests: wait a moment, send fewer requests, or raise max_retries."


class IPNotWhitelistedError(AdNetworkError, PermissionDeniedError):
    """Code 41: this machine's IP address is not on the network's whitelist."""

    hint = (
        "Add this machine's public IP address to the API whitelist in the network's admin "
        "settings ({settings}), then try again."
    )


class AccountLockedError(AdNetworkError, PermissionDeniedError):
    """Code 42: the account that owns the key is locked."""

    hint = "The account is locked; ask the network's administrator to unlock it."


class SystemUpgradeError(AdNetworkError, ServerError):
    """Code 50: the system is being upgraded; nothing was done, so the client retries."""

    server_did_nothing = True
    hint = "The network is being upgraded; try again in a few minutes."


class ServerInternalError(AdNetworkError, ServerError):
    """Code 51: the server failed; idempotent requests are retried."""

    hint = (
        "The server failed; try again later, and if it persists contact the network's "
        "administrator."
    )


class IllegalOperationError(AdNetworkError, BadRequestError):
    """Code 60: the request tries something never allowed, such as changing an id."""

    hint = "Leave read-only fields (id, createdAt, updatedAt) out of the body, or unchanged."


#: Application code → exception class.
ERROR_CLASSES: dict[int, type[AdNetworkError]] = {
    5: InsufficientPermissionError,
    11: OperationNotAllowedError,
    12: UnauthorizedRequestError,
    13: InvalidAPIKeyError,
    20: ParameterError,
    30: MalformedRequestError,
    31: ResourceNotFoundError,
    32: InvalidRequestMethodError,
    33: DuplicatedResourceError,
    40: TooManyRequestsError,
    41: IPNotWhitelistedError,
    42: AccountLockedError,
    50: SystemUpgradeError,
    51: ServerInternalError,
    60: IllegalOperationError,
}

# An answer without an application code (a proxy's page, say) is classified by its status.
_STATUS_CODES: dict[int, int] = {
    400: 30,
    401: 13,
    403: 5,
    404: 31,
    405: 32,
    429: 40,
    500: 51,
    503: 50,
}


def error_class(code: int | None, status: int) -> type[AdNetworkError]:
    """Return the exception class for an application code and HTTP status.

    Parameters
    ----------
    code : int or None
        The body's application code, if any.
    status : int
        The HTTP status.

    Returns
    -------
    type[AdNetworkError]
        The class of the code; for no code or an unknown one, the class the status implies;
        :class:`AdNetworkError` when neither says more.

    Examples
    --------
    >>> error_class(41, 403).__name__
    'IPNotWhitelistedError'
    >>> error_class(None, 501).__name__
    'RequestURINotFoundError'
    """
    if status == 501:
        return RequestURINotFoundError
    if code in ERROR_CLASSES:
        return ERROR_CLASSES[code]
    return ERROR_CLASSES.get(_STATUS_CODES.get(status, -1), AdNetworkError)


def _app_code(body: Any) -> int | None:
    if not isinstance(body, Mapping):
        return None
    code = body.get("code")
    if isinstance(code, bool):
        return None
    if isinstance(code, int):
        return code
    if isinstance(code, str) and code.strip().lstrip("-").isdigit():
        return int(code)
    return None


def make_error_parser(settings_url: str) -> Callable[..., DocsAPIError | None]:
    """Build the error parser the transport calls on every answer.

    Parameters
    ----------
    settings_url : str
        The network's admin settings page, named in the hints of key and whitelist errors.

    Returns
    -------
    callable
        ``(status, body, text, *, method, path, request_id, headers=None)
        -> AdNetworkError | None``: None for a success (status below 400 and code 0 or
        absent).

    Examples
    --------
    >>> parse = make_error_parser("http://net.example/admin/settings.html")
    >>> parse(200, {"code": 0, "message": "Success", "data": {}}, "",
    ...       method="GET", path="/affiliate", request_id=None) is None
    True
    """

    def parse(
        status: int,
        body: Any,
        text: str,
        *,
        method: str,
        path: str,
        request_id: str | None,
        headers: Mapping[str, str] | None = None,
    ) -> AdNetworkError | None:
        code = _app_code(body)
        if status < 400 and not code:
            return None
        message = ""
        if isinstance(body, Mapping) and body.get("message"):
            message = str(body["message"])
        if not message:
            message = excerpt(text) or f"HTTP {status} without an error message"
        cls = error_class(code, status)
        hint = cls.hint.format(settings=settings_url)
        return cls(
            status,
            f"{message.rstrip('.')}. {hint}",
            method=method,
            path=path,
            request_id=request_id,
            code=code,
            body=body,
            headers=headers,
        )

    return parse
