"""The wire layer: the only module that talks HTTP.

One pooled :class:`requests.Session` per :class:`Transport`; timeouts; one retry policy;
rate-limit waits; status → exception mapping; pagination; credential redaction.
Resources above this layer see :class:`Response` objects and docsapi exceptions only.
"""

from __future__ import annotations

import json as jsonlib
import logging
import re
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote, urljoin, urlsplit

import requests
from urllib3.exceptions import ConnectTimeoutError, MaxRetryError, NewConnectionError

from docsapi._config import RetryPolicy, Timeout
from docsapi._ratelimit import RateGate, rate_limit_reset
from docsapi._redact import install_log_redaction, register_secret, scrub
from docsapi._secret import Secret
from docsapi.errors import (
    APIConnectionError,
    APITimeoutError,
    AuthenticationError,
    DocsAPIError,
    PaginationError,
    RateLimitError,
    ResponseFormatError,
    status_error_class,
    status_hint,
)

__all__ = ["ErrorParser", "RequestRecord", "Response", "Session", "Transport", "quote_segment"]

#: The session type callers may pass to a client (re-exported so no other module imports requests).
Session = requests.Session

logger = logging.getLogger("docsapi.http")

_REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
_MAX_REDIRECTS = 5
_EXCERPT_CHARS = 200
#: Connections kept open per host: more than the audit's usual number of threads.
POOL_MAXSIZE = 32
_REQUEST_ID_HEADERS = ("x-request-id", "x-gitbook-request-id", "cf-ray")


@dataclass(frozen=True)
class Response:
    """A decoded answer.

    Attributes
    ----------
    status : int
        The HTTP status.
    headers : Mapping[str, str]
        Case-insensitive response headers.
    data : Any
        The parsed JSON body; None when the body is empty (204, 205).
    method, path : str
        The request, relative to the base URL, without its query string.
    """

    status: int
    headers: Mapping[str, str]
    data: Any
    method: str
    path: str


@dataclass(frozen=True)
class RequestRecord:
    """One attempt, kept in :attr:`Transport.history` to make retries and waits visible.

    ``started`` is a Unix time; ``elapsed`` the seconds the attempt took; ``waited`` the
    seconds slept before it (backoff, ``Retry-After`` or an exhausted rate-limit budget);
    ``attempt`` counts from 0; ``outcome`` is ``"ok"`` or the error's class name.
    """

    method: str
    path: str
    status: int | None
    started: float
    elapsed: float
    waited: float
    attempt: int
    outcome: str


#: ``(status, body, text, method=, path=, request_id=) -> exception or None``
ErrorParser = Callable[..., DocsAPIError | None]


def quote_segment(value: str) -> str:
    """URL-encode one path segment, slashes included.

    Examples
    --------
    >>> quote_segment("guides/getting started")
    'guides%2Fgetting%20started'
    """
    return quote(value, safe="")


def parse_platform_error(
    status: int, body: Any, text: str, *, method: str, path: str, request_id: str | None
) -> DocsAPIError | None:
    """Map a documentation-platform answer to an exception, or None for a success.

    The API's error body is ``{"error": {"code": ..., "message": ...}}``.
    """
    if status < 400:
        return None
    message, code = "", None
    if isinstance(body, Mapping) and isinstance(body.get("error"), Mapping):
        message = str(body["error"].get("message") or "")
        code = body["error"].get("code")
    if not message:
        message = _excerpt(text) or "no error message in the response"
    hint = status_hint(status)
    full = f"{message.rstrip('.')}. {hint}" if hint else message
    cls = status_error_class(status)
    return cls(status, full, method=method, path=path, request_id=request_id, code=code)


