"""Write a permission audit out: one self-contained HTML file, an Excel workbook, or CSVs.

The HTML report has no external reference at all (inline CSS, charts as base64 PNG
``<img>`` elements, one inline script that sorts and filters the tables, a
Content-Security-Policy that admits that script by its hash and forbids loading anything),
so it opens offline, from ``file://`` too, and can be mailed as a single file. Every piece
of text is HTML-escaped.
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from docsapi.audit.report.first_screen import ChangesView, finding_anchor, fix_first, what_changed
from docsapi.audit.report.page import (
    CSS,
    excel_target,
    figure_png,
    html_table,
    output_path,
    plain,
    write_page,
    write_sheet,
    write_table_csv,
)
from docsapi.audit.report.plots import matrix_is_indexed, plot_audit, timeline_counts
from docsapi.audit.report.tables import interactive_table, script_element, source_labels
from docsapi.audit.report.tables import text as _text
from docsapi.audit.report.words import (
    combining,
    rule_hover,
    rule_words,
    severity_sentence,
    state_sentence,
)
from docsapi.audit.view import AuditView

__all__ = [
    "effective_view",
    "notebook_html",
    "paths_view",
    "render_html",
    "write_csv",
    "write_excel",
    "write_html",
]

_CHART_TITLES = {
    "findings_by_rule": "Findings by rule",
    "role_matrix": "Effective roles: users by spaces",
    "grants_per_space": "Grants per space",
    "access_paths": "How users reach spaces",
    "exposure": "Spaces readable without an account",
    "timeline": "Permission changes over time",
}
#: Charts drawn in their own sections rather than under "Charts".
_SECTION_CHARTS = ("access_paths", "exposure", "timeline")


def _matrix_index(matrix: pd.DataFrame) -> str:
    """The names behind the numbers of a role matrix drawn with numbered axes."""
    lists = "".join(
        f"<h4>{what}</h4><ol>{''.join(f'<li>{_text(name)}</li>' for name in names)}</ol>"
        for what, names in (("Users", matrix.index), ("Spaces", matrix.columns))
    )
    return (
        '<details class="index"><summary>The numbers of the chart: users and spaces</summary>'
        f"{lists}</details>"
    )


def _cards(audit: AuditView) -> str:
    items = [
        ("spaces", "spaces"),
        ("users with access", "users"),
        ("members", "members"),
        ("teams", "teams"),
        ("grants", "grants"),
        ("findings", "findings"),
    ]
    cards = [
        f'<div class="card"><b>{audit.count(key)}</b>{_text(label)}</div>' for label, key in items
    ]
    for severity in ("high", "medium", "low"):
        count = audit.count(severity, "severity")
        cards.append(f'<div class="card"><b>{count}</b>{severity} severity</div>')
    if audit.count("errors"):
        cards.append(f'<div class="card"><b>{audit.count("errors")}</b>unreadable</div>')
    return f'<div class="cards">{"".join(cards)}</div>'


def _summary_tables(audit: AuditView) -> str:
    parts = []
    for category, heading in (
        ("role", "Effective access by role"),
        ("principal_type", "Grants by principal type"),
        ("rule", "Findings by rule"),
    ):
        counts = audit.summary.loc[category].reset_index()
        counts.columns = [category.replace("_", " "), "count"]
        hover = None
        if category == "rule":  # rules in words, the code on hover
            codes = counts["rule"].astype(str).tolist()
            counts["rule"] = [rule_words(code) for code in codes]
            hover = {"rule": [rule_hover(code) for code in codes]}
        table = interactive_table(counts, label=heading, hover=hover)
        parts.append(f"<div><h3>{heading}</h3>{table}</div>")
    return f'<div class="cards">{"".join(parts)}</div>'


def _counts_section(audit: AuditView) -> str:
    """The counts and the rules' thresholds, folded below the first screen."""
    return (
        '<details class="counts"><summary>Counts and thresholds</summary>'
        f'<p class="verdict">{_text(f"Rule set: {audit.model}. {audit.verdict}")}</p>'
        f"{_cards(audit)}"
        f'<p class="meta">The rules\' thresholds: {_text(_thresholds(audit.thresholds))}.</p>'
        f"{_summary_tables(audit)}</details>"
    )


def _partial_banner(audit: AuditView) -> str:
    """A warning naming what the audit could not see; empty for a complete audit."""
    if audit.complete:
        return ""
    missing = "; ".join(
        f"{item}: {detail}"
        for item, detail in zip(audit.incomplete["item"], audit.incomplete["detail"], strict=True)
    )
    return f'<p class="partial">PARTIAL AUDIT: access may be under-reported. {_text(missing)}</p>'


