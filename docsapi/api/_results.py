"""Answers of generated methods: DataFrames for lists, :class:`ApiObject` for single objects.

A list's columns come from its item schema, declared once per operation by
:func:`item_columns`: every property in snake_case, objects one level deep flattened as
``parent_child``, deeper values kept as Python objects. Dtypes follow the schema: strings and
enums ``string`` (Python storage), date-times ``datetime64[us, UTC]``, integers ``Int64``,
numbers ``Float64``, booleans ``boolean``, everything else ``object``. An empty list gives
the same columns with the same dtypes. pandas is imported on the first frame, not before.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from html import escape
from typing import TYPE_CHECKING, Any

from docsapi.api._secrets import conceal
from docsapi.api._spec import Schema, SchemaReader, reader, snake_case
from docsapi.core.reprs import field_table_html, safe_display
from docsapi.errors import ValidationError

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "ApiObject",
    "Column",
    "ListShape",
    "frame",
    "item_columns",
    "list_shape",
    "wrap",
]

STRING = "string[python]"
TIMESTAMP = "datetime64[us, UTC]"
INTEGER = "Int64"
NUMBER = "Float64"
BOOLEAN = "boolean"
OBJECT = "object"

_MAX_REPR_FIELDS = 6
_MAX_REPR_VALUE = 40


@dataclass(frozen=True)
class Column:
    """One column of a list's frame: its name, the JSON keys leading to it, its dtype."""

    name: str
    keys: tuple[str, ...]
    dtype: str


@dataclass(frozen=True)
class ListShape:
    """How a list answer holds its items.

    ``kind`` is ``"pages"`` (the API's ``List`` envelope: ``items`` and a ``next`` cursor),
    ``"items"`` (an object with only an ``items`` array) or ``"array"`` (a bare JSON array).
    """

    kind: str
    item_schema: Schema


def list_shape(schema: Schema | None, schemas: SchemaReader | None = None) -> ListShape | None:
    """The list shape of an answer's schema, or None when it is not a list.

    Examples
    --------
    >>> list_shape({"type": "array", "items": {"type": "string"}}).kind
    'array'
    """
    if schema is None:
        return None
    schemas = schemas or reader()
    node = schemas.resolve(schema)
    if schemas.types(node) - {"null"} == {"array"}:
        items: Schema = next((b["items"] for b in schemas.branches(node) if "items" in b), {})
        return ListShape("array", items)
    if not schemas.is_object_like(node):
        return None
    properties = schemas.properties(node)
    items_schema = properties.get("items")
    if items_schema is None or schemas.types(items_schema) - {"null"} != {"array"}:
        return None
    items = next((b["items"] for b in schemas.branches(items_schema) if "items" in b), {})
    return ListShape("pages" if "next" in properties else "items", items)


def _dtype(schemas: SchemaReader, schema: Schema) -> str:
    kinds = schemas.types(schema) - {"null"}
    if kinds == {"string"}:
        return TIMESTAMP if schemas.formats(schema) == {"date-time"} else STRING
    if kinds == {"integer"}:
        return INTEGER
    if kinds and kinds <= {"integer", "number"}:
        return NUMBER
    if kinds == {"boolean"}:
        return BOOLEAN
    return OBJECT


def item_columns(item_schema: Schema, schemas: SchemaReader | None = None) -> tuple[Column, ...]:
    """The columns of a frame of items of ``item_schema``.

    Examples
    --------
    >>> schema = {"type": "object", "properties": {
    ...     "id": {"type": "string"}, "urls": {"type": "object", "properties": {
    ...         "app": {"type": "string"}}}}}
    >>> [(c.name, c.dtype) for c in item_columns(schema)]
    [('id', 'string[python]'), ('urls_app', 'string[python]')]
    """
    schemas = schemas or reader()
    if not schemas.is_object_like(item_schema):
        return (Column("value", (), _dtype(schemas, item_schema)),)
    columns: dict[str, Column] = {}

    def add(name: str, keys: tuple[str, ...], dtype: str) -> None:
        unique, number = name, 2
        while unique in columns:
            unique, number = f"{name}_{number}", number + 1
        columns[unique] = Column(unique, keys, dtype)

    for key, sub in schemas.properties(item_schema).items():
        nested = schemas.properties(sub) if schemas.is_object_like(sub) else {}
        if nested:
            for child, child_schema in nested.items():
                add(
                    f"{snake_case(key)}_{snake_case(child)}".replace("__", "_"),
                    (key, child),
                    _dtype(schemas, child_schema),
                )
        else:
            add(snake_case(key), (key,), _dtype(schemas, sub))
    return tuple(columns.values())


