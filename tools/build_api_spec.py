"""Derive the API description packaged with docsapi from the full OpenAPI description.

``client.api`` is generated at run time from ``docsapi/api/openapi.json.gz``. That file is
the full description (``tests/openapi/gitbook-openapi.json``) with what a client never reads
taken out:

* error responses (the client maps every error status through one error tree) and response
  headers; success responses keep their content schemas;
* ``securitySchemes``, ``servers``, tag prose, examples, and the ``x-*`` extensions (except
  ``x-internal``, which the docstrings mention);
* schemas that no kept operation reaches;
* indentation (the JSON is written compactly, keys in their original order, then gzipped with a
  fixed timestamp so the same input always gives the same bytes).

Parameters defined in ``components/parameters`` are inlined into each operation. Run it by hand
after replacing the vendored description::

    python tools/build_api_spec.py                # writes docsapi/api/openapi.json.gz
    python tools/build_api_spec.py --check        # exit 1 if the packaged file is stale

``tests/test_api_spec.py`` checks that the packaged file equals what :func:`derive` makes of the
vendored description.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "tests" / "openapi" / "gitbook-openapi.json"
TARGET = ROOT / "docsapi" / "api" / "openapi.json.gz"

HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
_OPERATION_KEYS = (
    "operationId",
    "summary",
    "description",
    "tags",
    "deprecated",
    "x-internal",
    "security",
    "parameters",
    "requestBody",
    "responses",
)
_PARAMETER_KEYS = (
    "name",
    "in",
    "required",
    "deprecated",
    "allowEmptyValue",
    "description",
    "schema",
)
#: Keywords whose value is one subschema, a list of them, or a name → subschema map.
_ONE_SCHEMA = (
    "additionalProperties",
    "items",
    "not",
    "if",
    "then",
    "else",
    "propertyNames",
    "contains",
    "unevaluatedProperties",
    "unevaluatedItems",
)
_SCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "dependentSchemas")
_DROPPED_SCHEMA_KEYS = frozenset({"example", "examples"})


def _prune_schema(schema: Any) -> Any:
    """A copy of ``schema`` without examples and ``x-*`` keywords, subschemas included."""
    if not isinstance(schema, dict):
        return schema
    pruned: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _DROPPED_SCHEMA_KEYS or key.startswith("x-"):
            continue
        if key in _ONE_SCHEMA:
            pruned[key] = _prune_schema(value)
        elif key in _SCHEMA_LISTS:
            pruned[key] = [_prune_schema(item) for item in value]
        elif key in _SCHEMA_MAPS:
            pruned[key] = {name: _prune_schema(item) for name, item in value.items()}
        else:
            pruned[key] = value
    return pruned


def _component(document: dict[str, Any], ref: str) -> tuple[str, str, Any]:
    _, _, kind, name = ref.split("/", 3)
    return kind, name, document["components"][kind][name]


def _inline(document: dict[str, Any], node: Any) -> Any:
    """Follow a ``$ref`` to ``components/parameters|requestBodies|responses`` (not schemas)."""
    while isinstance(node, dict) and "$ref" in node:
        kind, _, node = _component(document, node["$ref"])
        if kind == "schemas":
            raise ValueError("expected a parameter, request body or response, found a schema")
    return node


def _content(content: dict[str, Any] | None) -> dict[str, Any]:
    return {
        media: {"schema": _prune_schema(body["schema"])} if "schema" in body else {}
        for media, body in (content or {}).items()
    }


def _operation(document: dict[str, Any], path_item: dict[str, Any], operation: dict[str, Any]):
    kept: dict[str, Any] = {}
    for key in _OPERATION_KEYS:
        if key not in operation:
            continue
        value = operation[key]
        if key == "parameters":
            value = [
                {
                    k: _prune_schema(v) if k == "schema" else v
                    for k, v in _inline(document, parameter).items()
                    if k in _PARAMETER_KEYS
                }
                for parameter in [*path_item.get("parameters", []), *value]
            ]
        elif key == "requestBody":
            body = _inline(document, value)
            value = {k: v for k, v in body.items() if k in ("description", "required")}
            value["content"] = _content(body.get("content"))
        elif key == "responses":
            value = {
                status: {
                    "description": response.get("description", ""),
                    "content": _content(response.get("content")),
                }
                for status, raw in value.items()
                if status.startswith("2")
                for response in [_inline(document, raw)]
            }
        kept[key] = value
    return kept


def _refs(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str):
            yield ref
        for value in node.values():
            yield from _refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _refs(value)


def derive(document: dict[str, Any]) -> dict[str, Any]:
    """Return the run-time description derived from the full ``document``.

    Parameters
    ----------
    document : dict
        A full OpenAPI 3.1 description (parsed JSON).

    Returns
    -------
    dict
        The same operations, in the same order, with only what a client reads.
    """
    paths: dict[str, Any] = {}
    for path, item in document["paths"].items():
        operations = {
            method: _operation(document, item, item[method])
            for method in item
            if method in HTTP_METHODS
        }
        if operations:
            paths[path] = operations
    schemas = document["components"].get("schemas", {})
    reached: set[str] = set()
    pending = list(_refs(paths))
    while pending:
        ref = pending.pop()
        if not ref.startswith("#/components/schemas/"):
            raise ValueError(f"unexpected reference {ref!r} in a kept schema")
        name = ref.rsplit("/", 1)[1]
        if name in reached:
            continue
        reached.add(name)
        pending.extend(_refs(schemas[name]))
    tags = [
        {k: v for k, v in tag.items() if k in ("name", "x-page-title", "x-page-description")}
        for tag in document.get("tags", [])
    ]
    return {
        "openapi": document["openapi"],
        "info": {k: document["info"][k] for k in ("title", "version")},
        "tags": tags,
        "paths": paths,
        "components": {
            "schemas": {
                name: _prune_schema(schema) for name, schema in schemas.items() if name in reached
            }
        },
    }


def encode(description: dict[str, Any]) -> bytes:
    """Compact JSON, gzipped with a fixed timestamp (the same input gives the same bytes)."""
    text = json.dumps(description, separators=(",", ":"), ensure_ascii=False)
    return gzip.compress(text.encode(), compresslevel=9, mtime=0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=SOURCE)
    parser.add_argument("--target", type=Path, default=TARGET)
    parser.add_argument("--check", action="store_true", help="exit 1 if the target is stale")
    options = parser.parse_args(argv)
    full = json.loads(options.source.read_text())
    data = encode(derive(full))
    if options.check:
        current = options.target.read_bytes() if options.target.exists() else b""
        if current != data:
            print(f"{options.target} is stale: run python tools/build_api_spec.py")
            return 1
        return 0
    options.target.write_bytes(data)
    size = len(json.dumps(full, separators=(",", ":")).encode())
    print(
        f"{options.target.relative_to(ROOT)}: {len(data):,} bytes gzipped "
        f"(the full description is {options.source.stat().st_size:,} bytes, {size:,} compact)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
