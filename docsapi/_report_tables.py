"""Interactive tables of the HTML audit report: sortable, filterable, readable labels.

A table is rendered as plain escaped HTML with a few ``data-`` attributes (how each column
sorts, a numeric sort key where the text does not sort right: roles by rank, dates by time)
and a hidden filter bar; the inline script ``_report_script.js`` reveals the bar and does
the sorting and filtering in the browser. The page's Content-Security-Policy admits that one
script by its SHA-256 hash (:func:`script_source`), so the file stays self-contained and
loads nothing.
"""

from __future__ import annotations

import base64
import hashlib
import html
from functools import cache
from importlib.resources import files
from typing import Any

import numpy as np
import pandas as pd

from docsapi._audit_data import ROLES, SEVERITY_DTYPE

__all__ = ["interactive_table", "script_element", "script_source", "source_labels", "text"]

#: A column with at most this many distinct values (repeated) gets a filter menu.
MAX_CHOICES = 30

_SEVERITIES = tuple(SEVERITY_DTYPE.categories)


def text(value: Any) -> str:
    """A cell's text, escaped; missing values are empty."""
    if pd.api.types.is_scalar(value) and pd.isna(value):
        return ""
    return html.escape(str(value))


@cache
def script_source() -> str:
    """The report's inline script, exactly as embedded."""
    return files("docsapi").joinpath("_report_script.js").read_text(encoding="utf-8")


def script_element() -> tuple[str, str]:
    """The ``<script>`` element and the CSP source (``'sha256-…'``) that admits it."""
    source = script_source()
    digest = base64.b64encode(hashlib.sha256(source.encode("utf-8")).digest()).decode("ascii")
    return f"<script>{source}</script>", f"'sha256-{digest}'"


def _ranks(series: pd.Series, order: tuple[str, ...]) -> list[str]:
    position = {name: str(rank) for rank, name in enumerate(order)}
    return [position.get(value, "") if isinstance(value, str) else "" for value in series]


def _rank_order(name: str, series: pd.Series) -> tuple[str, ...] | None:
    """The order of a column of roles or severities (by name and values), else None."""
    if isinstance(series.dtype, pd.CategoricalDtype) and series.dtype.ordered:
        return tuple(str(c) for c in series.dtype.categories)
    values = {str(v) for v in series.dropna().unique()}
    if name.endswith("role") and values <= set(ROLES):
        return ROLES
    if name == "severity" and values <= set(_SEVERITIES):
        return _SEVERITIES
    return None


def _millis(series: pd.Series) -> list[str]:
    """Milliseconds since the epoch of each timestamp (naive ones read as UTC); empty if missing."""
    stamps = pd.to_datetime(series, utc=True).dt.tz_convert(None)
    millis = stamps.to_numpy().astype("datetime64[ms]").astype(np.int64)
    return [
        "" if missing else str(value) for value, missing in zip(millis, stamps.isna(), strict=True)
    ]


def _sort_keys(name: str, series: pd.Series) -> tuple[str, list[str] | None]:
    """How a column sorts ("number" or "text") and its per-cell keys, if not its text."""
    order = _rank_order(name, series)
    if order is not None:
        return "number", _ranks(series.astype(object), order)
    if isinstance(series.dtype, pd.DatetimeTZDtype) or pd.api.types.is_datetime64_dtype(series):
        return "number", _millis(series)
    if pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series):
        return "number", None
    return "text", None


def _choices(name: str, series: pd.Series) -> list[str]:
    """The values offered by a column's filter menu; empty when the column gets none."""
    kind, _ = _sort_keys(name, series)
    if kind == "number" and _rank_order(name, series) is None:
        return []  # numbers and dates are sorted, not picked
    values = [str(v) for v in series.dropna().unique()]
    if not 2 <= len(values) <= MAX_CHOICES or len(values) == len(series):
        return []
    order = _rank_order(name, series)
    if order is not None:
        return sorted(values, key=lambda v: order.index(v) if v in order else len(order))
    return sorted(values, key=str.casefold)


