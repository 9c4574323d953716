"""The packaged API description: loading it (once, on first use) and reading its schemas.

The description is ``openapi.json.gz`` next to this module, derived from the full OpenAPI
description by ``tools/build_api_spec.py``. Nothing here imports jsonschema or pandas.
"""

from __future__ import annotations

import functools
import gzip
import json
import keyword
import re
from collections.abc import Iterator, Mapping
from importlib import resources
from typing import Any

__all__ = [
    "DESCRIPTION_FILE",
    "Schema",
    "SchemaReader",
    "json_type",
    "load_description",
    "reader",
    "snake_case",
    "typed_objects",
    "validation_description",
]

#: The packaged description, a resource of this package.
DESCRIPTION_FILE = "openapi.json.gz"

Schema = Mapping[str, Any]

_NON_ALNUM = re.compile(r"[^0-9A-Za-z]+")
_ACRONYM_END = re.compile(r"([A-Z]+)([A-Z][a-z])")
_WORD_START = re.compile(r"([a-z0-9])([A-Z])")


@functools.lru_cache(maxsize=8192)
def snake_case(name: str) -> str:
    """The Python spelling of an API name: snake_case, never a keyword, never empty.

    Examples
    --------
    >>> snake_case("listSAMLProvidersInOrganizationById")
    'list_saml_providers_in_organization_by_id'
    >>> snake_case("format.markdown.refs"), snake_case("from"), snake_case("X-Partner-Key")
    ('format_markdown_refs', 'from_', 'x_partner_key')
    """
    text = _ACRONYM_END.sub(r"\1_\2", _NON_ALNUM.sub("_", name))
    text = _WORD_START.sub(r"\1_\2", text).strip("_").lower()
    if not text or text[0].isdigit():
        text = "field_" + text
    return text + "_" if keyword.iskeyword(text) else text


@functools.cache
def load_description() -> dict[str, Any]:
    """The packaged OpenAPI description, parsed (read once per process).

    Returns
    -------
    dict
        The description as JSON; callers must not change it.
    """
    data = resources.files(__package__).joinpath(DESCRIPTION_FILE).read_bytes()
    return json.loads(gzip.decompress(data))


_ONE_SUBSCHEMA = ("additionalProperties", "items", "not", "contains", "if", "then", "else")
_SUBSCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")


def typed_objects(schema: Any) -> Any:
    """A copy of ``schema`` in which an untyped schema with properties is typed ``object``.

    The description's ``PlainObject`` declares ``properties`` and ``additionalProperties``
    but no ``type``. Read literally it also matches strings and numbers, so
    ``oneOf [PlainObject, string]`` would refuse every string; its name and use say it is an
    object, and that is how it is read for checks.

    Examples
    --------
    >>> typed_objects({"properties": {}, "additionalProperties": {"type": "string"}})["type"]
    'object'
    """
    if not isinstance(schema, Mapping):
        return schema
    out = dict(schema)
    if (
        "type" not in out
        and "$ref" not in out
        and ("properties" in out or "additionalProperties" in out)
    ):
        out["type"] = "object"
    if isinstance(out.get("properties"), Mapping):
        out["properties"] = {k: typed_objects(v) for k, v in out["properties"].items()}
    for key in _ONE_SUBSCHEMA:
        if key in out:
            out[key] = typed_objects(out[key])
    for key in _SUBSCHEMA_LISTS:
        if isinstance(out.get(key), list):
            out[key] = [typed_objects(v) for v in out[key]]
    return out


@functools.cache
def validation_description() -> dict[str, Any]:
    """The packaged description as arguments are checked against it (see :func:`typed_objects`).

    Its structure is the description's, so a JSON pointer means the same in both.
    """
    document = load_description()

    def contents(node: Mapping[str, Any]) -> dict[str, Any]:
        return {
            media: {**body, "schema": typed_objects(body["schema"])} if "schema" in body else body
            for media, body in node.items()
        }

    paths: dict[str, Any] = {}
    for path, item in document["paths"].items():
        paths[path] = {}
        for method, raw in item.items():
            operation = dict(raw)
            operation["parameters"] = [
                {**p, "schema": typed_objects(p.get("schema", {}))}
                for p in raw.get("parameters", ())
            ]
            if "requestBody" in raw:
                body = raw["requestBody"]
                operation["requestBody"] = {**body, "content": contents(body.get("content", {}))}
            operation["responses"] = {
                status: {**answer, "content": contents(answer.get("content") or {})}
                for status, answer in raw.get("responses", {}).items()
            }
            paths[path][method] = operation
    schemas = document["components"]["schemas"]
    components = {"schemas": {name: typed_objects(s) for name, s in schemas.items()}}
    return {**document, "paths": paths, "components": components}


def _unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