def _findings_section(findings: pd.DataFrame, *, interactive: bool = False) -> str:
    if findings.empty:
        return '<p class="none">No findings: every rule passed.</p>'
    if interactive:  # rules in words (the code on hover); each row linkable from "Fix first"
        codes = findings["rule"].astype(str).tolist()
        shown = findings.assign(rule=pd.array([rule_words(c) for c in codes], dtype="string"))
        return interactive_table(
            shown,
            label="findings",
            row_class="severity",
            row_ids=[finding_anchor(i) for i in range(len(findings))],
            hover={"rule": [rule_hover(code) for code in codes]},
        )
    return html_table(findings, row_class="severity")


def _section(title: str, frame: pd.DataFrame, *, open_: bool = False) -> str:
    flag = " open" if open_ else ""
    body = interactive_table(frame, label=title) if not frame.empty else "<p>None.</p>"
    return f"<details{flag}><summary>{_text(title)} ({len(frame)} rows)</summary>{body}</details>"


def _exposure_section(audit: AuditView, chart: str) -> str:
    if audit.exposure.empty:
        return '<p class="none">No content is readable without an account.</p>'
    return (
        "<p>Content readable without an account of the organization: published on a public "
        "or unlisted site, behind a share link, or to a site's signed-in visitors.</p>"
        f"{chart}"
        f"{_section('Exposure: content readable without an account', audit.exposure, open_=True)}"
    )


def _history_section(audit: AuditView, chart: str) -> str:
    log = audit.coverage[audit.coverage["item"] == "audit log read"]
    detail = str(log["detail"].iloc[0]) if len(log) else "not read."
    return (
        "<p>Who made each access setting and when, from the organization's audit log "
        f"({_text(detail.rstrip('.'))}). A setting no event of the log explains reads "
        "<q>before</q> the log's first date: it is older than the log, never guessed.</p>"
        f"{chart}"
        f"{_section('Who made each access setting', audit.provenance)}"
        f"{_section('The audit log as read', audit.events)}"
    )


def _names(audit: AuditView) -> tuple[dict[str, str], dict[str, str]]:
    """Space titles and user names by id, from every table of the crawl that has them."""
    data = audit.data
    spaces = data.spaces.dropna(subset=["id", "title"])
    users = pd.concat(
        [
            frame[["user_id", "display_name"]].astype(object)
            for frame in (data.members, data.team_members, data.user_permissions, data.aggregate)
        ],
        ignore_index=True,
    ).dropna()
    return (
        dict(zip(spaces["id"].astype(str), spaces["title"].astype(str), strict=True)),
        dict(zip(users["user_id"].astype(str), users["display_name"].astype(str), strict=True)),
    )


def effective_view(audit: AuditView) -> pd.DataFrame:
    """``audit.effective`` as the report shows it, with names beside the ids of its sources.

    Parameters
    ----------
    audit : AuditView
        The audit shown.

    Returns
    -------
    DataFrame
        The rows of ``audit.effective`` in its order; one ``sources`` column reading
        ``team:Marketing (<id>); default:read`` replaces ``sources`` and ``source_names``.
    """
    data = audit.data
    labels = source_labels(audit.effective["sources"], data.teams, data.collections)
    return audit.effective.drop(columns=["source_names"]).assign(sources=labels)


def paths_view(audit: AuditView) -> pd.DataFrame:
    """``audit.paths`` as the report shows it: spaces, users and sources named beside ids.

    Parameters
    ----------
    audit : AuditView
        The audit shown.

    Returns
    -------
    DataFrame
        One row per path, in the order of ``audit.paths``: ``space_title``, ``space_id``,
        ``display_name``, ``user_id``, ``kind``, ``source`` (``team:Marketing (<id>)``),
        ``role``, and who opened it, when: ``granted_by``, ``granted_at``, ``provenance``.
    """
    data = audit.data
    spaces, users = _names(audit)
    paths = audit.paths
    return pd.DataFrame(
        {
            "space_title": paths["space_id"].astype(object).map(spaces),
            "space_id": paths["space_id"],
            "display_name": paths["user_id"].astype(object).map(users),
            "user_id": paths["user_id"],
            "kind": paths["kind"],
            "source": source_labels(paths["source"], data.teams, data.collections),
            "role": paths["role"],
            "granted_by": paths["granted_by"],
            "granted_at": paths["granted_at"],
            "provenance": paths["provenance"],
        }
    )


