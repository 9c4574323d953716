"""The manifest of a saved plan: where it came from, who signed it off, and the checks on it.

``review.save_plan("plan.json")`` writes ``plan.json.manifest.json`` beside the plan (see
:mod:`docsapi.core.sidecar`), sealed, and signed when a signing key is set. It records:

- ``org_id`` and ``team_change``;
- ``source``: the snapshot the audit came from (``snapshot``, its folder, and
  ``audit_digest``, see :attr:`~docsapi.audit.snapshot.files.SnapshotInfo.audit_digest`;
  both null for an audit never saved) and ``decisions``, every decided access
  (``space_id``, ``user_id``, ``decision``, ``lower_to``);
- ``plan_digest``: the SHA-256 of the canonical JSON of the calls (every column, in order)
  with ``org_id``, ``team_change`` and the decisions: what a sign-off approves
  (``review.sign_off`` records it);
- ``calls``: each call's ``step`` and ``call_id``, in order;
- ``sign_offs``: the review's sign-offs, each with the plan digest it approved;
- ``file``: the plan file's SHA-256 and size; and the seal.

:func:`check_plan_file` is what ``docsapi review apply`` and ``docsapi verify`` run before
anything is sent. A call that does not follow from its own ids, role and id (an edited
call) is never sent. A plan is *approved* when its manifest's seal holds, the file is the
one it describes, its calls are the ones listed, its digest is the one recorded, a sign-off
approved that digest and, when the snapshot is at hand, the same decisions on that
snapshot make the same calls. Each check that fails is one line naming what differs (the
first call that differs, for the calls).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from docsapi.audit.report.page import output_path
from docsapi.core.integrity import Verdict, canonical_json, digest, seal_fact, signed_with
from docsapi.core.sidecar import file_problems, manifest_of, sidecar_path, write_sidecar
from docsapi.core.version import version
from docsapi.credentials.signing import signing_key, writing_key
from docsapi.errors import SnapshotError, ValidationError
from docsapi.review._apply import check_plan, describe_call
from docsapi.review._decisions import decide, decisions_table
from docsapi.review._files import json_records, read_plan
from docsapi.review._plan import PLAN_COLUMNS, build_plan

if TYPE_CHECKING:
    from docsapi.audit import PermissionAudit

__all__ = [
    "PLAN_FORMAT",
    "PlanCheck",
    "approval_of",
    "check_plan_file",
    "decided_accesses",
    "plan_digest",
    "plan_key",
    "write_plan_manifest",
]

#: What a plan's manifest says it describes, and the newest format this docsapi writes.
PLAN_FORMAT = "docsapi.review-plan"
PLAN_FORMAT_VERSION = 2  # 2: every call has its precondition (expect); a plan of 1 is refused
#: A list of calls for a comparison: (what must be equal, the call in words).
Calls = list[tuple[Any, str]]


def decided_accesses(decisions: pd.DataFrame) -> list[dict[str, Any]]:
    """Every decided access as JSON: ``space_id``, ``user_id``, ``decision``, ``lower_to``."""
    decided = decisions[decisions["decision"].notna()]
    columns = ["space_id", "user_id", "decision", "lower_to"]
    records = json_records(decided[columns].astype(object))
    return sorted(records, key=lambda r: (r["space_id"], r["user_id"]))


def plan_key(plan: pd.DataFrame) -> str:
    """The plan's content digest: the SHA-256 of its calls (every column, in order). The lock
    and the journal of ``review apply`` are keyed by it, so a copy, a symlink or a renamed
    file of a plan is the same plan."""
    return digest(json_records(plan[list(PLAN_COLUMNS)]))


def plan_digest(
    plan: pd.DataFrame, org_id: str, team_change: str, decisions: list[dict[str, Any]]
) -> str:
    """The SHA-256 that a sign-off approves: the calls (every column) with what made them."""
    calls = json_records(plan[list(PLAN_COLUMNS)])
    return digest(
        {"org_id": org_id, "team_change": team_change, "decisions": decisions, "calls": calls}
    )


def approval_of(sign_offs: Sequence[dict[str, Any]], digest_: str) -> str | None:
    """Who approved the plan of digest ``digest_`` (a sentence), or None."""
    signers = [s for s in sign_offs if s.get("plan_digest") == digest_]
    if not signers:
        return None
    names = "; ".join(
        str(s["name"]) + (f" ({s['role']})" if s.get("role") else "") + f" at {s['signed_at']}"
        for s in signers
    )
    return f"signed off by {names}; plan sha256 {digest_[:16]}"


def write_plan_manifest(
    path: Path,
    plan: pd.DataFrame,
    *,
    audit: PermissionAudit,
    decisions: pd.DataFrame,
    team_change: str,
    sign_offs: pd.DataFrame,
) -> Path:
    """Write the manifest of the plan file ``path`` (see the module); its path."""
    snapshot = audit.snapshot
    decided = decided_accesses(decisions)
    manifest = {
        "format": PLAN_FORMAT,
        "format_version": PLAN_FORMAT_VERSION,
        "docsapi_version": version(),
        "written_at": pd.Timestamp.now(tz="UTC").isoformat(),
        "org_id": str(audit.org_id),
        "team_change": team_change,
        "source": {
            "snapshot": None if snapshot is None else str(Path(snapshot.path).resolve()),
            "audit_digest": None if snapshot is None else snapshot.audit_digest,
            "decisions": decided,
        },
        "plan_digest": plan_digest(plan, str(audit.org_id), team_change, decided),
        "calls": [
            {"step": int(step), "call_id": str(call)}
            for step, call in zip(plan["step"], plan["call_id"], strict=True)
        ],
        "sign_offs": json_records(sign_offs[["name", "role", "signed_at", "plan_digest"]]),
    }
    return write_sidecar(path, manifest, writing_key())


@dataclass(frozen=True)
class PlanCheck:
    """What :func:`check_plan_file` found.

    Attributes
    ----------
    path : Path
        The plan file.
    plan : DataFrame
        Its calls.
    malformed : str or None
        Why a call cannot be sent at all (it does not follow from its own ids, role and
        id); never overridden.
    problems : tuple of str
        Why the plan is not approved as it is (one line each); ``--allow-unsigned`` sends
        it all the same.
    approval : str or None
        Who signed it off, when it is approved.
    facts : tuple of str
        What it is, how it is sealed, whether its calls were re-derived.
    unsigned : tuple of str
        What is wrong with its manifest's seal and signature while a signing key is at hand
        (unsigned, signed with another key, changed since it was signed): such a plan is
        never sent.
    missing_snapshot : str or None
        The snapshot its manifest names, when it is not there: sent only when told to go
        without it (``--without-snapshot``).
    signed_with : str or None
        The fingerprint of the key whose signature was checked.
    """

    path: Path
    plan: pd.DataFrame
    malformed: str | None
    problems: tuple[str, ...]
    approval: str | None
    facts: tuple[str, ...]
    unsigned: tuple[str, ...] = ()
    missing_snapshot: str | None = None
    signed_with: str | None = None

    def refusals(self, *, without_snapshot: bool = False) -> tuple[str, ...]:
        """Why the plan is never sent as it is, whatever ``--allow-unsigned`` says."""
        missing = (
            () if without_snapshot or self.missing_snapshot is None else (self.missing_snapshot,)
        )
        return ((self.malformed,) if self.malformed else ()) + self.unsigned + missing

    def verdict(self, *, without_snapshot: bool = False) -> Verdict:
        """The check as ``docsapi verify`` reports it."""
        problems = self.refusals(without_snapshot=without_snapshot) + self.problems
        return Verdict("plan", self.path, problems, self.facts, self.signed_with)


def _first_difference(ours: Calls, theirs: Calls, theirs_name: str) -> str | None:
    """Where two lists of calls first differ (calls matched in order, so one call added or
    removed is named as such), in words, with how many calls differ; None when the same."""
    matcher = SequenceMatcher(a=[key for key, _ in ours], b=[key for key, _ in theirs])
    changes = [op for op in matcher.get_opcodes() if op[0] != "equal"]
    if not changes:
        return None
    kind, first_ours, _, first_theirs, _ = changes[0]
    if kind == "insert":
        first = f"{theirs[first_theirs][1]} of {theirs_name} is missing from the plan"
    elif kind == "delete":
        first = f"{ours[first_ours][1]} is not in {theirs_name}"
    else:
        mine, other = ours[first_ours][1], theirs[first_theirs][1]
        first = f"{mine} differs from {theirs_name}, which has {other} there"
    more = sum(max(a2 - a1, b2 - b1) for _, a1, a2, b1, b2 in changes) - 1
    return first + (f" ({more} more call{'s' if more != 1 else ''} differ)" if more else "")


def _every_column(plan: pd.DataFrame) -> Calls:
    rows = [canonical_json(row) for row in json_records(plan[list(PLAN_COLUMNS)])]
    calls = plan.itertuples(index=False)
    return [(row, describe_call(call)) for row, call in zip(rows, calls, strict=True)]


def _rederived(audit: PermissionAudit, manifest: dict[str, Any]) -> pd.DataFrame:
    """The plan the recorded decisions make on ``audit``.

    Raises
    ------
    ValidationError
        When a recorded decision is about an access the audit does not hold, or is not a
        decision a review can make there.
    """
    decisions = decisions_table(audit)
    keys = zip(decisions["space_id"], decisions["user_id"], strict=True)
    rows = dict(zip(keys, decisions.index, strict=True))
    groups: dict[tuple[str, str | None], list[Any]] = {}
    for record in manifest["source"]["decisions"]:
        label = rows.get((record["space_id"], record["user_id"]))
        if label is None:
            raise ValidationError(
                "plan",
                f"a recorded decision is about {record['user_id']} on {record['space_id']}, "
                "an access the snapshot does not hold",
            )
        groups.setdefault((record["decision"], record["lower_to"]), []).append(label)
    now = pd.Timestamp.now(tz="UTC")
    for (decision, lower_to), labels in groups.items():
        decide(decisions, labels, decision, lower_to=lower_to, reviewer="recorded", now=now)
    return build_plan(audit, decisions, manifest["team_change"])[0]


def _rederive(plan: pd.DataFrame, manifest: dict[str, Any], folder: Path) -> tuple[str | None, str]:
    """(the problem, or None; a fact) of making the plan again from its snapshot."""
    from docsapi.audit import load_audit

    try:
        audit = load_audit(folder)
    except (SnapshotError, ValidationError) as exc:
        return f"the snapshot it came from does not load: {exc}", "not re-derived"
    if audit.snapshot is None or audit.snapshot.audit_digest != manifest["source"]["audit_digest"]:
        return (
            f"the snapshot {folder} is not the one the plan was made from (its audit digest "
            "differs)",
            "not re-derived",
        )
    try:
        again = _rederived(audit, manifest)
    except ValidationError as exc:
        return str(exc).removeprefix("plan: "), "not re-derived"
    except (KeyError, TypeError) as exc:
        return f"its manifest garbles the recorded decisions ({exc})", "not re-derived"
    difference = _first_difference(
        _every_column(plan), _every_column(again), "the calls its decisions make on the snapshot"
    )
    if difference is not None:
        return difference, "re-derived from the snapshot: the calls differ"
    return None, f"re-derived from the snapshot {folder}: every call follows from a decision"


def _listed_calls(plan: pd.DataFrame, listed: object) -> str | None:
    """How the plan's calls differ from those its manifest lists (by id), or None."""
    if not isinstance(listed, list) or not all(isinstance(c, dict) for c in listed):
        return "its manifest lists no calls"
    ours = [(str(call.call_id), describe_call(call)) for call in plan.itertuples(index=False)]
    theirs = [
        (str(c.get("call_id")), f"call {c.get('step')} (id {c.get('call_id')})") for c in listed
    ]
    return _first_difference(ours, theirs, "the saved plan")


