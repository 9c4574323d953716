"""Fetch everything a permission audit needs from the API, concurrently.

The crawl only collects DataFrames; the analysis in :mod:`docsapi.audit` never talks to
the API, so it can be tested offline on hand-made tables.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from typing import TYPE_CHECKING

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
    fetch: Callable[[], pd.DataFrame], stage: str, space_id: str | None, team_id: str | None
) -> tuple[pd.DataFrame | None, dict[str, object] | None]:
    """Run one fetch; a recoverable failure becomes an error row instead of an exception."""
    try:
        return fetch(), None
    except _RECOVERABLE as exc:
        error = {
            "space_id": space_id,
            "team_id": team_id,
            "stage": stage,
            "error_type": type(exc).__name__,
            "message": str(exc),
        }
        return None, error


def _crawl_space(permissions: Permissions, space_id: str) -> list[tuple]:
    users = _attempt(lambda: permissions.users(space_id), "space users", space_id, None)
    teams = _attempt(lambda: permissions.teams(space_id), "space teams", space_id, None)
    return [("user_grants", *users), ("team_grants", *teams)]


def _crawl_team(orgs: Orgs, org_id: str, team_id: str) -> list[tuple]:
    members = _attempt(lambda: orgs.team_members(org_id, team_id), "team members", None, team_id)
    return [("team_members", *members)]


def _concat(frames: list[pd.DataFrame], empty: pd.DataFrame) -> pd.DataFrame:
    frames = [frame for frame in frames if not frame.empty]
    if not frames:
        return empty
    return pd.concat(frames, ignore_index=True)


def crawl_organization(
    client: DocsClient, org_id: str, *, max_workers: int = 8, progress: bool = True
) -> AuditData:
    """Read the spaces, permissions, members and teams of an organization.

    The organization's spaces, members and teams are read first (a failure there is
    raised: nothing meaningful can be audited without them); then each space's user and
    team permissions and each team's members are read by ``max_workers`` threads sharing
    the client. A space or team that cannot be read is recorded in ``errors``.

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
    # Resource groups are created here, once, rather than lazily by several threads.
    permissions, orgs = client.permissions, client.orgs
    spaces = client.spaces.list(org_id=org_id)
    members = orgs.members(org_id)
    teams = orgs.teams(org_id)

    parts: dict[str, list[pd.DataFrame]] = {
        "user_grants": [],
        "team_grants": [],
        "team_members": [],
    }
    empties: dict[str, pd.DataFrame] = {}
    errors: list[dict[str, object]] = []
    with ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="docsapi-audit") as pool:
        team_jobs = [pool.submit(_crawl_team, orgs, org_id, t) for t in teams["id"]]
        space_jobs: list[Future] = [pool.submit(_crawl_space, permissions, s) for s in spaces["id"]]
        try:
            with _progress_bar(len(space_jobs), progress) as bar:
                for job in as_completed(space_jobs):
                    _collect(job.result(), parts, empties, errors)
                    bar.update(1)
            for job in team_jobs:
                _collect(job.result(), parts, empties, errors)
        except BaseException:
            # A fatal error (401, Ctrl-C): do not send the requests still queued.
            pool.shutdown(wait=False, cancel_futures=True)
            raise

    empty_grants = pd.DataFrame(columns=["space_id", "user_id", "display_name", "email", "role"])
    empty_teams = pd.DataFrame(columns=["space_id", "team_id", "title", "members", "role"])
    empty_members = pd.DataFrame(
        columns=["org_id", "team_id", "user_id", "display_name", "email", "role"]
    )
    return AuditData(
        org_id=org_id,
        spaces=spaces,
        user_grants=_concat(parts["user_grants"], empties.get("user_grants", empty_grants)),
        team_grants=_concat(parts["team_grants"], empties.get("team_grants", empty_teams)),
        members=members,
        teams=teams,
        team_members=_concat(parts["team_members"], empties.get("team_members", empty_members)),
        errors=pd.DataFrame(errors, columns=ERROR_COLUMNS),
    )


def _collect(
    results: list[tuple],
    parts: dict[str, list[pd.DataFrame]],
    empties: dict[str, pd.DataFrame],
    errors: list[dict[str, object]],
) -> None:
    """Sort one job's results into the table lists and the error list."""
    for table, frame, error in results:
        if error is not None:
            errors.append(error)
        elif frame.empty:
            empties.setdefault(table, frame)
        else:
            parts[table].append(frame)
