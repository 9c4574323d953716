"""Hypothesis strategies for the arguments and answers of the description's operations.

hypothesis-jsonschema generates values from a JSON schema, but it inlines every ``$ref``: the
description's large, recursive schemas (documents, site settings) explode or never resolve.
``bounded`` rewrites a schema into a finite one that accepts a subset of the same values:
references are inlined, optional properties are kept only while the schema stays shallow
(deeper down an object keeps its required properties), an optional array deep down is
empty, and a recursive reference not required anywhere is left out. Every value drawn
from the bounded schema is still checked against the original one before use.
"""

from __future__ import annotations

import base64
from typing import Any

from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema

from docsapi.api._spec import reader

#: How many objects deep optional properties are generated, tried in turn until the bounded
#: schema is small enough.
OPTIONAL_DEPTHS = (1, 0)
#: Refuse a bounded schema larger than this many nodes (it would be slow to generate from).
MAX_NODES = 1500

_ONE = ("additionalProperties", "not", "if", "then", "else", "propertyNames", "contains")
_LISTS = ("allOf", "anyOf", "oneOf")
_DROPPED = frozenset({"discriminator", "description", "title", "deprecated", "$schema"})


class Unbounded(Exception):
    """The schema cannot be made finite (a required recursion) or is too large."""


class _Bounder:
    def __init__(self, optional_depth: int) -> None:
        self.schemas = reader()
        self.optional_depth = optional_depth
        self.nodes = 0

    def bound(self, schema: Any, depth: int, stack: tuple[str, ...]) -> Any:
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise Unbounded("schema too large")
        if not isinstance(schema, dict):
            return schema
        if "$ref" in schema:
            ref = schema["$ref"]
            if ref in stack:
                raise Unbounded(f"required recursion through {ref}")
            rest = {k: v for k, v in schema.items() if k != "$ref" and k not in _DROPPED}
            target = self.bound(self.schemas.pointer(ref), depth, (*stack, ref))
            return {"allOf": [target, self.bound(rest, depth, stack)]} if rest else target
        out: dict[str, Any] = {}
        for key, value in schema.items():
            if key in _DROPPED:
                continue
            if key == "properties":
                out[key] = self._properties(schema, value, depth, stack)
            elif key == "items":
                out.update(self._items(schema, value, depth, stack))
            elif key in _ONE:
                out[key] = self.bound(value, depth, stack) if isinstance(value, dict) else value
            elif key in _LISTS:
                branches = []
                for part in value:
                    try:
                        branches.append(self.bound(part, depth, stack))
                    except Unbounded:
                        if key == "allOf":
                            raise
                if not branches:
                    raise Unbounded(f"no finite branch in {key}")
                out[key] = branches
            elif key not in ("minItems", "maxItems"):
                out[key] = value
        if out.get("type") == "integer":
            out.setdefault("minimum", -(2**63))
            out.setdefault("maximum", 2**63 - 1)
        return out

    def _properties(self, schema, properties, depth, stack):
        required = set(schema.get("required", ()))
        kept = {}
        for name, sub in properties.items():
            if name in required:
                kept[name] = self.bound(sub, depth + 1, stack)
            elif depth < self.optional_depth:
                try:
                    kept[name] = self.bound(sub, depth + 1, stack)
                except Unbounded:
                    continue
        return kept

    def _items(self, schema, items, depth, stack):
        low = schema.get("minItems", 0)
        high = schema.get("maxItems")
        if low == 0 and depth >= self.optional_depth:
            return {"maxItems": 0}
        cap = max(low, 2) if high is None else min(high, max(low, 2))
        try:
            return {"items": self.bound(items, depth + 1, stack), "minItems": low, "maxItems": cap}
        except Unbounded:
            if low:
                raise
            return {"maxItems": 0}


def bounded(schema: Any) -> Any:
    """A finite, reference-free schema whose values all satisfy ``schema``'s shape.

    Optional properties are kept as deep as :data:`OPTIONAL_DEPTHS` allows while the result
    stays under :data:`MAX_NODES` nodes.

    Raises
    ------
    Unbounded
        ``schema`` requires a recursion, or is too large even with required properties only.
    """
    for depth in OPTIONAL_DEPTHS:
        try:
            return _Bounder(depth).bound(schema, 0, ())
        except Unbounded:
            if depth == OPTIONAL_DEPTHS[-1]:
                raise
    raise AssertionError("unreachable")


#: Formats of the description that hypothesis-jsonschema does not know.
CUSTOM_FORMATS = {
    "uuid": st.uuids().map(str),
    "byte": st.binary(max_size=12).map(lambda b: base64.b64encode(b).decode()),
}


def strategy_of(schema: Any) -> st.SearchStrategy[Any]:
    """Values of ``schema`` (a schema of the packaged description, references allowed)."""
    return from_schema(bounded(schema), custom_formats=CUSTOM_FORMATS)
