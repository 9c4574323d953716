"""Show an :class:`~docsapi.audit.diff.changes.AccessDiff`: charts, what to look at first, HTML.

Charts use the Okabe-Ito palette, whose colours people with any common colour-vision
deficiency tell apart, and keep their legends outside the bars. The HTML page is
self-contained like the audit report (:mod:`docsapi.audit.report.html`): inline CSS, charts
as base64 PNG, a Content-Security-Policy that loads nothing, every text escaped.
"""

from __future__ import annotations

import html
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from docsapi.audit.data import ROLES
from docsapi.audit.diff.changes import Changes
from docsapi.audit.report.page import CSS, figure_png, html_table, text, write_page

if TYPE_CHECKING:
    from matplotlib.figure import Figure


__all__ = ["OKABE_ITO", "notebook_html", "plot_diff", "render_html", "top_changes", "write_html"]

#: The Okabe-Ito palette (Okabe & Ito, 2008), told apart with any colour-vision deficiency.
OKABE_ITO: dict[str, str] = {
    "orange": "#E69F00",
    "sky blue": "#56B4E9",
    "bluish green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "reddish purple": "#CC79A7",
    "grey": "#999999",
}
_BEFORE, _AFTER = OKABE_ITO["sky blue"], OKABE_ITO["blue"]
#: Whether a kind of change widens access (vermillion), narrows it (bluish green), or neither.
_DIRECTION = {
    "granted": "more access or risk",
    "raised": "more access or risk",
    "new findings": "more access or risk",
    "exposure added": "more access or risk",
    "revoked": "less access or risk",
    "lowered": "less access or risk",
    "resolved findings": "less access or risk",
    "exposure removed": "less access or risk",
    "rerouted": "same role, other paths",
}
_DIRECTION_COLORS = {
    "more access or risk": OKABE_ITO["vermillion"],
    "less access or risk": OKABE_ITO["bluish green"],
    "same role, other paths": OKABE_ITO["grey"],
}
#: Rows shown per table in the HTML page (the full tables are in the AccessDiff).
HTML_ROWS = 500


# -- charts ---------------------------------------------------------------------------------------
def _role_counts(effective: pd.DataFrame) -> list[int]:
    counts = effective["role"].astype(object).value_counts()
    return [int(counts.get(role, 0)) for role in ROLES]


