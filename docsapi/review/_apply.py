"""Sending a plan's calls: in order, idempotent, stopping at the first unexpected error, resumable.

:func:`apply_plan` sends each call of a plan through the client's typed methods (see
:mod:`docsapi.review._operations`) and records one result per call: ``done`` (with the
outcome ``removed``, ``already absent`` — a 204, which counts as done — or ``updated``) or
``failed`` (with the HTTP status and the error's message), and how the plan was approved.
Calls that earlier results record as done are skipped, so running it again after a failure
resumes where it stopped. With a :class:`~docsapi.review._journal.Journal`, each call is
on disk as ``sending`` before it is sent and as ``done`` or ``failed`` before the next.

Every call a plan makes is idempotent: sending one twice leaves the organization as sending
it once (a removal answers 204 "already absent" the second time).

Before anything is sent, :func:`check_plan` checks every call: a known operation, a method,
path and body that its ids and role make, and a ``call_id`` recomputed from its operation,
path and body (so an edited call cannot keep its id), each id once. Then the plan's
organization role changes are checked against the
organization's current admins (:func:`~docsapi.resources.admins.check_admin_changes`): a plan
that would leave no enabled admin is refused, and one that takes the admin role from the
token's own user is sent only with ``allow_self_demotion=True`` (then with an
:class:`~docsapi.errors.AdminRoleWarning`, and that call last: the token can do no admin work
after it).
"""

from __future__ import annotations

import json
import warnings
from typing import TYPE_CHECKING, Any

import pandas as pd

from docsapi.core.safe_text import progress_stream
from docsapi.errors import (
    AdminRoleWarning,
    APIStatusError,
    DocsAPIError,
    MissingCredentialError,
    ValidationError,
)
from docsapi.resources.admins import check_admin_changes
from docsapi.review._expect import CurrentState, check_expect
from docsapi.review._operations import OPERATIONS, Target
from docsapi.review._plan import call_id

if TYPE_CHECKING:
    from docsapi.client import DocsClient
    from docsapi.review._journal import Journal

__all__ = ["RESULT_COLUMNS", "STALE", "apply_plan", "done_calls", "dry_run_calls"]

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
    "approval": _STRING,
    "precondition": _STRING,
}
_DONE = "done"
#: The status of a call not sent because its target changed since the review.
STALE = "stale"
_ORG_ROLE = "updateMemberInOrganizationById"
_TARGET_FIELDS = ("org_id", "space_id", "collection_id", "site_id", "team_id", "user_id", "role")


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


def describe_call(call: Any) -> str:
    """A call in a few words for a message: ``call 3 (PATCH /spaces/… {"role": "read"})``."""
    body = getattr(call, "body", None)
    shown = "" if body is None else " " + json.dumps(body, sort_keys=True)
    return f"call {call.step} ({call.method} {call.path}{shown})"


