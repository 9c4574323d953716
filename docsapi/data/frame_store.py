"""DataFrames to Parquet files and back, exactly: dtypes, index, column labels and ``attrs``.

Parquet (through pyarrow) keeps values, categorical dictionaries (their order, unused
categories and the ``ordered`` flag) and time zones, but not every pandas detail: the
storage of string columns (``string[python]`` comes back as whatever pandas prefers), the
dtype of a categorical's categories, or the dtype of an index. :func:`write_frame` therefore
returns a *layout*, a small JSON-able description of the frame (each column's and index
level's dtype, the column index's name and dtype, ``attrs``), and :func:`read_frame` uses it
to give back a frame that :func:`pandas.testing.assert_frame_equal` finds equal, dtypes
included.

Object columns holding anything but text (dicts, lists, numbers: the body of an API call,
say) are stored as JSON text and decoded on reading.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from docsapi.core.json_files import parse_json
from docsapi.errors import ValidationError

__all__ = ["FrameFormatError", "read_frame", "write_frame"]

Layout = dict[str, Any]

#: Parquet schema metadata holding every categorical's categories (see :func:`_categories`).
_CATEGORIES_KEY = b"docsapi:categories"


class FrameFormatError(Exception):
    """A stored frame does not match its layout, or cannot be read as Parquet."""


# -- dtypes as JSON ----------------------------------------------------------------------------
def dtype_spec(dtype: Any) -> dict[str, Any]:
    """A JSON-able description of a pandas dtype that :func:`restore_dtype` turns back.

    Examples
    --------
    >>> dtype_spec(pd.StringDtype("python"))
    {'kind': 'string', 'storage': 'python', 'na': 'NA'}
    """
    if isinstance(dtype, pd.CategoricalDtype):
        return {
            "kind": "category",
            "ordered": bool(dtype.ordered),
            "categories": dtype_spec(dtype.categories.dtype),
        }
    if isinstance(dtype, pd.StringDtype):
        na = "nan" if _is_nan(dtype.na_value) else "NA"
        return {"kind": "string", "storage": dtype.storage, "na": na}
    if dtype == np.dtype(object):
        return {"kind": "object"}
    return {"kind": "dtype", "name": str(dtype)}


def _is_nan(value: object) -> bool:
    return isinstance(value, float) and math.isnan(value)


def restore_dtype(spec: dict[str, Any]) -> Any:
    """The dtype :func:`dtype_spec` described (categoricals without their categories)."""
    kind = spec.get("kind")
    if kind == "string":
        na_value = np.nan if spec.get("na") == "nan" else pd.NA
        return pd.StringDtype(spec["storage"], na_value=na_value)
    if kind == "object":
        return np.dtype(object)
    if kind == "dtype":
        return pd.api.types.pandas_dtype(spec["name"])
    raise FrameFormatError(f"unknown dtype description {spec!r}")


# -- writing -----------------------------------------------------------------------------------
def _is_default_index(index: pd.Index) -> bool:
    return (
        isinstance(index, pd.RangeIndex)
        and index.start == 0
        and index.step == 1
        and index.name is None
    )


def _json_cell(value: Any, column: str) -> Any:
    if value is None or (pd.api.types.is_scalar(value) and pd.isna(value)):
        return None
    try:
        return json.dumps(value, sort_keys=True, allow_nan=False, ensure_ascii=False)
    except (TypeError, ValueError):
        raise ValidationError(
            f"frame[{column!r}]",
            f"holds a value that cannot be saved ({type(value).__name__}): keep to text, "
            "numbers, booleans, lists and dicts of them",
        ) from None


def _encode_objects(frame: pd.DataFrame) -> tuple[pd.DataFrame, set[int]]:
    """Object columns that hold more than text, as JSON text; the positions encoded."""
    encoded: set[int] = set()
    columns: dict[int, list[Any]] = {}
    for position, (label, series) in enumerate(frame.items()):
        if series.dtype != object:
            continue
        values = series.to_numpy()
        present = [v for v in values if not (pd.api.types.is_scalar(v) and pd.isna(v))]
        if all(isinstance(v, str) for v in present):
            continue
        columns[position] = [_json_cell(v, str(label)) for v in values]
        encoded.add(position)
    if not encoded:
        return frame, encoded
    frame = frame.copy()
    for position, texts in columns.items():
        frame.isetitem(position, np.array(texts, dtype=object))
    return frame, encoded


def _check_labels(frame: pd.DataFrame) -> None:
    if isinstance(frame.columns, pd.MultiIndex):
        raise ValidationError("frame", "columns must be one level of text labels, not a MultiIndex")
    labels = list(frame.columns)
    if not all(isinstance(label, str) for label in labels):
        raise ValidationError("frame", f"column labels must be text, got {labels!r}")
    if len(set(labels)) != len(labels):
        raise ValidationError("frame", "column labels must be unique")


def write_frame(frame: pd.DataFrame, path: Path) -> Layout:
    """Write ``frame`` as one Parquet file and return its layout (see the module docstring).

    Parameters
    ----------
    frame : DataFrame
        Text column labels, each once; any index.
    path : Path
        The file to write.

    Returns
    -------
    dict
        The layout :func:`read_frame` needs.

    Raises
    ------
    ValidationError
        For labels Parquet cannot hold, or values that cannot be saved.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    if not isinstance(frame, pd.DataFrame):
        raise ValidationError("frame", f"must be a pandas DataFrame, got {type(frame).__name__}")
    _check_labels(frame)
    try:
        json.dumps(frame.attrs, allow_nan=False)
    except (TypeError, ValueError):
        raise ValidationError(
            "frame.attrs", "must hold only JSON values (text, numbers, …)"
        ) from None
    default_index = _is_default_index(frame.index)
    stored, encoded = _encode_objects(frame)
    layout: Layout = {
        "rows": len(frame),
        "columns": [
            {"name": label, "dtype": dtype_spec(dtype), **({"json": True} if i in encoded else {})}
            for i, (label, dtype) in enumerate(frame.dtypes.items())
        ],
        "index": None
        if default_index
        else [
            {"name": name, "dtype": dtype_spec(frame.index.get_level_values(level).dtype)}
            for level, name in enumerate(frame.index.names)
        ],
        "columns_name": frame.columns.name,
        "columns_dtype": dtype_spec(frame.columns.dtype),
        "attrs": frame.attrs,
    }
    try:
        table = pa.Table.from_pandas(stored, preserve_index=not default_index)
    except (pa.ArrowException, TypeError, ValueError) as exc:
        raise ValidationError("frame", f"cannot be stored as Parquet: {exc}") from None
    metadata = dict(table.schema.metadata or {})
    metadata[_CATEGORIES_KEY] = json.dumps(_categories(frame), ensure_ascii=False).encode()
    pq.write_table(table.replace_schema_metadata(metadata), path)
    return layout