def _dig(record: Any, keys: tuple[str, ...]) -> Any:
    for key in keys:
        if not isinstance(record, Mapping):
            return None
        record = record.get(key)
    return record


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _timestamps(values: list[Any]) -> Any:
    import pandas as pd

    stamps = pd.to_datetime(pd.Series(values, dtype=object), utc=True, format="ISO8601")
    return stamps.astype(pd.DatetimeTZDtype("us", "UTC")).array


def _typed(dtype: Any) -> Callable[[list[Any]], Any]:
    def build(values: list[Any]) -> Any:
        import pandas as pd

        if dtype == NUMBER:
            values = [None if v is None else float(v) for v in values]
        return pd.array(values, dtype=dtype)

    return build


#: dtype → (which values it takes, how to build the array).
_BUILDERS: dict[str, tuple[Callable[[Any], bool], Callable[[list[Any]], Any]]] = {
    STRING: (lambda v: isinstance(v, str), _typed(STRING)),
    TIMESTAMP: (lambda v: isinstance(v, str), _timestamps),
    INTEGER: (_is_int, _typed(INTEGER)),
    NUMBER: (_is_number, _typed(NUMBER)),
    BOOLEAN: (lambda v: isinstance(v, bool), _typed(BOOLEAN)),
}


def _column(values: list[Any], dtype: str) -> Any:
    """An array of ``values`` in ``dtype``; values the schema did not promise stay objects."""
    builder = _BUILDERS.get(dtype)
    if builder is not None and all(v is None or builder[0](v) for v in values):
        try:
            return builder[1](values)
        except (ValueError, TypeError, OverflowError):
            pass
    return _objects(values)


def _objects(values: list[Any]) -> Any:
    """An ``object`` column (a Series: a bare array of strings would be inferred as ``str``)."""
    import numpy as np
    import pandas as pd

    array = np.empty(len(values), dtype=object)
    for index, value in enumerate(values):
        array[index] = value
    return pd.Series(array, dtype=object)


def frame(items: Sequence[Any], columns: Sequence[Column]) -> pd.DataFrame:
    """Build the DataFrame of ``items`` with exactly ``columns``, in order.

    Parameters
    ----------
    items : sequence
        The list's items as JSON (objects, or scalars for a ``value`` column).
    columns : sequence of Column
        From :func:`item_columns`.

    Returns
    -------
    pandas.DataFrame
        One row per item. A value of a type the schema did not promise keeps its column as
        ``object`` rather than being lost.

    Examples
    --------
    >>> cols = (Column("id", ("id",), STRING), Column("size", ("size",), INTEGER))
    >>> frame([{"id": "a", "size": 3}, {"id": "b"}], cols)["size"].tolist()
    [3, <NA>]
    """
    import pandas as pd

    shown = [conceal(item, table=True) for item in items]
    data = {c.name: _column([_dig(item, c.keys) for item in shown], c.dtype) for c in columns}
    return pd.DataFrame(data, index=pd.RangeIndex(len(items)), columns=[c.name for c in columns])


# -- single objects -------------------------------------------------------------------------


def _property_schemas(schema: Schema | None, raw: Mapping[str, Any]) -> dict[str, Schema]:
    if schema is None:
        return {}
    schemas = reader()
    return schemas.properties(schema, raw) if schemas.is_object_like(schema) else {}


