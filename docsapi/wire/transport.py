"""The wire layer's policy: retries, rate-limit waits, decoding, errors, pagination, history.

Sending bytes is :mod:`docsapi.wire.sender`'s job (the only module that imports ``requests``);
this module decides what to send, when to try again, how long to wait and what an answer
means. Time comes from an injected :class:`~docsapi.core.clock.Clock`, so tests can run
retries and rate limits on a fake clock. Resources above this layer see
:class:`Response` objects and docsapi exceptions only.

With a cache (``cache=`` on the client), a GET is first looked up in it: a fresh answer is
returned without waiting for the rate-limit budget or sending anything, and is recorded in
the history with ``from_cache=True``. Every attempt of a write (any other method) tells the
cache which answers it may have changed (:func:`docsapi.wire.cache.stale_scopes`).

Errors are built where they are found but raised from :meth:`Transport.request` (and
:meth:`Transport.paginate`), outside any ``except`` block: no exception of ``requests``
(whose request holds the credential header) is ever chained to a docsapi error, and the
frames of a traceback hold no response text.
"""

from __future__ import annotations

import functools
import hashlib
import json as jsonlib
import logging
import re
import secrets
import threading
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from types import ModuleType
from typing import TYPE_CHECKING, Any, NamedTuple
from urllib.parse import quote, urljoin, urlsplit

from docsapi.core.checks import (
    check_api_path,
    check_headers,
    check_http_method,
    check_json_body,
    check_params,
)
from docsapi.core.clock import SYSTEM_CLOCK, Clock
from docsapi.core.config import ReadBounds, RetryPolicy, Timeout
from docsapi.core.redact import excerpt, register_secret, scrub
from docsapi.core.reprs import safe_display
from docsapi.core.secret import Secret
from docsapi.core.values import Value
from docsapi.errors import (
    APIConnectionError,
    APITimeoutError,
    DocsAPIError,
    MissingCredentialError,
    PaginationError,
    RateLimitError,
    ReadBoundError,
    ResponseFormatError,
    ValidationError,
    status_error_class,
    status_hint,
)
from docsapi.wire.log_redaction import install_log_redaction
from docsapi.wire.ratelimit import RateGate, as_datetime, rate_limit_wait
from docsapi.wire.sender import (
    CredentialAuth,
    FailureKind,
    RawResponse,
    Sender,
    SendFailure,
    Session,
    origin,
)

if TYPE_CHECKING:
    from docsapi.wire.cache import CacheSettings, ResponseCache

__all__ = [
    "ErrorParser",
    "RequestRecord",
    "Response",
    "SeenDigests",
    "Session",
    "Transport",
    "parse_platform_error",
    "quote_segment",
]

logger = logging.getLogger("docsapi.http")

_REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
_MAX_REDIRECTS = 5
_REQUEST_ID_HEADERS = ("x-request-id", "x-gitbook-request-id", "cf-ray")

#: How far each kind of failure got, and what to tell the user.
_FAILURES: dict[FailureKind, tuple[type[APIConnectionError], str]] = {
    FailureKind.CONNECT_FAILED: (
        APIConnectionError,
        "could not connect; check the network and base_url",
    ),
    FailureKind.CONNECT_TIMEOUT: (
        APITimeoutError,
        "could not connect within {connect:g} s; check the network and base_url",
    ),
    FailureKind.READ_TIMEOUT: (
        APITimeoutError,
        "no answer within {read:g} s; the server may still be processing it (outcome unknown)",
    ),
    FailureKind.CONNECTION_LOST: (
        APIConnectionError,
        "the connection was lost after the request was sent; the outcome is unknown, "
        "check the resource before trying again",
    ),
    FailureKind.TRUNCATED: (
        APIConnectionError,
        "the answer was cut short in transit (outcome unknown)",
    ),
    FailureKind.OTHER: (APIConnectionError, "{detail}"),
}


class Response(Value):
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

    _fields = ("status", "headers", "data", "method", "path")
    __slots__ = _fields
    status: int
    headers: Mapping[str, str]
    data: Any
    method: str
    path: str

    def __init__(
        self, status: int, headers: Mapping[str, str], data: Any, method: str, path: str
    ) -> None:
        self._init(status=status, headers=headers, data=data, method=method, path=path)

    @safe_display
    def __repr__(self) -> str:
        return scrub(f"Response({self.status} {self.method} {self.path})")


