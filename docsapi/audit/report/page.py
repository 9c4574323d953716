"""Pieces every page, workbook and CSV docsapi writes shares: style, tables, charts, targets.

The audit report, the diff report and the review's evidence build their pages from these, so
that a page looks the same and is written the same way (parent folders created, a NUL in a
path refused) wherever it comes from.

Workbooks and CSV files are inert (:func:`write_sheet`, :func:`write_table_csv`): a text that a
spreadsheet would read as a formula (it starts with ``=``, ``+``, ``-``, ``@``, a tab or a
carriage return, or their fullwidth forms, possibly after spaces) stays text. In a workbook
every text cell is stored as a string (never a formula, an error code or a number) and such a
cell is marked quote-prefixed, so editing it keeps it text; in a CSV such a cell gets a
leading ``'``, as OWASP recommends for CSV injection, and a text holding a line break is
quoted. Numbers stay numbers. docsapi reads its own CSV files back unchanged
(:func:`read_csv_texts` drops the ``'`` it added).
"""

from __future__ import annotations

import base64
import io
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
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
    "inert_texts",
    "output_path",
    "plain",
    "read_csv_texts",
    "text",
    "write_page",
    "write_sheet",
    "write_table_csv",
    "write_text_cell",
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
.state { font-size: 1.1rem; margin: .6rem 0 .2rem; }
.first-screen h2 { margin-top: 1.2rem; }
.fix-list, .change-list { margin: .3rem 0; padding-left: 1.6rem; }
.fix-list li, .change-list li { margin: .3rem 0; line-height: 1.35; }
.fix-list li::marker { color: #b3261e; font-weight: bold; }
.fix { color: #0b5394; }
.note { color: #666; font-size: .9rem; }
tr:target td { outline: 2px solid #1f5fbf; }
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
    """A figure as base64-encoded PNG, drawn at :data:`REPORT_DPI`.

    The figure is laid out once, then drawn once, by one renderer: ``savefig`` of a figure
    with a layout engine first draws it without output to lay it out, then draws it again,
    which lays it out again, on a canvas of its own whose renderer measures every text anew
    (about a third of the report's chart drawing). The pixels are the same; the figure keeps
    its canvas, dpi and layout engine.
    """
    from matplotlib import rc_context
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    buffer = io.BytesIO()
    engine, dpi, canvas = figure.get_layout_engine(), figure.get_dpi(), figure.canvas
    figure.set_dpi(REPORT_DPI)
    # one Agg renderer for the layout and the drawing, so the texts measured for the layout
    # are not measured again (savefig would switch to a canvas of its own, with a new one)
    FigureCanvasAgg(figure)
    try:
        if engine is not None:
            engine.execute(figure)  # at the dpi the PNG is drawn at
            with rc_context({"figure.autolayout": False, "figure.constrained_layout.use": False}):
                figure.set_layout_engine(None)  # keep the positions just computed
        figure.savefig(buffer, format="png", dpi=REPORT_DPI)
    finally:
        figure.set_canvas(canvas)
        figure.set_dpi(dpi)
        if engine is not None:
            figure.set_layout_engine(engine)
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


#: What makes a spreadsheet take a cell for a formula: a tab or carriage return first, or
#: (after any whitespace) ``=``, ``+``, ``-``, ``@`` or their fullwidth forms.
_TRIGGER = r"(?:[\t\r]|\s*[=+\-@\uff1d\uff0b\uff0d\uff20])"
#: A text that gets a leading quote in a CSV: a trigger, after any quotes (so that reading
#: back drops exactly the quote added, and a text starting with ``'=`` survives the trip).
_NEEDS_QUOTE = re.compile(f"^'*{_TRIGGER}")
_QUOTED = re.compile(f"^'+{_TRIGGER}")


def _csv_cell(value: object) -> object:
    if isinstance(value, str) and _NEEDS_QUOTE.match(value):
        return "'" + value
    return value


def inert_texts(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with a ``'`` before every text a spreadsheet would take for a formula.

    Column labels and text cells change (values that are ``str``); numbers, times and
    missing values stay as they are.

    Examples
    --------
    >>> inert_texts(pd.DataFrame({"title": ["=1+1", "Guides"], "n": [-2, 3]})).values.tolist()
    [["'=1+1", -2], ['Guides', 3]]
    """
    return _map_texts(frame, _csv_cell)


def read_csv_texts(frame: pd.DataFrame) -> pd.DataFrame:
    """A frame read from a CSV that :func:`write_table_csv` wrote, its texts as they were.

    Examples
    --------
    >>> read_csv_texts(pd.DataFrame({"t": ["'=1+1", "'quoted'", "''=x"]}))["t"].tolist()
    ['=1+1', "'quoted'", "'=x"]
    """
    return _map_texts(frame, _restored)


def _restored(value: object) -> object:
    return value[1:] if isinstance(value, str) and _QUOTED.match(value) else value


def _map_texts(frame: pd.DataFrame, change: Any) -> pd.DataFrame:
    """``frame`` with ``change`` applied to its column labels and text cells (a copy when
    anything changed; columns that changed become object columns)."""
    labels = [change(label) for label in frame.columns]
    changed = {}
    for position, (_, series) in enumerate(frame.items()):
        if series.dtype.kind in "biufcmM":
            continue  # numbers and times are never text
        values = series.astype(object).to_numpy()
        cells = np.empty(len(values), dtype=object)
        for row, value in enumerate(values):
            cells[row] = change(value)
        if any(a is not b for a, b in zip(cells, values, strict=True)):
            changed[position] = cells
    if not changed and labels == list(frame.columns):
        return frame
    frame = frame.copy()
    for position, column in changed.items():
        frame.isetitem(position, column)
    frame.columns = pd.Index(labels, name=frame.columns.name, dtype=object)
    return frame


def write_table_csv(frame: pd.DataFrame, path: Path) -> Path:
    """Write ``frame`` (without its index) as an inert CSV file; the path written.

    Lines end in CRLF (RFC 4180), so a text holding a carriage return is quoted: no reader
    starts a new row inside it (where what follows could be taken for a formula).
    """
    inert_texts(frame).to_csv(path, index=False, lineterminator="\r\n")
    return path


#: Characters a workbook cannot hold (XML 1.0 forbids them); shown as their control pictures.
_UNWRITABLE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")
#: The most characters a spreadsheet cell holds (Excel's limit).
MAX_CELL_TEXT = 32_767


def _writable(value: object) -> object:
    """A text with each control character a workbook cannot hold shown as its picture (␁),
    cut to :data:`MAX_CELL_TEXT` characters (ending in "…")."""
    if not isinstance(value, str):
        return value
    if _UNWRITABLE.search(value):
        value = _UNWRITABLE.sub(lambda match: chr(0x2400 + ord(match.group())), value)
    if len(value) > MAX_CELL_TEXT:
        value = value[: MAX_CELL_TEXT - 1] + "…"
    return value


def _text_cell(cell: Any) -> None:
    """Store an openpyxl cell holding a ``str`` as a string, never as a formula or error."""
    if isinstance(cell.value, str):
        cell.data_type = "s"
        if _NEEDS_QUOTE.match(cell.value):
            cell.quotePrefix = True  # Excel keeps it text when the cell is edited


def write_sheet(writer: pd.ExcelWriter, name: str, frame: pd.DataFrame) -> Any:
    """Write ``frame`` to the sheet ``name`` of an openpyxl ``writer``, inert and readable.

    Every text cell is stored as a string (see the module's docstring); the header row is
    frozen and the columns sized (:func:`fit_columns`).

    Returns
    -------
    openpyxl Worksheet
        The sheet, for more cells (:func:`write_text_cell`) or an autofilter.
    """
    _map_texts(frame, _writable).to_excel(writer, sheet_name=name, index=False)
    sheet = writer.sheets[name]
    for row in sheet.iter_rows():
        for cell in row:
            _text_cell(cell)
    fit_columns(sheet)
    return sheet


def write_text_cell(sheet: Any, row: int, column: int, value: str) -> None:
    """Write ``value`` into one cell of an openpyxl ``sheet``, as a string."""
    _text_cell(sheet.cell(row=row, column=column, value=_writable(value)))


def plain(frame: pd.DataFrame, *, naive_times: bool = False) -> pd.DataFrame:
    """Categoricals as plain text, so spreadsheets and CSV readers see ordinary values;
    with ``naive_times``, UTC timestamps without their zone (Excel cannot store one)."""
    frame = frame.astype({c: object for c in frame.columns if frame[c].dtype == "category"})
    if naive_times:
        zoned = [c for c in frame.columns if isinstance(frame[c].dtype, pd.DatetimeTZDtype)]
        frame = frame.assign(**{c: frame[c].dt.tz_localize(None) for c in zoned})
    return frame