class Transport:
    """Send requests to one API with retries, rate-limit waits and redaction.

    Parameters
    ----------
    base_url : str
        Every request path is relative to it, e.g. ``"https://api.gitbook.com/v1"``.
    credential : Secret or None
        The token or key. None makes every request raise AuthenticationError.
    timeout : Timeout
        Connect and read timeouts.
    retry : RetryPolicy
        When to retry and how long to wait.
    session : requests.Session, optional
        A session to use instead of a new pooled one (e.g. with proxies configured).
    headers : Mapping[str, str], optional
        Extra headers sent with every request.
    auth_header, auth_prefix : str
        How the credential is sent: ``Authorization: Bearer <token>`` by default.
    error_parser : callable
        Maps ``(status, body, text, method=, path=, request_id=)`` to an exception or None.
    missing_credential : str
        The message of the AuthenticationError raised when no credential was given.
    user_agent : str
        The User-Agent header.
    """

    def __init__(
        self,
        base_url: str,
        *,
        credential: Secret | None,
        timeout: Timeout,
        retry: RetryPolicy,
        session: requests.Session | None = None,
        headers: Mapping[str, str] | None = None,
        auth_header: str = "Authorization",
        auth_prefix: str = "Bearer ",
        error_parser: ErrorParser = parse_platform_error,
        missing_credential: str = "No credential was given.",
        user_agent: str = "docsapi",
    ) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"base_url must be an http(s) URL, got {base_url!r}")
        self.base_url = base_url.rstrip("/")
        self._origin = _origin(self.base_url)
        self._credential = credential
        if credential is not None:
            register_secret(credential)
        install_log_redaction()
        self.timeout = timeout
        self.retry = retry
        self._session = session if session is not None else _pooled_session()
        self._owns_session = session is None
        self._headers = {"User-Agent": user_agent, "Accept": "application/json"}
        self._headers.update(headers or {})
        self._auth_header = auth_header
        self._auth_prefix = auth_prefix
        self._error_parser = error_parser
        self._missing_credential = missing_credential
        self._gate = RateGate()
        self._count_lock = threading.Lock()
        self.request_count = 0
        #: The most recent attempts (bounded), for teaching and troubleshooting.
        self.history: deque[RequestRecord] = deque(maxlen=5000)

    def __repr__(self) -> str:
        has = "set" if self._credential is not None else "missing"
        return f"Transport(base_url={self.base_url!r}, credential={has})"

    # -- public -------------------------------------------------------------------------

    def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        json: Any = None,
        headers: Mapping[str, str] | None = None,
    ) -> Response:
        """Send one request, retrying per the policy, and decode its JSON answer.

        Parameters
        ----------
        method : str
            The HTTP method.
        path : str
            Relative to the base URL, starting with ``/``; segments already quoted.
        params : Mapping, optional
            Query parameters; None values are left out.
        json : Any, optional
            A JSON body.
        headers : Mapping[str, str], optional
            Headers for this request only (the credential header cannot be replaced).

        Returns
        -------
        Response

        Raises
        ------
        AuthenticationError
            No credential was given, or the server refused it.
        APIStatusError
            Any other error status, as its most specific subclass.
        APIConnectionError
            The request failed on the way and was not retried (or retries ran out).
        ResponseFormatError
            The body was not the JSON the API promises.
        """
        method = method.upper()
        if self._credential is None:
            raise AuthenticationError(401, self._missing_credential, method=method, path=path)
        query = {k: v for k, v in (params or {}).items() if v is not None}
        attempt, slept = 0, 0.0
        while True:
            waited = slept + self._gate.acquire(self.retry.max_rate_limit_wait)
            started = time.time()
            status = None
            try:
                try:
                    response = self._attempt(method, path, query, json, headers)
                finally:
                    self._gate.release()
                status = response.status_code
                self._gate.update(response.headers)
                result = self._decode(method, path, response)
            except DocsAPIError as exc:
                self._record(method, path, status, started, waited, attempt, type(exc).__name__)
                delay = self._retry_delay(method, exc, attempt)
                if delay is None:
                    raise
                self._sleep(delay, method, path, exc)
                attempt, slept = attempt + 1, delay
                continue
            self._record(method, path, result.status, started, waited, attempt, "ok")
            return result

    def paginate(
        self,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        limit: int | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Iterator[Any]:
        """Yield every item of a List endpoint, following ``next.page`` cursors.

        Parameters
        ----------
        path : str
            A List endpoint, relative to the base URL.
        params : Mapping, optional
            Query parameters sent with every page.
        limit : int, optional
            Page size asked of the server.
        headers : Mapping[str, str], optional
            Headers sent with every page.

        Raises
        ------
        PaginationError
            The server sent a cursor it had sent before.
        """
        query = dict(params or {})
        if limit is not None:
            query["limit"] = limit
        seen: set[str] = set()
        while True:
            data = self.request("GET", path, params=query, headers=headers).data
            if not isinstance(data, Mapping) or not isinstance(data.get("items"), list):
                raise ResponseFormatError(
                    f"GET {path} did not answer a list envelope with 'items'; "
                    "is this a List endpoint?"
                )
            yield from data["items"]
            cursor = (data.get("next") or {}).get("page")
            if not cursor:
                return
            if cursor in seen:
                raise PaginationError(
                    f"GET {path} sent page cursor {cursor!r} twice; stopped to avoid an "
                    "endless loop. The server's pagination is inconsistent: try again later."
                )
            seen.add(cursor)
            query["page"] = cursor

    def close(self) -> None:
        """Close the pooled connections (only those of a session this transport made)."""
        if self._owns_session:
            self._session.close()

    # -- one attempt ----------------------------------------------------------------------

    def _attempt(
        self,
        method: str,
        path: str,
        query: Mapping[str, Any],
        body: Any,
        extra_headers: Mapping[str, str] | None = None,
    ) -> requests.Response:
        """Send the request, following redirects by hand so credentials never leave the origin."""
        url = self.base_url + path
        with self._count_lock:
            self.request_count += 1
        for _ in range(_MAX_REDIRECTS + 1):
            response = self._send(method, url, query, body, path, extra_headers)
            location = response.headers.get("Location")
            if response.status_code not in _REDIRECT_STATUSES or not location:
                return response
            response.close()
            url = urljoin(url, location)
            query = {}
            if response.status_code == 303 or (
                response.status_code in (301, 302) and method == "POST"
            ):
                method, body = "GET", None
        raise APIConnectionError(
            f"{method} {path}: more than {_MAX_REDIRECTS} redirects; check base_url.",
            method=method,
            path=path,
        )

    def _send(
        self,
        method: str,
        url: str,
        query: Mapping[str, Any],
        body: Any,
        path: str,
        extra_headers: Mapping[str, str] | None = None,
    ) -> requests.Response:
        headers = dict(self._headers)
        for name, value in (extra_headers or {}).items():
            if name.lower() != self._auth_header.lower():
                headers[name] = value
        if _origin(url) == self._origin and self._credential is not None:
            headers[self._auth_header] = self._auth_prefix + self._credential.reveal()
        if body is not None:
            headers["Content-Type"] = "application/json"
        data = None if body is None else jsonlib.dumps(body).encode()
        try:
            response = self._session.request(
                method,
                url,
                params=query or None,
                data=data,
                headers=headers,
                timeout=self.timeout.as_requests(),
                allow_redirects=False,
            )
            response.content  # read the whole body now so a broken transfer fails here  # noqa: B018
            return response
        except requests.ConnectTimeout:
            raise self._connection_error(
                APITimeoutError,
                method,
                path,
                "could not connect within "
                f"{self.timeout.connect:g} s; check the network and base_url",
                reached=False,
            ) from None
        except requests.ReadTimeout:
            raise self._connection_error(
                APITimeoutError,
                method,
                path,
                f"no answer within {self.timeout.read:g} s; "
                "the server may still be processing it (outcome unknown)",
                reached=True,
            ) from None
        except (requests.exceptions.ChunkedEncodingError, requests.exceptions.ContentDecodingError):
            raise self._connection_error(
                APIConnectionError,
                method,
                path,
                "the answer was cut short in transit (outcome unknown)",
                reached=True,
            ) from None
        except requests.ConnectionError as exc:
            reached = not _is_connect_failure(exc)
            reason = (
                (
                    "the connection was lost after the request was sent; the outcome is "
                    "unknown, check the resource before trying again"
                )
                if reached
                else ("could not connect; check the network and base_url")
            )
            raise self._connection_error(
                APIConnectionError, method, path, reason, reached=reached
            ) from None
        except requests.RequestException as exc:
            raise APIConnectionError(
                f"{method} {path}: {type(exc).__name__}: {scrub(str(exc))}",
                method=method,
                path=path,
            ) from None

    @staticmethod
    def _connection_error(
        cls: type[APIConnectionError], method: str, path: str, reason: str, *, reached: bool
    ) -> APIConnectionError:
        error = cls(f"{method} {path}: {reason}.", method=method, path=path)
        error.retryable = True
        error.unprocessed = not reached
        return error

    # -- decoding ---------------------------------------------------------------------------

    def _decode(self, method: str, path: str, response: requests.Response) -> Response:
        status = response.status_code
        text = ""
        body: Any = None
        if response.content and status not in (204, 205):
            ctype = response.headers.get("Content-Type", "")
            text = response.text
            if "json" in ctype or text.lstrip()[:1] in ("{", "["):
                try:
                    body = jsonlib.loads(text)
                except ValueError:
                    if status < 400:
                        raise ResponseFormatError(
                            f"{method} {path}: the server sent invalid JSON (status {status}): "
                            f"{_excerpt(text)!r}",
                            status=status,
                            truncated="json" in ctype,
                        ) from None
            elif status < 400:
                raise ResponseFormatError(
                    f"{method} {path}: expected JSON but got {ctype or 'no content type'} "
                    f"(status {status}): {_excerpt(text)!r}. Is base_url the API's address "
                    "(it ends in /v1)?",
                    status=status,
                )
        request_id = next(
            (response.headers[h] for h in _REQUEST_ID_HEADERS if h in response.headers), None
        )
        error = self._error_parser(
            status, body, text, method=method, path=path, request_id=request_id
        )
        if error is not None:
            if isinstance(error, RateLimitError) and error.reset_at is None:
                wait = _rate_limit_wait(response.headers)
                if wait is not None:
                    error.reset_at = datetime.fromtimestamp(time.time() + wait, tz=UTC)
            raise error
        return Response(status, response.headers, body, method, path)

    # -- retries ----------------------------------------------------------------------------

    def _retry_delay(self, method: str, exc: DocsAPIError, attempt: int) -> float | None:
        """Seconds to wait before the next attempt, or None to raise ``exc`` now."""
        if not self.retry.may_retry(
            method, surely_unprocessed=exc.unprocessed, transient=exc.retryable
        ):
            return None
        if isinstance(exc, RateLimitError):
            wait = None
            if exc.reset_at is not None:
                wait = max(0.0, exc.reset_at.timestamp() - time.time())
            if wait is not None and wait > self.retry.max_rate_limit_wait:
                exc.add_detail(
                    f"The limit resets in {wait:.0f} s, longer than max_rate_limit_wait="
                    f"{self.retry.max_rate_limit_wait:g} s: wait, or raise that setting."
                )
                return None
            if attempt >= self.retry.max_retries:
                return None
            return wait if wait is not None else self.retry.backoff_delay(attempt)
        if attempt >= self.retry.max_retries:
            return None
        return self.retry.backoff_delay(attempt)

    def _sleep(self, delay: float, method: str, path: str, exc: DocsAPIError) -> None:
        logger.info(
            "%s %s failed (%s); retrying in %.2f s", method, path, type(exc).__name__, delay
        )
        time.sleep(delay)

    def _record(
        self,
        method: str,
        path: str,
        status: int | None,
        started: float,
        waited: float,
        attempt: int,
        outcome: str,
    ) -> None:
        elapsed = time.time() - started
        self.history.append(
            RequestRecord(method, path, status, started, elapsed, waited, attempt, outcome)
        )
        logger.debug(
            "%s %s -> %s in %.1f ms (attempt %d)",
            method,
            path,
            status if status is not None else outcome,
            elapsed * 1000,
            attempt + 1,
        )


def _pooled_session() -> requests.Session:
    """A session that keeps enough connections for a pool of audit threads."""
    session = requests.Session()
    adapter = requests.adapters.HTTPAdapter(pool_connections=4, pool_maxsize=POOL_MAXSIZE)
    session.mount("https://", adapter)
    session.mount("http://", adapter)
    return session


def _rate_limit_wait(headers: Mapping[str, str]) -> float | None:
    """Seconds a 429 asks to wait: ``Retry-After``, else ``X-RateLimit-Reset`` minus now."""
    retry_after = headers.get("Retry-After")
    if retry_after is not None:
        try:
            return max(0.0, float(retry_after))
        except ValueError:
            pass  # an HTTP date: fall back to the reset header
    reset = rate_limit_reset(headers)
    if reset is not None:
        return max(0.0, reset.timestamp() - time.time())
    return None


def _is_connect_failure(exc: requests.ConnectionError) -> bool:
    """True when the connection was never established, so the request never left."""
    reason = exc.args[0] if exc.args else None
    if isinstance(reason, MaxRetryError):
        reason = reason.reason
    return isinstance(reason, NewConnectionError | ConnectTimeoutError)


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urlsplit(url)
    default = {"http": 80, "https": 443}.get(parts.scheme)
    return (parts.scheme, (parts.hostname or "").lower(), parts.port or default)


def _excerpt(text: str) -> str:
    flat = re.sub(r"\s+", " ", text).strip()
    flat = scrub(flat)
    return flat[:_EXCERPT_CHARS] + ("…" if len(flat) > _EXCERPT_CHARS else "")
