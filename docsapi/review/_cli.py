"""The body of ``docsapi review apply PLAN``: show or send a plan file's calls, resumably.

The plan is a file written by ``review.save_plan(path)`` (``.csv`` or ``.json``). Results
are kept in a results file (``--results``; default ``<plan>.results.json`` beside the plan)
after every run, so running the command again after a failure resumes: calls the file
records as done are skipped.

Exit status (see :mod:`docsapi.cli`): 0 every call is done (or, with ``--dry-run``, the
calls were shown), 1 a call failed (the run stopped there; run the command again to
resume), 2 a usage problem (the plan or results file cannot be read, no token).
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from docsapi.errors import AdminRoleWarning
from docsapi.review._apply import apply_plan, dry_run_calls, empty_results
from docsapi.review._files import read_plan, read_results, write_results

if TYPE_CHECKING:
    from docsapi.client import DocsClient

__all__ = ["default_results_path", "run_apply", "show_dry_run"]

EXIT_OK, EXIT_API = 0, 1


def default_results_path(plan_path: str) -> Path:
    """``plan.json`` → ``plan.results.json`` (beside the plan)."""
    plan = Path(plan_path)
    return plan.with_name(f"{plan.stem}.results.json")


def _line(row: pd.Series) -> str:
    blast = int(row.get("also_revokes_count", 0) or 0)
    also = f" (also revokes {blast} other access{'es' if blast != 1 else ''})" if blast else ""
    return f"{row['action']:<12} {row['method']:<6} {row['path']}  {row['change']}{also}"


def show_dry_run(plan_path: str, results_path: str | None) -> int:
    """Print what ``apply`` would send; nothing is sent."""
    plan = read_plan(plan_path)
    results_file = Path(results_path) if results_path else default_results_path(plan_path)
    results = read_results(results_file) if results_file.is_file() else None
    shown = dry_run_calls(plan, results)
    for _, row in shown.iterrows():
        print(_line(row))
    sending = int((shown["action"] == "would send").sum())
    print(f"Dry run: {sending} of {len(shown)} calls would be sent; nothing was sent.")
    return EXIT_OK


def _print_warning(message: Warning | str, *_args: Any, **_kwargs: Any) -> None:
    """Print a warning as one ``warning:`` line, when it is given (before the calls)."""
    print(f"warning: {message}")


def run_apply(
    client: DocsClient,
    plan_path: str,
    results_path: str | None,
    *,
    progress: bool,
    allow_self_demotion: bool = False,
) -> int:
    """Send the plan's calls not yet done, keep the results, print one line per call.

    A warning (the token's own admin role taken away, with ``allow_self_demotion``) is
    printed as a ``warning:`` line before any call is sent.
    """
    plan = read_plan(plan_path)
    results_file = Path(results_path) if results_path else default_results_path(plan_path)
    earlier = read_results(results_file) if results_file.is_file() else empty_results()
    with warnings.catch_warnings():
        warnings.simplefilter("always", AdminRoleWarning)
        warnings.showwarning = _print_warning
        ran = apply_plan(
            client, plan, earlier, progress=progress, allow_self_demotion=allow_self_demotion
        )
    every = pd.concat([earlier, ran], ignore_index=True) if len(earlier) else ran
    write_results(every, results_file)
    row: Any
    for row in ran.itertuples(index=False):
        detail = row.outcome if row.status == "done" else f"FAILED: {row.error}"
        print(f"{row.status:<7} {row.method:<6} {row.path}  {detail}")
    done = len(set(every.loc[every["status"] == "done", "call_id"]))
    print(f"{done} of {len(plan)} calls done. Results: {results_file.resolve()}")
    if len(ran) and ran["status"].iloc[-1] == "failed":
        print("Stopped at the failed call; run the same command again to resume.")
        return EXIT_API
    return EXIT_OK
