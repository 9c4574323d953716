"""Cached answers to GET requests, kept in an SQLite file by ``requests-cache``.

:class:`CacheSettings` says where the file is and how long an answer stays fresh;
:class:`ResponseCache` is the live cache a client's sender sends through. It is part of the
wire layer: :mod:`docsapi.wire.sender` asks it for a cached answer before sending a GET and tells
it about each answer stored, and :mod:`docsapi.wire.transport` tells it about every write.

What is cached, and what is not:

- Only answers to GET requests with status 200. Errors, redirects and writes never are.
- An answer is served only to a request for the same URL (query included), with the same
  content headers, sent with the **same credential**: the cache key includes an HMAC of the
  credential under a random key kept in the file (never the credential itself), and the
  credential header is stored as ``REDACTED``. A cache written with one token is never
  served to another.
- An answer is fresh for ``expire_after`` measured on the client's clock (``clock=``), so
  tests can expire entries on a fake clock; older ones are dropped when looked up (and
  when the file is opened).
- A write through the client (any method but GET, HEAD and OPTIONS, whatever its outcome)
  drops every answer it could have changed; :func:`stale_scopes` states the rule. Changes
  made elsewhere (the web app, another program) are seen once the answers expire, or after
  :meth:`ResponseCache.clear`.

``requests_cache`` is imported when the first cache is opened: a client without a cache,
and ``import docsapi``, never load it.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import os
import secrets
import sqlite3
import sys
import threading
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import urlsplit, urlunsplit

from docsapi.core.clock import SYSTEM_CLOCK, Clock
from docsapi.core.reprs import safe_display
from docsapi.errors import ValidationError

if TYPE_CHECKING:
    import requests
    from requests_cache import CachedSession
    from requests_cache.backends.sqlite import SQLiteCache

__all__ = [
    "CACHE_FILE_NAME",
    "DEFAULT_EXPIRE_AFTER",
    "CacheSettings",
    "ResponseCache",
    "default_cache_dir",
    "stale_scopes",
]

#: The file name used in the cache directory (and in a directory given as ``path``).
CACHE_FILE_NAME = "http-cache.sqlite"
#: How long an answer stays fresh unless told otherwise.
DEFAULT_EXPIRE_AFTER = timedelta(hours=1)
#: Methods that change nothing on the server.
_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
#: The longest expiry accepted: ten years.
_MAX_EXPIRY = timedelta(days=3650)

_INDEX_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS docsapi_index ("
    " key TEXT PRIMARY KEY, path TEXT NOT NULL, stored_at REAL NOT NULL)",
    "CREATE INDEX IF NOT EXISTS docsapi_index_path ON docsapi_index(path)",
    "CREATE TABLE IF NOT EXISTS docsapi_meta (name TEXT PRIMARY KEY, value BLOB NOT NULL)",
)


def default_cache_dir() -> Path:
    """The per-user cache directory of docsapi.

    ``$XDG_CACHE_HOME/docsapi`` (else ``~/.cache/docsapi``) on Linux and other Unix systems,
    ``~/Library/Caches/docsapi`` on macOS, ``%LOCALAPPDATA%\\docsapi`` on Windows.

    Examples
    --------
    >>> default_cache_dir().name
    'docsapi'
    """
    home = Path.home()
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or home / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = home / "Library" / "Caches"
    else:
        xdg = os.environ.get("XDG_CACHE_HOME", "")
        base = Path(xdg) if os.path.isabs(xdg) else home / ".cache"
    return base / "docsapi"


def _expiry(value: Any) -> timedelta | None:
    """``expire_after`` as a timedelta (None: never), checked."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float | timedelta):
        raise ValidationError(
            "expire_after",
            f"must be a timedelta, a number of seconds or None, got {type(value).__name__}",
        )
    if not isinstance(value, timedelta):
        if not math.isfinite(value):
            raise ValidationError("expire_after", f"must be a finite number, got {value!r}")
        if not 0 < value <= _MAX_EXPIRY.total_seconds():
            raise ValidationError(
                "expire_after", f"must be more than 0 and at most 10 years, got {value!r} seconds"
            )
        value = timedelta(seconds=value)
    if value <= timedelta(0) or value > _MAX_EXPIRY:
        raise ValidationError(
            "expire_after", f"must be more than 0 and at most 10 years, got {value!r}"
        )
    return value


def _show_expiry(value: timedelta | None) -> str:
    """``timedelta(hours=1)``-style text for a repr."""
    if value is None:
        return "None"
    seconds = value.total_seconds()
    for unit, size in (("days", 86_400), ("hours", 3_600), ("minutes", 60)):
        if seconds >= size and seconds % size == 0:
            return f"timedelta({unit}={int(seconds // size)})"
    return f"timedelta(seconds={seconds:g})"


