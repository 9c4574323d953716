"""Fetch everything a permission audit needs from the API, concurrently.

The crawl only collects the raw tables of :class:`~docsapi.audit.data.AuditData`; the
analysis never talks to the API, so it can be tested offline on hand-made tables.

What is read, for an organization (list endpoints, up to 1,000 items a page):

- the organization (its name, whether invite links are on), its members, teams, spaces
  (with the count the API gives), collections, sites (with their default levels) and
  invite links, and who created each space and collection (the audit log's create events,
  :mod:`docsapi.audit.creators`);
- per space: its user and team permissions and the platform's aggregate of who can reach
  it; per team: its members; per collection: its user and team permissions; per site: the
  spaces it publishes, its share links, its user and team permissions;
- when asked, the organization's audit log from a given moment on (100 events a page, the
  API's largest), read once, by one worker, while the others read the rest.

A read that fails in a way that leaves the rest meaningful (a 403 on one space, a team
whose members keep answering 503, a server without sites) becomes a row of ``errors`` and
the crawl goes on; the analysis marks what depended on it. The organization's spaces,
members and teams are needed by everything: a failure there is raised.

Every paged read has a page bound, an item bound and a time budget
(:class:`~docsapi.core.config.ReadBounds`): a server that sends a fresh cursor forever stops
being read at a bound, and the read becomes a row of ``errors`` (a partial audit, never a
failed one; the spaces, members and teams keep what was read before it). The log's events
are checked as they are decoded (:mod:`docsapi.audit.log_events`): what cannot be trusted is
set aside and counted, and the rest is used.

Large lists (permissions, aggregates) are turned into compact columns as each target's
pages arrive (:class:`~docsapi.audit.data.ColumnAccumulator`), not kept as JSON objects.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from datetime import timedelta
from itertools import islice
from typing import TYPE_CHECKING, Any

import pandas as pd

from docsapi.audit.creators import CREATE_ACTION_NAMES, creators_from_events
from docsapi.audit.data import AuditData, ColumnAccumulator, conform
from docsapi.audit.log_events import (
    EVENT_SHAPE,
    LATE_SLACK,
    LOG_CONTENT_STAGE,
    EventColumns,
    SetAside,
    conflicting_duplicates,
    joined,
    late_events,
)
from docsapi.core.checks import check_params
from docsapi.core.config import ReadBounds
from docsapi.core.safe_text import progress_stream
from docsapi.data.fields import TeamPermissionFields, UserPermissionFields
from docsapi.data.shapes import Shape
from docsapi.errors import (
    APIConnectionError,
    APIStatusError,
    NotFoundError,
    PaginationError,
    PermissionDeniedError,
    RateLimitError,
    ReadBoundError,
    ResponseFormatError,
    ServerError,
)

if TYPE_CHECKING:
    from docsapi.client import DocsClient

__all__ = ["AuditData", "crawl_organization"]

#: Failures that lose one read but leave the rest of the audit meaningful.
#: A 401 or a bad argument is not among them: it would fail every request alike.
_RECOVERABLE = (
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    ServerError,
    APIConnectionError,
    ResponseFormatError,
    PaginationError,
)

#: Items per page asked of every list endpoint (the API's maximum).
PAGE = 1000
#: Items per page of the teams and their members (as ``client.orgs`` reads them).
TEAM_PAGE = 100
#: The time a read has once the crawl's time budget is spent: its first page, no more.
_LEAST_SECONDS = 1e-6

#: Events per page of the audit log (the API's largest page there).
EVENT_PAGE = 100
#: Events turned into columns at a time (10 pages; up to one batch per slice at once).
_EVENT_BATCH = 1_000
#: The log's pages follow a cursor, one after another: a long window is read in slices of
#: time at once, one per this many days (a year of a large organization is hundreds of
#: pages), at most :data:`LOG_SLICES` and never more than the workers.
LOG_SLICE_DAYS = 30
LOG_SLICES = 8


def log_slices(
    since: pd.Timestamp, until: pd.Timestamp, workers: int
) -> list[tuple[pd.Timestamp, pd.Timestamp | None]]:
    """The slices of time the log from ``since`` is read in, oldest first; the last one has
    no end (whatever happened after ``until`` is read too).

    Examples
    --------
    >>> start, now = pd.Timestamp("2026-01-01", tz="UTC"), pd.Timestamp("2026-03-02", tz="UTC")
    >>> [(a.strftime("%m-%d"), b and b.strftime("%m-%d")) for a, b in log_slices(start, now, 8)]
    [('01-01', '01-31'), ('01-31', None)]
    """
    start = since.to_pydatetime(warn=False)
    span = until.to_pydatetime(warn=False) - start  # datetimes: a window from the year 1 fits
    count = max(1, min(LOG_SLICES, workers, span // timedelta(days=LOG_SLICE_DAYS)))
    edges = [pd.Timestamp(start + span * i / count) for i in range(count)]
    return [(edge, edges[i + 1] if i + 1 < count else None) for i, edge in enumerate(edges)]


class _LogPart:
    """One read of the log: its events kept, as columns, and those set aside."""

    def __init__(self, events: pd.DataFrame, set_aside: SetAside) -> None:
        self.events = events
        self.set_aside = set_aside


def _joined_log(parts: list[_LogPart], set_aside: SetAside) -> pd.DataFrame:
    """The parts' events as one log, newest first (each slice is), their set-aside events
    counted in ``set_aside``. Copies of one event are kept once (an event at a slice's
    edge is read by both slices; copies that differ are resolved later)."""
    for part in parts:
        set_aside.merge(part.set_aside)
    return joined([part.events for part in parts[::-1]])


_USERS = Shape(UserPermissionFields, ("user_id", "display_name", "email", "role"))
_TEAMS = Shape(TeamPermissionFields, ("team_id", "title", "role"))
_AGGREGATE = Shape(UserPermissionFields, ("user_id", "display_name", "role"))


class _Failed:
    """A read that failed: becomes one row of ``errors``."""

    def __init__(self, target_type: str, target_id: str, stage: str, exc: Exception) -> None:
        self.row: dict[str, object] = {
            "target_type": target_type,
            "target_id": target_id,
            "stage": stage,
            "error_type": type(exc).__name__,
            "message": str(exc),
        }


def _attempt(fetch: Callable[[], Any], target_type: str, target_id: str, stage: str) -> Any:
    """Run one read; a recoverable failure is returned as :class:`_Failed`."""
    try:
        return fetch()
    except _RECOVERABLE as exc:
        return _Failed(target_type, target_id, stage, exc)


def _follow(jobs: list[Future], what: str, unit: str, progress: bool) -> None:
    """Wait for one phase's jobs, raising what could not be recovered from (401, ...).

    With ``progress``, one bar follows the phase: named for what it reads (``what`` with
    ``{count}`` filled in, e.g. "access of 30 spaces"), its total known from the start,
    counting ``unit`` (a word). Phases without jobs show no bar.
    """
    from tqdm.auto import tqdm  # type: ignore[import-untyped]

    if not jobs:
        return
    name = what.format(count=f"{len(jobs)} {unit}{'' if len(jobs) == 1 else 's'}")
    bar = tqdm(
        total=len(jobs), desc=name, unit=f" {unit}", disable=not progress, file=progress_stream()
    )
    with bar:
        for job in as_completed(jobs):
            job.result()
            bar.update(1)


def client_now(client: DocsClient) -> pd.Timestamp:
    """The client's clock (``DocsClient(clock=...)``) as a UTC timestamp: the one clock an
    audit's time and its log window come from."""
    return pd.Timestamp(client.transport.clock.time(), unit="s", tz="UTC")


