"""Records in, DataFrame out, for the ad-network API's lists.

The API does not publish its fields, so a frame keeps every field it receives: nested
objects are flattened with underscores (``manager.id`` → ``manager_id``), names become
snake_case (``createdAt`` → ``created_at``), ids come first, and each column gets a type
from its values: numbers numeric (``Int64`` or ``float64``), ISO 8601 timestamps
``datetime64[ns, UTC]``, flags ``boolean``, text ``string``, lists ``object``, each built by
:func:`docsapi.frames.convert` as the documentation platform's frames are.

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

from docsapi.data.columns import BOOLEAN, COUNT, FLOAT, OBJECT, STRING, TIMESTAMP
from docsapi.frames import convert

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["AFFILIATE_COLUMNS", "affiliates", "flatten", "snake_case"]

#: The columns of an empty affiliate list (what the sandbox and the platform send).
AFFILIATE_COLUMNS: dict[str, str] = {
    "id": COUNT,
    "manager_id": COUNT,
    "name": STRING,
    "email": STRING,
    "company": STRING,
    "status": STRING,
    "country": STRING,
    "currency": STRING,
    "manager_name": STRING,
    "payout_total_paid": FLOAT,
    "payout_pending": FLOAT,
    "created_at": TIMESTAMP,
    "updated_at": TIMESTAMP,
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
        return OBJECT
    if all(isinstance(v, bool) for v in present):
        return BOOLEAN
    if all(isinstance(v, int) and not isinstance(v, bool) for v in present):
        return COUNT
    if all(isinstance(v, int | float) and not isinstance(v, bool) for v in present):
        return FLOAT
    if all(isinstance(v, str) for v in present):
        if all(_TIMESTAMP.match(v) for v in present):
            return TIMESTAMP
        return STRING
    return OBJECT


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
            {name: convert([], dtype) for name, dtype in AFFILIATE_COLUMNS.items()}, copy=False
        )
    names: dict[str, None] = {}
    for row in rows:
        names.update(dict.fromkeys(row))
    data = {}
    for name in _ordered(names):
        values = [row.get(name) for row in rows]
        data[name] = convert(values, _infer_dtype(values))
    return pd.DataFrame(data, copy=False)