def access_by_role_figure(diff: Changes) -> Figure:
    """Grouped bars: effective accesses per role, in the previous and the current audit."""
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    before = _role_counts(diff.previous.effective)
    after = _role_counts(diff.current.effective)
    positions = list(range(len(ROLES)))
    width = 0.4
    figure = Figure(figsize=(9, 3.8), layout="constrained")
    axes = figure.add_subplot()
    label_before = f"before ({diff.before:%Y-%m-%d})"
    label_after = f"after ({diff.after:%Y-%m-%d})"
    old = axes.bar(
        [p - width / 2 for p in positions], before, width, color=_BEFORE, label=label_before
    )
    new = axes.bar(
        [p + width / 2 for p in positions],
        after,
        width,
        color=_AFTER,
        label=label_after,
        hatch="//",
        edgecolor="white",
    )
    axes.bar_label(old, padding=2, fontsize=7)
    axes.bar_label(new, padding=2, fontsize=7)
    axes.set_xticks(positions, labels=list(ROLES))
    axes.set_xlabel("effective role")
    axes.set_ylabel("(space, user) accesses")
    axes.yaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_ylim(0, max(1, *before, *after) * 1.15)
    axes.set_title("Effective access by role, before and after")
    axes.legend(frameon=False, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return figure


def changes_figure(diff: Changes) -> Figure:
    """Horizontal bars: the number of changes of each kind, coloured by direction."""
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch
    from matplotlib.ticker import MaxNLocator

    summary = diff.summary
    kinds = list(reversed(summary.index.tolist()))
    counts = [int(summary.loc[kind, "count"]) for kind in kinds]
    figure = Figure(figsize=(9, 3.8), layout="constrained")
    axes = figure.add_subplot()
    bars = axes.barh(kinds, counts, color=[_DIRECTION_COLORS[_DIRECTION[kind]] for kind in kinds])
    axes.bar_label(bars, padding=3)
    axes.set_xlabel("changes")
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_xlim(0, max(1, *counts) * 1.15)
    axes.set_title("Changes by kind")
    axes.legend(
        handles=[Patch(color=color, label=label) for label, color in _DIRECTION_COLORS.items()],
        frameon=False,
        loc="upper left",
        bbox_to_anchor=(1.01, 1.0),
    )
    return figure


def plot_diff(diff: Changes) -> dict[str, Figure]:
    """Draw the charts of a diff.

    Parameters
    ----------
    diff : Changes
        The changes to draw.

    Returns
    -------
    dict of str to Figure
        ``"access_by_role"`` and ``"changes"``.

    Examples
    --------
    >>> figures = audit.diff(previous).plot()
    >>> list(figures)
    ['access_by_role', 'changes']
    >>> figures["changes"].savefig("changes.png")
    """
    return {"access_by_role": access_by_role_figure(diff), "changes": changes_figure(diff)}


# -- the changes to look at first -----------------------------------------------------------------
_SEVERITY_RANK = {"high": 0, "medium": 1, "low": 2}
_ROLE_RANK = {role: len(ROLES) - i for i, role in enumerate(ROLES)}  # admin first


def _text_or_none(value: Any) -> str | None:
    missing = value is None or value is pd.NA or (isinstance(value, float) and value != value)
    return None if missing else str(value)


def _access_rows(frame: pd.DataFrame, change: str, rank: int) -> list[dict[str, Any]]:
    widened = change in {"granted", "raised"}
    rows = []
    for record in frame.to_dict("records"):
        before = _text_or_none(record["role_before"]) or "no access"
        after = _text_or_none(record["role_after"]) or "no access"
        through = _text_or_none(record["paths_added" if widened else "paths_removed"])
        via = f", via {through}" if through else ""
        role = after if widened else before
        rows.append(
            {
                "order": (rank, _ROLE_RANK.get(role, 9)),
                "change": change,
                "space": _text_or_none(record["space_title"]),
                "who": _text_or_none(record["display_name"]),
                "what": f"{before} -> {after}{via}",
            }
        )
    return rows


def _finding_rows(frame: pd.DataFrame, verb: str, rank: int) -> list[dict[str, Any]]:
    rows = []
    for record in frame.to_dict("records"):
        severity = str(record["severity"])
        rows.append(
            {
                "order": (rank, _SEVERITY_RANK.get(severity, 3)),
                "change": f"{verb} {severity} finding",
                "space": _text_or_none(record["space_title"]),
                "who": _text_or_none(record["principal_name"]),
                "what": _text_or_none(record["detail"]),
            }
        )
    return rows


def top_changes(diff: Changes, limit: int = 10) -> pd.DataFrame:
    """The changes to look at first (see :meth:`AccessDiff.top_changes`)."""
    rows = _finding_rows(diff.new_findings, "new", 0)
    rows += _access_rows(diff.granted.head(limit * 4), "granted", 1)
    rows += _access_rows(diff.raised.head(limit * 4), "raised", 1)
    for record in diff.exposure_added.to_dict("records"):
        audience, visibility = record["audience"], record["visibility"]
        rows.append(
            {
                "order": (2, 0),
                "change": "exposure added",
                "space": _text_or_none(record["space_title"]),
                "who": None,
                "what": f"readable by {audience} ({visibility})",
            }
        )
    rows += _access_rows(diff.revoked.head(limit), "revoked", 3)
    rows += _access_rows(diff.lowered.head(limit), "lowered", 3)
    rows += _finding_rows(diff.resolved_findings, "resolved", 4)
    rows.sort(key=lambda row: row["order"])
    columns = ["change", "space", "who", "what"]
    frame = pd.DataFrame(rows[:limit], columns=["order", *columns])[columns]
    return frame.astype("string[python]")


# -- HTML -----------------------------------------------------------------------------------------
_DIFF_CSS = """
.more { color: #a33d00; } .less { color: #00694b; }
"""


def _heading(diff: Changes) -> str:
    name = f"{diff.org_name} ({diff.org_id})" if diff.org_name else diff.org_id
    return f"What changed in {name}"


def _period(diff: Changes) -> str:
    return f"from {diff.before:%Y-%m-%d %H:%M} UTC to {diff.after:%Y-%m-%d %H:%M} UTC"


def _notes_html(diff: Changes) -> str:
    return "".join(f'<p class="partial">{text(note)}</p>' for note in diff.notes)


def _cards(diff: Changes) -> str:
    summary = diff.summary
    cards = []
    for kind in summary.index:
        direction = _DIRECTION[kind]
        css = {"more access or risk": "more", "less access or risk": "less"}.get(direction, "")
        count = int(summary.loc[kind, "count"])
        unsure = int(summary.loc[kind, "incomplete"])
        extra = f"<br><small>{unsure} from spaces not read in full</small>" if unsure else ""
        cards.append(f'<div class="card {css}"><b>{count}</b>{text(kind)}{extra}</div>')
    return f'<div class="cards">{"".join(cards)}</div>'


def _section(title: str, frame: pd.DataFrame, *, open_: bool = False) -> str:
    shown = frame.head(HTML_ROWS)
    more = len(frame) - len(shown)
    tail = f"<p>… and {more} more rows (the full table is in the AccessDiff).</p>" if more else ""
    body = html_table(shown) + tail if not frame.empty else "<p>None.</p>"
    flag = " open" if open_ else ""
    return f"<details{flag}><summary>{text(title)} ({len(frame)} rows)</summary>{body}</details>"


_SECTIONS = (
    ("granted", "Access granted"),
    ("raised", "Access raised to a higher role"),
    ("revoked", "Access revoked"),
    ("lowered", "Access lowered to a lower role"),
    ("rerouted", "Same role through other paths"),
    ("new findings", "New findings"),
    ("resolved findings", "Resolved findings"),
    ("exposure added", "Exposure added: newly readable without an account"),
    ("exposure removed", "Exposure removed"),
    ("changed paths", "Every path that appeared or disappeared"),
)


def render_html(diff: Changes) -> str:
    """The diff as one self-contained HTML document."""
    figures = plot_diff(diff)
    charts = "".join(
        f'<img class="chart" alt="{text(name.replace("_", " "))}" '
        f'src="data:image/png;base64,{figure_png(figure)}">'
        for name, figure in figures.items()
    )
    tables = diff.tables()
    sections = "".join(
        _section(title, tables[kind], open_=kind in {"granted", "raised", "new findings"})
        for kind, title in _SECTIONS
    )
    top = top_changes(diff, 20)
    top_html = html_table(top) if not top.empty else '<p class="none">Nothing changed.</p>'
    title = _heading(diff)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy"
      content="default-src 'none'; img-src data:; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{text(title)}</title><style>{CSS}{_DIFF_CSS}</style></head>
<body>
<h1>{text(title)}</h1>
{_notes_html(diff)}
<p class="meta">Changes {text(_period(diff))}.</p>
<h2>Summary</h2>
{_cards(diff)}
<h2>Look at these first</h2>
{top_html}
<h2>Charts</h2>
{charts}
<h2>Changes</h2>
{sections}
</body></html>
"""


def notebook_html(diff: Changes, *, rows: int = 10) -> str:
    """A compact HTML view for Jupyter: notes, counts and the first changes."""
    top = top_changes(diff, rows)
    body = html_table(top) if not top.empty else '<p class="none">Nothing changed.</p>'
    return (
        f"<div><h3>{html.escape(_heading(diff))}</h3><p>{text(_period(diff))}</p>"
        f"{_notes_html(diff)}{_cards(diff)}{body}</div>"
    )


def write_html(diff: Changes, path: str | os.PathLike[str]) -> Path:
    """Write the diff as one self-contained HTML file.

    Parameters
    ----------
    diff : Changes
        The changes.
    path : str or path-like
        Where to write; missing parent folders are created.

    Returns
    -------
    Path
        The file written.

    Examples
    --------
    >>> audit.diff(previous).to_html("changes.html")
    PosixPath('changes.html')
    """
    return write_page(path, render_html(diff))