class _Reader:
    """The reads of one organization, each a function returning what a worker brings back.

    Every paged read is bounded by ``bounds`` (:class:`~docsapi.core.config.ReadBounds`):
    one that reaches a bound raises :class:`~docsapi.errors.ReadBoundError`, a recoverable
    failure (a row of ``errors``); the lists the audit cannot do without keep what they
    read before the bound (:meth:`kept`) and record the stop in :attr:`stops`.
    """

    def __init__(self, client: DocsClient, org_id: str, bounds: ReadBounds) -> None:
        self.client = client
        self.org_id = org_id
        self.org_path = f"/orgs/{org_id}"
        self._bounds = bounds
        self._began = client.transport.clock.monotonic()
        self.stops: list[_Failed] = []

    def bounds(self) -> ReadBounds:
        """The bounds of a read starting now: its pages and items, and what is left of the
        crawl's time budget (``bounds.seconds`` from the crawl's start, for every read: the
        crawl ends within it however many reads do not end)."""
        left = self._bounds.seconds - (self.client.transport.clock.monotonic() - self._began)
        return ReadBounds(self._bounds.pages, self._bounds.items, max(left, _LEAST_SECONDS))

    def items(
        self,
        path: str,
        *,
        key: tuple[str, ...] = ("id",),
        limit: int = PAGE,
        params: dict[str, object] | None = None,
    ) -> list:
        """Every item of a list (each id once), JSON objects."""
        query = check_params({"limit": limit, **(params or {})})
        pages = self.client.transport.paginate(path, params=query, key=key, bounds=self.bounds())
        items = list(pages)
        if not all(isinstance(item, dict) for item in items):
            raise ResponseFormatError(f"GET {path}: a list item is not a JSON object")
        return items

    def kept(self, stage: str, path: str, **params: object) -> list:
        """A list the audit cannot do without (spaces, members, teams): a read that reaches
        a bound keeps the items read before it, and its stop is recorded (a partial audit);
        any other failure is raised."""
        query = check_params({"limit": PAGE, **params})
        pages = self.client.transport.paginate(
            path, params=query, key=("id",), bounds=self.bounds()
        )
        items: list = []
        try:
            items.extend(pages)
        except ReadBoundError as exc:
            self.stops.append(_Failed("organization", self.org_id, stage, exc))
        if not all(isinstance(item, dict) for item in items):
            raise ResponseFormatError(f"GET {path}: a list item is not a JSON object")
        return items

    def shaped(self, path: str, columns: Shape, **params: object) -> list:
        """The items of a large list, decoded into ``columns``' shape where they fit it."""
        query = check_params({"limit": PAGE, **params})
        return list(
            self.client.transport.paginate(
                path, params=query, shape=columns.page, bounds=self.bounds()
            )
        )

    def organization(self) -> tuple[str | None, bool | None]:
        """The organization's title and whether its invite links are on (None: unknown)."""
        try:
            raw = self.client.request("GET", self.org_path)
        except _RECOVERABLE:
            return None, None
        enabled = raw.get("inviteLinks") if isinstance(raw, dict) else None
        title = raw.get("title") if isinstance(raw, dict) else None
        return title, enabled if isinstance(enabled, bool) else None

    def token_user(self) -> str | None:
        """The id of the token's user; None for a token that is not a user's."""
        try:
            return self.client.users.me().id
        except (APIStatusError, ResponseFormatError):
            return None

    def now(self) -> pd.Timestamp:
        """The client's clock (see :func:`client_now`)."""
        return client_now(self.client)

    def reported_spaces(self) -> tuple[int | None, pd.Timedelta | None]:
        """The number of spaces the API says the organization's list holds (if it says), and
        how far the server's clock (its ``Date`` header) is from the client's: ages (share
        links, inactivity) are counted to the server's time when the crawl finished, so data
        the server dates from its own clock (a sandbox's) ages by that clock."""
        try:
            answer = self.client.transport.request(
                "GET", f"{self.org_path}/spaces", params={"limit": 1}
            )
        except _RECOVERABLE:
            return None, None
        received = self.now()
        count = answer.data.get("count") if isinstance(answer.data, dict) else None
        if not isinstance(count, int | float) or isinstance(count, bool):
            count = None
        server = _server_time(answer.headers.get("Date"))
        offset = None if server is None else server - received
        if offset is not None and pd.Timedelta(seconds=-1) < offset <= pd.Timedelta(0):
            # a Date header counts whole seconds: within the second it names, the clocks agree
            # (else two audits a moment apart could be dated out of order)
            offset = pd.Timedelta(0)
        return (None if count is None else int(count)), offset

    def space(self, space_id: str) -> tuple[str, Any, Any, Any]:
        path = f"/spaces/{space_id}/permissions"
        users = _attempt(
            lambda: self.shaped(f"{path}/users", _USERS), "space", space_id, "space users"
        )
        teams = _attempt(
            lambda: self.shaped(f"{path}/teams", _TEAMS), "space", space_id, "space teams"
        )
        aggregate = _attempt(
            lambda: _AGGREGATE.columns(self.shaped(f"{path}/aggregate", _AGGREGATE)),
            "space",
            space_id,
            "aggregate",
        )
        return space_id, users, teams, aggregate

    def collection(self, collection_id: str) -> tuple[str, Any, Any]:
        path = f"/collections/{collection_id}/permissions"
        return (
            collection_id,
            _attempt(
                lambda: self.shaped(f"{path}/users", _USERS),
                "collection",
                collection_id,
                "collection users",
            ),
            _attempt(
                lambda: self.shaped(f"{path}/teams", _TEAMS),
                "collection",
                collection_id,
                "collection teams",
            ),
        )

    def site(self, site_id: str) -> tuple[str, Any, Any, Any, Any]:
        path = f"{self.org_path}/sites/{site_id}"
        return (
            site_id,
            _attempt(lambda: self.items(f"{path}/site-spaces"), "site", site_id, "site spaces"),
            _attempt(lambda: self.items(f"{path}/share-links"), "site", site_id, "share links"),
            _attempt(
                lambda: self.shaped(f"{path}/permissions/users", _USERS),
                "site",
                site_id,
                "site users",
            ),
            _attempt(
                lambda: self.shaped(f"{path}/permissions/teams", _TEAMS),
                "site",
                site_id,
                "site teams",
            ),
        )

    def team_members(self, team_id: str) -> Any:
        from docsapi.data import frames

        path = f"{self.org_path}/teams/{team_id}/members"
        return _attempt(
            lambda: frames.team_members(
                self.org_id,
                team_id,
                self.items(path, key=("organization", "id"), limit=TEAM_PAGE),
            ),
            "team",
            team_id,
            "team members",
        )

    def log(self, since: pd.Timestamp, until: pd.Timestamp | None = None) -> Any:
        """The audit log from ``since`` on, up to ``until`` when given (recoverable: a token
        that may not read it, or an organization without it, leaves the audit partial, not
        failed)."""
        bounds = {"from": since.isoformat()}
        if until is not None:
            bounds["to"] = until.isoformat()
        return self._events("audit log", **bounds)

    def creations(self, action: str, before: pd.Timestamp) -> Any:
        """The log's ``action`` events (a create action) up to ``before``, where the log's
        window starts: the creations the window does not reach (recoverable, as the log)."""
        return self._events("creators", action=action, to=before.isoformat())

    def _events(self, stage: str, **params: object) -> Any:
        def read() -> _LogPart:
            query = check_params({"limit": EVENT_PAGE, **params})
            items = self.client.transport.paginate(
                f"{self.org_path}/audit-events",
                params=query,
                shape=EVENT_SHAPE.page,
                bounds=self.bounds(),
            )
            # A few pages' events at a time are checked and become codes: the log can hold
            # hundreds of thousands of events, and no decoded item outlives its batch.
            log = EventColumns()
            while batch := list(islice(items, _EVENT_BATCH)):
                log.add(batch)
            return _LogPart(log.frame(), log.set_aside)

        return _attempt(read, "organization", self.org_id, stage)

    def log_actions(self) -> tuple[str, ...] | None:
        """The action IDs the organization's log records (``audit-event-actions``, read once);
        None when they cannot be read (the list is not required: provenance then claims of
        no kind of setting that the platform does not record it)."""
        try:
            raw = self.client.request("GET", f"{self.org_path}/audit-event-actions")
        except _RECOVERABLE:
            return None
        items = raw.get("items") if isinstance(raw, dict) else None
        if not isinstance(items, list):
            return None
        return tuple(
            item["id"]
            for item in items
            if isinstance(item, dict) and isinstance(item.get("id"), str)
        )

    def listing(self, what: str, path: str, **params: object) -> Any:
        """An organization-wide list (collections, sites, invite links): recoverable."""
        return _attempt(lambda: self.items(path, params=params), "organization", self.org_id, what)


