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

from collections.abc import Callable, Iterable, Sequence
from operator import attrgetter
from typing import Any, NotRequired, TypedDict

import msgspec

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


def _struct(name: str, tree: _Tree) -> type[msgspec.Struct]:
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
    return msgspec.defstruct(name, fields, rename=rename, gc=False, frozen=True, kw_only=True)


def _chain(struct: type[msgspec.Struct], path: str) -> str:
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

    Attributes
    ----------
    page : type
        The msgspec type of a list page: a ``TypedDict`` ``{"items": [struct], "next"}``
        (decoded, a plain dict) whose items hold those columns' JSON paths only.
    """

    def __init__(self, group: type, names: tuple[str, ...]) -> None:
        wanted = {c.name: c for c in columns(group) if c.name in names}
        if set(wanted) != set(names) or any(c.derive for c in wanted.values()):
            raise ValueError(f"{group.__name__} has no plain columns {sorted(names)}")
        paths = [path for name in names for path in wanted[name].paths]
        self.names = names
        item: Any = _struct(f"{group.__name__}Item", _tree(paths))
        self.item: type[msgspec.Struct] = item
        self.page: type = _typed_dict(
            f"{group.__name__}Page", {"items": list[item], "next": NotRequired[Any]}
        )
        self._getters = [
            [attrgetter(_chain(self.item, path)) for path in wanted[name].paths] for name in names
        ]
        self._from_dicts = [dict_reader(wanted[name]) for name in names]

    def columns(self, items: list) -> dict[str, list]:
        """Columns ``names`` of ``items``, one list each: items of :attr:`page` or plain
        dicts (a page that did not fit is decoded as plain JSON) give the same values."""
        found: dict[str, list] = {}
        structs = all(map(self.item.__instancecheck__, items))
        for name, getters, from_dict in zip(
            self.names, self._getters, self._from_dicts, strict=True
        ):
            if structs and len(getters) == 1:
                found[name] = list(map(getters[0], items))
            else:
                found[name] = [self._read(getters, from_dict, item) for item in items]
        return found

    def _read(self, getters: Sequence[Callable[[Any], Any]], from_dict: Callable, item: Any) -> Any:
        if item.__class__ is not self.item:
            return from_dict(item)
        for get in getters:
            value = get(item)
            if value is not None:
                return value
        return None
