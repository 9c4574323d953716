"""Periodic access reviews: decisions on an audit's accesses, a plan of API calls, applying it.

:class:`AccessReview` (also ``docsapi.AccessReview``) holds a reviewer's decisions
(keep / revoke / lower) on every access of a :class:`~docsapi.audit.PermissionAudit`,
derives the exact API calls that carry them out with their blast radius, applies them
(idempotent, resumable) and writes the evidence. :func:`read_plan` and :func:`apply_plan`
serve ``docsapi review apply PLAN``.

The modules, one job each: ``_decisions`` (the decisions table, selecting, deciding),
``_operations`` (the API operations a plan uses), ``_plan`` (decisions to calls, blast
radius), ``_apply`` (sending, results, resuming), ``_files`` (plan and result files),
``_plan_seal`` (a saved plan's manifest: its source, sign-offs and checks), ``_journal``
(the journal and the lock of ``docsapi review apply``), ``_evidence`` (the evidence and its
manifest), ``_verify`` (``docsapi verify``).
"""

from docsapi.review._apply import apply_plan, dry_run_calls
from docsapi.review._cli import PlanRefusedError
from docsapi.review._files import read_plan, read_results, write_plan, write_results
from docsapi.review._journal import PlanBusyError
from docsapi.review._plan_seal import check_plan_file
from docsapi.review._verify import verify
from docsapi.review.access_review import AccessReview

__all__ = [
    "AccessReview",
    "PlanBusyError",
    "PlanRefusedError",
    "apply_plan",
    "check_plan_file",
    "dry_run_calls",
    "read_plan",
    "read_results",
    "verify",
    "write_plan",
    "write_results",
]
