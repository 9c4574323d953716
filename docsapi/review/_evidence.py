"""The evidence of an access review: an Excel workbook and one self-contained HTML page.

Both hold the same parts: a summary (the snapshot reviewed, counts of decisions and calls),
every decision with its reviewer and time, the plan (each call with its blast radius), the
calls applied and their results, and a sign-off section (sign-offs recorded with
``review.sign_off``, each with the digest of the plan it approved, and lines to sign on
paper). The HTML page loads nothing (inline CSS, a Content-Security-Policy forbidding every
fetch) and escapes every text; registered credentials are masked in every table on the way
out; the workbook stores every text as text.

Each file gets a sealed manifest beside it (``<file>.manifest.json``, signed when a signing
key is set; see :mod:`docsapi.core.sidecar`) recording the file's SHA-256, the organization,
the snapshot's audit digest and the plan's digest: :func:`check_evidence_file` (``docsapi
verify FILE``) finds any change made since.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pandas as pd

from docsapi.audit.report.page import (
    CSS,
    excel_target,
    html_table,
    plain,
    text,
    write_page,
    write_sheet,
    write_text_cell,
)
from docsapi.audit.snapshot.files import scrub_texts
from docsapi.core.integrity import Verdict, seal_fact, signed_with
from docsapi.core.sidecar import file_problems, manifest_of, write_sidecar
from docsapi.core.version import version
from docsapi.credentials.signing import signing_key, writing_key
from docsapi.review._apply import done_calls
from docsapi.review._view import ReviewRecord

__all__ = [
    "EVIDENCE_FORMAT",
    "SHEETS",
    "check_evidence_file",
    "evidence_tables",
    "render_html",
    "summary_table",
    "write_excel",
    "write_html",
]

#: What an evidence file's manifest says it describes, and the newest format written.
EVIDENCE_FORMAT = "docsapi.review-evidence"
EVIDENCE_FORMAT_VERSION = 1

#: The workbook's sheets, in order.
SHEETS: tuple[str, ...] = ("summary", "decisions", "plan", "results", "sign-off")

_STATEMENT = (
    "I have reviewed the access listed in this document, the decisions recorded and the "
    "calls applied, and confirm that the access remaining is appropriate."
)


def _time(value: Any) -> str:
    if value is None or pd.isna(value):
        return ""
    return pd.Timestamp(value).tz_convert("UTC").strftime("%Y-%m-%d %H:%M:%S UTC")


def summary_table(review: ReviewRecord) -> pd.DataFrame:
    """The review in numbers and facts: one row per item, columns ``item`` and ``value``."""
    audit = review.audit
    decisions = review.decisions
    counts = decisions["decision"].value_counts()
    plan = review.plan()
    results = review.results
    snapshot = audit.snapshot
    decided = decisions["decided_at"].dropna()
    reviewers = sorted(set(decisions["reviewer"].dropna()))
    items = [
        ("organization", f"{audit.org_name} ({audit.org_id})" if audit.org_name else audit.org_id),
        ("audit taken", _time(audit.generated_at)),
        ("audit complete", "yes" if audit.complete else "NO: partial audit"),
        ("snapshot", str(snapshot.path) if snapshot is not None else "not saved"),
        ("accesses reviewed", len(decisions)),
        ("decided: keep", int(counts.get("keep", 0))),
        ("decided: revoke", int(counts.get("revoke", 0))),
        ("decided: lower", int(counts.get("lower", 0))),
        ("undecided", int(decisions["decision"].isna().sum())),
        ("reviewers", ", ".join(reviewers)),
        ("first decision", _time(decided.min()) if len(decided) else ""),
        ("last decision", _time(decided.max()) if len(decided) else ""),
        ("calls planned", len(plan)),
        ("accesses also revoked (blast radius)", int(plan["also_revokes_count"].sum())),
        ("accesses also lowered (blast radius)", int(plan["also_lowers_count"].sum())),
        ("accesses also raised (blast radius)", int(plan["also_raises_count"].sum())),
        ("calls done", len(done_calls(results) & set(plan["call_id"].astype(str)))),
        ("calls failed (attempts)", int((results["status"] == "failed").sum())),
        ("sign-offs", len(review.sign_offs)),
    ]
    return pd.DataFrame(
        {"item": [i for i, _ in items], "value": [str(v) for _, v in items]}
    ).astype("string")


def evidence_tables(review: ReviewRecord) -> dict[str, pd.DataFrame]:
    """The evidence's tables by sheet name, secrets masked."""
    decided = review.decisions[review.decisions["decision"].notna()]
    columns = [
        "space_title",
        "space_id",
        "display_name",
        "email",
        "user_id",
        "role",
        "source_names",
        "granted_by",
        "granted_at",
        "findings",
        "decision",
        "lower_to",
        "comment",
        "reviewer",
        "decided_at",
    ]
    plan = review.plan()
    plan = plan.assign(
        **{
            column: pd.Series(
                [None if b is None else json.dumps(b, sort_keys=True) for b in plan[column]],
                index=plan.index,
                dtype=object,
            )
            for column in ("body", "expect")
        }
    )
    tables = {
        "summary": summary_table(review),
        "decisions": decided[columns].reset_index(drop=True),
        "plan": plan,
        "results": review.results,
        "sign-off": review.sign_offs,
    }
    return {name: scrub_texts(frame) for name, frame in tables.items()}