@dataclass(frozen=True, repr=False)
class CacheSettings:
    """Where cached answers are kept and how long they stay fresh.

    Parameters
    ----------
    path : str or os.PathLike, optional
        The SQLite file; an existing directory means ``<directory>/http-cache.sqlite``.
        Default: ``http-cache.sqlite`` in :func:`default_cache_dir`.
    expire_after : timedelta or float or None
        How long an answer is served from the cache (a number is seconds; None: until
        a write drops it or the cache is cleared). Default: one hour.

    Raises
    ------
    ValidationError
        A path that is not a path, or an expiry that is not positive.

    Examples
    --------
    >>> CacheSettings(path="/tmp/docs.sqlite", expire_after=90)
    CacheSettings(path='/tmp/docs.sqlite', expire_after=timedelta(seconds=90))
    >>> CacheSettings.coerce(600).expire_after
    datetime.timedelta(seconds=600)
    >>> CacheSettings.coerce(None) is None
    True
    """

    path: Path = field(default_factory=lambda: default_cache_dir() / CACHE_FILE_NAME)
    expire_after: timedelta | None = DEFAULT_EXPIRE_AFTER

    def __post_init__(self) -> None:
        path = self.path
        if not isinstance(path, str | os.PathLike) or not str(os.fspath(path)).strip():
            raise ValidationError(
                "path", f"must be a file or directory path, got {type(path).__name__}"
            )
        if any(ord(character) < 32 or ord(character) == 127 for character in str(os.fspath(path))):
            raise ValidationError(
                "path", "must not contain control characters (a NUL, a line break, a tab...)"
            )
        resolved = Path(path).expanduser()
        if resolved.is_dir():
            resolved = resolved / CACHE_FILE_NAME
        object.__setattr__(self, "path", resolved)
        object.__setattr__(self, "expire_after", _expiry(self.expire_after))

    @classmethod
    def coerce(cls, value: Any) -> CacheSettings | None:
        """Read a client's ``cache=`` argument.

        Parameters
        ----------
        value : None, bool, str, os.PathLike, timedelta, float or CacheSettings
            None or False: no cache. True: the default settings. A path: that file (or
            directory). A timedelta or a number of seconds: that expiry in the default
            file. A :class:`CacheSettings`: itself.

        Returns
        -------
        CacheSettings or None

        Raises
        ------
        ValidationError
            Any other value.

        Examples
        --------
        >>> CacheSettings.coerce(True) == CacheSettings()
        True
        """
        if value is None or value is False:
            return None
        if value is True:
            return cls()
        if isinstance(value, CacheSettings):
            return value
        if isinstance(value, str | os.PathLike):
            return cls(path=value)  # type: ignore[arg-type]  # checked and converted
        if isinstance(value, timedelta | int | float):
            return cls(expire_after=_expiry(value))
        raise ValidationError(
            "cache",
            "must be None, True, a path, an expiry (timedelta or seconds) or a "
            f"CacheSettings, got {type(value).__name__}",
        )

    @safe_display
    def __repr__(self) -> str:
        return (
            f"CacheSettings(path={str(self.path)!r}, "
            f"expire_after={_show_expiry(self.expire_after)})"
        )


def stale_scopes(path: str) -> tuple[str, ...]:
    """The path prefixes whose cached answers a write to ``path`` may have changed.

    A cached answer is dropped when its path (under the same base URL, query ignored) is
    one of the prefixes or lies below one. The rule prefers dropping too much to serving
    a stale answer:

    ============================== =========================================================
    a write to                     drops
    ============================== =========================================================
    ``/spaces/{id}…``              that space and everything under it, every
                                   ``/collections…`` and every ``/orgs…`` answer (listings
                                   of spaces, members' spaces, sites, audit events)
    ``/collections…``, ``/orgs…``  every ``/spaces…``, ``/collections…`` and ``/orgs…``
                                   answer: access is inherited through collections, teams
                                   and organization roles, so any space may have changed
    anything else (``/users…``,    everything under the base URL: a user's name appears in
    ``/user…``, other paths)       every listing of members and permissions
    ============================== =========================================================

    Another space's own answers survive a write to a space: nothing one space's settings,
    permissions or content hold shows in another's.

    Parameters
    ----------
    path : str
        The written path, relative to the base URL (``/spaces/abc/permissions``).

    Returns
    -------
    tuple of str
        Prefixes relative to the base URL; ``""`` means everything.

    Examples
    --------
    >>> stale_scopes("/spaces/abc/permissions/users/u1")
    ('/spaces/abc', '/collections', '/orgs')
    >>> stale_scopes("/orgs/o1/members/u1")
    ('/spaces', '/collections', '/orgs')
    >>> stale_scopes("/users/u1")
    ('',)
    """
    segments = [segment for segment in path.split("/") if segment]
    head = segments[0] if segments else ""
    if head == "spaces" and len(segments) >= 2:
        return (f"/spaces/{segments[1]}", "/collections", "/orgs")
    if head in ("collections", "orgs"):
        return ("/spaces", "/collections", "/orgs")
    return ("",)


