"""Interactive tables of the HTML audit report: sortable, filterable, readable labels.

A table is rendered as plain escaped HTML with a few ``data-`` attributes (how each column
sorts, a numeric sort key where the text does not sort right: roles by rank, dates by time;
the id behind a name, searched by the filter box and shown on hover, so ids need no columns
of their own), in a box that scrolls sideways, under a hidden filter bar; the inline script
``script.js`` reveals the bar and does the sorting and filtering in the browser. The
page's Content-Security-Policy admits that one script by its SHA-256 hash
(:func:`script_source`), so the file stays self-contained and loads nothing.
"""

from __future__ import annotations

import base64
import hashlib
import html
import re
from functools import cache
from importlib.resources import files
from typing import Any

import numpy as np
import pandas as pd

from docsapi.audit.data import ROLES, SEVERITY_DTYPE

__all__ = [
    "header_cell",
    "header_words",
    "id_labels",
    "interactive_table",
    "script_element",
    "script_source",
    "source_labels",
    "text",
]

#: A column with at most this many distinct values (repeated) gets a filter menu.
MAX_CHOICES = 12
#: A column of single words at most this long never wraps.
SHORT = 32
#: A column with a text longer than this wraps anywhere (long addresses, lists of sources).
LONG = 60
#: Columns of prose: they wrap, and get room to be read.
PROSE = frozenset({"detail", "message"})
#: Columns that name or identify something, or hold free text: searched by the filter box,
#: never offered as a menu.
_NAMING = frozenset({"id", "title", "name", "display_name", "email", "source", "sources"})
_NAMING_ENDS = ("_id", "_title", "_name", "_url", "_email")
#: The label column of an id column that is not named ``<x>_title`` or ``<x>_name``.
_LABELS = {"user_id": "display_name", "granted_by_id": "granted_by", "event_id": "provenance"}

_SEVERITIES = tuple(SEVERITY_DTYPE.categories)
#: Words a header writes in capitals.
_CAPITALS = {"id": "ID", "ids": "IDs", "url": "URL", "urls": "URLs"}
#: Last words that are units: a header shows them in brackets.
_UNITS = frozenset({"days", "hours", "minutes", "seconds", "percent"})


def header_words(name: str) -> str:
    """A column's name as a person would say it.

    Examples
    --------
    >>> header_words("principal_type")
    'Principal type'
    >>> header_words("share_link_age_days")
    'Share link age (days)'
    >>> header_words("user_id")
    'User ID'
    """
    words = [word for word in re.split(r"[_\s]+", str(name)) if word]
    if not words:
        return str(name)
    unit = words.pop() if len(words) > 1 and words[-1] in _UNITS else None
    words = [_CAPITALS.get(word, word) for word in words]
    words[0] = words[0][:1].upper() + words[0][1:]
    said = " ".join(words)
    return f"{said} ({unit})" if unit else said


def header_cell(name: str, attributes: str = "") -> str:
    """``<th>`` with the column in words, and its name in the data on hover (``title``)."""
    return f'<th{attributes} title="{text(name)}">{text(header_words(name))}</th>'


def _present(value: Any) -> bool:
    return not (pd.api.types.is_scalar(value) and pd.isna(value))


def text(value: Any) -> str:
    """A cell's text, escaped; missing values are empty."""
    return html.escape(str(value)) if _present(value) else ""


@cache
def script_source() -> str:
    """The report's inline script, exactly as embedded."""
    return files("docsapi.audit.report").joinpath("script.js").read_text(encoding="utf-8")


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


def _minutes(series: pd.Series) -> list[str]:
    """Moments shown to the minute, in UTC (the exact moment is the cell's ``title``)."""
    stamps = pd.to_datetime(series, utc=True)
    return stamps.dt.strftime("%Y-%m-%d %H:%M UTC").fillna("").tolist()


def _is_dates(series: pd.Series) -> bool:
    return isinstance(series.dtype, pd.DatetimeTZDtype) or pd.api.types.is_datetime64_dtype(series)


def _sort_keys(name: str, series: pd.Series) -> tuple[str, list[str] | None]:
    """How a column sorts ("number" or "text") and its per-cell keys, if not its text."""
    order = _rank_order(name, series)
    if order is not None:
        return "number", _ranks(series.astype(object), order)
    if _is_dates(series):
        return "number", _millis(series)
    if pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series):
        return "number", None
    return "text", None


def _is_naming(name: str) -> bool:
    """Whether a column names or identifies things, or holds free text (no menu for it)."""
    return name in _NAMING or name in PROSE or name.endswith(_NAMING_ENDS)


def _choices(name: str, series: pd.Series) -> list[str]:
    """The values offered by a column's filter menu; empty when the column gets none."""
    if _is_naming(name):
        return []
    kind, _ = _sort_keys(name, series)
    order = _rank_order(name, series)
    if kind == "number" and order is None:
        return []  # numbers and dates are sorted, not picked
    values = [str(v) for v in series.dropna().unique()]
    if not 2 <= len(values) <= MAX_CHOICES or len(values) == len(series):
        return []
    if order is not None:
        return sorted(values, key=lambda v: order.index(v) if v in order else len(order))
    return sorted(values, key=str.casefold)


def id_labels(columns: list[str]) -> dict[str, str]:
    """Each id column of ``columns`` that has a column naming its ids, with that column.

    ``<x>_id`` is named by ``<x>_title`` or ``<x>_name``, ``user_id`` by ``display_name``.
    """
    labels: dict[str, str] = {}
    for name in columns:
        if not name.endswith("_id"):
            continue
        stem = name.removesuffix("_id")
        candidates = (_LABELS.get(name), f"{stem}_title", f"{stem}_name")
        found = next((c for c in candidates if c in columns and c not in labels.values()), None)
        if found is not None:
            labels[name] = found
    return labels