@dataclass
class _Findings:
    problems: list[str]
    facts: list[str]
    unsigned: list[str]
    missing_snapshot: str | None = None


def _approval(
    target: Path, plan: pd.DataFrame, manifest: dict[str, Any], snapshot: Path | None
) -> tuple[_Findings, str | None]:
    """(what was found, approval) of a plan and its manifest."""
    key = signing_key()
    listed = _listed_calls(plan, manifest.get("calls"))  # first: it names the call
    seal = file_problems(target, manifest, key)
    manifest_name = sidecar_path(target).name
    unsigned = [p for p in seal if p.startswith(f"{manifest_name}:")] if key is not None else []
    problems = ([listed] if listed else []) + [p for p in seal if p not in unsigned]
    found = _Findings(problems, [seal_fact(manifest, key)], unsigned)
    facts = found.facts
    try:
        source = manifest["source"]
        decisions = source["decisions"]
        now = plan_digest(plan, manifest["org_id"], manifest["team_change"], decisions)
        recorded = manifest["plan_digest"]
        sign_offs = [s for s in manifest["sign_offs"] if isinstance(s, dict)]
        folder = snapshot or (Path(source["snapshot"]) if source["snapshot"] else None)
    except (KeyError, TypeError, ValueError) as exc:
        problems.append(f"{sidecar_path(target).name} lacks or garbles {exc}")
        return found, None
    if now != recorded:
        problems.append("the plan's calls differ from the digest saved with them")
    approval = approval_of(sign_offs, now)
    if approval is not None:
        facts.append(approval)
    elif sign_offs:
        names = ", ".join(sorted({str(s.get("name")) for s in sign_offs}))
        problems.append(
            f"{names} signed off another plan, not this one: sign off again after the last "
            "decision, then save the plan again"
        )
    else:
        problems.append("nobody signed it off: review.sign_off(name), then review.save_plan(path)")
    if folder is None:
        facts.append("not re-derived: it was made from an audit that was never saved")
    elif not folder.is_dir():
        facts.append(f"not re-derived: the snapshot {folder} is not here")
        found.missing_snapshot = (
            f"the snapshot it was made from, {folder}, is not here, so its calls cannot be "
            "made again from their decisions: pass --snapshot DIR, or --without-snapshot to "
            "go without it"
        )
    else:
        problem, fact = _rederive(plan, manifest, folder)
        problems += [problem] if problem else []
        facts.append(fact)
    return found, (None if problems or unsigned else approval)


