"""The :class:`Sandbox`: the simulated documentation-platform API served on 127.0.0.1."""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Iterable
from datetime import timedelta
from typing import Any

from docsapi.core.reprs import safe_display
from docsapi.sandbox._app import DocsApp, RequestLog
from docsapi.sandbox._control import Controls
from docsapi.sandbox._sandbox_changes import ChangeControls
from docsapi.sandbox.core._auth import TokenRegistry
from docsapi.sandbox.core._clock import Clock
from docsapi.sandbox.core._faults import MAX_LATENCY, MAX_STALL, Fault, Faults, check_seconds
from docsapi.sandbox.core._permission_model import check_rule_set
from docsapi.sandbox.core._server import ServerThread
from docsapi.sandbox.core._store import Store
from docsapi.sandbox.core._web import DEFAULT_PREFIX
from docsapi.sandbox.demo._build import build_demo
from docsapi.sandbox.demo._size import (
    DEFAULT_SPACES,
    DEFAULT_TEAMS,
    DEFAULT_USERS,
    MAX_USERS,
    DemoSize,
)
from docsapi.sandbox.routes._git import finish_due_operations

#: How far ahead of real time the sandbox clock may be moved, in days.
MAX_CLOCK_OFFSET_DAYS = 36500

#: A path prefix: segments of unreserved characters, 200 characters at most.
_PREFIX = re.compile(r"(?=.{0,200}\Z)(/[A-Za-z0-9._~-]+)*")


def _check_prefix(prefix: object) -> str:
    """The API's path prefix without a trailing slash: ``""``, ``"/v1"``, ``"/a/b"``."""
    cleaned = prefix.rstrip("/") if isinstance(prefix, str) else None
    if (
        cleaned is None
        or not _PREFIX.fullmatch(cleaned)
        or cleaned.startswith("/_sandbox")
        or any(part in (".", "..") for part in cleaned.split("/"))
    ):
        raise ValueError(
            f"prefix must be '' or a path such as '/v1' (not under /_sandbox), got {prefix!r:.60}"
        )
    return cleaned


