"""Sending one HTTP request: the only module that imports ``requests``.

A :class:`Sender` turns ``(method, url, params, body bytes, headers, timeout, auth)`` into a
:class:`RawResponse` (status, headers, the whole body) or a :class:`SendFailure` naming
what went wrong on the way. It knows nothing of retries, rate limits, JSON or the API:
that policy lives in :mod:`docsapi.wire.transport`. The session is pluggable (any
:class:`requests.Session`), and a :class:`~docsapi.wire.cache.ResponseCache` may wrap it: then
:meth:`Sender.lookup` answers a GET from the cache without sending anything, and what
:meth:`Sender.send` receives is stored for next time.

The credential is attached by :class:`CredentialAuth` only when the URL is on the
credential's own origin, so a redirect elsewhere never carries it; the header value it
adds shows as ``'***'`` in any repr (a traceback's locals, a debugger).

A sender that made its own session and has no cache sends through that session's
connection pool directly (:class:`_Route`): ``requests`` would prepare, merge and check the
same settings again on every call (its own CPU time is most of a small request's, held
under the GIL while an audit's threads wait). The route is taken only where it sends exactly
what ``requests`` would: the session's own adapter, no proxy for the URL, no cookies, hooks
or default parameters on the session; anything else goes through ``requests``.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode, urlsplit

import requests
import urllib3
from requests.auth import AuthBase
from requests.utils import get_encoding_from_headers, requote_uri, select_proxy
from urllib3.exceptions import (
    ConnectTimeoutError,
    DecodeError,
    HTTPError,
    MaxRetryError,
    NewConnectionError,
    ProtocolError,
    ReadTimeoutError,
)

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
            request.headers[self._header] = self.value()
        else:
            request.headers.pop(self._header, None)
        return request

    def goes_to(self, target: Origin) -> bool:
        """Whether requests to ``target`` (an :func:`origin`) carry the credential."""
        return target == self._origin

    def value(self) -> str:
        """The header's value, shown as ``'***'`` by ``repr`` (e.g. in a header dict)."""
        return _HeaderValue(self._prefix + self._secret.reveal())

    @safe_display
    def __repr__(self) -> str:
        scheme, host, port = self._origin
        return f"CredentialAuth(origin='{scheme}://{host}:{port}', header={self._header!r})"


