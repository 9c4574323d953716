"""Fetch everything a permission audit needs from the API, concurrently.

The crawl only collects the raw tables of :class:`~docsapi._audit_data.AuditData`; the
analysis never talks to the API, so it can be tested offline on hand-made tables.

A read that fails in a way that leaves the rest meaningful (a 403 on one space, a team
whose members keep answering 503) becomes a row of ``errors`` and the audit goes on;
the analysis then marks what depended on it. Parts of the organization this client cannot
read yet are named in ``not_read``, so the audit says it is partial instead of guessing.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from typing import TYPE_CHECKING, Any

import pandas as pd

from docsapi._audit_data import AuditData, ColumnAccumulator, conform
from docsapi.errors import (
    APIConnectionError,
    APIStatusError,
    NotFoundError,
    PaginationError,
    PermissionDeniedError,
    RateLimitError,
    ResponseFormatError,
    ServerError,
)

if TYPE_CHECKING:
    from docsapi.client import DocsClient
    from docsapi.resources import Orgs, Permissions

__all__ = ["AuditData", "crawl_organization"]

#: Failures that lose one target but leave the rest of the audit meaningful.
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

#: Parts of the access model this crawl has no reader for yet: the audit names them as not
#: read (and so is never complete) rather than pretending they are empty.
_UNREAD = frozenset(
    {
        "collections",
        "collection_permissions",
        "sites",
        "site_spaces",
        "share_links",
        "site_permissions",
        "invite_links",
        "aggregate",
    }
)


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


def _progress_bar(total: int, enabled: bool):
    from tqdm.auto import tqdm

    return tqdm(total=total, desc="Auditing spaces", unit="space", disable=not enabled)


def _space_permissions(permissions: Permissions, space_id: str) -> tuple[str, Any, Any]:
    users = _attempt(lambda: permissions.user_records(space_id), "space", space_id, "space users")
    teams = _attempt(lambda: permissions.team_records(space_id), "space", space_id, "space teams")
    return space_id, users, teams


def _team_members(orgs: Orgs, org_id: str, team_id: str) -> Any:
    return _attempt(lambda: orgs.team_members(org_id, team_id), "team", team_id, "team members")


def _reported_spaces(client: DocsClient, org_id: str) -> tuple[int | None, pd.Timedelta | None]:
    """The number of spaces the API says the organization's list holds (if it says), and
    how far the server's clock (its ``Date`` header) is from ours: ages (share links,
    inactivity) are counted to the server's time when the crawl finished."""
    try:
        path = f"/orgs/{org_id}/spaces"
        answer = client.transport.request("GET", path, params={"limit": 1})
    except _RECOVERABLE:
        return None, None
    received = pd.Timestamp.now(tz="UTC")
    data = answer.data
    count = data.get("count") if isinstance(data, dict) else None
    if not isinstance(count, int | float) or isinstance(count, bool):
        count = None
    server = _server_time(answer.headers.get("Date"))
    offset = None if server is None else server - received
    return (None if count is None else int(count)), offset


def _server_time(header: str | None) -> pd.Timestamp | None:
    """An HTTP ``Date`` header as a UTC timestamp; None when missing or unreadable."""
    from email.utils import parsedate_to_datetime

    try:
        return pd.Timestamp(parsedate_to_datetime(header or "")).tz_convert("UTC")
    except (TypeError, ValueError):
        return None


def _org_name(orgs: Orgs, org_id: str) -> str | None:
    """The organization's title; None when it cannot be read (it is only a heading)."""
    try:
        return orgs.get(org_id).title
    except _RECOVERABLE:
        return None


def _token_user(client: DocsClient) -> str | None:
    """The id of the token's user; None for a token that is not a user's."""
    try:
        return client.users.me().id
    except (APIStatusError, ResponseFormatError):
        return None


