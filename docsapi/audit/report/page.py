"""Pieces every page and workbook docsapi writes shares: style, tables, charts, file targets.

The audit report, the diff report and the review's evidence build their pages from these, so
that a page looks the same and is written the same way (parent folders created, a NUL in a
path refused) wherever it comes from.
"""

from __future__ import annotations

import base64
import io
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from docsapi.audit.report.tables import header_cell, text
from docsapi.errors import ValidationError

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "CSS",
    "REPORT_DPI",
    "excel_target",
    "figure_png",
    "fit_columns",
    "html_table",
    "output_path",
    "plain",
    "text",
    "write_page",
]

#: Pixels per inch of the charts in the pages: an 8-inch chart is 800 pixels wide.
REPORT_DPI = 100

#: The stylesheet of every page (inline: the pages load nothing).
CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto;
       max-width: 1200px; padding: 0 1rem; color: #222; }
h1 { font-size: 1.6rem; margin-bottom: .2rem; } h2 { margin-top: 2rem; font-size: 1.25rem; }
.meta { color: #666; font-size: .9rem; }
.cards { display: flex; flex-wrap: wrap; gap: .75rem; margin: 1rem 0; }
.card { border: 1px solid #ddd; border-radius: 8px; padding: .6rem 1rem; min-width: 7rem; }
.card b { display: block; font-size: 1.5rem; }
table { border-collapse: collapse; font-size: .85rem; margin: .5rem 0; }
th, td { border: 1px solid #ddd; padding: .25rem .5rem; text-align: left; vertical-align: top; }
th { background: #f4f4f4; position: sticky; top: 0; }
tr.sev-high td:first-child { background: #fbd5d5; font-weight: bold; }
tr.sev-medium td:first-child { background: #fde5c8; }
tr.sev-low td:first-child { background: #fcf3c4; }
img.chart { max-width: 100%; height: auto; display: block; margin: .5rem 0 1.5rem; }
details summary { cursor: pointer; font-weight: bold; margin: 1rem 0 .3rem; }
.none { color: #2a7a2a; }
.partial { border: 2px solid #d62728; background: #fbd5d5; padding: .6rem 1rem;
           border-radius: 8px; font-weight: bold; }
.filters { display: flex; flex-wrap: wrap; gap: .4rem .9rem; align-items: center;
           font-size: .85rem; margin: .4rem 0; }
.filters input { min-width: 14rem; } .shown { color: #666; }
th button.sort { all: unset; cursor: pointer; font-weight: bold; }
th button.sort:focus-visible { outline: 2px solid #1f5fbf; }
th[aria-sort=ascending] button.sort::after { content: " \\25B2"; }
th[aria-sort=descending] button.sort::after { content: " \\25BC"; }
.table-scroll { overflow: auto; max-height: 85vh; margin: .5rem 0; }
.table-scroll table { margin: 0; } .table-scroll th { z-index: 1; }
.table-scroll th, .table-scroll td { padding: .25rem .4rem; }
td.nw { white-space: nowrap; } td.prose { min-width: 28em; }
td.long { min-width: 12em; overflow-wrap: anywhere; }
td .id { color: #666; font-family: ui-monospace, monospace; font-size: .85em; }
"""


def html_table(frame: pd.DataFrame, *, row_class: str | None = None) -> str:
    """An HTML table of ``frame``; ``row_class`` names a column whose value styles the row."""
    head = "".join(header_cell(column) for column in frame.columns)
    rows = []
    for record in frame.itertuples(index=False):
        values = dict(zip(frame.columns, record, strict=True))
        css = f' class="sev-{text(values[row_class])}"' if row_class else ""
        cells = "".join(f"<td>{text(value)}</td>" for value in record)
        rows.append(f"<tr{css}>{cells}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def figure_png(figure: Figure) -> str:
    """A figure as base64-encoded PNG."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=REPORT_DPI)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def output_path(path: str | os.PathLike[str], argument: str) -> Path:
    if not isinstance(path, str | os.PathLike) or not str(path).strip():
        raise ValidationError(argument, f"pass a file or folder path, got {path!r}")
    if "\x00" in str(path):
        raise ValidationError(argument, "a path cannot hold a NUL character")
    return Path(path)


def write_page(path: str | os.PathLike[str], page: str) -> Path:
    """Write the HTML ``page`` to ``path`` (parent folders created); the file written."""
    target = output_path(path, "path")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(page, encoding="utf-8")
    return target


def excel_target(path: str | os.PathLike[str]) -> Path:
    """Where a workbook goes (parent folders created), once openpyxl is known to be there."""
    target = output_path(path, "path")
    try:
        import openpyxl  # noqa: F401
    except ImportError:
        raise ImportError(
            "Writing Excel files needs openpyxl: pip install docsapi[excel]"
        ) from None
    target.parent.mkdir(parents=True, exist_ok=True)
    return target


def fit_columns(sheet: Any) -> None:
    """Freeze an openpyxl sheet's header row and size its columns to their text."""
    sheet.freeze_panes = "A2"  # the header row stays in view
    for column in sheet.columns:
        longest = max((len(str(cell.value or "")) for cell in column), default=8)
        sheet.column_dimensions[column[0].column_letter].width = min(60, longest + 2)


def plain(frame: pd.DataFrame, *, naive_times: bool = False) -> pd.DataFrame:
    """Categoricals as plain text, so spreadsheets and CSV readers see ordinary values;
    with ``naive_times``, UTC timestamps without their zone (Excel cannot store one)."""
    frame = frame.astype({c: object for c in frame.columns if frame[c].dtype == "category"})
    if naive_times:
        zoned = [c for c in frame.columns if isinstance(frame[c].dtype, pd.DatetimeTZDtype)]
        frame = frame.assign(**{c: frame[c].dt.tz_localize(None) for c in zoned})
    return frame