class RequestRecord(NamedTuple):
    """One attempt, kept in :attr:`Transport.history` to make retries and waits visible.

    ``started`` is a Unix time; ``elapsed`` the seconds the attempt took; ``waited`` the
    seconds slept before it (backoff, ``Retry-After`` or an exhausted rate-limit budget);
    ``attempt`` counts from 0; ``outcome`` is ``"ok"`` or the error's class name;
    ``from_cache`` is True when the answer came from the client's cache (nothing was sent).
    """

    method: str
    path: str
    status: int | None
    started: float
    elapsed: float
    waited: float
    attempt: int
    outcome: str
    from_cache: bool = False


#: ``(status, body, text, method=, path=, request_id=, headers=) -> exception or None``
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
    status: int,
    body: Any,
    text: str,
    *,
    method: str,
    path: str,
    request_id: str | None,
    headers: Mapping[str, str] | None = None,
) -> DocsAPIError | None:
    """Map a documentation-platform answer to an exception, or None for a success.

    The API's error body is ``{"error": {"code": ..., "message": ...}}``.

    Examples
    --------
    >>> error = parse_platform_error(
    ...     404, {"error": {"code": 404, "message": "Not found"}}, "",
    ...     method="GET", path="/spaces/x", request_id="r1")
    >>> type(error).__name__, error.body["error"]["message"]
    ('NotFoundError', 'Not found')
    """
    if status < 400:
        return None
    message, code = "", None
    if isinstance(body, Mapping) and isinstance(body.get("error"), Mapping):
        message = str(body["error"].get("message") or "")
        code = body["error"].get("code")
    if not message:
        message = excerpt(text) or "no error message in the response"
    hint = status_hint(status)
    full = f"{message.rstrip('.')}. {hint}" if hint else message
    cls = status_error_class(status)
    return cls(
        status,
        full,
        method=method,
        path=path,
        request_id=request_id,
        code=code if isinstance(code, str | int) and not isinstance(code, bool) else None,
        body=body,
        headers=headers,
    )