def _layout(columns: list[str]) -> list[tuple[str, str | None]]:
    """The columns shown, in order: each a column and the id column shown in its cells.

    An id column with a label column is shown as one column, the label's, where the first
    of the two stands.
    """
    labels = id_labels(columns)
    ids = {label: name for name, label in labels.items()}
    shown: dict[str, str | None] = {}
    for name in columns:
        label = labels.get(name, name)
        shown.setdefault(label, ids.get(label))
    return list(shown.items())


def _width_class(name: str, texts: list[str], *, dates: bool) -> str:
    """How a column's cells wrap: ``prose`` wraps with room to be read, ``nw`` (dates, and
    single words such as codes, roles and ids) never wraps, ``long`` (long text) wraps
    anywhere, names wrap between words."""
    if name in PROSE:
        return "prose"
    if dates or all(len(t) <= SHORT and " " not in t for t in texts):
        return "nw"
    return "long" if max(map(len, texts), default=0) > LONG else ""


def _filters(frame: pd.DataFrame, shown: list[str], label: str) -> str:
    menus = []
    for column_number, name in enumerate(shown):
        choices = _choices(name, frame[name])
        if not choices:
            continue
        options = "".join(f'<option value="{text(c)}">{text(c)}</option>' for c in choices)
        menus.append(
            f"<label>{text(header_words(name))} "
            f'<select data-column="{column_number}" data-name="{text(name)}">'
            f'<option value="">all</option>{options}</select></label>'
        )
    return (
        f'<div class="filters" hidden><input type="search" class="filter-text" '
        f'placeholder="Filter rows: names or ids" aria-label="Filter {text(label)}">'
        f'{"".join(menus)}<span class="shown" aria-live="polite">{len(frame)} rows</span></div>'
    )


def _header(name: str, id_name: str | None, kind: str) -> str:
    """A header cell: the column in words, its name in the data on hover and in ``data-name``."""
    ids = f' data-id-column="{text(id_name)}"' if id_name else ""
    return header_cell(name, f' data-type="{kind}" data-name="{text(name)}"{ids}')


def _cells(
    frame: pd.DataFrame, name: str, id_name: str | None, hover: list[str] | None = None
) -> tuple[str, list[str]]:
    """The header and the cells of one shown column (``hover``: each cell's ``title``)."""
    kind, keys = _sort_keys(name, frame[name])
    values = frame[name].astype(object).tolist()
    ids = frame[id_name].astype(object).tolist() if id_name else [None] * len(values)
    texts = [
        str(value) if _present(value) else str(ident) if _present(ident) else ""
        for value, ident in zip(values, ids, strict=True)
    ]
    dates = _is_dates(frame[name])
    css = _width_class(name, texts, dates=dates)
    shown = _minutes(frame[name]) if dates else None
    cells = []
    for i, (value, ident) in enumerate(zip(values, ids, strict=True)):
        attributes = f' class="{css}"' if css else ""
        if keys is not None:
            attributes += f' data-key="{keys[i]}"'
        content = text(value)
        if shown is not None and _present(value):
            attributes += f' title="{content}"'
            content = text(shown[i])
        if id_name and _present(ident):
            attributes += f' data-id="{text(ident)}" title="{text(id_name)}: {text(ident)}"'
            if not _present(value):
                content = f'<span class="id">{text(ident)}</span>'
        elif hover is not None and hover[i]:
            attributes += f' title="{text(hover[i])}"'
        cells.append(f"<td{attributes}>{content}</td>")
    return _header(name, id_name, kind), cells


def interactive_table(
    frame: pd.DataFrame,
    *,
    label: str,
    row_class: str | None = None,
    row_ids: list[str] | None = None,
    hover: dict[str, list[str]] | None = None,
) -> str:
    """A sortable, filterable HTML table of ``frame``.

    An id column with a column naming its ids (:func:`id_labels`) is not shown apart: the
    names are, each cell holding its id in ``data-id`` (which the filter box searches) and
    ``title`` (shown on hover); an id without a name is shown itself. Short columns never
    wrap, prose gets room, and the table scrolls sideways in its own box.

    Parameters
    ----------
    frame : DataFrame
        The rows to show, in their initial order.
    label : str
        What the table holds (names the filter box for screen readers).
    row_class : str, optional
        A column whose value styles each row (``class="sev-<value>"``).
    row_ids : list of str, optional
        Each row's ``id``, for links to it (``#finding-3``).
    hover : dict of str to list of str, optional
        Per column, each cell's text on hover (a rule's code beside its name in words).

    Returns
    -------
    str
        A ``<div class="interactive">`` holding the filter bar and the table.
    """
    frame = frame.rename(columns=str)
    layout = _layout(list(frame.columns))
    hover = hover or {}
    head, columns = zip(
        *(_cells(frame, name, id_name, hover.get(name)) for name, id_name in layout), strict=True
    )
    styles = frame[row_class].astype(object).tolist() if row_class else None
    rows = []
    for i in range(len(frame)):
        css = f' class="sev-{text(styles[i])}"' if styles is not None else ""
        css += f' id="{text(row_ids[i])}"' if row_ids is not None else ""
        rows.append(f"<tr{css}>{''.join(cells[i] for cells in columns)}</tr>")
    filters = _filters(frame, [name for name, _ in layout], label)
    return (
        f'<div class="interactive">{filters}<div class="table-scroll"><table><thead><tr>'
        f"{''.join(head)}</tr></thead><tbody>{''.join(rows)}</tbody></table></div></div>"
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
