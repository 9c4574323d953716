"""Decode only the columns a list needs: msgspec types built from a field group's declaration.

A large list (an audit reads hundreds of thousands of permission and aggregate items) costs
most of its client time in building a dict per JSON object, and in the cyclic garbage
collector walking those dicts while they live. A :class:`Shape` turns the JSON paths of
some of a field group's columns (:mod:`docsapi.data.columns`) into a msgspec type for a list
page, ``{"items": [...], "next": ...}``, whose items are small structs holding those paths
only (other keys are skipped while decoding) and which the garbage collector does not track.

:meth:`Shape.columns` reads the columns from either kind of item: such structs, or the plain
dicts a page decodes to when it does not fit the shape (the transport then decodes it as
plain JSON, see :meth:`~docsapi.wire.transport.Transport.request`), so a column has the same
values whichever way its page was decoded.

Examples
--------
>>> import msgspec
>>> from docsapi.data.fields import UserPermissionFields
>>> shape = Shape(UserPermissionFields, ("user_id", "role"))
>>> body = b'{"items": [{"permission": "read", "user": {"id": "u1", "urls": {}}}]}'
>>> shape.columns(msgspec.json.decode(body, type=shape.page)["items"])
{'user_id': ['u1'], 'role': ['read']}
>>> shape.columns([{"user": {"id": "u2"}}])
{'user_id': ['u2'], 'role': [None]}
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from operator import attrgetter
from typing import Any, NotRequired, TypedDict

from docsapi.data.columns import columns
from docsapi.data.columns import reader as dict_reader

__all__ = ["Shape"]

#: TypedDict called with a name made at run time (one page type per field group).
_typed_dict: Any = TypedDict

#: A nested JSON object's keys as a tree: key -> subtree (None for a leaf value).
_Tree = dict[str, "_Tree | None"]


def _tree(paths: Iterable[str]) -> _Tree:
    tree: _Tree = {}
    for path in paths:
        node = tree
        *parents, leaf = path.split(".")
        for key in parents:
            child = node.get(key)
            if child is None:
                child = node[key] = {}
            node = child
        node.setdefault(leaf, None)
    return tree


def _struct(name: str, tree: _Tree) -> Any:
    """A struct with one field per key of ``tree`` (named f0, f1, ... in Python).

    A leaf takes any JSON value and may be missing; an inner object must be there and be an
    object (anything else makes the page not fit, and it is decoded as plain JSON instead),
    so a path of attributes always leads to a leaf.
    """
    fields: list[tuple[str, Any] | tuple[str, Any, Any]] = []
    rename = {}
    for number, (key, subtree) in enumerate(sorted(tree.items())):
        attribute = f"f{number}"
        rename[attribute] = key
        if subtree is None:
            fields.append((attribute, Any, None))
        else:
            fields.append((attribute, _struct(f"{name}_{number}", subtree)))
    import msgspec

    return msgspec.defstruct(name, fields, rename=rename, gc=False, frozen=True, kw_only=True)


def _chain(struct: Any, path: str) -> str:
    """The dotted attribute path to JSON ``path`` in ``struct`` (a type built by _struct)."""
    chain = []
    kind: Any = struct
    for key in path.split("."):
        encoded = dict(zip(kind.__struct_encode_fields__, kind.__struct_fields__, strict=True))
        attribute = encoded[key]
        chain.append(attribute)
        kind = kind.__annotations__[attribute]
    return ".".join(chain)


class Shape:
    """Columns ``names`` of field group ``group``, as a list's pages are decoded and read.

    Parameters
    ----------
    group : type
        A field group of :mod:`docsapi.data.fields`.
    names : tuple of str
        The columns to keep (not derived ones: they need the whole record).

    """

    def __init__(self, group: type, names: tuple[str, ...]) -> None:
        wanted = {c.name: c for c in columns(group) if c.name in names}
        if set(wanted) != set(names) or any(c.derive for c in wanted.values()):
            raise ValueError(f"{group.__name__} has no plain columns {sorted(names)}")
        self.names = names
        self._label = group.__name__
        self._paths = [wanted[name].paths for name in names]
        self._from_dicts = [dict_reader(wanted[name]) for name in names]
        self._lock = threading.Lock()
        self._types: tuple[Any, Any, list[list[Any]]] | None = None

    def _decoding(self) -> tuple[Any, Any, list[list[Any]]]:
        """The item struct, the page type and the column getters, made once on first use
        (msgspec loads then, not with the module), under a lock: every thread sees the
        same types."""
        if self._types is None:
            with self._lock:
                if self._types is None:
                    item: Any = _struct(
                        f"{self._label}Item", _tree(p for paths in self._paths for p in paths)
                    )
                    page = _typed_dict(
                        f"{self._label}Page", {"items": list[item], "next": NotRequired[Any]}
                    )
                    getters = [
                        [attrgetter(_chain(item, p)) for p in paths] for paths in self._paths
                    ]
                    self._types = (item, page, getters)
        return self._types

    @property
    def item(self) -> type:
        """The msgspec struct of one item: the columns' JSON paths only."""
        return self._decoding()[0]

    @property
    def page(self) -> type:
        """The msgspec type of a list page: a ``TypedDict`` ``{"items": [item], "next"}``
        (decoded, a plain dict)."""
        return self._decoding()[1]

    def columns(self, items: list) -> dict[str, list]:
        """Columns ``names`` of ``items``, one list each: items of :attr:`page` or plain
        dicts (a page that did not fit is decoded as plain JSON) give the same values."""
        struct, _, all_getters = self._decoding()
        found: dict[str, list] = {}
        structs = all(map(struct.__instancecheck__, items))
        for name, getters, from_dict in zip(self.names, all_getters, self._from_dicts, strict=True):
            if structs and len(getters) == 1:
                found[name] = list(map(getters[0], items))
            else:
                found[name] = [_read(struct, getters, from_dict, item) for item in items]
        return found


def _read(
    struct: type, getters: Sequence[Callable[[Any], Any]], from_dict: Callable, item: Any
) -> Any:
    """One column of one item: a struct's first present path, or a plain dict's value."""
    if item.__class__ is not struct:
        return from_dict(item)
    for get in getters:
        value = get(item)
        if value is not None:
            return value
    return None
