"""How a column is declared: name, dtype and JSON path, stated once for frames and models.

A *field group* is a class decorated with :func:`group` whose fields are declared with
:func:`text`, :func:`count`, :func:`timestamp`, :func:`flag`, :func:`value`, :func:`derived`
or :func:`supplied`. Each
field is one column of a list's DataFrame and, where a model inherits the group, one
attribute of that model: the attribute name is the column name, the helper gives the dtype,
its argument the JSON path (dotted for nested objects; the field name when omitted). A
:class:`Listing` puts groups side by side to form one list's frame.

This module is pure standard library: :mod:`docsapi.frames` turns a listing into pandas
columns, :mod:`docsapi.models` turns a group into model attributes.

Examples
--------
>>> @group
... class Thing:
...     id: str | None = text()
...     made_at: str | None = timestamp("createdAt")
>>> [(c.name, c.dtype, c.paths) for c in columns(Thing)]
[('id', 'string', ('id',)), ('made_at', 'datetime64[ns, UTC]', ('createdAt',))]
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any, TypeVar, dataclass_transform

__all__ = [
    "BOOLEAN",
    "COUNT",
    "FLOAT",
    "OBJECT",
    "STRING",
    "TIMESTAMP",
    "Column",
    "Listing",
    "columns",
    "count",
    "derived",
    "dig",
    "flag",
    "group",
    "supplied",
    "text",
    "timestamp",
    "value",
]

#: The dtypes a column may have (pandas names; frames build each with Python string storage).
STRING = "string"
COUNT = "Int64"
FLOAT = "float64"
TIMESTAMP = "datetime64[ns, UTC]"
BOOLEAN = "boolean"
OBJECT = "object"

#: The key of a field's metadata that holds its :class:`Column`.
_KEY = "docsapi.column"

Reader = Callable[[Mapping[str, Any]], Any]
_Group = TypeVar("_Group")


@dataclass(frozen=True, slots=True)
class Column:
    """One declared column: where its value comes from and what dtype it has.

    Exactly one source applies: ``derive`` (a function of the whole record), else
    ``paths`` (dotted JSON paths, the first that is present wins), else the value is
    *supplied* by the caller of the frame function (an id repeated on every row, or a
    value per row). A supplied column may also name ``paths``: the record's own value
    then wins where it has one.
    """

    dtype: str
    paths: tuple[str, ...] = ()
    derive: Reader | None = None
    supplied: bool = False
    #: Who supplies the value of a supplied column (for documentation tables).
    given_by: str = "argument"
    #: Models only: turns the JSON value into the attribute (e.g. a nested model).
    parse: Callable[[Any], Any] | None = None
    #: Replaces a secret part of the value in frames and in model reprs.
    mask: Callable[[Any], Any] | None = None
    doc: str = ""
    name: str = ""

    @property
    def source(self) -> str:
        """Where the value comes from, for documentation tables."""
        if self.derive is not None:
            return "derived"
        origin = " or ".join(self.paths)
        if self.supplied:
            return f"{origin}, else {self.given_by}" if origin else self.given_by
        return origin


def _declare(dtype: str, path: tuple[str, ...], **options: Any) -> Any:
    column = Column(dtype, paths=path, **options)
    return field(default=None, metadata={_KEY: column})


def text(*path: str, mask: Callable[[Any], Any] | None = None, doc: str = "") -> Any:
    """A text or id field (``string``) read at ``path`` (the field's own name if omitted)."""
    return _declare(STRING, path, mask=mask, doc=doc)


def count(*path: str, doc: str = "") -> Any:
    """A whole number (``Int64``, missing allowed) read at ``path``."""
    return _declare(COUNT, path, doc=doc)


def timestamp(*path: str, doc: str = "") -> Any:
    """An ISO 8601 timestamp read at ``path``: tz-aware UTC in frames and models."""
    return _declare(TIMESTAMP, path, doc=doc)


def flag(*path: str, doc: str = "") -> Any:
    """A true/false field (``boolean``, missing allowed) read at ``path``."""
    return _declare(BOOLEAN, path, doc=doc)


def value(*path: str, parse: Callable[[Any], Any] | None = None, doc: str = "") -> Any:
    """Any JSON value (``object``) read at ``path``, turned by ``parse`` if given."""
    return _declare(OBJECT, path, parse=parse, doc=doc)


def derived(derive: Reader, dtype: str = STRING, *, doc: str = "") -> Any:
    """A field computed from the whole record by ``derive``."""
    return _declare(dtype, (), derive=derive, doc=doc)


def supplied(*path: str, dtype: str = STRING, by: str = "argument", doc: str = "") -> Any:
    """A field whose value the frame function gives (e.g. the space id it was called with)."""
    return _declare(dtype, path, supplied=True, given_by=by, doc=doc)


@dataclass_transform(kw_only_default=True)
def group(cls: type[_Group]) -> type[_Group]:
    """Declare a field group: a keyword-only dataclass that models may inherit."""
    return dataclass(kw_only=True, repr=False, eq=False)(cls)


_DECLARED: dict[type, tuple[Column, ...]] = {}


def columns(group: type) -> tuple[Column, ...]:
    """The declared columns of a field group (a dataclass), in order, named after its fields.

    A field without a path reads the JSON key of its own name; fields declared otherwise
    (plain dataclass fields) are not columns.
    """
    if group in _DECLARED:
        return _DECLARED[group]
    declared = []
    for spec in fields(group):
        column = spec.metadata.get(_KEY)
        if column is None:
            continue
        paths = column.paths
        if not paths and column.derive is None and not column.supplied:
            paths = (spec.name,)
        declared.append(replace(column, name=spec.name, paths=paths))
    _DECLARED[group] = tuple(declared)
    return _DECLARED[group]


def dig(data: Any, path: str) -> Any:
    """The value at a dotted path of nested objects; ``None`` where a step is missing.

    Examples
    --------
    >>> dig({"urls": {"app": "https://x"}}, "urls.app"), dig({"urls": "oops"}, "urls.app")
    ('https://x', None)
    """
    return _dig_keys(data, path.split("."))


def _dig_keys(data: Any, keys: Sequence[str]) -> Any:
    for key in keys:
        if data.__class__ is not dict and not isinstance(data, Mapping):
            return None
        data = data.get(key)
    return data


def _path_reader(keys: Sequence[str]) -> Reader:
    """``_dig_keys`` along ``keys``, with a direct path for plain dicts one or two deep (the
    JSON decoder's objects): a frame reads every cell of a large list through these."""
    if len(keys) == 1:
        (first,) = keys

        def one_deep(data: Any) -> Any:
            if data.__class__ is dict:
                return data.get(first)
            return _dig_keys(data, keys)

        return one_deep
    if len(keys) == 2:
        first, second = keys

        def two_deep(data: Any) -> Any:
            if data.__class__ is dict:
                inner = data.get(first)
                if inner.__class__ is dict:
                    return inner.get(second)
            return _dig_keys(data, keys)

        return two_deep
    return functools.partial(_dig_keys, keys=keys)


def reader(column: Column) -> Reader:
    """A function reading ``column``'s value from one record (supplied values excluded)."""
    if column.derive is not None:
        return column.derive
    readers = [_path_reader(path.split(".")) for path in column.paths]
    if len(readers) == 1:
        return readers[0]

    def first_present(record: Mapping[str, Any]) -> Any:
        for read in readers:
            found = read(record)
            if found is not None:
                return found
        return None

    return first_present


class Listing:
    """A list's frame: its field groups side by side, under the name used in ``SCHEMAS``.

    Parameters
    ----------
    name : str
        The schema name (``frames.SCHEMAS[name]``, ``frames.empty(name)``).
    *groups : type
        Field groups (dataclasses declared with this module's helpers), in column order.
    """

    def __init__(self, name: str, *groups: type) -> None:
        self.name = name
        self.columns: tuple[Column, ...] = tuple(c for g in groups for c in columns(g))
        names = [c.name for c in self.columns]
        if len(set(names)) != len(names):
            raise ValueError(f"listing {name!r} declares a column twice: {names}")
        self.dtypes: dict[str, str] = {c.name: c.dtype for c in self.columns}
        self.supplied: tuple[str, ...] = tuple(c.name for c in self.columns if c.supplied)

    def __repr__(self) -> str:
        return f"Listing({self.name!r}, {len(self.columns)} columns)"

    def table(self) -> str:
        """The columns as a table (Markdown, aligned): column, dtype, source, notes."""
        rows = [("column", "dtype", "from", "notes")]
        rows += [(c.name, c.dtype, c.source, c.doc) for c in self.columns]
        widths = [max(len(row[i]) for row in rows) for i in range(4)]

        def line(cells: tuple[str, ...]) -> str:
            return "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)) + " |"

        rule = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
        return "\n".join([line(rows[0]), rule, *map(line, rows[1:])])
