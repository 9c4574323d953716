"""Fetch everything a permission audit needs from the API, concurrently.

The crawl only collects DataFrames; the analysis in :mod:`docsapi.audit` never talks to
the API, so it can be tested offline on hand-made tables.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pandas as pd

from docsapi.errors import (
    APIConnectionError,
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

__all__ = ["ERROR_COLUMNS", "AuditData", "crawl_organization"]

ERROR_COLUMNS = ["space_id", "team_id", "stage", "error_type", "message"]

#: Failures that lose one space or team but leave the rest of the audit meaningful.
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


@dataclass
class AuditData:
    """The raw tables of one organization, as the client returns them.

    Attributes
    ----------
    org_id : str
        The organization audited.
    spaces : DataFrame
        The organization's spaces (client spaces schema).
    user_grants, team_grants : DataFrame
        Every space's user and team permissions (permission users / teams schemas).
    members : DataFrame
        Current members of the organization (org members schema).
    teams, team_members : DataFrame
        The organization's teams and their members (teams / team members schemas).
    errors : DataFrame
        What could not be read: space_id, team_id, stage, error_type, message.
    """

    org_id: str
    spaces: pd.DataFrame
    user_grants: pd.DataFrame
    team_grants: pd.DataFrame
    members: pd.DataFrame
    teams: pd.DataFrame
    team_members: pd.DataFrame
    errors: pd.DataFrame


def _progress_bar(total: int, enabled: bool):
    from tqdm.auto import tqdm

    return tqdm(total=total, desc="Auditing spaces", unit="space", disable=not enabled)


def _attempt(
    fetch: Callable[[], Any], stage: str, space_id: str | None, team_id: str | None
) -> tuple[Any, dict[str, object] | None]:
    """Run one fetch; a recoverable failure becomes an error row instead of an exception."""
    try:
        return fetch(), None
    except _RECOVERABLE as exc:
        error: dict[str, object] = {
            "space_id": space_id,
            "team_id": team_id,
            "stage": stage,
            "error_type": type(exc).__name__,
            "message": str(exc),
        }
        return None, error


@dataclass
class _Collected:
    """What the worker threads bring back: raw permission items and the teams' members."""

    user_items: list[tuple[str, dict]] = field(default_factory=list)
    team_items: list[tuple[str, dict]] = field(default_factory=list)
    team_members: list[pd.DataFrame] = field(default_factory=list)
    errors: list[dict[str, object]] = field(default_factory=list)

    def add_space(self, space_id: str, users: tuple, teams: tuple) -> None:
        for (items, error), target in ((users, self.user_items), (teams, self.team_items)):
            if error is not None:
                self.errors.append(error)
            else:
                target.extend((space_id, item) for item in items)

    def add_team(self, frame: pd.DataFrame | None, error: dict[str, object] | None) -> None:
        if error is not None:
            self.errors.append(error)
        elif frame is not None and not frame.empty:
            self.team_members.append(frame)


def _crawl_space(permissions: Permissions, space_id: str) -> tuple[str, tuple, tuple]:
    # Raw items only: one DataFrame per table is built at the end, not one per space,
    # which keeps the worker threads on the network instead of contending for the GIL.
    users = _attempt(lambda: permissions.user_records(space_id), "space users", space_id, None)
    teams = _attempt(lambda: permissions.team_records(space_id), "space teams", space_id, None)
    return space_id, users, teams


def _crawl_team(orgs: Orgs, org_id: str, team_id: str) -> tuple:
    return _attempt(lambda: orgs.team_members(org_id, team_id), "team members", None, team_id)


def crawl_organization(
    client: DocsClient, org_id: str, *, max_workers: int = 8, progress: bool = True
) -> AuditData:
    """Read the spaces, permissions, members and teams of an organization.

    ``max_workers`` threads share the client: the organization's members and teams are
    read while its spaces are listed (a failure there is raised: nothing meaningful can be
    audited without them); then each space's user and team permissions and each team's
    members are read. A space or team that cannot be read is recorded in ``errors``.

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
    from docsapi import frames

    # Resource groups are created here, once, rather than lazily by several threads.
    permissions, orgs = client.permissions, client.orgs
    collected = _Collected()
    with ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="docsapi-audit") as pool:
        try:
            members_job = pool.submit(orgs.members, org_id)
            teams_job = pool.submit(orgs.teams, org_id)
            spaces = client.spaces.list(org_id=org_id)
            space_jobs: list[Future] = [
                pool.submit(_crawl_space, permissions, s) for s in spaces["id"]
            ]
            teams = teams_job.result()
            team_jobs = [pool.submit(_crawl_team, orgs, org_id, t) for t in teams["id"]]
            members = members_job.result()
            with _progress_bar(len(space_jobs), progress) as bar:
                for job in as_completed(space_jobs):
                    collected.add_space(*job.result())
                    bar.update(1)
            for job in team_jobs:
                collected.add_team(*job.result())
        except BaseException:
            # A fatal error (401, Ctrl-C): do not send the requests still queued.
            pool.shutdown(wait=False, cancel_futures=True)
            raise

    user_spaces, user_items = _unzip(collected.user_items)
    team_spaces, team_items = _unzip(collected.team_items)
    return AuditData(
        org_id=org_id,
        spaces=spaces,
        user_grants=frames.permission_users(user_spaces, user_items),
        team_grants=frames.permission_teams(team_spaces, team_items),
        members=members,
        teams=teams,
        team_members=(
            pd.concat(collected.team_members, ignore_index=True)
            if collected.team_members
            else frames.empty("team_members")
        ),
        errors=pd.DataFrame(collected.errors, columns=ERROR_COLUMNS),
    )


def _unzip(pairs: list[tuple[str, dict]]) -> tuple[list[str], list[dict]]:
    return [space for space, _ in pairs], [item for _, item in pairs]
