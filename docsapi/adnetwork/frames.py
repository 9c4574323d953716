"""Records in, DataFrame out, for the ad-network API's lists.

The API does not publish its fields, so a frame keeps every field it receives: nested
objects are flattened with underscores (``manager.id`` → ``manager_id``), names become
snake_case (``createdAt`` → ``created_at``), ids come first, and each column gets a type
from its values: numbers numeric (``Int64`` or ``float64``), ISO 8601 timestamps
``datetime64[ns, UTC]``, flags ``boolean``, text ``string``, lists ``object``.

Examples
--------
>>> frame = affiliates([{"id": 7, "manager": {"id": 2}, "createdAt": "2024-01-02T03:04:05Z"}])
>>> list(frame.columns), str(frame["created_at"].dtype)
(['id', 'manager_id', 'created_at'], 'datetime64[ns, UTC]')
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["AFFILIATE_COLUMNS", "affiliates", "flatten", "snake_case"]

#: The columns of an empty affiliate list (what the sandbox and the platform send).
AFFILIATE_COLUMNS: dict[str, str] = {
    "id": "Int64",
    "manager_id": "Int64",
    "name": "string",
    "email": "string",
    "company": "string",
    "status": "string",
    "country": "string",
    "currency": "string",
    "manager_name": "string",
    "payout_total_paid": "float64",
    "payout_pending": "float64",
    "created_at": "datetime64[ns, UTC]",
    "updated_at": "datetime64[ns, UTC]",
}

_TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$")
_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def snake_case(name: str) -> str:
    """Turn an API field name into a snake_case column name.

    Examples
    --------
    >>> snake_case("totalPaid"), snake_case("payoutURL"), snake_case("created-at")
    ('total_paid', 'payout_url', 'created_at')
    """
    spaced = _CAMEL_BOUNDARY.sub("_", name.strip())
    return re.sub(r"[^0-9a-zA-Z]+", "_", spaced).strip("_").lower()


def flatten(record: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Flatten nested objects into one level of snake_case keys joined by ``_``.

    Parameters
    ----------
    record : Mapping
        One JSON object of the API.
    prefix : str
        The column name of the parent object (used by the recursion).

    Returns
    -------
    dict
        Column → value; lists are kept as values.

    Examples
    --------
    >>> flatten({"id": 1, "manager": {"id": 2, "fullName": "Ann"}})
    {'id': 1, 'manager_id': 2, 'manager_full_name': 'Ann'}
    """
    flat: dict[str, Any] = {}
    for key, value in record.items():
        name = f"{prefix}_{snake_case(str(key))}" if prefix else snake_case(str(key))
        if isinstance(value, Mapping):
            flat.update(flatten(value, name))
        else:
            flat[name] = value
    return flat


def _ordered(columns: Iterable[str]) -> list[str]:
    """``id`` first, then the other ``*_id`` columns, then the rest in arrival order."""
    columns = list(columns)
    ids = [c for c in columns if c == "id"] + [c for c in columns if c.endswith("_id")]
    return ids + [c for c in columns if c not in ids]


def _infer_dtype(values: list[Any]) -> str:
    present = [v for v in values if v is not None]
    if not present:
        return "object"
    if all(isinstance(v, bool) for v in present):
        return "boolean"
    if all(isinstance(v, int) and not isinstance(v, bool) for v in present):
        return "Int64"
    if all(isinstance(v, int | float) and not isinstance(v, bool) for v in present):
        return "float64"
    if all(isinstance(v, str) for v in present):
        if all(_TIMESTAMP.match(v) for v in present):
            return "datetime64[ns, UTC]"
        return "string"
    return "object"


def _column(values: list[Any], dtype: str) -> pd.Series:
    import pandas as pd

    if dtype == "datetime64[ns, UTC]":
        stamps = pd.to_datetime(pd.Series(values, dtype="object"), utc=True, format="ISO8601")
        return stamps.astype(dtype)
    if dtype == "float64":
        return pd.Series([float("nan") if v is None else v for v in values], dtype="float64")
    if dtype == "string":
        dtype = "string[python]"  # the same storage whether or not pyarrow is installed
    return pd.Series(values, dtype=dtype)


def affiliates(records: Iterable[Mapping[str, Any]]) -> pd.DataFrame:
    """Build the affiliates DataFrame from the API's records.

    Parameters
    ----------
    records : iterable of Mapping
        Affiliate objects as the API sends them (``data.rowset`` items).

    Returns
    -------
    pandas.DataFrame
        One row per affiliate, one column per (flattened, snake_case) field, ids first.
        An empty list yields the columns of :data:`AFFILIATE_COLUMNS`.

    Examples
    --------
    >>> frame = affiliates([{"id": 1, "payout": {"totalPaid": 12.5}, "status": "active"}])
    >>> frame.dtypes.astype(str).to_dict()
    {'id': 'Int64', 'payout_total_paid': 'float64', 'status': 'string'}
    """
    import pandas as pd

    rows = [flatten(record) for record in records]
    if not rows:
        return pd.DataFrame(
            {name: pd.Series([], dtype=dtype) for name, dtype in AFFILIATE_COLUMNS.items()}
        )
    names: dict[str, None] = {}
    for row in rows:
        names.update(dict.fromkeys(row))
    data = {}
    for name in _ordered(names):
        values = [row.get(name) for row in rows]
        data[name] = _column(values, _infer_dtype(values))
    return pd.DataFrame(data)