def render_html(audit: AuditView, changes: ChangesView | None = None) -> str:
    """Render the full report as one HTML document.

    The first screen is for a security reviewer: one sentence on the organization's state
    (the rules its platform follows, in words), "Fix first" (the high findings as sentences,
    each linking to its row) and, given ``changes``, "What changed since <date>". The counts
    and the thresholds follow, folded.

    Parameters
    ----------
    audit : AuditView
        The audit to report.
    changes : AccessDiff, optional
        What changed since a previous audit (``audit.diff(previous)``).

    Returns
    -------
    str
        A self-contained HTML document.
    """
    figures = plot_audit(audit)
    images = {
        name: f'<img class="chart" alt="{_text(_CHART_TITLES[name])}" '
        f'src="data:image/png;base64,{figure_png(figure)}">'
        for name, figure in figures.items()
    }
    if matrix_is_indexed(audit.matrix):
        images["role_matrix"] += _matrix_index(audit.matrix)
    charts = "".join(
        f"<h3>{_CHART_TITLES[name]}</h3>{image}"
        for name, image in images.items()
        if name not in _SECTION_CHARTS
    )
    taken = pd.Timestamp(audit.generated_at).tz_convert("UTC").strftime("%Y-%m-%d %H:%M UTC")
    title = f"Permission audit of {_organization(audit)}"
    script, script_hash = script_element()
    policy = (
        f"default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src {script_hash}"
    )
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy"
      content="{policy}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{_text(title)}</title><style>{CSS}</style></head>
<body>
<h1>{_text(title)}</h1>
{_partial_banner(audit)}
<p class="state">{_text(state_sentence(audit))} {_text(severity_sentence(audit.findings))}</p>
<p class="meta">Audit taken {taken}, with the rule set {_text(audit.model)}.</p>
<div class="first-screen">
{fix_first(audit)}
{what_changed(changes)}
</div>
{_counts_section(audit)}
<h2>Findings</h2>
{_findings_section(_compact(audit.findings), interactive=True)}
<h2>Access paths</h2>
<p>Every way a user reaches a space: organization admin, the default level, a direct grant,
a team, a collection, a team on a collection, or a site. {_text(combining(audit.model))}</p>
{images["access_paths"]}
{_section("Every path from a user to a space", paths_view(audit))}
<h2>Exposure</h2>
{_exposure_section(audit, images.get("exposure", ""))}
<h2>History</h2>
{_history_section(audit, images.get("timeline", ""))}
<h2>Charts</h2>
{charts}
<h2>Tables</h2>
{_section("What the audit could see", audit.coverage, open_=not audit.complete)}
{_section("Effective access per space and user", effective_view(audit))}
{_section("Grants as listed by the API", audit.grants)}
{_section("Where the audit and the platform disagree", audit.aggregate_mismatches)}
{_section("Reads that failed", audit.errors, open_=True)}
{script}
</body></html>
"""


def _organization(audit: AuditView) -> str:
    """The organization's name with its id, or its id alone."""
    return f"{audit.org_name} ({audit.org_id})" if audit.org_name else audit.org_id


def _thresholds(limits: object) -> str:
    from dataclasses import asdict

    return ", ".join(f"{name}={value:g}" for name, value in asdict(limits).items())  # type: ignore[call-overload]


#: Columns of the findings left out of pages (``.findings`` and the workbook have them all).
_COMPACT_DROPPED = ["granted_by", "granted_by_id", "granted_at", "granted_via", "event_id"]


def _compact(findings: pd.DataFrame) -> pd.DataFrame:
    """The findings as pages show them: who granted each and when at the end of its sentence
    (``Provenance: Ada Lovelace on 2026-03-02 (ui).``), the separate columns left to the tables
    and the workbook, so a finding reads whole without scrolling sideways."""
    detail = findings["detail"].astype(object)
    said = findings["provenance"].astype(object)
    joined = [
        d if pd.isna(p) else f"{d} Provenance: {p}." for d, p in zip(detail, said, strict=True)
    ]
    compact = findings.drop(columns=[*_COMPACT_DROPPED, "provenance"], errors="ignore")
    return compact.assign(detail=pd.array(joined, dtype="string"))


