"""The :class:`AdNetworkSandbox`: the ad-network API served on 127.0.0.1 with seeded affiliates."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from docsapi.core.reprs import safe_display
from docsapi.sandbox.adnetwork._app import AdNetworkApp, error_body
from docsapi.sandbox.adnetwork._data import make_keys
from docsapi.sandbox.adnetwork._store import AffiliateStore
from docsapi.sandbox.core._server import ServerThread

if TYPE_CHECKING:
    from docsapi.adnetwork import AdNetworkClient


class AdNetworkSandbox:
    """A simulated ad network served in a background thread.

    Parameters
    ----------
    seed : int
        Same seed, same affiliates and keys.
    affiliates : int
        How many affiliates to seed (ids from 1001).
    host : str
        The address to listen on.
    port : int
        The port; 0 picks a free one.

    Attributes
    ----------
    keys : dict[str, str]
        API keys by role: ``"admin"`` (everything; also :attr:`api_key`), ``"readonly"``
        (writes get code 5), ``"locked"`` (code 42), ``"expired"`` and ``"other-dc"``
        (code 12). Any other key gets code 13.
    managers : dict[int, str]
        The account managers affiliates can be assigned to (``{"manager": {"id": ...}}``).

    Examples
    --------
    >>> ans = AdNetworkSandbox(affiliates=50)
    >>> sorted(ans.keys)
    ['admin', 'expired', 'locked', 'other-dc', 'readonly']
    >>> ans.api_key == ans.keys["admin"]
    True
    """

    def __init__(
        self, seed: int = 0, affiliates: int = 300, *, host: str = "127.0.0.1", port: int = 0
    ) -> None:
        if isinstance(affiliates, bool) or not isinstance(affiliates, int) or affiliates < 0:
            raise ValueError(f"affiliates must be an int of 0 or more, got {affiliates!r}")
        self.seed = seed
        self.keys = make_keys(seed)
        self._store = AffiliateStore(seed, affiliates)
        self.managers = dict(self._store.managers)
        self.app = AdNetworkApp(self._store, self.keys)
        self._host = host
        self._server = ServerThread(self.app, host=host, port=port, error_body=error_body)
        self._started = False

    @safe_display
    def __repr__(self) -> str:
        where = self.url if self._started else "not started"
        return f"AdNetworkSandbox(seed={self.seed}, affiliates={len(self._store)}, {where})"

    # -- lifetime -----------------------------------------------------------------------------

    def start(self) -> AdNetworkSandbox:
        """Start serving; returns the sandbox itself."""
        if not self._started:
            self._server.start()
            self._started = True
        return self

    def stop(self) -> None:
        """Stop serving."""
        if self._started:
            self._server.stop()
            self._started = False

    def __enter__(self) -> AdNetworkSandbox:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- addresses and keys -------------------------------------------------------------------

    @property
    def network(self) -> str:
        """``"127.0.0.1:PORT"``: what :class:`~docsapi.adnetwork.AdNetworkClient` takes."""
        return f"{self._host}:{self._server.port}"

    @property
    def url(self) -> str:
        """The API's base address, ``"http://127.0.0.1:PORT/api"``."""
        return f"http://{self.network}/api"

    @property
    def api_key(self) -> str:
        """The full-access key (``keys["admin"]``)."""
        return self.keys["admin"]

    def client(self, **kwargs: Any) -> AdNetworkClient:
        """An :class:`~docsapi.adnetwork.AdNetworkClient` for this sandbox with the admin key.

        Parameters
        ----------
        **kwargs
            Passed on to the client (``api_key=`` replaces the admin key, ``retry=``...).

        Examples
        --------
        >>> with AdNetworkSandbox() as ans:
        ...     ans.client().get("affiliate", 1001)["id"]
        1001
        """
        from docsapi.adnetwork import AdNetworkClient

        options = {"api_key": self.api_key, "scheme": "http", **kwargs}
        return AdNetworkClient(self.network, **options)

    def add_key(self, key: str, *, role: str = "admin") -> None:
        """Accept another key with the rights of ``role`` (kept across :meth:`reset`).

        Parameters
        ----------
        key : str
            The key, as clients will send it in ``X-Api-Key``.
        role : str
            One of :attr:`keys`' roles: ``"admin"``, ``"readonly"``, ``"locked"``,
            ``"expired"``, ``"other-dc"``.

        Examples
        --------
        >>> ans = AdNetworkSandbox(affiliates=1)
        >>> ans.add_key("my-demo-key", role="readonly")
        """
        if not isinstance(key, str) or not key.strip():
            raise ValueError("key must be a non-empty string")
        self.app.add_key(key.strip(), role)

    # -- state and controls -------------------------------------------------------------------

    def reset(self) -> None:
        """Back to the seeded affiliates; clears faults, whitelist, rate limit, maintenance, log."""
        self._store.reset()
        self.app.reset_controls()

    @property
    def request_count(self) -> int:
        """HTTP requests received since the start or the last :meth:`reset`."""
        return self.app.request_count

    @property
    def request_log(self) -> list[tuple[str, str, int]]:
        """``(method, path with query, status)`` of every request since the last reset."""
        return list(self.app.request_log)

    def affiliate_records(self) -> list[dict[str, Any]]:
        """Every stored affiliate as the API returns it, ordered by id (read without HTTP)."""
        total = len(self._store)
        return self._store.page({}, offset=1, limit=max(total, 1))["rowset"]

    def set_whitelist(self, ips: Iterable[str] | None) -> None:
        """Accept requests only from ``ips`` (others get code 41); None accepts every IP.

        Examples
        --------
        >>> ans = AdNetworkSandbox(affiliates=1)
        >>> ans.set_whitelist(["203.0.113.7"])    # 127.0.0.1 is now refused with code 41
        """
        self.app.whitelist = None if ips is None else frozenset(ips)

    def set_rate_limit(self, n: int | None, per_seconds: float = 60.0) -> None:
        """Allow ``n`` authenticated requests per ``per_seconds``; more get HTTP 429, code 40.

        The 429 carries ``Retry-After`` (whole seconds until a slot frees). None turns the
        limit off.
        """
        if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 1):
            raise ValueError(f"n must be a positive int or None, got {n!r}")
        if per_seconds <= 0:
            raise ValueError(f"per_seconds must be positive, got {per_seconds!r}")
        self.app.set_rate_limit(n, per_seconds)

    def set_maintenance(self, on: bool = True) -> None:
        """While on, every request gets HTTP 503 with code 50 (system upgrade)."""
        self.app.maintenance = bool(on)

    def inject(self, fault: str, count: int = 1, *, methods: Iterable[str] | None = None) -> None:
        """Answer the next ``count`` requests (optionally only of ``methods``) with an error.

        Parameters
        ----------
        fault : str
            An application code as a string (``"40"`` → HTTP 429, ``"50"`` → 503,
            ``"51"`` → 500, any other code → its usual status), or
            ``"200-with-code:<code>"`` to send that error body with HTTP 200.
        count : int
            How many requests to fail.
        methods : iterable of str, optional
            Only fail requests with these methods.

        Raises
        ------
        ValueError
            For an unknown fault or a count below 1.

        Examples
        --------
        >>> ans = AdNetworkSandbox(affiliates=1)
        >>> ans.inject("40", count=2)
        >>> ans.inject("200-with-code:20", methods=["POST"])
        """
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise ValueError(f"count must be a positive int, got {count!r}")
        self.app.inject(fault, count, methods)