def write_excel(review: ReviewRecord, path: str | os.PathLike[str]) -> Path:
    """Write the evidence workbook: sheets summary, decisions, plan, results, sign-off.

    Times are UTC (Excel stores no time zone). Every text is stored as text, never as a
    formula, whatever it starts with.

    Parameters
    ----------
    review : AccessReview
        The review.
    path : str or path-like
        The ``.xlsx`` file to write; missing parent folders are created.

    Returns
    -------
    Path
        The file written.

    Raises
    ------
    ImportError
        When openpyxl is not installed (``pip install docsapi[excel]``).

    Examples
    --------
    >>> review.to_excel("review-2026-Q4.xlsx")
    PosixPath('review-2026-Q4.xlsx')
    """
    target = excel_target(path)
    tables = evidence_tables(review)
    with pd.ExcelWriter(target, engine="openpyxl") as writer:
        for name in SHEETS:
            write_sheet(writer, name, plain(tables[name], naive_times=True))
        sheet = writer.sheets["sign-off"]
        start = len(tables["sign-off"]) + 3
        write_text_cell(sheet, start, 1, _STATEMENT)
        for offset, label in enumerate(("Name", "Role", "Signature", "Date"), start=1):
            write_text_cell(sheet, start + offset, 1, f"{label}:")
    _seal(target, review)
    return target


_PLAN_SHOWN = (
    "step",
    "operation",
    "method",
    "path",
    "body",
    "expect",
    "change",
    "decisions",
    "findings",
    "also_revokes_count",
    "also_revokes",
    "also_lowers_count",
    "also_lowers",
    "also_raises_count",
    "also_raises",
    "hands_to",
    "note",
)
_REVIEW_CSS = """
.sign { margin-top: 1rem; } .sign p { margin: 1.6rem 0 .2rem; border-bottom: 1px solid #999;
max-width: 30rem; color: #666; }
"""


def _frame_section(title: str, frame: pd.DataFrame, empty: str) -> str:
    body = html_table(frame) if len(frame) else f"<p>{text(empty)}</p>"
    return f"<h2>{text(title)} ({len(frame)})</h2>{body}"


def render_html(review: ReviewRecord) -> str:
    """The evidence as one self-contained HTML document."""
    tables = evidence_tables(review)
    audit = review.audit
    name = f"{audit.org_name} ({audit.org_id})" if audit.org_name else str(audit.org_id)
    title = f"Access review of {name}"
    plan = tables["plan"][list(_PLAN_SHOWN)]
    sign_lines = "".join(f"<p>{label}</p>" for label in ("Name", "Role", "Signature", "Date"))
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy"
      content="default-src 'none'; img-src data:; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{text(title)}</title><style>{CSS}{_REVIEW_CSS}</style></head>
<body>
<h1>{text(title)}</h1>
<p class="meta">Evidence written {text(_time(pd.Timestamp.now(tz="UTC")))}. Times are UTC.</p>
<h2>Summary</h2>
{html_table(tables["summary"])}
{_frame_section("Decisions", tables["decisions"], "No decision recorded yet.")}
{_frame_section("Plan: the API calls that carry out the decisions", plan, "Nothing to change.")}
{_frame_section("Calls applied and their results", tables["results"], "No call sent yet.")}
<h2>Sign-off</h2>
{html_table(tables["sign-off"]) if len(tables["sign-off"]) else "<p>Not signed off yet.</p>"}
<blockquote>{text(_STATEMENT)}</blockquote><div class="sign">{sign_lines}</div>
</body></html>
"""


def write_html(review: ReviewRecord, path: str | os.PathLike[str]) -> Path:
    """Write the evidence as one self-contained HTML file (no network needed to open it).

    Parameters
    ----------
    review : AccessReview
        The review.
    path : str or path-like
        Where to write; missing parent folders are created.

    Returns
    -------
    Path
        The file written.

    Examples
    --------
    >>> review.to_html("review-2026-Q4.html")
    PosixPath('review-2026-Q4.html')
    """
    target = write_page(path, render_html(review))
    _seal(target, review)
    return target


def _seal(path: Path, review: ReviewRecord) -> None:
    """Write the manifest of the evidence file ``path``."""
    snapshot = review.audit.snapshot
    manifest = {
        "format": EVIDENCE_FORMAT,
        "format_version": EVIDENCE_FORMAT_VERSION,
        "docsapi_version": version(),
        "written_at": pd.Timestamp.now(tz="UTC").isoformat(),
        "org_id": str(review.audit.org_id),
        "audit_digest": None if snapshot is None else snapshot.audit_digest,
        "plan_digest": review.plan_digest(),
    }
    write_sidecar(path, manifest, writing_key())


def check_evidence_file(path: str | os.PathLike[str]) -> Verdict:
    """Check an evidence file against its manifest (``docsapi verify FILE``).

    Parameters
    ----------
    path : str or path-like
        The workbook or page; its manifest is beside it.

    Returns
    -------
    Verdict
        ``problems`` (the manifest's seal or signature, the file changed since it was
        written; none when it verifies) and ``facts``.

    Examples
    --------
    >>> evidence = review.to_excel("review-2026-Q4.xlsx")
    >>> check_evidence_file(evidence).ok
    True
    """
    target = Path(path)
    manifest, problem = manifest_of(target, EVIDENCE_FORMAT, EVIDENCE_FORMAT_VERSION)
    if manifest is None:
        return Verdict("evidence", target, (str(problem),))
    key = signing_key()
    facts = (
        f"review evidence of organization {manifest.get('org_id')}, written at "
        f"{manifest.get('written_at')}, plan sha256 {str(manifest.get('plan_digest'))[:16]}",
        seal_fact(manifest, key),
    )
    problems = tuple(file_problems(target, manifest, key))
    return Verdict("evidence", target, problems, facts, signed_with(manifest, key))