class _HeaderValue(str):
    """A credential header's value: the text itself, ``'***'`` in reprs."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "'***'"


class RawResponse:
    """An answer as received (or as cached): status, headers and the whole body."""

    __slots__ = ("content", "encoding", "from_cache", "headers", "status")

    def __init__(
        self,
        status: int,
        headers: Mapping[str, str],
        content: bytes,
        encoding: str | None,
        from_cache: bool = False,
    ) -> None:
        self.status = status
        self.headers = headers
        self.content = content
        self.encoding = encoding
        self.from_cache = from_cache

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
        #: Direct routes per origin and session settings (see _route); None: use requests.
        self._routes: dict[tuple[object, ...], _Route | None] = {}
        adapter = self._base_session.get_adapter("http://")
        self._own_adapter = (
            adapter
            if session is None and isinstance(adapter, requests.adapters.HTTPAdapter)
            else None
        )
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
        route = self._route(url) if self.cache is None else None
        if route is not None:
            return route.send(method, url, params, body, headers, timeout, auth)
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

    def _route(self, url: str) -> _Route | None:
        """The direct route for ``url``, or None when only ``requests`` sends what it would.

        Worked out once per origin and session settings (as :meth:`_send_direct` reads the
        environment): a change to the session (proxies, ``verify``, headers, an adapter
        mounted, cookies set) is seen on the next request.
        """
        session, adapter = self._session, self._own_adapter
        if adapter is None:
            return None
        parts = urlsplit(url)
        key = (
            parts.scheme,
            parts.netloc,
            session.trust_env,
            repr(session.proxies),
            repr(session.verify),
            repr(session.cert),
            repr(session.headers),
            session.get_adapter(url) is adapter,
            bool(session.params or len(session.cookies) or any(session.hooks.values())),
        )
        if key not in self._routes:
            usable = key[-2] and not key[-1]
            self._routes[key] = _Route.make(session, url, adapter) if usable else None
        return self._routes[key]

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


class _Route:
    """Requests to one origin sent through the session adapter's connection pool directly.

    What ``requests`` does per call (prepare, merge the session's settings, read the
    environment, check the certificate files, wrap the answer) is done here once for the
    origin; each call builds the URL and headers ``requests`` would send, the same way,
    and maps failures to the same :class:`FailureKind` as :meth:`Sender.send`.
    """

    def __init__(
        self,
        adapter: requests.adapters.HTTPAdapter,
        host: Mapping[str, Any],
        pool_kwargs: Mapping[str, Any],
        headers: Mapping[str, str | bytes],
        target: Origin,
    ) -> None:
        self._adapter = adapter
        self._host = dict(host)
        self._pool_kwargs = dict(pool_kwargs)
        self._session_headers = dict(headers)
        self._origin = target
        self._timeouts: dict[tuple[float, float], urllib3.Timeout] = {}
        self._pool: urllib3.HTTPConnectionPool | None = None

    @classmethod
    def make(
        cls, session: requests.Session, url: str, adapter: requests.adapters.HTTPAdapter
    ) -> _Route | None:
        """The route for ``url``'s origin through ``adapter``; None when a proxy applies."""
        settings = session.merge_environment_settings(url, {}, None, None, None)
        if select_proxy(url, settings["proxies"]):
            return None
        probe = requests.Request("GET", url).prepare()
        verify = True if settings["verify"] is None else settings["verify"]  # as requests reads it
        host, pool_kwargs = adapter.build_connection_pool_key_attributes(
            probe, verify, settings["cert"]
        )
        pool = adapter.poolmanager.connection_from_host(**host, pool_kwargs=pool_kwargs)
        adapter.cert_verify(pool, url, settings["verify"], settings["cert"])
        headers = {k: v for k, v in session.headers.items() if v is not None}
        return cls(adapter, host, pool_kwargs, headers, origin(url))

    def send(
        self,
        method: str,
        url: str,
        params: Mapping[str, Any] | None,
        body: bytes | None,
        headers: Mapping[str, str],
        timeout: tuple[float, float],
        auth: CredentialAuth | AuthBase | None,
    ) -> RawResponse:
        """Send one request and read the whole answer (see :meth:`Sender.send`)."""
        query = urlencode(params, doseq=True) if params else ""  # as requests encodes them
        full = requote_uri(f"{url}?{query}" if query else url)
        parts = urlsplit(full)
        wire: dict[str, str | bytes] | None = {**self._session_headers, **headers}
        assert wire is not None
        if body is not None:
            wire["Content-Length"] = str(len(body))
        elif method not in ("GET", "HEAD"):
            wire["Content-Length"] = "0"
        if isinstance(auth, CredentialAuth):
            if auth.goes_to(self._origin):
                wire[auth.header] = auth.value()
            else:
                wire.pop(auth.header, None)
        kind: FailureKind | None = None
        detail = ""
        try:
            answer = self._connections().urlopen(
                method,
                parts.path + ("?" + parts.query if parts.query else ""),
                body=body,
                headers=wire,  # type: ignore[arg-type]  # bytes values are sent as they are
                redirect=False,
                assert_same_host=False,
                preload_content=False,
                decode_content=False,
                retries=self._adapter.max_retries,
                timeout=self._timeout(timeout),
                chunked=False,
            )
        except MaxRetryError as exc:
            reason = exc.reason
            if isinstance(reason, ConnectTimeoutError) and not isinstance(
                reason, NewConnectionError
            ):
                kind = FailureKind.CONNECT_TIMEOUT
            elif isinstance(reason, NewConnectionError):
                kind = FailureKind.CONNECT_FAILED
            else:
                kind = FailureKind.CONNECTION_LOST
        except ReadTimeoutError:
            kind = FailureKind.READ_TIMEOUT
        except (ProtocolError, OSError):
            kind = FailureKind.CONNECTION_LOST
        except (HTTPError, ValueError) as exc:  # as Sender.send reports what requests raises
            kind, detail = FailureKind.OTHER, f"{type(exc).__name__}: {scrub(str(exc))}"
        wire = None  # the frame keeps no credential
        if kind is not None:
            raise SendFailure(kind, detail)
        try:
            content = answer.read(decode_content=True)
        except (ProtocolError, DecodeError):
            kind = FailureKind.TRUNCATED
        except (ReadTimeoutError, OSError, HTTPError):
            kind = FailureKind.CONNECTION_LOST
        finally:
            answer.release_conn()
        if kind is not None:
            raise SendFailure(kind, detail)
        return RawResponse(
            answer.status, answer.headers, content, get_encoding_from_headers(answer.headers)
        )

    def _connections(self) -> urllib3.HTTPConnectionPool:
        """The adapter's pool for the origin (again from the adapter if it closed it)."""
        pool = self._pool
        if pool is None or pool.pool is None:
            pool = self._pool = self._adapter.poolmanager.connection_from_host(
                **self._host, pool_kwargs=self._pool_kwargs
            )
        return pool

    def _timeout(self, timeout: tuple[float, float]) -> urllib3.Timeout:
        found = self._timeouts.get(timeout)
        if found is None:
            connect, read = timeout
            found = self._timeouts[timeout] = urllib3.Timeout(connect=connect, read=read)
        return found


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