def _categories(frame: pd.DataFrame) -> dict[str, list[Any]]:
    """The categories of every categorical column and index level, in order.

    Parquet drops a dictionary without values (an empty table), so they are kept apart.
    """
    found: dict[str, list[Any]] = {}
    for key, dtype in [
        *((f"column:{i}", dtype) for i, dtype in enumerate(frame.dtypes)),
        *((f"index:{i}", level.dtype) for i, level in enumerate(_levels(frame.index))),
    ]:
        if isinstance(dtype, pd.CategoricalDtype):
            values = dtype.categories.tolist()
            if not all(isinstance(v, str | int | float | bool) for v in values):
                raise ValidationError(
                    "frame", f"categories of {key} must be text or numbers to be saved"
                )
            found[key] = values
    return found


def _levels(index: pd.Index) -> list[pd.Index]:
    return [index.get_level_values(level) for level in range(index.nlevels)]


# -- reading -----------------------------------------------------------------------------------
def _categorical_dtype(
    spec: dict[str, Any], categories: list[Any], known: dict[str, pd.CategoricalDtype]
) -> pd.CategoricalDtype:
    """The dtype of a categorical, built once per distinct description (a matrix has
    thousands of columns of one role dtype)."""
    key = json.dumps([spec, categories])
    if key not in known:
        index = pd.Index(categories, dtype=restore_dtype(spec["categories"]))
        known[key] = pd.CategoricalDtype(index, ordered=bool(spec["ordered"]))
    return known[key]


