"""The one exception route handlers raise to answer with an API error body."""

from __future__ import annotations


class ApiError(Exception):
    """An error answered as ``{"error": {"code": status, "message": message}}``.

    Parameters
    ----------
    status
        HTTP status code (400, 401, 403, 404, 405, 409, 429, 500, 503 ...).
    message
        What went wrong and what to do about it.
    headers
        Extra response headers (``Allow``, ``Retry-After`` ...).
    """

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = dict(headers or {})


def bad_request(message: str) -> ApiError:
    """A 400 error."""
    return ApiError(400, message)


def not_found(message: str) -> ApiError:
    """A 404 error."""
    return ApiError(404, message)


def forbidden(message: str) -> ApiError:
    """A 403 error."""
    return ApiError(403, message)


def conflict(message: str) -> ApiError:
    """A 409 error."""
    return ApiError(409, message)