def _url_path(url: str) -> str:
    """A URL without its query, scheme and host lowercased: what the index matches on."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), parts.path, "", ""))


def _prepare_file(path: Path) -> None:
    """Create the cache's directory (private to the user) and file (readable by them only)."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    if not path.exists():
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))


class ResponseCache:
    """The live cache of one client: lookups, stores, invalidation, statistics.

    Built by :class:`~docsapi.wire.sender.Sender`; users meet it as ``client.cache``.

    Parameters
    ----------
    settings : CacheSettings
        Where and how long.
    session : requests.Session
        The session that sends what the cache cannot answer; its adapters, proxies and
        certificates are shared, and it is not closed by :meth:`close`.
    credential_header : str
        The header that carries the credential: never stored, keyed by its HMAC.
    clock : Clock
        Measures the age of answers.

    Attributes
    ----------
    hits, misses : int
        GET requests of this client answered from the cache, and not.
    """

    def __init__(
        self,
        settings: CacheSettings,
        session: requests.Session,
        *,
        credential_header: str = "Authorization",
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        from requests_cache import DEFAULT_IGNORED_PARAMS, CachedSession

        self.settings = settings
        self._clock = clock
        self._header = credential_header
        self._lock = threading.Lock()
        self._epoch = 0
        self.hits = 0
        self.misses = 0
        self._connection: sqlite3.Connection | None = None
        try:
            _prepare_file(settings.path)
            with self._lock:
                self._db.execute("PRAGMA journal_mode=WAL")
                for statement in _INDEX_SCHEMA:
                    self._db.execute(statement)
                self._salt = self._read_salt()
        except (OSError, sqlite3.Error) as exc:
            raise ValidationError(
                "cache",
                f"cannot open the cache file {str(settings.path)!r} ({type(exc).__name__}: "
                f"{exc}); delete it or choose another path",
            ) from None
        ignored = (*DEFAULT_IGNORED_PARAMS, credential_header)
        wrapped = CachedSession.wrap(
            session,
            cache_name=str(settings.path),
            backend="sqlite",
            wal=True,
            expire_after=-1,  # freshness is judged here, on the client's clock
            allowable_codes=(200,),
            allowable_methods=("GET",),
            cache_control=False,
            ignored_parameters=ignored,
            match_headers=True,  # every header counts, but the credential (ignored above)
            key_fn=self._key,
        )
        self.session = cast("CachedSession", wrapped)
        self._store = cast("SQLiteCache", self.session.cache)
        self._drop_expired()

    # -- what users see --------------------------------------------------------------------

    @property
    def path(self) -> Path:
        """The SQLite file."""
        return self.settings.path

    @property
    def expire_after(self) -> timedelta | None:
        """How long an answer stays fresh (None: until dropped by a write or cleared)."""
        return self.settings.expire_after

    @property
    def entries(self) -> int:
        """Answers stored in the file (of every client and credential using it)."""
        return len(self._store.responses)

    def clear(self) -> None:
        """Empty the cache: every answer in the file, of every credential, is dropped.

        Examples
        --------
        >>> cached = sandbox.client(cache="http-cache.sqlite")  # answers kept in this file
        >>> members = cached.orgs.members(org_id)
        >>> cached.cache.entries > 0
        True
        >>> cached.cache.clear()
        >>> cached.cache.entries
        0
        """
        with self._lock:
            self._epoch += 1
        self._store.clear()
        with self._lock:
            self._db.execute("DELETE FROM docsapi_index")

    def close(self) -> None:
        """Close the cache's database connections (the sending session stays open)."""
        self._store.close()
        with self._lock:
            if self._connection is not None:
                self._connection.close()
                self._connection = None

    @safe_display
    def __repr__(self) -> str:
        return (
            f"ResponseCache(path={str(self.path)!r}, entries={self.entries}, "
            f"hits={self.hits}, misses={self.misses}, "
            f"expire_after={_show_expiry(self.expire_after)})"
        )

    # -- the sender's side -----------------------------------------------------------------

    @property
    def epoch(self) -> int:
        """Changes whenever answers are dropped; a GET notes it before it is sent."""
        return self._epoch

    def served(self, response: Any) -> bool:
        """Whether ``response`` (asked with ``only_if_cached``) is a fresh cached answer.

        An answer older than ``expire_after`` on the client's clock is dropped instead.
        Counts a hit or a miss.
        """
        hit = bool(getattr(response, "from_cache", False)) and response.status_code == 200
        if hit and self._expired(response.cache_key):
            self._drop([response.cache_key])
            hit = False
        with self._lock:
            if hit:
                self.hits += 1
            else:
                self.misses += 1
        return hit

    def stored(self, response: Any, epoch: int) -> None:
        """Index an answer requests-cache has just stored, sent when :attr:`epoch` was ``epoch``.

        If answers were dropped while it was on its way, it may predate a write: it is
        dropped too.
        """
        key = getattr(response, "cache_key", None)
        if not key or getattr(response, "from_cache", False):
            return
        row = (key, _url_path(response.request.url), self._clock.time())
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO docsapi_index VALUES (?, ?, ?)", row)
            overtaken = self._epoch != epoch
        if overtaken:
            self._drop([key])

    def invalidate(self, method: str, base_url: str, path: str) -> int:
        """Drop what a ``method`` request to ``path`` may have changed; return how many.

        Safe methods (GET, HEAD, OPTIONS) change nothing and drop nothing.
        """
        if method.upper() in _SAFE_METHODS:
            return 0
        prefixes = [_url_path(base_url.rstrip("/") + scope) for scope in stale_scopes(path)]
        where = " OR ".join("path = ? OR substr(path, 1, ?) = ?" for _ in prefixes)
        args: list[Any] = []
        for prefix in prefixes:
            args += [prefix, len(prefix) + 1, prefix + "/"]
        query = f"SELECT key FROM docsapi_index WHERE {where}"
        with self._lock:
            self._epoch += 1
            keys = [row[0] for row in self._db.execute(query, args)]
        self._drop(keys)
        return len(keys)

    # -- inside ----------------------------------------------------------------------------

    @property
    def _db(self) -> sqlite3.Connection:
        """The index's connection to the file, (re)opened on first use (caller holds the lock)."""
        if self._connection is None:
            self._connection = sqlite3.connect(
                self.settings.path, timeout=30.0, isolation_level=None, check_same_thread=False
            )
        return self._connection

    def _key(self, request: Any, **kwargs: Any) -> str:
        """requests-cache's key for ``request``, combined with an HMAC of its credential."""
        from requests_cache import create_key

        # A lookup asks for cached answers only with Cache-Control: not part of the answer.
        if "Cache-Control" in request.headers:
            request = request.copy()
            del request.headers["Cache-Control"]
        base = create_key(request, **kwargs)
        credential = request.headers.get(self._header)
        if isinstance(credential, str):
            credential = credential.encode("latin-1", errors="replace")
        tag = hmac.new(self._salt, credential, hashlib.sha256).hexdigest() if credential else "-"
        return hashlib.sha256(f"{base}:{tag}".encode()).hexdigest()[:32]

    def _read_salt(self) -> bytes:
        """The file's HMAC key, made on first use (caller holds the lock)."""
        self._db.execute(
            "INSERT OR IGNORE INTO docsapi_meta VALUES ('hmac_key', ?)", (secrets.token_bytes(32),)
        )
        row = self._db.execute("SELECT value FROM docsapi_meta WHERE name = 'hmac_key'").fetchone()
        return bytes(row[0])

    def _expired(self, key: str) -> bool:
        """True when the answer is older than the expiry, or of unknown age."""
        with self._lock:
            row = self._db.execute(
                "SELECT stored_at FROM docsapi_index WHERE key = ?", (key,)
            ).fetchone()
        if row is None:
            return True
        limit = self.settings.expire_after
        return limit is not None and self._clock.time() - row[0] >= limit.total_seconds()

    def _drop(self, keys: list[str]) -> None:
        """Remove answers and their index rows."""
        if not keys:
            return
        self._store.delete(*keys, vacuum=False)
        with self._lock:
            self._db.executemany("DELETE FROM docsapi_index WHERE key = ?", [(k,) for k in keys])

    def _drop_expired(self) -> None:
        """Drop answers past their expiry or of unknown age, and index rows without an answer."""
        limit = self.settings.expire_after
        with self._lock:
            indexed = dict(self._db.execute("SELECT key, stored_at FROM docsapi_index"))
        stored = set(self._store.responses.keys())
        now = self._clock.time()
        expired = {
            key
            for key, stored_at in indexed.items()
            if limit is not None and now - stored_at >= limit.total_seconds()
        }
        self._drop(sorted(expired | (stored ^ indexed.keys())))
