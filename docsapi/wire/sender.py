"""Sending one HTTP request: the only module that imports ``requests``.

A :class:`Sender` turns ``(method, url, params, body bytes, headers, timeout, auth)`` into a
:class:`RawResponse` (status, headers, the whole body) or a :class:`SendFailure` naming
what went wrong on the way. It knows nothing of retries, rate limits, JSON or the API:
that policy lives in :mod:`docsapi.wire.transport`. The session is pluggable (any
:class:`requests.Session`), and a :class:`~docsapi.wire.cache.ResponseCache` may wrap it: then
:meth:`Sender.lookup` answers a GET from the cache without sending anything, and what
:meth:`Sender.send` receives is stored for next time.

The credential is attached by :class:`CredentialAuth` while ``requests`` prepares the
request, only when the URL is on the credential's own origin, so no frame of docsapi
holds it in a plain header dict and a redirect elsewhere never carries it.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import requests
from requests.auth import AuthBase
from urllib3.exceptions import ConnectTimeoutError, MaxRetryError, NewConnectionError

from docsapi.core.clock import SYSTEM_CLOCK, Clock
from docsapi.core.redact import scrub
from docsapi.core.reprs import safe_display
from docsapi.core.secret import Secret

if TYPE_CHECKING:
    from docsapi.wire.cache import CacheSettings, ResponseCache

__all__ = [
    "POOL_MAXSIZE",
    "CredentialAuth",
    "FailureKind",
    "RawResponse",
    "SendFailure",
    "Sender",
    "Session",
    "origin",
]

#: The session type callers may pass to a client (re-exported so no other module imports requests).
Session = requests.Session

#: Connections kept open per host: more than the audit's usual number of threads.
POOL_MAXSIZE = 32

Origin = tuple[str, str, int | None]


def origin(url: str) -> Origin:
    """The (scheme, host, port) a URL points at, default ports filled in.

    Examples
    --------
    >>> origin("https://API.example.com/v1/x")
    ('https', 'api.example.com', 443)
    """
    parts = urlsplit(url)
    default = {"http": 80, "https": 443}.get(parts.scheme)
    try:
        port = parts.port or default
    except ValueError:
        port = None
    return (parts.scheme, (parts.hostname or "").lower(), port)


class CredentialAuth(AuthBase):
    """Attach a credential header to requests bound for one origin, and to no other.

    Parameters
    ----------
    secret : Secret
        The token or key.
    base_url : str
        The API's address; only URLs with the same scheme, host and port get the header.
    header, prefix : str
        How the credential is written: ``Authorization: Bearer <token>`` by default.

    Examples
    --------
    >>> auth = CredentialAuth(Secret("k"), "https://api.example.com/v1")
    >>> auth
    CredentialAuth(origin='https://api.example.com:443', header='Authorization')
    """

    def __init__(
        self,
        secret: Secret,
        base_url: str,
        *,
        header: str = "Authorization",
        prefix: str = "Bearer ",
    ) -> None:
        self._secret = secret
        self._origin = origin(base_url)
        self._header = header
        self._prefix = prefix

    @property
    def header(self) -> str:
        """The header that carries the credential."""
        return self._header

    def __call__(self, request: requests.PreparedRequest) -> requests.PreparedRequest:
        if request.url is not None and origin(request.url) == self._origin:
            request.headers[self._header] = self._prefix + self._secret.reveal()
        else:
            request.headers.pop(self._header, None)
        return request

    @safe_display
    def __repr__(self) -> str:
        scheme, host, port = self._origin
        return f"CredentialAuth(origin='{scheme}://{host}:{port}', header={self._header!r})"


@dataclass(frozen=True, repr=False)
class RawResponse:
    """An answer as received (or as cached): status, headers and the whole body."""

    status: int
    headers: Mapping[str, str]
    content: bytes
    encoding: str | None
    from_cache: bool = False

    @property
    def text(self) -> str:
        """The body as text (the declared charset, else UTF-8; undecodable bytes replaced)."""
        return self.content.decode(self.encoding or "utf-8", errors="replace")

    def __repr__(self) -> str:
        cached = ", from cache" if self.from_cache else ""
        return f"RawResponse(status={self.status}, {len(self.content)} bytes{cached})"


class FailureKind(enum.Enum):
    """What went wrong on the way, and whether the request may have reached the server."""

    CONNECT_FAILED = "could not connect"
    CONNECT_TIMEOUT = "connect timeout"
    READ_TIMEOUT = "read timeout"
    CONNECTION_LOST = "connection lost after sending"
    TRUNCATED = "body cut short"
    OTHER = "other"

    @property
    def reached(self) -> bool:
        """Whether the request may have reached the server."""
        return self not in (
            FailureKind.CONNECT_FAILED,
            FailureKind.CONNECT_TIMEOUT,
            FailureKind.OTHER,
        )


class SendFailure(Exception):
    """A request that got no complete answer; it holds no request, headers or credential."""

    def __init__(self, kind: FailureKind, detail: str = "") -> None:
        self.kind = kind
        self.detail = detail
        super().__init__(f"{kind.value}{': ' + detail if detail else ''}")


class Sender:
    """Send one request over a pooled :class:`requests.Session` and read the whole answer.

    Parameters
    ----------
    session : requests.Session, optional
        The session to send with (proxies, certificates); it stays the caller's and is
        not closed by :meth:`close`. Without one, a pooled session is made.
    cache : CacheSettings, optional
        Keep answers to GET requests in this cache (see :mod:`docsapi.wire.cache`).
    credential_header : str
        The header that carries the credential, which the cache never stores.
    clock : Clock
        Measures the age of cached answers.

    Examples
    --------
    >>> sender = Sender()
    >>> sender.session.get_adapter("https://x")._pool_maxsize >= 16
    True
    >>> sender.close()
    """

    def __init__(
        self,
        session: requests.Session | None = None,
        *,
        cache: CacheSettings | None = None,
        credential_header: str = "Authorization",
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        self._owns_session = session is None
        self._base_session = session if session is not None else _pooled_session()
        self.cache: ResponseCache | None = None
        self._session = self._base_session
        #: What a failing cache raises (sqlite3 loads only for a client with a cache).
        self._cache_errors: tuple[type[Exception], ...] = ()
        #: What reading an answer from the cache may raise: then the request is sent instead.
        self._cache_read_errors: tuple[type[Exception], ...] = (
            requests.RequestException,
            ValueError,
            OSError,
        )
        #: The environment's proxy and certificate settings per origin (see _send_direct).
        self._environment: dict[tuple[object, ...], dict[str, Any]] = {}
        if cache is not None:
            import sqlite3

            from docsapi.wire.cache import ResponseCache

            self._cache_errors = (sqlite3.Error,)
            self._cache_read_errors += self._cache_errors
            self.cache = ResponseCache(
                cache,
                self._base_session,
                credential_header=credential_header,
                clock=clock,
            )
            self._session = self.cache.session

    @property
    def session(self) -> requests.Session:
        """The session requests go through (a caching one when there is a cache)."""
        return self._session

    def lookup(
        self,
        url: str,
        *,
        params: Mapping[str, Any] | None,
        headers: Mapping[str, str],
        timeout: tuple[float, float],
        auth: AuthBase | None,
    ) -> RawResponse | None:
        """The cached answer to ``GET url``, or None (no cache, not cached, or too old).

        Nothing is sent.
        """
        if self.cache is None:
            return None
        try:
            response = self.cache.session.request(
                "GET",
                url,
                params=params or None,
                headers=dict(headers),
                timeout=timeout,
                auth=auth,
                allow_redirects=False,
                only_if_cached=True,
            )
            if not self.cache.served(response):
                return None
            content = response.content
        except self._cache_read_errors:
            return None  # the request will be sent, and any real problem reported then
        return RawResponse(
            response.status_code, response.headers, content, response.encoding, from_cache=True
        )

    def send(
        self,
        method: str,
        url: str,
        *,
        params: Mapping[str, Any] | None,
        body: bytes | None,
        headers: Mapping[str, str],
        timeout: tuple[float, float],
        auth: AuthBase | None,
    ) -> RawResponse:
        """Send one request without following redirects; return the answer, body read.

        With a cache, an answer to a GET may come from it (``from_cache``), and a new
        200 answer to a GET is stored.

        Raises
        ------
        SendFailure
            No complete answer; ``.kind`` says how far the request got.
        """
        kind: FailureKind | None = None
        detail = ""
        epoch = self.cache.epoch if self.cache is not None else 0
        try:
            if self.cache is None:
                response = self._send_direct(method, url, params, body, headers, timeout, auth)
            else:
                response = self._session.request(
                    method,
                    url,
                    params=params or None,
                    data=body,
                    headers=dict(headers),
                    timeout=timeout,
                    auth=auth,
                    allow_redirects=False,
                )
            content = response.content  # read it all now, so a broken transfer fails here
            if self.cache is not None:
                self.cache.stored(response, epoch)
        except requests.ConnectTimeout:
            kind = FailureKind.CONNECT_TIMEOUT
        except requests.ReadTimeout:
            kind = FailureKind.READ_TIMEOUT
        except (requests.exceptions.ChunkedEncodingError, requests.exceptions.ContentDecodingError):
            kind = FailureKind.TRUNCATED
        except requests.ConnectionError as exc:
            connect = _is_connect_failure(exc)
            kind = FailureKind.CONNECT_FAILED if connect else FailureKind.CONNECTION_LOST
        except self._cache_errors as exc:
            kind = FailureKind.OTHER
            detail = (
                f"the response cache failed ({type(exc).__name__}: {exc}); delete "
                f"{self.cache.path if self.cache else 'its file'} or create the client "
                "without cache="
            )
        except (requests.RequestException, ValueError, OSError) as exc:
            kind, detail = FailureKind.OTHER, f"{type(exc).__name__}: {scrub(str(exc))}"
        # Raised here, outside the handlers, so no requests exception (whose request holds
        # the credential header) is chained to what the caller sees.
        if kind is not None:
            raise SendFailure(kind, detail)
        return RawResponse(
            response.status_code,
            response.headers,
            content,
            response.encoding,
            from_cache=bool(getattr(response, "from_cache", False)),
        )

    def _send_direct(
        self,
        method: str,
        url: str,
        params: Mapping[str, Any] | None,
        body: bytes | None,
        headers: Mapping[str, str],
        timeout: tuple[float, float],
        auth: AuthBase | None,
    ) -> requests.Response:
        """What ``session.request`` does, with the environment's settings read once per origin.

        ``requests`` re-reads the proxy variables (``*_PROXY``, ``NO_PROXY``) and the CA
        bundle variables on every request, scanning all of ``os.environ``: most of its own
        CPU time per request, held under the GIL. They are read here on the first request to
        each origin (as an ``httpx`` client reads them when it is created), together with the
        session's own proxies, ``verify`` and ``cert``; a change to those starts a new entry.
        """
        session = self._session
        prepared = session.prepare_request(
            requests.Request(
                method, url, headers=dict(headers), data=body, params=params or None, auth=auth
            )
        )
        parts = urlsplit(prepared.url or url)
        key = (
            parts.scheme,
            parts.netloc,
            session.trust_env,
            repr(session.proxies),
            repr(session.verify),
            repr(session.cert),
        )
        if key not in self._environment:
            self._environment[key] = dict(
                session.merge_environment_settings(prepared.url, {}, None, None, None)
            )
        settings = self._environment[key]
        return session.send(prepared, timeout=timeout, allow_redirects=False, **settings)

    def close(self) -> None:
        """Close the cache's files and the pooled connections (those of a session it made)."""
        if self.cache is not None:
            self.cache.close()
        if self._owns_session:
            self._base_session.close()

    @safe_display
    def __repr__(self) -> str:
        cached = f", cache={str(self.cache.path)!r}" if self.cache is not None else ""
        return f"Sender(session={type(self._base_session).__name__}{cached})"


def _pooled_session() -> requests.Session:
    """A session that keeps enough connections for a pool of audit threads."""
    session = requests.Session()
    adapter = requests.adapters.HTTPAdapter(pool_connections=4, pool_maxsize=POOL_MAXSIZE)
    session.mount("https://", adapter)
    session.mount("http://", adapter)
    return session


def _is_connect_failure(exc: requests.ConnectionError) -> bool:
    """True when the connection was never established, so the request never left."""
    reason = exc.args[0] if exc.args else None
    if isinstance(reason, MaxRetryError):
        reason = reason.reason
    return isinstance(reason, NewConnectionError | ConnectTimeoutError)
