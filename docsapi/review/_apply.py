"""Sending a plan's calls: in order, idempotent, stopping at the first unexpected error, resumable.

:func:`apply_plan` sends each call of a plan through the client's typed methods (see
:mod:`docsapi.review._operations`) and records one result per call: ``done`` (with the
outcome ``removed``, ``already absent`` — a 204, which counts as done — or ``updated``) or
``failed`` (with the HTTP status and the error's message). Calls that earlier results record
as done are skipped, so running it again after a failure resumes where it stopped.

Before anything is sent, the plan's organization role changes are checked against the
organization's current admins (:func:`~docsapi.resources.admins.check_admin_changes`): a plan
that would leave no enabled admin is refused, and one that takes the admin role from the
token's own user is sent only with ``allow_self_demotion=True`` (then with an
:class:`~docsapi.errors.AdminRoleWarning`, and that call last: the token can do no admin work
after it).
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

import pandas as pd

from docsapi.errors import (
    AdminRoleWarning,
    APIStatusError,
    DocsAPIError,
    MissingCredentialError,
    ValidationError,
)
from docsapi.resources.admins import check_admin_changes
from docsapi.review._operations import OPERATIONS, Target

if TYPE_CHECKING:
    from docsapi.client import DocsClient

__all__ = ["RESULT_COLUMNS", "apply_plan", "done_calls", "dry_run_calls"]

_STRING = pd.StringDtype("python")
_TIME = pd.DatetimeTZDtype("ns", "UTC")
#: One row per call sent (or skipped in a dry run).
RESULT_COLUMNS: dict[str, Any] = {
    "call_id": _STRING,
    "step": "Int64",
    "operation": _STRING,
    "method": _STRING,
    "path": _STRING,
    "status": _STRING,
    "outcome": _STRING,
    "http_status": "Int64",
    "started_at": _TIME,
    "finished_at": _TIME,
    "error": _STRING,
}
_DONE = "done"
_ORG_ROLE = "updateMemberInOrganizationById"
_TARGET_FIELDS = ("org_id", "space_id", "collection_id", "team_id", "user_id", "role")


def empty_results() -> pd.DataFrame:
    return pd.DataFrame(columns=list(RESULT_COLUMNS)).astype(RESULT_COLUMNS)


def done_calls(results: pd.DataFrame | None) -> set[str]:
    """The ids of the calls that ``results`` record as done."""
    if results is None or not len(results):
        return set()
    return set(results.loc[results["status"] == _DONE, "call_id"].astype(str))


def _target(call: Any) -> Target:
    values = {}
    for name in _TARGET_FIELDS:
        value = getattr(call, name)
        values[name] = None if value is None or pd.isna(value) else str(value)
    return Target(**values)


def check_plan(plan: pd.DataFrame) -> None:
    """A plan has the columns :func:`apply_plan` needs and only known operations."""
    if not isinstance(plan, pd.DataFrame):
        raise ValidationError("plan", f"must be a DataFrame of calls, got {type(plan).__name__}")
    needed = ["call_id", "step", "operation", "method", "path", *_TARGET_FIELDS]
    lacking = [c for c in needed if c not in plan.columns]
    if lacking:
        raise ValidationError("plan", f"lacks columns {lacking}: make it with review.plan()")
    unknown = sorted(set(plan["operation"].astype(str)) - set(OPERATIONS))
    if unknown:
        raise ValidationError(
            "plan",
            f"has operations a review does not send: {unknown} (known: {sorted(OPERATIONS)})",
        )
    for call in plan.itertuples(index=False):
        operation = OPERATIONS[str(call.operation)]
        target = _target(call)
        body = getattr(call, "body", None)
        if (
            operation.method != call.method
            or operation.path(target) != call.path
            or (body is not None and body != operation.body(target))
        ):
            raise ValidationError(
                "plan",
                f"call {call.call_id} says {call.method} {call.path} {body or ''}, but its ids "
                f"and role make {operation.method} {operation.path(target)} "
                f"{operation.body(target) or ''}: the plan was edited; make it again",
            )


def dry_run_calls(plan: pd.DataFrame, results: pd.DataFrame | None = None) -> pd.DataFrame:
    """What :func:`apply_plan` would do, without a request: each call ``would send`` or
    ``skip (done)``."""
    check_plan(plan)
    done = done_calls(results)
    shown = plan[["step", "call_id", "operation", "method", "path", "body", "change"]].copy()
    would = ["skip (done)" if c in done else "would send" for c in plan["call_id"].astype(str)]
    shown.insert(0, "action", pd.Series(would, index=shown.index, dtype=_STRING))
    extra = [
        c
        for c in ("also_revokes_count", "also_lowers_count", "also_raises_count")
        if c in plan.columns
    ]
    for column in extra:
        shown[column] = plan[column]
    return shown.reset_index(drop=True)


def _progress_bar(total: int, enabled: bool):
    from tqdm.auto import tqdm  # type: ignore[import-untyped]

    return tqdm(total=total, desc="Applying the plan", unit="call", disable=not enabled)


def _check_admins(
    client: DocsClient, pending: pd.DataFrame, allow_self_demotion: bool
) -> pd.DataFrame:
    """Check the pending organization role changes against the admins; the pending calls,
    the one demoting the token's own user moved last.

    Raises
    ------
    ValidationError
        When they would leave an organization without an enabled admin, or demote the
        token's own user without ``allow_self_demotion``.
    """
    changes = pending[(pending["operation"] == _ORG_ROLE).to_numpy(dtype=bool)]
    for org_id in changes["org_id"].dropna().unique():
        calls = changes[(changes["org_id"] == org_id).to_numpy(dtype=bool)]
        targets = [_target(call) for call in calls.itertuples(index=False)]
        roles = {t.need("user_id"): t.role for t in targets}
        check = check_admin_changes(client, str(org_id), roles, argument="plan")
        if not check.demotes_caller:
            continue
        if not allow_self_demotion:
            raise ValidationError(
                "allow_self_demotion",
                f"{check.warning}. Nothing was sent: to send it anyway, apply with "
                "allow_self_demotion=True (command line: --allow-self-demotion), or apply the "
                "plan with another admin's token",
            )
        warnings.warn(f"{check.warning}; that call is sent last", AdminRoleWarning, stacklevel=3)
        own = (
            (pending["operation"] == _ORG_ROLE)
            & (pending["org_id"] == org_id)
            & (pending["user_id"] == check.caller_id)
        ).to_numpy(dtype=bool)
        pending = pd.concat([pending[~own], pending[own]])
    return pending


def apply_plan(
    client: DocsClient,
    plan: pd.DataFrame,
    results: pd.DataFrame | None = None,
    *,
    progress: bool = True,
    allow_self_demotion: bool = False,
) -> pd.DataFrame:
    """Send the calls of ``plan`` not yet done; the results of this run (one row per call sent).

    Stops at the first call that fails (its row has ``status == "failed"``); calls after it
    are not sent. Running it again with the results so far resumes there.

    Parameters
    ----------
    client : DocsClient
        The client to send with (an organization admin's token).
    plan : DataFrame
        A plan from ``review.plan()`` or ``read_plan``.
    results : DataFrame, optional
        Results of earlier runs: the calls they record as done are skipped.
    progress : bool
        Show a progress bar.
    allow_self_demotion : bool
        Send a call that takes the admin role from the token's own user (last, with an
        :class:`~docsapi.errors.AdminRoleWarning`); without it such a plan is refused.

    Returns
    -------
    DataFrame
        Columns ``call_id``, ``step``, ``operation``, ``method``, ``path``, ``status``
        (``done`` or ``failed``), ``outcome`` (``removed``, ``already absent``, ``updated``
        or the error's class), ``http_status`` (of a failure), ``started_at``,
        ``finished_at``, ``error``.

    Raises
    ------
    ValidationError
        For a plan that is not one, that would leave the organization without an enabled
        admin, or that demotes the token's own user without ``allow_self_demotion``
        (nothing is sent).
    MissingCredentialError
        When the client has no token (nothing is sent).

    Warns
    -----
    AdminRoleWarning
        When ``allow_self_demotion`` lets a call take the admin role from the token's user.

    Examples
    --------
    >>> apply_plan(client, plan)                            # doctest: +SKIP
    """
    check_plan(plan)
    done = done_calls(results)
    pending = plan[~plan["call_id"].astype(str).isin(done)].sort_values("step")
    pending = _check_admins(client, pending, allow_self_demotion)
    rows: list[dict[str, Any]] = []
    with _progress_bar(len(pending), progress) as bar:
        for call in pending.itertuples(index=False):
            started = pd.Timestamp.now(tz="UTC")
            row = {
                "call_id": call.call_id,
                "step": call.step,
                "operation": call.operation,
                "method": call.method,
                "path": call.path,
                "started_at": started,
            }
            try:
                outcome = OPERATIONS[str(call.operation)].send(client, _target(call))
            except MissingCredentialError:
                raise  # nothing was sent: a configuration problem, not a call that failed
            except DocsAPIError as exc:
                rows.append(
                    {
                        **row,
                        "status": "failed",
                        "outcome": type(exc).__name__,
                        "http_status": exc.status if isinstance(exc, APIStatusError) else None,
                        "finished_at": pd.Timestamp.now(tz="UTC"),
                        "error": str(exc),
                    }
                )
                break
            rows.append(
                {
                    **row,
                    "status": _DONE,
                    "outcome": outcome,
                    "http_status": {"removed": 205, "already absent": 204}.get(outcome),
                    "finished_at": pd.Timestamp.now(tz="UTC"),
                    "error": None,
                }
            )
            bar.update(1)
    return pd.DataFrame(rows, columns=list(RESULT_COLUMNS)).astype(RESULT_COLUMNS)
