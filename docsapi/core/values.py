"""Small immutable value objects without :mod:`dataclasses` (which imports :mod:`inspect`).

The client's settings and answers (:class:`~docsapi.core.config.Timeout`, the transport's
``Response``) load with ``from docsapi import DocsClient``; a frozen dataclass would add
:mod:`inspect`, :mod:`ast` and :mod:`dis` to that import. A :class:`Value` subclass names
its fields in order in ``_fields`` (its ``__slots__``) and sets them once with
:meth:`Value._init`; it compares, hashes, prints and pickles by them.

Examples
--------
>>> class Point(Value):
...     _fields = ("x", "y")
...     __slots__ = _fields
...     def __init__(self, x: int, y: int = 0) -> None:
...         self._init(x=x, y=y)
>>> Point(1), Point(1) == Point(1, 0), len({Point(1), Point(1, 0)})
(Point(x=1, y=0), True, 1)
>>> Point(1).x = 2
Traceback (most recent call last):
...
AttributeError: Point is immutable: make a new one instead
>>> Point.__new__(Point)  # as a constructor that refused an argument leaves it
Point(x=<unset>, y=<unset>)
"""

from __future__ import annotations

from typing import Any

__all__ = ["Value"]


class _Unset:
    """The value of a field a constructor has not set (yet)."""

    def __repr__(self) -> str:
        return "<unset>"


_UNSET = _Unset()


class Value:
    """Base of immutable value objects whose fields are ``_fields`` (and ``__slots__``)."""

    __slots__ = ()
    #: The fields, in the order of ``__init__``'s parameters.
    _fields: tuple[str, ...] = ()

    def _init(self, **values: Any) -> None:
        """Set every field once (from ``__init__``)."""
        for name, value in values.items():
            object.__setattr__(self, name, value)

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name, _UNSET) for name in self._fields)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable: make a new one instead")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable: make a new one instead")

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash((type(self).__name__, self._values()))

    def __repr__(self) -> str:
        # A field not set yet (a constructor that refused an argument) reads <unset>.
        fields = ", ".join(f"{name}={getattr(self, name, _UNSET)!r}" for name in self._fields)
        return f"{type(self).__name__}({fields})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), self._values())
