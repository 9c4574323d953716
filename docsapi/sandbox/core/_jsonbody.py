"""Strict parsing of JSON request bodies: UTF-8, finite numbers, bounded nesting."""

from __future__ import annotations

import json
import math
import re
from typing import Any

#: Deepest nesting of arrays and objects accepted in a request body.
MAX_DEPTH = 64
_SURROGATE = re.compile(r"[\ud800-\udfff]")


class BodyError(ValueError):
    """A request body that is not acceptable JSON; the message says why."""


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:40]} is too large")
    return value


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _depth_exceeds(value: Any, limit: int) -> bool:
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children: Any = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def parse_json_body(raw: bytes) -> Any:
    """The JSON value of a request body.

    Raises
    ------
    BodyError
        When the body is empty, not UTF-8, not JSON (``NaN`` and ``Infinity`` are not JSON),
        holds a number too large for a double, or nests deeper than :data:`MAX_DEPTH`.

    Examples
    --------
    >>> parse_json_body(b'{"title": "Docs"}')
    {'title': 'Docs'}
    >>> parse_json_body(b'[[[]]]')
    [[[]]]
    """
    if not raw.strip():
        raise BodyError("A JSON request body is required.")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise BodyError("The request body is not UTF-8 text.") from None
    try:
        value = json.loads(text, parse_float=_finite_float, parse_constant=_no_constant)
    except RecursionError:
        raise BodyError(_TOO_DEEP) from None
    except ValueError as error:
        raise BodyError(f"The request body is not valid JSON ({error}).") from None
    if _depth_exceeds(value, MAX_DEPTH):
        raise BodyError(_TOO_DEEP)
    if "\\u" in text and _lone_surrogate(value):
        raise BodyError(
            "The request body is not valid Unicode: a \\ud800-\\udfff escape forms no character."
        )
    return value


def _lone_surrogate(value: Any) -> bool:
    """Whether a string in ``value`` (a key or a value) holds a lone surrogate."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                return True
        elif isinstance(item, dict):
            stack.extend(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


_TOO_DEEP = f"The request body nests arrays and objects deeper than {MAX_DEPTH} levels."
