"""The body of ``docsapi review apply PLAN``: check a plan file, then show or send its calls.

The plan is a file written by ``review.save_plan(path)`` (``.csv`` or ``.json``) with its
manifest beside it. Before anything is sent, the plan is checked (see
:mod:`docsapi.review._plan_seal`): a plan that nobody signed off, or that differs from what
was signed off, is refused, naming the first call that differs, unless ``--allow-unsigned``
is given (the results then say it was sent unsigned, and why). A call that does not follow
from its own ids and role is never sent.

Sending takes the plan's lock and keeps its journal, both keyed by the plan's content in
the user's state folder (see :mod:`docsapi.review._journal`): a second ``apply`` of the same
plan, through any copy, symlink or name, stops at once, naming the first; running the
command again after a failure, a Ctrl-C or a kill sends only the calls without a confirmed
result; a plan whose journal says it is complete is refused unless ``--again`` is given.
Just before its first call to a target, each target is read as it is now: a call whose
target is not as the review saw it is not sent (one ``stale`` line each, "changed since the
review: expected edit, found admin; not sent") unless ``--send-stale`` is given (then the
results and the evidence say so). The results are also written to a results file
(``--results``; default ``<plan>.results.json`` beside the plan).

Exit status (see :mod:`docsapi.cli`): 0 every call is done (or, with ``--dry-run``, the
calls were shown), 1 a call failed (the run stopped there; run the command again to
resume), 2 a usage problem (the plan or results file cannot be read, no token), 4 nothing
was sent: the plan was refused (not approved, a signature missing while a key exists, its
snapshot missing, already applied), or another ``apply`` of it is running; 5 calls whose
target changed since the review were not sent (the others were).
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from docsapi.core.safe_text import print_line, terminal_line
from docsapi.errors import AdminRoleWarning, DocsAPIError
from docsapi.review._apply import STALE, apply_plan, done_calls, dry_run_calls, empty_results
from docsapi.review._files import read_results, results_frame, write_results
from docsapi.review._journal import (
    Journal,
    JournalState,
    PlanLock,
    journal_path,
    read_journal,
)
from docsapi.review._plan_seal import PlanCheck, check_plan_file, plan_key

if TYPE_CHECKING:
    from docsapi.client import DocsClient

__all__ = ["PlanRefusedError", "default_results_path", "run_apply", "show_dry_run"]

EXIT_OK, EXIT_API = 0, 1
#: Calls whose target changed since the review were not sent (the others were).
EXIT_STALE = 5
#: The most characters of a call's change (it names the people and content) in a line.
_DETAIL_LIMIT = 200


class PlanRefusedError(DocsAPIError):
    """The plan is not sent: a call was edited, or nobody approved the plan as it is."""


def default_results_path(plan_path: str | os.PathLike[str]) -> Path:
    """``plan.json`` → ``plan.results.json`` (beside the plan)."""
    plan = Path(plan_path)
    return plan.with_name(f"{plan.stem}.results.json")


def _line(row: pd.Series) -> str:
    blast = int(row.get("also_revokes_count", 0) or 0)
    also = f" (also revokes {blast} other access{'es' if blast != 1 else ''})" if blast else ""
    change = terminal_line(row["change"], _DETAIL_LIMIT)
    return f"{row['action']:<12} {row['method']:<6} {terminal_line(row['path'])}  {change}{also}"


def _approval(check: PlanCheck, allow_unsigned: bool, without_snapshot: bool = False) -> str:
    """How the plan is approved, after printing what the check found.

    Raises
    ------
    PlanRefusedError
        For an edited call, a plan not signed with the signing key at hand, or one whose
        snapshot is missing without ``without_snapshot`` (always), or a plan not approved
        as it is without ``allow_unsigned``.
    """
    for fact in check.facts:
        print_line(f"plan: {fact}")
    refusals = check.refusals(without_snapshot=without_snapshot)
    if refusals:
        raise PlanRefusedError(f"{check.path.name}: {refusals[0]}. Nothing was sent.")
    if without_snapshot and check.missing_snapshot is not None:
        print_line("WITHOUT SNAPSHOT: its calls were not made again from their decisions.")
    for problem in check.problems:
        print_line(f"PROBLEM: {problem}")
    if check.approval is not None:
        return check.approval
    if not allow_unsigned:
        raise PlanRefusedError(
            f"{check.path.name} is not approved as it is ({check.problems[0]}). Nothing was "
            "sent. Sign it off and save it again (review.sign_off, review.save_plan), or pass "
            "--allow-unsigned to send it all the same."
        )
    print_line("UNSIGNED: sending it all the same (--allow-unsigned); the results say so.")
    return f"UNSIGNED, sent with --allow-unsigned: {check.problems[0]}"


def _earlier(state: JournalState, results_file: Path) -> tuple[pd.DataFrame, set[str]]:
    """The results of earlier runs (the journal's, else the results file's) and the calls
    that were in doubt when the last run stopped."""
    if state.results:
        earlier = results_frame(state.results)
    elif results_file.is_file():
        earlier = read_results(results_file)
    else:
        earlier = empty_results()
    return earlier, state.in_doubt - done_calls(earlier)


def show_dry_run(
    plan_path: str,
    results_path: str | None,
    *,
    allow_unsigned: bool = False,
    snapshot: str | None = None,
    without_snapshot: bool = False,
) -> int:
    """Check the plan and print what ``apply`` would send; nothing is sent."""
    target = Path(plan_path)
    check = check_plan_file(target, snapshot=snapshot)
    approval = _approval(check, allow_unsigned, without_snapshot)
    results_file = Path(results_path) if results_path else default_results_path(target)
    earlier, _ = _earlier(read_journal(journal_path(plan_key(check.plan))), results_file)
    shown = dry_run_calls(check.plan, earlier)
    for _, row in shown.iterrows():
        print_line(_line(row))
    sending = int((shown["action"] == "would send").sum())
    print_line(f"Approval: {approval}")
    print_line(f"Dry run: {sending} of {len(shown)} calls would be sent; nothing was sent.")
    return EXIT_OK


def _detail(row: Any) -> str:
    """What became of a call, in words: its outcome, and its precondition unless it held."""
    precondition = row.precondition if isinstance(row.precondition, str) else "held"
    if row.status == "failed":
        return terminal_line(f"FAILED: {row.error}", _DETAIL_LIMIT)
    if row.status == STALE or row.outcome == "already as planned":
        return terminal_line(precondition, _DETAIL_LIMIT)
    detail = row.outcome if precondition == "held" else f"{row.outcome} ({precondition})"
    return terminal_line(detail, _DETAIL_LIMIT)


def _print_warning(message: Warning | str, *_args: Any, **_kwargs: Any) -> None:
    """Print a warning as one ``warning:`` line, when it is given (before the calls)."""
    print_line(f"warning: {message}")


def run_apply(
    client: DocsClient,
    plan_path: str,
    results_path: str | None,
    *,
    progress: bool,
    allow_unsigned: bool = False,
    snapshot: str | None = None,
    allow_self_demotion: bool = False,
    without_snapshot: bool = False,
    send_stale: bool = False,
    again: bool = False,
) -> int:
    """Check the plan, then send its calls not yet done under its lock, journalled; keep
    the results and print one line per call.

    A warning (the token's own admin role taken away, with ``allow_self_demotion``) is
    printed as a ``warning:`` line before any call is sent.

    Raises
    ------
    PlanBusyError
        When another ``apply`` of the plan is running (nothing is sent).
    PlanRefusedError
        When the plan is refused, or its journal says it is complete and ``again`` is not
        given (nothing is sent).
    """
    target = Path(plan_path)
    results_file = Path(results_path) if results_path else default_results_path(target)
    check = check_plan_file(target, snapshot=snapshot)
    key = plan_key(check.plan)
    with PlanLock(key):
        approval = _approval(check, allow_unsigned, without_snapshot)
        state = read_journal(journal_path(key))
        if state.complete is not None and not again:
            raise PlanRefusedError(
                f"{check.path.name}: this plan (the same calls, whatever the file is called) "
                f"was applied completely at {state.complete}. Nothing was sent. Pass --again "
                "to apply it again (calls whose target changed since the review are not sent)."
            )
        earlier, in_doubt = _earlier(state, results_file) if not again else (empty_results(), set())
        for call in check.plan[check.plan["call_id"].isin(in_doubt)].itertuples(index=False):
            print_line(
                f"in doubt {call.method:<6} {call.path}: it was being sent when the last run "
                "stopped; its target is read again first, and the call sent again only if "
                "it is still as reviewed (every call of a review plan is idempotent)"
            )
        with Journal(journal_path(key)) as journal, warnings.catch_warnings():
            warnings.simplefilter("always", AdminRoleWarning)
            warnings.showwarning = _print_warning
            journal.record(
                "start",
                pid=os.getpid(),
                plan=str(target.resolve()),
                approval=approval,
                again=again,
                send_stale=send_stale,
            )
            ran = apply_plan(
                client,
                check.plan,
                earlier,
                progress=progress,
                allow_self_demotion=allow_self_demotion,
                approval=approval,
                journal=journal,
                send_stale=send_stale,
            )
            every = pd.concat([earlier, ran], ignore_index=True) if len(earlier) else ran
            done = len(done_calls(every) & set(check.plan["call_id"].astype(str)))
            if done == len(check.plan):
                journal.record("complete")
    write_results(every, results_file)
    row: Any
    for row in ran.itertuples(index=False):
        print_line(f"{row.status:<7} {row.method:<6} {terminal_line(row.path)}  {_detail(row)}")
    print_line(f"{done} of {len(check.plan)} calls done. Results: {results_file.resolve()}")
    if len(ran) and ran["status"].iloc[-1] == "failed":
        print_line("Stopped at the failed call; run the same command again to resume.")
        return EXIT_API
    stale = int((ran["status"] == STALE).sum())
    if stale:
        print_line(
            f"{stale} call{'s' if stale != 1 else ''} not sent: the target changed since the "
            "review. Review it again, or pass --send-stale to send them all the same."
        )
        return EXIT_STALE
    return EXIT_OK