def _server_time(header: str | None) -> pd.Timestamp | None:
    """An HTTP ``Date`` header as a UTC timestamp; None when missing or unreadable."""
    from email.utils import parsedate_to_datetime

    try:
        return pd.Timestamp(parsedate_to_datetime(header or "")).tz_convert("UTC")
    except (TypeError, ValueError):
        return None


class _Tables:
    """The raw tables, filled by the workers as their answers arrive.

    Each answer is turned into columns in its worker and appended under one lock, so no
    JSON object outlives its read and no finished job holds its answer.
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.user_permissions = ColumnAccumulator("user_permissions")
        self.team_permissions = ColumnAccumulator("team_permissions")
        self.aggregate = ColumnAccumulator("aggregate")
        self.team_members: list[pd.DataFrame] = []
        self.site_records: dict[str, tuple[list[str], list[dict]]] = {
            "site_spaces": ([], []),
            "share_links": ([], []),
        }
        self.errors: list[dict[str, object]] = []

    def failed(self, answer: Any) -> bool:
        if isinstance(answer, _Failed):
            with self.lock:
                self.errors.append(answer.row)
            return True
        return False

    def permissions(self, target_type: str, target_id: str, users: Any, teams: Any) -> None:
        if not self.failed(users):
            columns = _USERS.columns(users)
            with self.lock:
                self.user_permissions.append(
                    target_type=target_type, target_id=target_id, **columns
                )
        if not self.failed(teams):
            columns = _TEAMS.columns(teams)
            with self.lock:
                self.team_permissions.append(
                    target_type=target_type, target_id=target_id, **columns
                )

    def space(self, space_id: str, users: Any, teams: Any, aggregate: Any) -> None:
        self.permissions("space", space_id, users, teams)
        if not self.failed(aggregate):
            with self.lock:
                self.aggregate.append(space_id=space_id, **aggregate)

    def site(self, site_id: str, spaces: Any, links: Any, users: Any, teams: Any) -> None:
        for name, items in (("site_spaces", spaces), ("share_links", links)):
            if not self.failed(items):
                with self.lock:
                    ids, records = self.site_records[name]
                    ids.extend([site_id] * len(items))
                    records.extend(items)
        self.permissions("site", site_id, users, teams)

    def team(self, answer: Any) -> None:
        if not self.failed(answer) and len(answer):
            with self.lock:
                self.team_members.append(answer)


def crawl_organization(
    client: DocsClient,
    org_id: str,
    *,
    max_workers: int = 8,
    progress: bool = True,
    events_since: pd.Timestamp | None = None,
    bounds: ReadBounds | None = None,
    creators_before: pd.DataFrame | None = None,
) -> AuditData:
    """Read everything an audit of an organization needs (see the module docstring).

    Parameters
    ----------
    client : DocsClient
        The client to read with; its retry policy handles rate limits.
    org_id : str
        The organization's id.
    max_workers : int
        Number of concurrent requests.
    progress : bool
        Show one progress bar per phase: the access of the spaces, the members of the
        teams, the access of the collections, the spaces, share links and access of the
        sites, and the audit log.
    events_since : Timestamp, optional
        Read the organization's audit log from this moment on (one paged read, alongside the
        others), and who created each space and collection: the window's create events and,
        read by action up to this moment, the older ones (a creation is usually older than
        the window). None reads no log, and every creator is unknown (``creators`` is then
        among ``not_read``).
    bounds : ReadBounds, optional
        How far each paged read may go (default ``ReadBounds()``): ``pages`` and ``items``
        per read, and ``seconds`` for the whole crawl (a read still going that long after
        the crawl began stops). A read that reaches a bound stops: a row of ``errors``
        (``error_type`` ``ReadBoundError``, its message says where it stopped and why) and a
        partial audit,
        never a failed one; the organization's spaces, members and teams keep what was read
        before the bound.
    creators_before : DataFrame, optional
        Who created what before ``events_since``, as an earlier audit read it (its raw
        ``creators`` table): the create actions before the window are then not read again,
        and the window's creations are added to these.

    Returns
    -------
    AuditData
        The raw tables.

    Raises
    ------
    docsapi.errors.APIStatusError
        When the organization's spaces, members or teams cannot be read.
    """
    from docsapi.data import frames

    read = _Reader(client, org_id, ReadBounds() if bounds is None else bounds)
    tables = _Tables()
    with ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="docsapi-audit") as pool:
        try:
            organization = pool.submit(read.organization)
            # The members' records become their frame in the worker, so they are freed (and
            # their memory reused by the pages that follow) as soon as they are read.
            members_job = pool.submit(
                lambda: frames.org_members(org_id, read.kept("members", f"{read.org_path}/members"))
            )
            teams_job = pool.submit(
                lambda: frames.teams(
                    org_id, read.kept("teams", f"{read.org_path}/teams", limit=TEAM_PAGE)
                )
            )
            me_job = pool.submit(read.token_user)
            count_job = pool.submit(read.reported_spaces)
            collections_job = pool.submit(
                read.listing, "collections", f"{read.org_path}/collections", nested="true"
            )
            sites_job = pool.submit(read.listing, "sites", f"{read.org_path}/sites")
            invites_job = pool.submit(read.listing, "invite links", f"{read.org_path}/link-invites")
            window_jobs = (
                []
                if events_since is None
                else [
                    pool.submit(read.log, start, end)
                    # edges of whole days' fractions: the same addresses all day (a cache
                    # answers a second audit), the last slice open-ended
                    for start, end in log_slices(events_since, read.now().floor("D"), max_workers)
                ]
            )
            actions_job = None if events_since is None else pool.submit(read.log_actions)
            # Creations older than the window, one read per create action (each cancellable).
            creation_jobs = (
                []
                if events_since is None or creators_before is not None
                else [pool.submit(read.creations, a, events_since) for a in CREATE_ACTION_NAMES]
            )
            space_records = read.kept("spaces", f"{read.org_path}/spaces")
            spaces = frames.spaces(space_records)
            del space_records
            # Each job reads one target and files its answer; jobs return nothing.
            space_jobs: list[Future] = [
                pool.submit(lambda s: tables.space(*read.space(s)), s) for s in spaces["id"]
            ]
            teams = teams_job.result()
            team_jobs = [
                pool.submit(lambda t: tables.team(read.team_members(t)), t) for t in teams["id"]
            ]
            collection_records = collections_job.result()
            collection_jobs = (
                []
                if tables.failed(collection_records)
                else [
                    pool.submit(lambda c: tables.permissions("collection", *read.collection(c)), c)
                    for c in (record["id"] for record in collection_records)
                ]
            )
            site_records = sites_job.result()
            site_jobs = (
                []
                if tables.failed(site_records)
                else [
                    pool.submit(lambda s: tables.site(*read.site(s)), s)
                    for s in (record["id"] for record in site_records)
                ]
            )
            members = members_job.result()
            for stop in read.stops:  # spaces, members, teams read up to a bound
                tables.failed(stop)
            log_jobs = [*window_jobs, *creation_jobs]
            for jobs, what, unit in (
                (space_jobs, "access of {count}", "space"),
                (team_jobs, "members of {count}", "team"),
                (collection_jobs, "access of {count}", "collection"),
                (site_jobs, "spaces, share links and access of {count}", "site"),
                (log_jobs, "the audit log in {count}", "read"),
            ):
                _follow(jobs, what, unit, progress)
            (org_name, invite_links_on), me = organization.result(), me_job.result()
            reported, clock_offset = count_job.result()
            invite_links = _invite_links(frames, org_id, invites_job.result(), tables)
            generated_at = read.now() + (clock_offset or pd.Timedelta(0))
            window = [job.result() for job in window_jobs]
            failed = next((part for part in window if isinstance(part, _Failed)), None)
            if failed is not None:
                tables.failed(failed)  # one row for the log's window, however many slices failed
            set_aside = SetAside()
            events = (
                _trusted_log(_joined_log(window, set_aside), generated_at, set_aside)
                if window and failed is None
                else None
            )
            earlier = [job.result() for job in creation_jobs]
            failures = [tables.failed(answer) for answer in earlier]  # each one recorded
            if events is not None and creators_before is not None:
                creators = _joined_creators(creators_before, events)
            elif not earlier or events is None or any(failures):
                creators = conform("creators")  # not read, or the window failed: unknown
            else:
                older = _trusted_log(_joined_log(earlier, set_aside), generated_at, set_aside)
                creators = creators_from_events(pd.concat([older, events], ignore_index=True))
            if events is not None and len(set_aside):
                tables.errors.append(_log_row(org_id, "EventsSetAside", set_aside.summary()))
        except BaseException:
            # A fatal error (401, Ctrl-C): do not send the requests still queued.
            pool.shutdown(wait=False, cancel_futures=True)
            raise
    _release_free_memory()
    return AuditData(
        org_id=org_id,
        org_name=org_name,
        generated_at=generated_at,
        token_role=_token_role(members, me),
        spaces_reported=reported,
        invite_links_enabled=invite_links_on,
        spaces=spaces,
        collections=(
            frames.collections(collection_records)
            if not isinstance(collection_records, _Failed)
            else conform("collections")
        ),
        members=members,
        teams=teams,
        team_members=(
            pd.concat(tables.team_members, ignore_index=True)
            if tables.team_members
            else conform("team_members")
        ),
        user_permissions=tables.user_permissions.frame(),
        team_permissions=tables.team_permissions.frame(),
        sites=(
            frames.sites(org_id, site_records)
            if not isinstance(site_records, _Failed)
            else conform("sites")
        ),
        site_spaces=frames.site_spaces(*tables.site_records["site_spaces"]),
        share_links=frames.share_links(*tables.site_records["share_links"]),
        invite_links=invite_links,
        aggregate=tables.aggregate.frame(),
        creators=creators,
        events=conform("events") if events is None else events,
        events_since=events_since,
        log_actions=None if actions_job is None else actions_job.result(),
        errors=pd.DataFrame(tables.errors),
        not_read=frozenset({"creators"}) if events is None else frozenset(),
    )


def _log_row(org_id: str, kind: str, message: str | None) -> dict[str, object]:
    """A row of ``errors`` about events of the log the audit does not trust."""
    return {
        "target_type": "organization",
        "target_id": org_id,
        "stage": LOG_CONTENT_STAGE,
        "error_type": kind,
        "message": message,
    }


def _trusted_log(
    events: pd.DataFrame, generated_at: pd.Timestamp, set_aside: SetAside
) -> pd.DataFrame:
    """``events`` without those dated after the audit and with each id once (a copy of an
    id with other content is set aside, see :mod:`docsapi.audit.log_events`)."""
    events = late_events(events, generated_at + LATE_SLACK, set_aside)
    return conflicting_duplicates(events, set_aside)


def _joined_creators(known: pd.DataFrame, events: pd.DataFrame) -> pd.DataFrame:
    """The raw ``creators`` table: ``known`` (an earlier audit's) and the creations among
    ``events``, the earliest creation of each space and collection kept."""
    joined = pd.concat(
        [conform("creators", known), creators_from_events(events)], ignore_index=True
    )
    return conform("creators", joined.sort_values("created_at", kind="stable"))


def _release_free_memory() -> None:
    """Give the memory the workers freed back to the system, where the C library can.

    Each worker thread allocates its answers in an arena of its own (glibc), which keeps
    what they freed once the crawl is over: tens of MB for a large organization, held while
    the analysis runs. ``malloc_trim`` returns it; elsewhere (another C library) nothing
    happens.
    """
    import ctypes

    try:
        trim = ctypes.CDLL(None).malloc_trim  # the C library the interpreter runs on
    except (OSError, AttributeError):
        return
    trim(0)


def _token_role(members: pd.DataFrame, user_id: str | None) -> str | None:
    """The organization role of the token's user: a role, ``guest``, ``non-member``; None
    when the token is not a user's."""
    if user_id is None:
        return None
    found = members.loc[members["user_id"] == user_id, "role"]
    if found.empty:
        return "non-member"
    return "guest" if pd.isna(found.iloc[0]) else str(found.iloc[0])


def _invite_links(frames: Any, org_id: str, records: Any, tables: _Tables) -> pd.DataFrame:
    if tables.failed(records):
        return conform("invite_links")
    links = frames.invite_links(org_id, records)
    return links.rename(columns={"kind": "target_type"})