def _restore_values(
    values: pd.Series | pd.Index,
    entry: dict[str, Any],
    categories: list[Any] | None,
    known: dict[str, pd.CategoricalDtype],
) -> Any:
    """``values`` (as pyarrow gave them) as an array with the dtype of a layout entry."""
    spec = entry["dtype"]
    if spec.get("kind") == "category":
        if categories is None:
            raise FrameFormatError(f"the categories of {entry['name']!r} are missing")
        dtype = _categorical_dtype(spec, categories, known)
        if not isinstance(values.dtype, pd.CategoricalDtype):
            return pd.Categorical(values, dtype=dtype)
        read = pd.Categorical(values)
        if read.categories.equals(dtype.categories):  # the usual case: the codes hold
            return pd.Categorical.from_codes(read.codes, dtype=dtype, validate=False)
        return read.set_categories(dtype.categories).set_ordered(bool(dtype.ordered))
    if entry.get("json"):
        return np.array(
            [
                v if v is None or not isinstance(v, str) else parse_json(v, name=entry["name"])
                for v in _objects(values)
            ],
            dtype=object,
        )
    dtype = restore_dtype(spec)
    if dtype == np.dtype(object):
        return _objects(values)
    restored = values.astype(dtype)
    return restored.to_numpy() if isinstance(dtype, np.dtype) else restored.array


def _objects(values: pd.Series | pd.Index) -> np.ndarray:
    """The values as Python objects, missing ones as None."""
    array = np.asarray(values, dtype=object)
    missing = pd.isna(array)
    if missing.any():
        array = array.copy()
        array[missing] = None
    return array


def _restore_index(
    frame: pd.DataFrame,
    specs: list[dict[str, Any]] | None,
    categories: dict[str, list[Any]],
    rows: int,
    known: dict[str, pd.CategoricalDtype],
) -> pd.Index:
    if specs is None:
        return pd.RangeIndex(rows)
    if frame.index.nlevels != len(specs):
        raise FrameFormatError(f"index has {frame.index.nlevels} levels, expected {len(specs)}")
    levels = [
        _as_index(_restore_values(level, spec, categories.get(f"index:{i}"), known))
        for i, (level, spec) in enumerate(zip(_levels(frame.index), specs, strict=True))
    ]
    names = [spec["name"] for spec in specs]
    if len(levels) == 1:
        return levels[0].rename(names[0])
    return pd.MultiIndex.from_arrays(levels, names=names)


def _as_index(values: Any) -> pd.Index:
    return pd.Index(values, dtype=values.dtype, copy=False)


def read_frame(path: Path, layout: Layout) -> pd.DataFrame:
    """Read a frame :func:`write_frame` wrote, with the layout it returned.

    Raises
    ------
    FrameFormatError
        When the file is not Parquet or does not hold what the layout describes.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path)
        raw = table.to_pandas()
        metadata = (table.schema.metadata or {}).get(_CATEGORIES_KEY, b"{}")
        categories = parse_json(metadata.decode("utf-8"), name=f"{path.name}'s categories")
    except (pa.ArrowException, OSError, ValueError, RecursionError) as exc:
        raise FrameFormatError(f"cannot be read as Parquet ({exc})") from None
    try:
        return _restore(raw, layout, categories)
    except FrameFormatError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, IndexError, RecursionError) as exc:
        problem = f"does not match the layout recorded for it ({exc!r:.120})"
        raise FrameFormatError(problem) from None


def _restore(raw: pd.DataFrame, layout: Layout, categories: dict[str, Any]) -> pd.DataFrame:
    """The frame of ``raw`` as ``layout`` describes it (any malformed layout raises)."""
    import pandas as pd

    specs = layout["columns"]
    names = [spec["name"] for spec in specs]
    if list(raw.columns) != names:
        raise FrameFormatError(f"holds columns {list(raw.columns)}, expected {names}")
    stored_anything = bool(specs) or layout["index"] is not None  # else Parquet keeps no rows
    if stored_anything and len(raw) != layout["rows"]:
        raise FrameFormatError(f"holds {len(raw)} rows, expected {layout['rows']}")
    known: dict[str, pd.CategoricalDtype] = {}
    arrays = {
        position: _restore_values(
            raw.iloc[:, position], spec, categories.get(f"column:{position}"), known
        )
        for position, spec in enumerate(specs)
    }
    index = _restore_index(raw, layout["index"], categories, layout["rows"], known)
    frame = pd.DataFrame(arrays, index=index, copy=False)
    frame.columns = pd.Index(
        names, dtype=restore_dtype(layout["columns_dtype"]), name=layout["columns_name"]
    )
    frame.attrs = dict(layout.get("attrs") or {})
    return frame