def _filters(frame: pd.DataFrame, label: str) -> str:
    menus = []
    for column_number, name in enumerate(frame.columns):
        choices = _choices(str(name), frame[name])
        if not choices:
            continue
        options = "".join(f'<option value="{text(c)}">{text(c)}</option>' for c in choices)
        menus.append(
            f'<label>{text(name)} <select data-column="{column_number}">'
            f'<option value="">all</option>{options}</select></label>'
        )
    return (
        f'<div class="filters" hidden><input type="search" class="filter-text" '
        f'placeholder="Filter rows" aria-label="Filter {text(label)}">{"".join(menus)}'
        f'<span class="shown" aria-live="polite">{len(frame)} rows</span></div>'
    )


def interactive_table(frame: pd.DataFrame, *, label: str, row_class: str | None = None) -> str:
    """A sortable, filterable HTML table of ``frame``.

    Parameters
    ----------
    frame : DataFrame
        The rows to show, in their initial order.
    label : str
        What the table holds (names the filter box for screen readers).
    row_class : str, optional
        A column whose value styles each row (``class="sev-<value>"``).

    Returns
    -------
    str
        A ``<div class="interactive">`` holding the filter bar and the table.
    """
    keys = {}
    head = []
    for name in frame.columns:
        kind, keys[name] = _sort_keys(str(name), frame[name])
        head.append(f'<th data-type="{kind}">{text(name)}</th>')
    columns = [(frame[name].astype(object).tolist(), keys[name]) for name in frame.columns]
    styles = frame[row_class].astype(object).tolist() if row_class else None
    rows = []
    for i in range(len(frame)):
        cells = "".join(
            f'<td data-key="{column_keys[i]}">{text(values[i])}</td>'
            if column_keys is not None
            else f"<td>{text(values[i])}</td>"
            for values, column_keys in columns
        )
        css = f' class="sev-{text(styles[i])}"' if styles is not None else ""
        rows.append(f"<tr{css}>{cells}</tr>")
    return (
        f'<div class="interactive">{_filters(frame, label)}<table><thead><tr>{"".join(head)}'
        f"</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
    )


def _source_label(source: str, teams: dict[str, str], collections: dict[str, str]) -> str:
    kind, _, ids = source.partition(":")
    if kind == "team" and ids in teams:
        return f"team:{teams[ids]} ({ids})"
    if kind == "collection" and ids in collections:
        return f"collection:{collections[ids]} ({ids})"
    if kind == "collection-team":
        collection, _, team = ids.partition("/")
        names = f"{collections.get(collection, collection)}/{teams.get(team, team)}"
        return f"collection-team:{names} ({ids})"
    return source


def source_labels(sources: pd.Series, teams: pd.DataFrame, collections: pd.DataFrame) -> pd.Series:
    """Sources (``team:<id>; default:read``) with names beside the ids.

    ``team:<id>`` reads ``team:<title> (<id>)``, ``collection:<id>`` reads
    ``collection:<title> (<id>)``, ``collection-team:<cid>/<tid>`` reads
    ``collection-team:<collection title>/<team title> (<cid>/<tid>)``; sources without an id
    (``direct``, ``org-admin``, ``default:<level>``) and ids without a known title stay as
    they are. Each distinct value is labelled once.
    """

    def titles(frame: pd.DataFrame) -> dict[str, str]:
        known = frame.dropna(subset=["id", "title"])
        return dict(zip(known["id"].astype(str), known["title"].astype(str), strict=True))

    team_titles, collection_titles = titles(teams), titles(collections)
    distinct = pd.Series(sources.dropna().unique(), dtype=object)
    labels = {
        value: "; ".join(
            _source_label(part, team_titles, collection_titles) for part in value.split("; ")
        )
        for value in distinct.astype(str)
    }
    return sources.astype(object).map(labels, na_action="ignore")