class Transport:
    """Send requests to one API with retries, rate-limit waits and redaction.

    Parameters
    ----------
    base_url : str
        Every request path is relative to it, e.g. ``"https://api.gitbook.com/v1"``.
    credential : Secret or None
        The token or key. None makes every request raise
        :class:`~docsapi.errors.MissingCredentialError` without sending anything.
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
        Maps ``(status, body, text, method=, path=, request_id=, headers=)`` to an
        exception or None.
    missing_credential : str
        The message of the error raised when no credential was found.
    user_agent : str
        The User-Agent header.
    clock : Clock
        Where time is read and waited (backoff, ``Retry-After``, rate-limit budget), and
        the age of cached answers measured.
    cache : CacheSettings, optional
        Keep answers to GET requests in this cache; writes drop what they may change.

    Examples
    --------
    >>> Transport("https://api.example.com/v1", credential=None, timeout=Timeout(),
    ...           retry=RetryPolicy())
    Transport(base_url='https://api.example.com/v1', credential=missing)
    """

    def __init__(
        self,
        base_url: str,
        *,
        credential: Secret | None,
        timeout: Timeout,
        retry: RetryPolicy,
        session: Session | None = None,
        headers: Mapping[str, str] | None = None,
        auth_header: str = "Authorization",
        auth_prefix: str = "Bearer ",
        error_parser: ErrorParser = parse_platform_error,
        missing_credential: str = "No credential was given.",
        user_agent: str = "docsapi",
        clock: Clock = SYSTEM_CLOCK,
        cache: CacheSettings | None = None,
    ) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValidationError("base_url", f"must be an http(s) URL, got {base_url!r}")
        if session is not None and not isinstance(session, Session):
            raise ValidationError(
                "session", f"must be a requests.Session, got {type(session).__name__}"
            )
        self.base_url = base_url.rstrip("/")
        self._auth: CredentialAuth | None = None
        if credential is not None:
            register_secret(credential)
            self._auth = CredentialAuth(
                credential, self.base_url, header=auth_header, prefix=auth_prefix
            )
        install_log_redaction()
        self.timeout = timeout
        self.retry = retry
        self.clock = clock
        self._headers = {"User-Agent": user_agent, "Accept": "application/json"}
        extra = check_headers(headers, reserved=(auth_header,))
        self._headers.update(extra)
        self._auth_header = auth_header
        self.sender = Sender(session, cache=cache, credential_header=auth_header, clock=clock)
        self._error_parser = error_parser
        self._missing_credential = missing_credential
        self._gate = RateGate(clock)
        self._count_lock = threading.Lock()
        #: Requests sent (answers from the cache are not counted).
        self.request_count = 0
        #: The most recent attempts (bounded), for teaching and troubleshooting.
        self.history: deque[RequestRecord] = deque(maxlen=5000)

    @safe_display
    def __repr__(self) -> str:
        has = "set" if self._auth is not None else "missing"
        return f"Transport(base_url={self.base_url!r}, credential={has})"

    @property
    def cache(self) -> ResponseCache | None:
        """The cache of GET answers, or None when the client has none."""
        return self.sender.cache

    # -- public -------------------------------------------------------------------------

    def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        json: Any = None,
        headers: Mapping[str, str] | None = None,
        shape: Any = None,
    ) -> Response:
        """Send one request, retrying per the policy, and decode its JSON answer.

        Parameters
        ----------
        method : str
            The HTTP method.
        path : str
            Relative to the base URL, starting with ``/``; segments already quoted. Dot
            segments and separators (also percent-encoded or NFKC-normalised: ``%2e%2e``,
            ``..%2F``, ``..%3B``, ``‥``) are refused, so a request never leaves the base URL
            (see :func:`~docsapi.core.checks.check_api_path`).
        params : Mapping, optional
            Query parameters; None values are left out.
        json : Any, optional
            A JSON body.
        headers : Mapping[str, str], optional
            Headers for this request only (not the one carrying the credential). A GET with
            such headers is not answered from the cache.
        shape : type, optional
            A msgspec type to decode a successful answer into (e.g. from
            :func:`docsapi.data.shapes.page_shape`): only its fields are built. An answer
            that does not fit it is decoded as plain JSON, as without ``shape``.

        Returns
        -------
        Response

        Raises
        ------
        ValidationError
            A bad method, path, query or body; nothing was sent.
        MissingCredentialError
            No credential was found; nothing was sent.
        APIStatusError
            Any error status, as its most specific subclass.
        APIConnectionError
            The request failed on the way and was not retried (or retries ran out).
        ResponseFormatError
            The body was not the JSON the API promises.
        """
        method = check_http_method(method)
        path = check_api_path(path)
        query = check_params(params)
        body = check_json_body(json)
        extra = check_headers(headers, reserved=(self._auth_header,))
        if self._auth is None:
            raise MissingCredentialError(self._missing_credential, method=method, path=path)
        if method == "GET" and self.sender.cache is not None:
            cached = self._from_cache(method, path, query, extra, shape)
            if cached is not None:
                return cached
        attempt, slept = 0, 0.0
        while True:
            waited = slept + self._gate.acquire(self.retry.max_rate_limit_wait)
            began, started = self.clock.time(), self.clock.monotonic()
            outcome, status, from_cache = self._exchange(method, path, query, body, extra, shape)
            elapsed = self.clock.monotonic() - started
            if self.sender.cache is not None:
                self.sender.cache.invalidate(method, self.base_url, path)
            name = "ok" if isinstance(outcome, Response) else type(outcome).__name__
            self._record(
                RequestRecord(
                    method, path, status, began, elapsed, waited, attempt, name, from_cache
                )
            )
            if isinstance(outcome, Response):
                return outcome
            delay = self._retry_delay(method, outcome, attempt)
            if delay is None:
                query = body = params = json = None  # the raising frame keeps no request data
                raise outcome
            logger.info(
                "%s %s failed (%s); retrying in %.2f s", method, path, type(outcome).__name__, delay
            )
            self.clock.sleep(delay)
            attempt, slept = attempt + 1, delay

    def paginate(
        self,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        limit: int | None = None,
        key: tuple[str, ...] | None = None,
        headers: Mapping[str, str] | None = None,
        shape: Any = None,
        bounds: ReadBounds | None = None,
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
        key : tuple of str, optional
            Where an item's id is, e.g. ``("id",)`` or ``("user", "id")``: an item whose
            id was already yielded is skipped (a server whose pages shift while the list
            changes repeats items). Items without an id at that place are all yielded.
        headers : Mapping[str, str], optional
            Headers sent with every page.
        shape : type, optional
            The msgspec type of a page (see :meth:`request`); its items are yielded.
        bounds : ReadBounds, optional
            How many pages and items, and how long, the read may go on (default:
            ``ReadBounds()``); checked before each next page.

        Raises
        ------
        ResponseFormatError
            An answer that is not a list envelope ``{"items": [...]}``.
        PaginationError
            The server sent a cursor it had sent before.
        ReadBoundError
            The read reached one of its bounds and the server still sent a next cursor
            (the items before it were yielded).
        """
        query = dict(check_params(params) or {})
        if limit is not None:
            query["limit"] = limit
        bounds = _DEFAULT_BOUNDS if bounds is None else bounds
        cursors = SeenDigests()  # digests only: a server may echo anything as a cursor
        ids = SeenDigests()  # ... or as an item's id
        data: Any = None
        cursor: str | None = None
        pages = items = 0
        started = self.clock.monotonic()
        while True:
            try:
                data = self.request("GET", path, params=query, headers=headers, shape=shape).data
            except DocsAPIError:
                # Keep what the server sent (a cursor may echo anything) out of this frame.
                query.clear()
                data = cursor = None
                raise
            if not isinstance(data, Mapping) or not isinstance(data.get("items"), list):
                raise ResponseFormatError(
                    f"GET {path} did not answer a list envelope with 'items' (got "
                    f"{_kind(data)}); is this a List endpoint?"
                )
            pages += 1
            items += len(data["items"])
            yield from _unseen(data["items"], key, ids)
            try:
                cursor = _cursor(data, path)
            except ResponseFormatError:
                query.clear()
                data = None
                raise
            if cursor is None:
                return
            reached = _reached(bounds, pages, items, self.clock.monotonic() - started)
            if reached is not None:
                query.clear()
                cursor = data = None
                raise reached.error(path)
            if not cursors.add(cursor):
                query.clear()
                cursor = data = None
                raise PaginationError(
                    f"GET {path} sent the same page cursor twice ({len(cursors) + 1} pages "
                    "read; the cursor is not shown: a server may echo anything in it); stopped "
                    "to avoid an endless loop. The server's pagination is inconsistent: try "
                    "again later."
                )
            query["page"] = cursor

    def close(self) -> None:
        """Close the pooled connections (only those of a session this transport made)."""
        self.sender.close()

    # -- one attempt ----------------------------------------------------------------------

    def _from_cache(
        self,
        method: str,
        path: str,
        query: Mapping[str, Any] | None,
        extra_headers: Mapping[str, str],
        shape: Any,
    ) -> Response | None:
        """A fresh cached answer to the GET, recorded in the history; None to send it."""
        began, started = self.clock.time(), self.clock.monotonic()
        raw = self.sender.lookup(
            self.base_url + path,
            params=query,
            headers={**self._headers, **extra_headers},
            timeout=self.timeout.as_requests(),
            auth=self._auth,
        )
        if raw is None:
            return None
        outcome = self._decode(method, path, raw, shape)
        if not isinstance(outcome, Response):
            return None
        elapsed = self.clock.monotonic() - started
        self._record(RequestRecord(method, path, raw.status, began, elapsed, 0.0, 0, "ok", True))
        return outcome

    def _exchange(
        self,
        method: str,
        path: str,
        query: Mapping[str, Any] | None,
        body: bytes | None,
        extra_headers: Mapping[str, str],
        shape: Any,
    ) -> tuple[Response | DocsAPIError, int | None, bool]:
        """One attempt: the decoded answer or the error it amounts to, the status, and
        whether the answer came from the cache."""
        with self._count_lock:
            self.request_count += 1
        try:
            raw = self._send_following_redirects(method, path, query, body, extra_headers)
        except SendFailure as failure:
            return self._failure_error(method, path, failure), None, False
        finally:
            self._gate.release()
        if isinstance(raw, DocsAPIError):
            return raw, None, False
        if not raw.from_cache:  # a cached answer's rate-limit headers are out of date
            self._gate.update(raw.headers)
        return self._decode(method, path, raw, shape), raw.status, raw.from_cache

    def _send_following_redirects(
        self,
        method: str,
        path: str,
        query: Mapping[str, Any] | None,
        body: bytes | None,
        extra_headers: Mapping[str, str],
    ) -> RawResponse | DocsAPIError:
        """Send, following redirects by hand; the credential only goes to its own origin."""
        url = self.base_url + path
        for _ in range(_MAX_REDIRECTS + 1):
            headers = {**self._headers, **extra_headers}
            if body is not None:
                headers["Content-Type"] = "application/json"
            raw = self.sender.send(
                method,
                url,
                params=query,
                body=body,
                headers=headers,
                timeout=self.timeout.as_requests(),
                auth=self._auth,
            )
            location = raw.headers.get("Location")
            if raw.status not in _REDIRECT_STATUSES or not location:
                return raw
            url = urljoin(url, location)
            if origin(url)[0] not in ("http", "https"):
                break
            query = None
            if raw.status == 303 or (raw.status in (301, 302) and method == "POST"):
                method, body = "GET", None
        return APIConnectionError(
            f"{method} {path}: more than {_MAX_REDIRECTS} redirects or a redirect to a "
            "non-HTTP address; check base_url.",
            method=method,
            path=path,
            transient=False,
        )

    def _failure_error(self, method: str, path: str, failure: SendFailure) -> APIConnectionError:
        cls, reason = _FAILURES[failure.kind]
        text = reason.format(
            connect=self.timeout.connect, read=self.timeout.read, detail=failure.detail
        )
        return cls(
            f"{method} {path}: {text}.",
            method=method,
            path=path,
            reached=failure.kind.reached,
            transient=failure.kind is not FailureKind.OTHER,
        )

    # -- decoding ---------------------------------------------------------------------------

    def _decode(
        self, method: str, path: str, raw: RawResponse, shape: Any = None
    ) -> Response | DocsAPIError:
        status = raw.status
        text = ""
        body: Any = None
        if raw.content and status not in (204, 205):
            ctype = raw.headers.get("Content-Type", "")
            text = raw.text
            if "json" in ctype or text.lstrip()[:1] in ("{", "["):
                body, valid = _parse_json(raw.content, text, raw.encoding, shape)
                if not valid and status < 400:
                    return ResponseFormatError(
                        f"{method} {path}: the server sent invalid JSON (status {status}): "
                        f"{excerpt(text)!r}",
                        status=status,
                        truncated="json" in ctype,
                    )
            elif status < 400:
                return ResponseFormatError(
                    f"{method} {path}: expected JSON but got {ctype or 'no content type'} "
                    f"(status {status}): {excerpt(text)!r}. Is base_url the API's address?",
                    status=status,
                )
        request_id = next((raw.headers[h] for h in _REQUEST_ID_HEADERS if h in raw.headers), None)
        error = self._error_parser(
            status,
            body,
            text,
            method=method,
            path=path,
            request_id=request_id,
            headers=raw.headers,
        )
        if error is None:
            return Response(status, raw.headers, body, method, path)
        if isinstance(error, RateLimitError) and error.reset_at is None:
            now = self.clock.time()
            wait = rate_limit_wait(raw.headers, now)
            if wait is not None:
                error.reset_at = as_datetime(now + wait)
        return error

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
                wait = max(0.0, exc.reset_at.timestamp() - self.clock.time())
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

    def _record(self, record: RequestRecord) -> None:
        self.history.append(record)
        logger.debug(
            "%s %s -> %s in %.1f ms (attempt %d%s)",
            record.method,
            record.path,
            record.status if record.status is not None else record.outcome,
            record.elapsed * 1000,
            record.attempt + 1,
            ", from the cache" if record.from_cache else "",
        )


#: The charsets whose bytes msgspec decodes as they are (JSON is UTF-8 unless declared).
_UTF8 = frozenset({None, "utf-8", "utf8", "UTF-8", "UTF8"})
#: msgspec decoders by shape (None: plain JSON); msgspec loads with the first answer, so
#: ``from docsapi import DocsClient`` stays as light as ``import requests``.
_DECODERS: dict[Any, Callable[[bytes], Any]] = {}


@functools.cache
def _msgspec() -> ModuleType:
    import msgspec.json

    return msgspec


def _decoder(shape: Any) -> Callable[[bytes], Any]:
    found = _DECODERS.get(shape)
    if found is None:
        found = _DECODERS.setdefault(shape, _msgspec().json.Decoder(shape).decode)
    return found


def _parse_json(
    content: bytes, text: str, encoding: str | None, shape: Any = None
) -> tuple[Any, bool]:
    """``(value, True)`` for valid JSON, ``(None, False)`` otherwise (never raises).

    UTF-8 bytes are decoded by msgspec (about half the CPU time of :func:`json.loads`,
    integers of any size kept exact), into ``shape`` when given and the body fits it,
    else as plain JSON. What msgspec refuses, and a body in another declared charset, is
    decoded from ``text`` by :func:`json.loads` as before, so a body is accepted, and
    decoded to the same values, as :func:`json.loads` would (``NaN``, numbers beyond a
    double's range, undecodable bytes replaced by U+FFFD), except that a lone surrogate
    escape (``"\\ud800"``) also becomes U+FFFD: every text the client returns can be
    written as UTF-8 (a page, a CSV, a workbook, a pandas string column).
    """
    if encoding in _UTF8:
        for kind in (shape, None) if shape is not None else (None,):
            try:
                return _decoder(kind)(content), True
            except (_msgspec().MsgspecError, UnicodeDecodeError, RecursionError):
                pass
    try:
        value = jsonlib.loads(text)
    except (ValueError, RecursionError):
        return None, False
    return (_without_surrogates(value) if _SURROGATE_ESCAPE.search(text) else value), True


#: A ``\u`` escape of a surrogate: the only way a JSON text can give a lone one.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _without_surrogates(value: Any) -> Any:
    """``value`` (decoded JSON) with every lone surrogate in its texts and keys replaced by
    U+FFFD, walked without recursion (a body can be nested as deep as json.loads allows)."""

    def clean(text: str) -> str:
        return _SURROGATE.sub("\ufffd", text)

    if isinstance(value, str):
        return clean(value)
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            for index, item in enumerate(node):
                if isinstance(item, str):
                    node[index] = clean(item)
                elif isinstance(item, list | dict):
                    stack.append(item)
        elif isinstance(node, dict):
            for key, item in list(node.items()):
                if isinstance(item, str):
                    item = clean(item)
                elif isinstance(item, list | dict):
                    stack.append(item)
                if _SURROGATE.search(key):
                    del node[key]
                    key = clean(key)
                node[key] = item
    return value


#: The longest page cursor sent back (a server's cursors are a few dozen characters).
_MAX_CURSOR = 2048
_CURSOR_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def _cursor(data: Mapping[str, Any], path: str) -> str | None:
    """The next page's cursor of a list envelope, or None on the last page.

    Raises
    ------
    ResponseFormatError
        A cursor that cannot be sent back: not a string or an integer, longer than
        2048 characters, or holding control characters (the server's fault, not the
        caller's; the message does not repeat it).
    """
    following = data.get("next")
    cursor = following.get("page") if isinstance(following, Mapping) else None
    if cursor is None or cursor == "":
        return None
    if isinstance(cursor, bool) or not isinstance(cursor, str | int):
        problem = f"{_kind(cursor)} instead of a string"
    elif isinstance(cursor, int):
        return str(cursor)
    elif len(cursor) > _MAX_CURSOR:
        problem = f"{len(cursor)} characters long"
    elif _CURSOR_CONTROL.search(cursor):
        problem = "holding control characters"
    else:
        return cursor
    raise ResponseFormatError(
        f"GET {path} sent a page cursor that cannot be sent back ({problem}); the server's "
        "pagination is broken: try again later."
    )


class SeenDigests:
    """The values seen so far, kept as keyed BLAKE2b digests, never as the values.

    What a server sends back as a page cursor or an item id may be anything, a credential
    it echoes included: a digest keeps it out of every repr and frame's locals, while
    telling a repeat apart. The key is random per instance, so a digest cannot be matched
    against a list of guesses.

    Examples
    --------
    >>> seen = SeenDigests()
    >>> seen.add("c1"), seen.add("c1"), seen.add(1), len(seen)
    (True, False, True, 2)
    """

    __slots__ = ("_digests", "_key")

    def __init__(self) -> None:
        self._key = secrets.token_bytes(16)
        self._digests: set[bytes] = set()

    def add(self, value: str | int) -> bool:
        """Remember ``value``; False when it was seen before (``1`` and ``"1"`` differ)."""
        text = f"{type(value).__name__}:{value}".encode("utf-8", "surrogatepass")
        digest = hashlib.blake2b(text, key=self._key, digest_size=16).digest()
        if digest in self._digests:
            return False
        self._digests.add(digest)
        return True

    def __len__(self) -> int:
        return len(self._digests)

    def __repr__(self) -> str:
        return f"<SeenDigests: {len(self._digests)} values>"


#: The bounds of a paged read that is given none.
_DEFAULT_BOUNDS = ReadBounds()

_BOUND_WORDS = {
    "pages": "its page bound of {limit:,} pages",
    "items": "its item bound of {limit:,} items",
    "seconds": "its time budget ({limit:.3g} s)",
}


class _Reached:
    """Which bound a read reached, and how far it had gone."""

    def __init__(self, bound: str, limit: float, pages: int, items: int, seconds: float) -> None:
        self.bound, self.limit = bound, limit
        self.pages, self.items, self.seconds = pages, items, seconds

    def error(self, path: str) -> ReadBoundError:
        words = _BOUND_WORDS[self.bound].format(limit=self.limit)
        return ReadBoundError(
            f"GET {path} stopped after {self.pages:,} pages ({self.items:,} items, "
            f"{self.seconds:,.1f} s): the read reached {words} and the server still sent a "
            f"next page. If the list is really that long, raise the bound "
            f"(ReadBounds({self.bound}=...)).",
            bound=self.bound,
            pages=self.pages,
            items=self.items,
            seconds=self.seconds,
        )


def _reached(bounds: ReadBounds, pages: int, items: int, seconds: float) -> _Reached | None:
    """The first bound of ``bounds`` a read has reached (pages, items, time); None if none."""
    for bound, done, limit in (
        ("pages", pages, bounds.pages),
        ("items", items, bounds.items),
        ("seconds", seconds, bounds.seconds),
    ):
        if done >= limit:
            return _Reached(bound, limit, pages, items, seconds)
    return None


def _unseen(items: list[Any], key: tuple[str, ...] | None, ids: SeenDigests) -> Iterator[Any]:
    """The items of one page whose id (at ``key``) was not yielded before; items without
    an id are all yielded. A generator of its own, so no item outlives its page in the
    frame of :meth:`Transport.paginate`."""
    if not key:
        yield from items
        return
    for item in items:
        item_id = _dig(item, key)
        if item_id is None or ids.add(item_id):
            yield item


def _dig(item: Any, key: tuple[str, ...]) -> str | int | None:
    """The id at ``key`` inside ``item`` when it is a string or an int, else None."""
    for name in key:
        if item.__class__ is not dict and not isinstance(item, Mapping):
            return None
        item = item.get(name)
    if item.__class__ is str or item.__class__ is int:  # the usual ids, checked fast
        return item
    return item if isinstance(item, str | int) and not isinstance(item, bool) else None


def _kind(value: Any) -> str:
    """A short description of a decoded body's type, for error messages."""
    if value is None:
        return "an empty body"
    names: dict[type, str] = {dict: "an object", list: "an array", str: "a string"}
    return names.get(type(value), type(value).__name__)