def notebook_html(audit: AuditView, *, findings: int = 10) -> str:
    """A compact HTML view for Jupyter: the summary and the first findings (who granted each
    and when, in words; the separate columns are in ``.findings``)."""
    more = len(audit.findings) - findings
    tail = f"<p>… and {more} more findings in <code>.findings</code>.</p>" if more > 0 else ""
    shown = _compact(audit.findings.head(findings))
    return (
        f"<div><h3>Permission audit of {_text(_organization(audit))}</h3>"
        f'{_partial_banner(audit)}<p class="state">{_text(state_sentence(audit))}</p>'
        f"{_cards(audit)}"
        f"{_findings_section(shown)}{tail}</div>"
    )


def write_html(
    audit: AuditView, path: str | os.PathLike[str], changes: ChangesView | None = None
) -> Path:
    """Write the audit as one self-contained HTML file.

    Parameters
    ----------
    audit : AuditView
        The audit to report.
    path : str or path-like
        Where to write; missing parent folders are created.
    changes : AccessDiff, optional
        What changed since a previous audit: the first screen says it.

    Returns
    -------
    Path
        The file written.

    Examples
    --------
    >>> audit.to_html("audit-report.html")
    PosixPath('audit-report.html')
    """
    return write_page(path, render_html(audit, changes))


def _export_tables(audit: AuditView, *, excel: bool = False) -> dict[str, pd.DataFrame]:
    tables = {name: plain(t, naive_times=excel) for name, t in audit.tables().items()}
    tables["summary"] = tables["summary"].reset_index()
    tables["matrix"] = tables["matrix"].reset_index()
    return tables


def write_excel(audit: AuditView, path: str | os.PathLike[str]) -> Path:
    """Write one worksheet per table of :meth:`~docsapi.audit.PermissionAudit.tables`, and
    a ``timeline`` sheet of permission changes per month with its chart (when the audit log
    was read).

    Each sheet keeps its header row in view (frozen panes) and has an autofilter over its
    header and data, so every column can be filtered and sorted in Excel. Every text is
    stored as text, never as a formula, whatever it starts with (a space titled ``=1+1``
    shows as ``=1+1``); numbers stay numbers.

    Parameters
    ----------
    audit : AuditView
        The audit to export.
    path : str or path-like
        The ``.xlsx`` file to write.

    Returns
    -------
    Path
        The file written.

    Raises
    ------
    ImportError
        When openpyxl is not installed (``pip install docsapi[excel]``).
    """
    target = excel_target(path)
    with pd.ExcelWriter(target, engine="openpyxl") as writer:
        for name, table in _export_tables(audit, excel=True).items():
            sheet = write_sheet(writer, name, table)
            sheet.auto_filter.ref = sheet.dimensions  # a filter menu on every column
        _timeline_sheet(audit, writer)
    return target


def _timeline_sheet(audit: AuditView, writer: pd.ExcelWriter) -> None:
    """A ``timeline`` sheet: changes of access per month by action, drawn as stacked bars."""
    from openpyxl.chart import BarChart, Reference

    counts = timeline_counts(audit.events, freq="M", by="action")
    if counts.empty:
        return
    table = counts.set_axis([f"{day:%Y-%m}" for day in counts.index]).rename_axis("month")
    sheet = write_sheet(writer, "timeline", table.reset_index())  # names stay text
    chart = BarChart()
    chart.type, chart.grouping, chart.overlap = "col", "stacked", 100
    chart.title = "Permission changes per month, by action"
    chart.y_axis.title = "changes"
    rows, columns = len(table) + 1, table.shape[1] + 1
    chart.add_data(
        Reference(sheet, min_col=2, max_col=columns, min_row=1, max_row=rows), titles_from_data=True
    )
    chart.set_categories(Reference(sheet, min_col=1, min_row=2, max_row=rows))
    chart.width, chart.height = 20, 10
    sheet.add_chart(chart, f"A{rows + 2}")


def write_csv(audit: AuditView, folder: str | os.PathLike[str]) -> list[Path]:
    """Write one CSV file per table into ``folder`` (created if missing).

    A text a spreadsheet would take for a formula (it starts with ``=``, ``+``, ``-``,
    ``@``, a tab or a carriage return, or their fullwidth forms) is written with a leading
    ``'``, as OWASP recommends; numbers stay numbers.

    Parameters
    ----------
    audit : AuditView
        The audit to export.
    folder : str or path-like
        The folder to write one ``<table>.csv`` per table of
        :meth:`~docsapi.audit.PermissionAudit.tables` into.

    Returns
    -------
    list of Path
        The files written.
    """
    target = output_path(folder, "folder")
    target.mkdir(parents=True, exist_ok=True)
    written = []
    for name, table in _export_tables(audit).items():
        written.append(write_table_csv(table, target / f"{name}.csv"))
    return written