class SchemaReader:
    """Follow ``$ref`` pointers and combine ``allOf``/``anyOf``/``oneOf`` in one description.

    Parameters
    ----------
    document : Mapping
        The OpenAPI description every ``#/...`` reference points into.
    """

    def __init__(self, document: Mapping[str, Any]) -> None:
        self.document = document

    def pointer(self, ref: str) -> Any:
        """The node a local reference (``#/components/schemas/Space``) points at."""
        if not ref.startswith("#"):
            raise ValueError(f"only local references are supported, got {ref!r}")
        node: Any = self.document
        for token in ref[1:].split("/")[1:]:
            node = node[_unescape(token)] if isinstance(node, Mapping) else node[int(token)]
        return node

    def resolve(self, schema: Schema) -> Schema:
        """``schema`` with its chain of ``$ref`` followed (sibling keywords are kept)."""
        seen: set[str] = set()
        while isinstance(schema, Mapping) and "$ref" in schema:
            ref = schema["$ref"]
            if ref in seen:
                raise ValueError(f"reference cycle at {ref!r}")
            seen.add(ref)
            target = self.pointer(ref)
            extra = {k: v for k, v in schema.items() if k != "$ref"}
            schema = {**target, **extra} if extra else target
        return schema

    @staticmethod
    def ref_name(schema: Schema) -> str | None:
        """The component name a schema refers to (``Space``), looking through ``allOf``."""
        ref = schema.get("$ref")
        if isinstance(ref, str):
            return ref.rsplit("/", 1)[1]
        for part in schema.get("allOf", ()):
            if isinstance(part, Mapping) and isinstance(part.get("$ref"), str):
                name = part["$ref"].rsplit("/", 1)[1]
                if name != "List":
                    return name
        return None

    def branches(self, schema: Schema, instance: Any = None) -> Iterator[Schema]:
        """``schema`` resolved, then every ``allOf``/``anyOf``/``oneOf`` part of it, recursively.

        Given an ``instance`` (a JSON object), the ``anyOf``/``oneOf`` alternatives it cannot
        be are left out: those whose ``const``/``enum`` properties or required properties it
        contradicts.
        """
        stack, seen_refs = [schema], set()
        while stack:
            part = stack.pop(0)
            ref = part.get("$ref")
            if isinstance(ref, str):
                if ref in seen_refs:
                    continue
                seen_refs.add(ref)
            node = self.resolve(part)
            yield node
            for key in ("allOf", "anyOf", "oneOf"):
                parts = [p for p in node.get(key, ()) if isinstance(p, Mapping)]
                if key != "allOf" and isinstance(instance, Mapping):
                    fitting = [p for p in parts if self._may_be(p, instance)]
                    parts = fitting or parts
                stack.extend(parts)

    def _may_be(self, schema: Schema, instance: Mapping[str, Any]) -> bool:
        """False when ``instance`` surely is not of ``schema`` (a fixed value or field differs)."""
        node = self.resolve(schema)
        if any(name not in instance for name in node.get("required", ())):
            return False
        for name, sub in (node.get("properties") or {}).items():
            if name not in instance or not isinstance(sub, Mapping):
                continue
            sub = self.resolve(sub)
            if "const" in sub and instance[name] != sub["const"]:
                return False
            if "enum" in sub and instance[name] not in sub["enum"]:
                return False
        return all(
            self._may_be(p, instance) for p in node.get("allOf", ()) if isinstance(p, Mapping)
        )

    def properties(self, schema: Schema, instance: Any = None) -> dict[str, Schema]:
        """Every property an object of ``schema`` may have, first declaration first.

        Given an ``instance``, only the alternatives it may be are read (see :meth:`branches`).
        """
        found: dict[str, Schema] = {}
        for node in self.branches(schema, instance):
            for name, sub in (node.get("properties") or {}).items():
                found.setdefault(name, sub)
        return found

    def required(self, schema: Schema) -> set[str]:
        """Properties required by ``schema`` itself and its ``allOf`` parts."""
        node = self.resolve(schema)
        names = set(node.get("required", ()))
        for part in node.get("allOf", ()):
            names |= self.required(part)
        return names

    def types(self, schema: Schema) -> set[str]:
        """The JSON types a value of ``schema`` may have (``"null"`` included), or empty if any."""
        kinds: set[str] = set()
        for node in self.branches(schema):
            declared = node.get("type")
            if isinstance(declared, str):
                kinds.add(declared)
            elif isinstance(declared, list):
                kinds.update(declared)
            values = list(node.get("enum", ()))
            if "const" in node:
                values.append(node["const"])
            kinds.update(json_type(value) for value in values)
            if "properties" in node and not declared:
                kinds.add("object")
        return kinds

    def formats(self, schema: Schema) -> set[str]:
        """The ``format`` values declared anywhere in ``schema``'s branches."""
        return {node["format"] for node in self.branches(schema) if "format" in node}

    def is_object_like(self, schema: Schema) -> bool:
        """True when every value of ``schema`` other than null is an object."""
        kinds = self.types(schema) - {"null"}
        return kinds == {"object"}


def json_type(value: Any) -> str:
    """The JSON Schema type name of a decoded JSON value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


@functools.cache
def reader() -> SchemaReader:
    """The :class:`SchemaReader` of the packaged description."""
    return SchemaReader(load_description())