class _Tables:
    """The raw tables being filled, page by page, from the worker threads' answers."""

    def __init__(self) -> None:
        self.user_permissions = ColumnAccumulator("user_permissions")
        self.team_permissions = ColumnAccumulator("team_permissions")
        self.team_members: list[pd.DataFrame] = []
        self.errors: list[dict[str, object]] = []

    def failed(self, answer: Any) -> bool:
        if isinstance(answer, _Failed):
            self.errors.append(answer.row)
            return True
        return False

    def add_space(self, space_id: str, users: Any, teams: Any) -> None:
        if not self.failed(users):
            people = [item.get("user") or {} for item in users]
            self.user_permissions.append(
                target_type="space",
                target_id=space_id,
                user_id=[p.get("id") for p in people],
                display_name=[p.get("displayName") for p in people],
                email=[p.get("email") for p in people],
                role=[item.get("permission") for item in users],
            )
        if not self.failed(teams):
            held = [item.get("team") or {} for item in teams]
            self.team_permissions.append(
                target_type="space",
                target_id=space_id,
                team_id=[t.get("id") for t in held],
                title=[t.get("title") for t in held],
                role=[item.get("permission") for item in teams],
            )

    def add_team(self, answer: Any) -> None:
        if not self.failed(answer) and len(answer):
            self.team_members.append(answer)


def crawl_organization(
    client: DocsClient, org_id: str, *, max_workers: int = 8, progress: bool = True
) -> AuditData:
    """Read the spaces, permissions, members and teams of an organization.

    ``max_workers`` threads share the client: the organization, its members and teams are
    read while its spaces are listed (a failure there is raised: nothing meaningful can be
    audited without them); then each space's user and team permissions and each team's
    members are read. A space or team that cannot be read becomes a row of ``errors``.

    Parameters
    ----------
    client : DocsClient
        The client to read with; its retry policy handles rate limits.
    org_id : str
        The organization's id.
    max_workers : int
        Number of concurrent requests.
    progress : bool
        Show a progress bar over the spaces.

    Returns
    -------
    AuditData
        The raw tables.

    Raises
    ------
    docsapi.errors.APIStatusError
        When the organization's spaces, members or teams cannot be read.
    """
    permissions, orgs = client.permissions, client.orgs
    tables = _Tables()
    with ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="docsapi-audit") as pool:
        try:
            name_job = pool.submit(_org_name, orgs, org_id)
            members_job = pool.submit(orgs.members, org_id)
            teams_job = pool.submit(orgs.teams, org_id)
            me_job = pool.submit(_token_user, client)
            count_job = pool.submit(_reported_spaces, client, org_id)
            spaces = client.spaces.list(org_id=org_id)
            space_jobs: list[Future] = [
                pool.submit(_space_permissions, permissions, s) for s in spaces["id"]
            ]
            teams = teams_job.result()
            team_jobs = [pool.submit(_team_members, orgs, org_id, t) for t in teams["id"]]
            members = members_job.result()
            with _progress_bar(len(space_jobs), progress) as bar:
                for job in as_completed(space_jobs):
                    tables.add_space(*job.result())
                    bar.update(1)
            for job in team_jobs:
                tables.add_team(job.result())
            org_name, me = name_job.result(), me_job.result()
            reported, clock_offset = count_job.result()
        except BaseException:
            # A fatal error (401, Ctrl-C): do not send the requests still queued.
            pool.shutdown(wait=False, cancel_futures=True)
            raise

    roles = dict(zip(members["user_id"], members["role"], strict=True))
    token_role = None
    if me is not None:
        role = roles.get(me, "non-member")
        token_role = "guest" if role is None or role is pd.NA else role
    return AuditData(
        org_id=org_id,
        org_name=org_name,
        generated_at=pd.Timestamp.now(tz="UTC") + (clock_offset or pd.Timedelta(0)),
        token_role=token_role,
        spaces_reported=reported,
        spaces=spaces,
        members=members,
        teams=teams,
        team_members=(
            pd.concat(tables.team_members, ignore_index=True)
            if tables.team_members
            else conform("team_members")
        ),
        user_permissions=tables.user_permissions.frame(),
        team_permissions=tables.team_permissions.frame(),
        errors=pd.DataFrame(tables.errors),
        not_read=_UNREAD,
    )
