"""Plan and result files: CSV or JSON (by the file's suffix), read back with their dtypes.

A plan file is what ``review.save_plan(path)`` writes and ``docsapi review apply PLAN``
reads; the JSON form keeps each call's body as JSON, the CSV form as JSON text in the
``body`` column. Result files (``--results``) keep what the command did. A CSV file is
inert in a spreadsheet: a text that could be taken for a formula gets a leading ``'``
(see :mod:`docsapi.audit.report.page`), which reading it back drops.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pandas as pd

from docsapi.audit.report.page import read_csv_texts, write_table_csv
from docsapi.core.json_files import MAX_BYTES, JSONFileError, parse_json, read_json_file
from docsapi.core.reprs import shown_path
from docsapi.errors import ValidationError
from docsapi.review._apply import RESULT_COLUMNS
from docsapi.review._plan import PLAN_COLUMNS

__all__ = [
    "json_records",
    "read_plan",
    "read_results",
    "results_frame",
    "write_plan",
    "write_results",
]

_SUFFIXES = (".csv", ".json")
#: A plan's columns that hold JSON (as JSON text in a CSV plan).
_PLAN_JSON = ("body", "expect")
#: Columns a file written by an earlier docsapi may lack (missing values then).
_OPTIONAL = ("approval", "notify", "precondition")


def _file(path: object, argument: str) -> Path:
    if not isinstance(path, str | os.PathLike) or not str(path).strip():
        raise ValidationError(argument, f"give a file path ending in .csv or .json, got {path!r}")
    target = Path(path)
    if target.suffix.lower() not in _SUFFIXES:
        raise ValidationError(argument, f"must end in .csv or .json, got {target.name!r}")
    return target


def json_records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    plain = frame.astype(object).where(frame.notna(), None)
    records: list[dict[str, Any]] = [
        {str(key): value for key, value in row.items()} for row in plain.to_dict(orient="records")
    ]
    for record in records:
        for key, value in record.items():
            if isinstance(value, pd.Timestamp):
                record[key] = value.isoformat()
    return records


def _write(frame: pd.DataFrame, target: Path, json_columns: tuple[str, ...]) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.suffix.lower() == ".json":
        text = json.dumps(json_records(frame), indent=1, ensure_ascii=False)
        target.write_text(text + "\n", encoding="utf-8")
        return target
    flat = frame.copy()
    for column in json_columns:
        flat[column] = [
            None if value is None else json.dumps(value, sort_keys=True) for value in flat[column]
        ]
    return write_table_csv(flat, target)


def _read(
    target: Path,
    columns: dict[str, Any],
    json_columns: tuple[str, ...],
) -> pd.DataFrame:
    if not target.is_file():
        raise ValidationError("path", f"{target} does not exist")
    name = shown_path(target)
    try:
        if target.suffix.lower() == ".json":
            records = read_json_file(target)
            if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
                raise ValueError("the file does not hold a list of calls")
            frame = pd.DataFrame.from_records(records)
        else:
            if target.stat().st_size > MAX_BYTES:
                raise JSONFileError(name, f"is larger than {MAX_BYTES // 2**20} MiB")
            frame = pd.read_csv(target, dtype=str, keep_default_na=False, na_values=[""])
            frame = read_csv_texts(frame)
            for column in json_columns:
                if column in frame.columns:
                    frame[column] = [
                        None if pd.isna(v) else parse_json(v, name=name) for v in frame[column]
                    ]
    except JSONFileError:
        raise
    except (ValueError, pd.errors.ParserError) as exc:
        raise ValidationError("path", f"{target} is not a readable file of calls ({exc})") from None
    lacking = [c for c in columns if c not in frame.columns and c not in _OPTIONAL]
    if lacking:
        raise ValidationError("path", f"{target} lacks columns {lacking}")
    return _typed(frame, columns)


def _typed(frame: pd.DataFrame, columns: dict[str, Any]) -> pd.DataFrame:
    frame = frame.reindex(columns=list(columns))
    typed = {}
    for column, dtype in columns.items():
        values = frame[column]
        if dtype == "Int64":
            values = pd.to_numeric(values, errors="raise")
        elif isinstance(dtype, pd.DatetimeTZDtype):
            values = pd.to_datetime(values, utc=True)
        elif dtype is object:
            values = values.astype(object).where(values.notna(), None)
        typed[column] = values.astype(dtype)
    return pd.DataFrame(typed).reset_index(drop=True)


def write_plan(plan: pd.DataFrame, path: str | os.PathLike[str]) -> Path:
    """Write ``plan`` to a ``.csv`` or ``.json`` file; the path written."""
    return _write(plan, _file(path, "path"), _PLAN_JSON)


def read_plan(path: str | os.PathLike[str]) -> pd.DataFrame:
    """A plan written by :func:`write_plan` (``review.save_plan``).

    Raises
    ------
    ValidationError
        When the file is missing, not CSV or JSON, or lacks a plan's columns.
    """
    return _read(_file(path, "path"), PLAN_COLUMNS, _PLAN_JSON)


def write_results(results: pd.DataFrame, path: str | os.PathLike[str]) -> Path:
    """Write apply results to a ``.csv`` or ``.json`` file."""
    return _write(results, _file(path, "results"), ())


def read_results(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Results written by :func:`write_results`."""
    return _read(_file(path, "results"), RESULT_COLUMNS, ())


def results_frame(records: list[dict[str, Any]]) -> pd.DataFrame:
    """Results from their records as JSON holds them (a journal's), with their dtypes."""
    return _typed(pd.DataFrame.from_records(records), RESULT_COLUMNS)