def _default_teams(users: object) -> int:
    """Teams for ``users`` people when none is given: one per 60, at least the default
    (``users`` not a count is refused by the size's own check)."""
    count = users if isinstance(users, int) and not isinstance(users, bool) else 0
    return max(DEFAULT_TEAMS, min(count, MAX_USERS) // 60)


class Sandbox(ChangeControls):
    """An offline documentation-platform API (GitBook API v1) with a seeded demo organization.

    Besides serving the API, it makes access changes happen for demos and tests (:meth:`grant`,
    :meth:`revoke`, :meth:`set_default_level`, :meth:`set_member`, :meth:`publish`,
    :meth:`unpublish`, :meth:`create_share_link`, :meth:`set_share_link_active`,
    :meth:`advance_clock`), each recorded in the organization's audit log.

    Parameters
    ----------
    seed
        Same seed, same ids, names, numbers and tokens.
    spaces, users, teams
        Size of the demo organization (default about 30 spaces, 60 users, 8 teams).
    grants_per_space
        Direct user grants per space (default: 2 to 6, drawn per space).
    model
        How the access model combines its levels: ``"precedence"`` (the platform's current
        documentation: the nearest level that says something about a user decides) or
        ``"highest"`` (its earlier one: the highest role over every path). See
        ``docs/access-model.md``.
    inherit_share
        Share of the spaces without a fixed part whose default level is ``inherit`` (the
        others are private, or read-only for members at the demo size); default 0.5 at the
        demo size and 0.02 for big organizations (over 100 spaces or 500 users), where access
        is then dominated by each space's explicit grants.
    latency
        Seconds added to every API request.
    host, port
        Where to listen (127.0.0.1 and a free port by default).
    prefix
        The path the API is served under: ``"/v1"`` as the platform (default), ``""`` for a
        server whose API sits at the root, or a gateway's path such as ``"/gitbook"``.
    stall_seconds
        How long the ``"stall"`` fault holds a request.
    channel_timeout
        Seconds after which an idle connection, or one whose request does not arrive in
        full, is closed (a whole number).
    shared_sites
        Seed option: put spaces under several sites (a site space of the public site is also
        the space of a section of the unlisted site, and that site's first section space is
        also linked by the share-link site; ``demo["shared_site_spaces"]`` names them). Off by
        default: the default demo, whose numbers notebooks and tests print, is unchanged.

    Examples
    --------
    >>> import requests
    >>> with Sandbox(seed=0) as sb:
    ...     reply = requests.get(f"{sb.url}/spaces/{sb.demo['space_ids'][0]}",
    ...                          headers={"Authorization": f"Bearer {sb.token}"}, timeout=5)
    ...     reply.status_code
    200
    """

    def __init__(
        self,
        seed: int = 0,
        spaces: int | None = None,
        users: int | None = None,
        teams: int | None = None,
        grants_per_space: int | None = None,
        latency: float = 0.0,
        inherit_share: float | None = None,
        *,
        model: str = "precedence",
        host: str = "127.0.0.1",
        port: int = 0,
        prefix: str = DEFAULT_PREFIX,
        stall_seconds: float = 5.0,
        channel_timeout: int = 120,
        shared_sites: bool = False,
    ) -> None:
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise ValueError(f"seed must be an integer, got {seed!r:.60}")
        size = DemoSize(
            spaces if spaces is not None else DEFAULT_SPACES,
            users if users is not None else DEFAULT_USERS,
            teams if teams is not None else _default_teams(users),
            grants_per_space,
            inherit_share,
        )
        self.model = check_rule_set(model)
        self.clock = Clock()
        # the demo's ages count back from the sandbox clock's time: the same clock the
        # answers' Date header (and so an audit's "now") comes from
        if not isinstance(shared_sites, bool):
            raise ValueError(f"shared_sites must be True or False, got {shared_sites!r:.60}")
        state, self._demo = build_demo(
            seed, size, now=self.clock.now().replace(microsecond=0), shared_sites=shared_sites
        )
        state.rule_set = self.model
        self.seed = seed
        self._store = Store(state, seed, self.clock)
        self._tokens = TokenRegistry(seed, self._demo["owner_id"], self._demo["other_user_id"])
        self._faults = Faults(stall_seconds)
        self._log = RequestLog()
        self._initial_latency = 0.0
        self.set_latency(latency)
        self._initial_latency = latency
        self.prefix = _check_prefix(prefix)
        self._app = DocsApp(
            self._store, self._tokens, self._faults, self._log, Controls(self), self.prefix
        )
        self._server = ServerThread(self._app, host, port, channel_timeout=channel_timeout)
        self._running = False

    # -- lifecycle ------------------------------------------------------------------
    def start(self) -> Sandbox:
        """Start serving (done by ``with Sandbox() as sb``).

        Returns once the sandbox answers: what requests would build on first use (the API
        description's validators) is built first, so the first request is as fast as any.
        """
        if not self._running:
            self._app.prepare()
            self._faults.stop_event.clear()
            self._server.start()
            self._running = True
        return self

    def stop(self) -> None:
        """Stop serving; stalled requests are released."""
        if self._running:
            self._faults.stop_event.set()
            self._server.stop()
            self._running = False

    def __enter__(self) -> Sandbox:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @safe_display
    def __repr__(self) -> str:
        where = self.url if self._running else "not running"
        spaces = len(self._demo["space_ids"])
        return f"Sandbox(seed={self.seed}, spaces={spaces}, model={self.model!r}, url={where!r})"

    # -- addresses and tokens ---------------------------------------------------------
    @property
    def root_url(self) -> str:
        """``http://127.0.0.1:<port>`` (the sandbox controls live under ``/_sandbox``)."""
        return self._server.url

    @property
    def url(self) -> str:
        """The API base URL, ``http://127.0.0.1:<port>/v1`` (``/v1`` being the prefix)."""
        return self._server.url + self.prefix

    @property
    def port(self) -> int:
        """The port the sandbox listens on."""
        return self._server.port

    @property
    def token(self) -> str:
        """Full-access token of scheme ``user`` (the demo owner, an organization admin)."""
        return self._tokens.named["user"]

    @property
    def tokens(self) -> dict[str, str]:
        """Tokens by name: user, user-internal, integration, oauth:space:read, oauth:all,
        other-user."""
        return dict(self._tokens.named)

    @property
    def org_id(self) -> str:
        """The demo organization's id."""
        return self._demo["org_id"]

    @property
    def demo(self) -> dict[str, Any]:
        """Facts about the seeded demo organization (a copy): see ``docs/sandbox-demo.md``."""
        return copy.deepcopy(self._demo)

    def add_token(
        self,
        value: str,
        *,
        scheme: str = "user",
        scopes: Iterable[str] = (),
        user_id: str | None = None,
    ) -> None:
        """Accept a caller-chosen token (until the next :meth:`reset`).

        Parameters
        ----------
        value
            The token string.
        scheme
            user, user-internal, user-staff, integration, integration-installation or oauth.
        scopes
            OAuth scopes (oauth tokens only).
        user_id
            The user it acts as (default: the demo owner; None for integrations).
        """
        self._tokens.add(value, scheme=scheme, scopes=scopes, user_id=user_id)

    # -- controls ---------------------------------------------------------------------
    def reset(self) -> None:
        """Back to the seeded state: no faults, initial latency, no rate limit, real time,
        no added tokens, empty request log."""
        self._faults.reset()
        self._faults.stop_event.set()  # release stalled requests
        self._faults.stop_event.clear()
        self._faults.latency = self._initial_latency
        self.clock.reset()
        self._store.reset()
        self._tokens.reset()
        self._log.reset()

    def advance_clock(self, days: float = 0, hours: float = 0, seconds: float = 0) -> None:
        """Move the sandbox clock forward: the trash expires and Git operations finish.

        Raises
        ------
        ValueError
            For a negative or non-finite amount, or a total offset beyond
            :data:`MAX_CLOCK_OFFSET_DAYS` days.
        """
        total = 0.0
        for name, value, unit in (
            ("days", days, 86400),
            ("hours", hours, 3600),
            ("seconds", seconds, 1),
        ):
            if (
                not isinstance(value, int | float)
                or isinstance(value, bool)
                or not math.isfinite(value)
                or value < 0
            ):
                raise ValueError(f"{name} must be a non-negative number, got {value!r}")
            total += value * unit
        if self.clock.offset.total_seconds() + total > MAX_CLOCK_OFFSET_DAYS * 86400:
            raise ValueError(
                f"the sandbox clock moves at most {MAX_CLOCK_OFFSET_DAYS} days ahead in total; "
                "call reset() to return to real time"
            )
        self.clock.advance(timedelta(seconds=total))
        with self._store.lock:
            self._store.purge_trash()
            finish_due_operations(self._store)

    def set_latency(self, seconds: float) -> None:
        """Add ``seconds`` (0 to 60) of delay to every API request."""
        self._faults.latency = check_seconds(seconds, "latency", MAX_LATENCY)

    def set_rate_limit(self, n: int | None, per_seconds: float = 60.0) -> None:
        """Allow ``n`` API requests per ``per_seconds``; ``None`` turns rate limiting off."""
        self._faults.set_rate_limit(n, per_seconds)

    def inject(
        self,
        fault: Fault | str,
        count: int = 1,
        *,
        methods: Iterable[str] | None = None,
        path: str | None = None,
    ) -> None:
        """Make the next ``count`` matching requests fail with ``fault``.

        Parameters
        ----------
        fault
            A :class:`Fault` or its name: "503", "500", "429", "retry-after:<seconds>", "drop",
            "reset-before-read", "truncate", "stall" or "html".
        count
            How many requests suffer it.
        methods
            Only requests with these HTTP methods (default: any).
        path
            Only requests whose path starts with this (with or without ``/v1``; ``*`` globs
            allowed).
        """
        self._faults.inject(fault, count, methods=methods, path=path)

    @property
    def stall_seconds(self) -> float:
        """How long the "stall" fault holds a request."""
        return self._faults.stall_seconds

    @stall_seconds.setter
    def stall_seconds(self, seconds: float) -> None:
        self._faults.stall_seconds = check_seconds(seconds, "stall_seconds", MAX_STALL)

    @property
    def faults_pending(self) -> int:
        """How many injected faults are still waiting for a request."""
        return self._faults.pending()

    @property
    def request_count(self) -> int:
        """API requests received since the last reset (controls under /_sandbox excluded)."""
        return len(self._log.snapshot())

    @property
    def request_log(self) -> list[tuple[str, str, int | None]]:
        """(method, path with query, status) of each API request since the last reset."""
        return self._log.snapshot()

    def client(self, **kwargs: Any) -> Any:
        """A ``docsapi.DocsClient`` for this sandbox (the full-access token unless ``token=``)."""
        from docsapi.client import DocsClient

        return DocsClient(**{"base_url": self.url, "token": self.token, **kwargs})

    # -- internals used by the server and the controls -----------------------------------
    def file_bytes(self, space_id: str, file_id: str) -> tuple[str, bytes] | None:
        """Content type and deterministic bytes of a file of a space, or None."""
        with self._store.lock.reading():
            if space_id not in self._store.state.spaces:
                return None
            found = self._store.content(space_id).file(file_id)
        if found is None:
            return None
        pattern = f"{found.name}:{found.id}\n".encode()
        return found.content_type, (pattern * (found.size // len(pattern) + 1))[: found.size]