def check_plan_file(
    path: str | os.PathLike[str], *, snapshot: str | os.PathLike[str] | None = None
) -> PlanCheck:
    """Check a plan file and its manifest before anything is sent (see the module).

    Parameters
    ----------
    path : str or path-like
        The plan file (``.json`` or ``.csv``); its manifest is beside it.
    snapshot : str or path-like, optional
        The snapshot the plan was made from, when it is not where the manifest says.

    Returns
    -------
    PlanCheck

    Raises
    ------
    ValidationError
        When the plan file cannot be read as a plan.

    Examples
    --------
    >>> review.decide({"finding": "former_member"}, "revoke") > 0
    True
    >>> _ = review.save("reviews/2026-Q3")  # the snapshot the plan comes from
    >>> review.sign_off("Grace Owner")
    >>> check_plan_file(review.save_plan("plan.json")).problems
    ()
    """
    plan = read_plan(path)
    target = Path(path)
    malformed = None
    try:
        check_plan(plan)
    except ValidationError as exc:
        malformed = str(exc).removeprefix("plan: ")
    calls = f"{len(plan)} call{'s' if len(plan) != 1 else ''}"
    real = target.resolve()  # a symlink's manifest is the one beside the file it names
    manifest, problem = manifest_of(real, PLAN_FORMAT, PLAN_FORMAT_VERSION)
    if manifest is None:
        return PlanCheck(target, plan, malformed, (str(problem),), None, (f"a plan of {calls}",))
    folder = None if snapshot is None else output_path(snapshot, "snapshot")
    found, approval = _approval(real, plan, manifest, folder)
    facts = [f"a review plan of {calls} for organization {manifest.get('org_id')}", *found.facts]
    return PlanCheck(
        target,
        plan,
        malformed,
        tuple(found.problems),
        approval,
        tuple(facts),
        unsigned=tuple(found.unsigned),
        missing_snapshot=found.missing_snapshot,
        signed_with=signed_with(manifest, signing_key()),
    )