def _parse_time(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return value


def wrap(value: Any, schema: Schema | None = None, kind: str | None = None) -> Any:
    """A JSON value as a notebook user wants it: objects as :class:`ApiObject`, lists of them
    as lists, date-times as aware :class:`~datetime.datetime`; anything else unchanged."""
    schemas = reader()
    if isinstance(value, Mapping):
        return ApiObject(value, schema=schema, kind=kind)
    if isinstance(value, list):
        item_schema = None
        if schema is not None:
            item_schema = next(
                (
                    b["items"]
                    for b in schemas.branches(schema)
                    if isinstance(b.get("items"), Mapping)
                ),
                None,
            )
        name = schemas.ref_name(item_schema) if item_schema is not None else None
        return [wrap(v, item_schema, name) for v in value]
    if schema is not None and schemas.formats(schema) == {"date-time"}:
        return _parse_time(value)
    return value


class ApiObject:
    """A JSON object from the API with attribute access in snake_case.

    ``obj.created_at`` reads ``raw["createdAt"]`` (an aware datetime when the description
    says date-time); nested objects come back as ApiObject too. A field the description
    declares but the answer left out reads as None. ``obj.raw`` is the JSON untouched and
    ``obj["createdAt"]`` reads it by the API's name. Credentials (a site's private key,
    tokens, a share link's key; see :mod:`docsapi.api._secrets`) are masked everywhere but
    in ``.raw``: attributes and ``obj[...]`` give a ``SiteSecret`` (``.reveal()`` reads it),
    displays and frames show ``********``.

    Parameters
    ----------
    raw : Mapping
        The JSON object.
    schema : Mapping, optional
        Its schema in the description.
    kind : str, optional
        A name for displays, e.g. ``"Space"``.

    Examples
    --------
    >>> space = ApiObject({"id": "sp_1", "editMode": "live"}, kind="Space")
    >>> space.edit_mode, space.raw["editMode"]
    ('live', 'live')
    >>> space
    Space(id='sp_1', edit_mode='live')
    """

    __slots__ = ("_fields", "_kind", "_raw", "_schema", "_shown")

    def __init__(
        self, raw: Mapping[str, Any], *, schema: Schema | None = None, kind: str | None = None
    ) -> None:
        # Every slot first: a slot left unset would send attribute lookups to __getattr__.
        self._raw: Mapping[str, Any] = {}
        self._schema: Schema | None = None
        self._kind = "ApiObject"
        self._fields: tuple[dict[str, Schema], dict[str, str]] | None = None
        self._shown: Mapping[str, Any] | None = None
        if not isinstance(raw, Mapping):
            raise ValidationError("raw", f"must be a JSON object (dict), got {type(raw).__name__}")
        if schema is not None and not isinstance(schema, Mapping):
            raise ValidationError("schema", f"must be a dict or None, got {type(schema).__name__}")
        if kind is not None and not isinstance(kind, str):
            raise ValidationError("kind", f"must be a str or None, got {type(kind).__name__}")
        self._raw = raw
        self._schema = schema
        self._kind = (
            kind or (reader().ref_name(schema) if schema is not None else None) or "ApiObject"
        )

    def _visible(self) -> Mapping[str, Any]:
        """The object as shown and read by attribute: credentials masked (``.raw`` keeps them)."""
        if self._shown is None:
            self._shown = conceal(self._raw)
        return self._shown

    def _lookup(self) -> tuple[dict[str, Schema], dict[str, str]]:
        """Declared property schemas and snake_case name → key, worked out on first use."""
        if self._fields is None:
            declared = _property_schemas(self._schema, self._raw)
            names = {snake_case(key): key for key in declared}
            names.update({snake_case(key): key for key in self._raw})
            self._fields = (declared, names)
        return self._fields

    @property
    def raw(self) -> Mapping[str, Any]:
        """The JSON object exactly as the API sent it."""
        return self._raw

    @property
    def kind(self) -> str:
        """The object's schema name, e.g. ``"Space"``."""
        return self._kind

    def _value(self, key: str) -> Any:
        sub = self._lookup()[0].get(key)
        name = reader().ref_name(sub) if sub is not None else None
        return wrap(self._visible().get(key), sub, name or snake_case(key))

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        names = self._lookup()[1]
        key = names.get(name)
        if key is None:
            close = difflib.get_close_matches(name, list(names), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise AttributeError(f"{self._kind} has no field {name!r}{hint}")
        return self._value(key)

    def __getitem__(self, key: str) -> Any:
        return self._visible()[key]

    def __contains__(self, key: object) -> bool:
        return key in self._raw

    def __dir__(self) -> list[str]:
        return sorted(set(self._lookup()[1]) | {"raw", "kind", "fields"})

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ApiObject):
            return self._raw == other._raw
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def fields(self) -> list[str]:
        """The snake_case names of the fields present in the answer, in its order."""
        return [snake_case(key) for key in self._raw]

    @staticmethod
    def _short(value: Any) -> str:
        if isinstance(value, Mapping):
            return "{…}"
        if isinstance(value, list):
            return f"[{len(value)} items]"
        text = repr(value)
        return text if len(text) <= _MAX_REPR_VALUE else text[: _MAX_REPR_VALUE - 1] + "…"

    @safe_display
    def __repr__(self) -> str:
        visible = self._visible()
        keys = list(visible)
        shown = ", ".join(
            f"{snake_case(k)}={self._short(visible[k])}" for k in keys[:_MAX_REPR_FIELDS]
        )
        more = f", … {len(keys) - _MAX_REPR_FIELDS} more" if len(keys) > _MAX_REPR_FIELDS else ""
        return f"{self._kind}({shown}{more})"

    @safe_display
    def _repr_html_(self) -> str:
        rows = [(snake_case(k), self._short_html(v)) for k, v in self._visible().items()]
        return field_table_html(self._kind, rows)

    @staticmethod
    def _short_html(value: Any) -> Any:
        if isinstance(value, Mapping):
            return ", ".join(f"{snake_case(k)}: {v}" for k, v in value.items()) or "{}"
        return value

    @safe_display
    def _repr_markdown_(self) -> str:
        lines = [f"**{escape(self._kind)}**", "", "| field | value |", "|---|---|"]
        lines += [f"| {snake_case(k)} | {self._short(v)} |" for k, v in self._visible().items()]
        return "\n".join(lines)
