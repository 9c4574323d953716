"""The body of ``docsapi review apply PLAN``: check a plan file, then show or send its calls.

The plan is a file written by ``review.save_plan(path)`` (``.csv`` or ``.json``) with its
manifest beside it. Before anything is sent, the plan is checked (see
:mod:`docsapi.review._plan_seal`): a plan that nobody signed off, or that differs from what
was signed off, is refused, naming the first call that differs, unless ``--allow-unsigned``
is given (the results then say it was sent unsigned, and why). A call that does not follow
from its own ids and role is never sent.

Sending takes the plan's lock (a second ``apply`` of the same plan stops at once, naming the
first) and keeps a journal beside the plan (``<plan>.journal.jsonl``, see
:mod:`docsapi.review._journal`): running the command again after a failure, a Ctrl-C or a
kill sends only the calls without a confirmed result. The results are also written to a
results file (``--results``; default ``<plan>.results.json`` beside the plan).

Exit status (see :mod:`docsapi.cli`): 0 every call is done (or, with ``--dry-run``, the
calls were shown), 1 a call failed (the run stopped there; run the command again to
resume), 2 a usage problem (the plan or results file cannot be read, no token), 4 nothing
was sent: the plan was refused, or another ``apply`` of it is running.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from docsapi.core.safe_text import print_line, terminal_line
from docsapi.errors import AdminRoleWarning, DocsAPIError
from docsapi.review._apply import apply_plan, done_calls, dry_run_calls, empty_results
from docsapi.review._files import read_results, results_frame, write_results
from docsapi.review._journal import Journal, PlanLock, journal_path, read_journal
from docsapi.review._plan_seal import PlanCheck, check_plan_file

if TYPE_CHECKING:
    from docsapi.client import DocsClient

__all__ = ["PlanRefusedError", "default_results_path", "run_apply", "show_dry_run"]

EXIT_OK, EXIT_API = 0, 1
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


def _approval(check: PlanCheck, allow_unsigned: bool) -> str:
    """How the plan is approved, after printing what the check found.

    Raises
    ------
    PlanRefusedError
        For an edited call (always), or a plan not approved as it is without
        ``allow_unsigned``.
    """
    for fact in check.facts:
        print_line(f"plan: {fact}")
    if check.malformed:
        raise PlanRefusedError(f"{check.path.name}: {check.malformed}. Nothing was sent.")
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


def _earlier(plan_path: Path, results_file: Path) -> tuple[pd.DataFrame, set[str]]:
    """The results of earlier runs (the journal's, else the results file's) and the calls
    that were in doubt when the last run stopped."""
    state = read_journal(journal_path(plan_path))
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
) -> int:
    """Check the plan and print what ``apply`` would send; nothing is sent."""
    target = Path(plan_path)
    check = check_plan_file(target, snapshot=snapshot)
    approval = _approval(check, allow_unsigned)
    results_file = Path(results_path) if results_path else default_results_path(target)
    earlier, _ = _earlier(target, results_file)
    shown = dry_run_calls(check.plan, earlier)
    for _, row in shown.iterrows():
        print_line(_line(row))
    sending = int((shown["action"] == "would send").sum())
    print_line(f"Approval: {approval}")
    print_line(f"Dry run: {sending} of {len(shown)} calls would be sent; nothing was sent.")
    return EXIT_OK


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
        When the plan is refused (nothing is sent).
    """
    target = Path(plan_path)
    results_file = Path(results_path) if results_path else default_results_path(target)
    with PlanLock(target):
        check = check_plan_file(target, snapshot=snapshot)
        approval = _approval(check, allow_unsigned)
        earlier, in_doubt = _earlier(target, results_file)
        for call in check.plan[check.plan["call_id"].isin(in_doubt)].itertuples(index=False):
            print_line(
                f"in doubt {call.method:<6} {call.path}: it was being sent when the last run "
                "stopped; sending it again (every call of a review plan is idempotent)"
            )
        with Journal(journal_path(target)) as journal, warnings.catch_warnings():
            warnings.simplefilter("always", AdminRoleWarning)
            warnings.showwarning = _print_warning
            journal.record("start", pid=os.getpid(), approval=approval)
            ran = apply_plan(
                client,
                check.plan,
                earlier,
                progress=progress,
                allow_self_demotion=allow_self_demotion,
                approval=approval,
                journal=journal,
            )
    every = pd.concat([earlier, ran], ignore_index=True) if len(earlier) else ran
    write_results(every, results_file)
    row: Any
    for row in ran.itertuples(index=False):
        detail = row.outcome if row.status == "done" else f"FAILED: {row.error}"
        detail = terminal_line(detail, _DETAIL_LIMIT)
        print_line(f"{row.status:<7} {row.method:<6} {row.path}  {detail}")
    done = len(done_calls(every) & set(check.plan["call_id"].astype(str)))
    print_line(f"{done} of {len(check.plan)} calls done. Results: {results_file.resolve()}")
    if len(ran) and ran["status"].iloc[-1] == "failed":
        print_line("Stopped at the failed call; run the same command again to resume.")
        return EXIT_API
    return EXIT_OK