def check_plan(plan: pd.DataFrame) -> None:
    """A plan has the columns :func:`apply_plan` needs, only known operations, and calls
    whose method, path, body and id follow from their ids and role (see the module)."""
    if not isinstance(plan, pd.DataFrame):
        raise ValidationError("plan", f"must be a DataFrame of calls, got {type(plan).__name__}")
    needed = ["call_id", "step", "operation", "method", "path", "body", "expect", *_TARGET_FIELDS]
    lacking = [c for c in needed if c not in plan.columns]
    if lacking:
        raise ValidationError("plan", f"lacks columns {lacking}: make it with review.plan()")
    unknown = sorted(set(plan["operation"].astype(str)) - set(OPERATIONS))
    if unknown:
        raise ValidationError(
            "plan",
            f"has operations a review does not send: {unknown} (known: {sorted(OPERATIONS)})",
        )
    seen: set[str] = set()
    for call in plan.itertuples(index=False):
        operation = OPERATIONS[str(call.operation)]
        target = _target(call)
        if (
            operation.method != call.method
            or operation.path(target) != call.path
            or call.body != operation.body(target)
        ):
            raise ValidationError(
                "plan",
                f"{describe_call(call)} does not follow from its ids and role, which make "
                f"{operation.method} {operation.path(target)} {operation.body(target) or ''}: "
                "the plan was edited; make it again",
            )
        check_expect(str(call.operation), call.expect, describe_call(call))
        expected = call_id(str(call.operation), str(call.path), call.body, call.expect)
        if call.call_id != expected:
            raise ValidationError(
                "plan",
                f"{describe_call(call)} has the id {call.call_id}, but its operation, path, "
                f"body and precondition make the id {expected}: the plan was edited; make it "
                "again",
            )
        if expected in seen:
            raise ValidationError(
                "plan", f"{describe_call(call)} is in the plan twice: make the plan again"
            )
        seen.add(expected)


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

    return tqdm(
        total=total,
        desc="Applying the plan",
        unit="call",
        disable=not enabled,
        file=progress_stream(),
    )


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
    approval: str | None = None,
    journal: Journal | None = None,
    send_stale: bool = False,
) -> pd.DataFrame:
    """Send the calls of ``plan`` not yet done; the results of this run (one row per call).

    Just before its first call to a target, the target's current state is read (one list
    per space, collection, team or organization; see :mod:`docsapi.review._expect`). A call
    whose target is not in the state the review saw (its ``expect``) is not sent: its row
    has ``status == "stale"`` and ``precondition`` says what changed ("changed since the
    review: expected edit, found admin; not sent"); the calls after it go on. Stops at the
    first call that fails (its row has ``status == "failed"``); calls after it are not
    sent. Running it again with the results so far resumes there.

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
    approval : str, optional
        How the plan was approved (who signed it off, or that it was sent unsigned),
        recorded with every result.
    journal : Journal, optional
        Where each call is recorded as ``sending`` before it is sent and as ``done``,
        ``failed`` or ``stale`` once answered (or not sent), each on disk before the run
        goes on.
    send_stale : bool
        Send the calls whose target changed since the review all the same (their
        ``precondition`` says so).

    Returns
    -------
    DataFrame
        Columns ``call_id``, ``step``, ``operation``, ``method``, ``path``, ``status``
        (``done``, ``failed`` or ``stale``), ``outcome`` (``removed``, ``already absent``,
        ``updated``, ``already as planned`` (nothing sent: the target was already as the
        call leaves it), ``not sent`` or the error's class), ``http_status`` (of a failure),
        ``started_at``, ``finished_at``, ``error``, ``approval``, ``precondition``
        (``held``, or what changed and whether the call was sent all the same).

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
    >>> review.decide({"finding": "former_member"}, "revoke") > 0
    True
    >>> results = apply_plan(client, review.plan(), progress=False)
    >>> set(results.outcome)
    {'removed'}
    """
    check_plan(plan)
    done = done_calls(results)
    pending = plan[~plan["call_id"].astype(str).isin(done)].sort_values("step")
    pending = _check_admins(client, pending, allow_self_demotion)
    current = CurrentState(client)
    rows: list[dict[str, Any]] = []
    with _progress_bar(len(pending), progress) as bar:
        for call in pending.itertuples(index=False):
            started = pd.Timestamp.now(tz="UTC")
            target = _target(call)
            row = {
                "call_id": call.call_id,
                "step": call.step,
                "operation": call.operation,
                "method": call.method,
                "path": call.path,
                "started_at": started,
                "approval": approval,
            }
            try:
                now = current.check(str(call.operation), target, call.expect)
            except MissingCredentialError:
                raise
            except DocsAPIError as exc:  # the target could not be read: nothing is sent
                changed: str | None = (
                    f"its current state could not be read ({type(exc).__name__}: {exc})"
                )
            else:
                changed = None if now.held or now.already else str(now)
                if now.already:
                    rows.append(_not_sent(row, _DONE, "already as planned", f"{now}", journal))
                    bar.update(1)
                    continue
            if changed is not None and not send_stale:
                rows.append(_not_sent(row, STALE, "not sent", f"{changed}", journal))
                bar.update(1)
                continue
            row["precondition"] = (
                "held"
                if changed is None
                else f"changed since the review: {changed}; sent all the same (--send-stale)"
            )
            if journal is not None:
                journal.record(
                    "sending",
                    call_id=call.call_id,
                    step=call.step,
                    method=call.method,
                    path=call.path,
                )
            try:
                outcome = OPERATIONS[str(call.operation)].send(client, target)
            except MissingCredentialError:
                raise  # nothing was sent: a configuration problem, not a call that failed
            except DocsAPIError as exc:
                row.update(
                    status="failed",
                    outcome=type(exc).__name__,
                    http_status=exc.status if isinstance(exc, APIStatusError) else None,
                    finished_at=pd.Timestamp.now(tz="UTC"),
                    error=str(exc),
                )
            else:
                row.update(
                    status=_DONE,
                    outcome=outcome,
                    http_status={"removed": 205, "already absent": 204}.get(outcome),
                    finished_at=pd.Timestamp.now(tz="UTC"),
                    error=None,
                )
                current.sent(str(call.operation), target)
            rows.append(row)
            if journal is not None:
                journal.record(str(row["status"]), call_id=call.call_id, result=row)
            if row["status"] != _DONE:
                break
            bar.update(1)
    return pd.DataFrame(rows, columns=list(RESULT_COLUMNS)).astype(RESULT_COLUMNS)


def _not_sent(
    row: dict[str, Any], status: str, outcome: str, state: str, journal: Journal | None
) -> dict[str, Any]:
    """Record a call that is not sent: done (its target is already as planned) or stale (its
    target changed since the review); its precondition says which, and what was found."""
    reason = "already as planned" if status == _DONE else "changed since the review"
    row.update(
        status=status,
        outcome=outcome,
        finished_at=pd.Timestamp.now(tz="UTC"),
        error=None,
        precondition=f"{reason}: {state}; not sent",
    )
    if journal is not None:
        journal.record(status, call_id=row["call_id"], result=row)
    return row
