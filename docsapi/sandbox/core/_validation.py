"""Requests checked against the API's description before any route rule.

The packaged description (``openapi-subset.json``, the operations in scope) says, per operation
(method and path template), what each path parameter, each query parameter and the request
body may hold. Every route whose method and rule match an operation gets those checks; a
request that breaks them is answered 400 with a message naming the parameter or field (an id
breaking the description's id pattern included, whatever the method), before the route's own
(stricter) rules run and before any lock is taken. Routes the description does not list get no
description checks.

One reading is made explicit: a schema that declares ``properties`` or ``additionalProperties``
but no ``type`` (``PlainObject``) is read as an object, as its name and use say. Read literally
it also matches strings and numbers, so ``oneOf [string, PlainObject]`` would refuse every
string.

Validators are built, and jsonschema imported, by :meth:`OperationRules.prepare` (the sandbox
calls it when it starts: the import takes about a second where ``rfc3987-syntax`` is installed),
so the first request builds nothing; rules never prepared build their validators on first use.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING, Any

from docsapi.core.patterns import search_pattern
from docsapi.sandbox.core._errors import bad_request

if TYPE_CHECKING:
    from jsonschema.protocols import Validator

    from docsapi.sandbox.core._web import Ctx

#: Every refusal by the description's rules starts with this.
SCHEMA_ERROR_PREFIX = "The request does not match the API description"
_DESCRIPTION = "openapi-subset.json"
_MESSAGE_LIMIT = 400
_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_INTEGER = re.compile(r"[+-]?[0-9]+")
_PLACEHOLDER = re.compile(r"^(?:<[^>]+>|\{[^}]+\})$")
_ARGUMENT = re.compile(r"^(?:<(?:[^:>]+:)?([^>]+)>|\{([^}]+)\})$")


@functools.cache
def description() -> dict[str, Any]:
    """The packaged API description (the operations the sandbox serves), parsed once."""
    text = resources.files("docsapi.sandbox").joinpath(_DESCRIPTION).read_text("utf-8")
    return json.loads(text)


def path_shape(path: str) -> tuple[str, ...]:
    """The segments of a werkzeug rule or a path template, placeholders made alike.

    Examples
    --------
    >>> path_shape("/spaces/<space_id>/content/path/<path:page_path>")
    ('spaces', '{}', 'content', 'path', '{}')
    >>> path_shape("/spaces/{spaceId}/content/path/{pagePath}")
    ('spaces', '{}', 'content', 'path', '{}')
    """
    return tuple("{}" if _PLACEHOLDER.match(s) else s for s in path.strip("/").split("/"))


def path_arguments(path: str) -> tuple[str, ...]:
    """The names of the placeholders of a werkzeug rule or a path template, in order.

    Examples
    --------
    >>> path_arguments("/spaces/<space_id>/content/path/<path:page_path>")
    ('space_id', 'page_path')
    >>> path_arguments("/spaces/{spaceId}/content/path/{pagePath}")
    ('spaceId', 'pagePath')
    """
    found = (_ARGUMENT.match(s) for s in path.strip("/").split("/"))
    return tuple(m[1] or m[2] for m in found if m is not None)


_SUBSCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
_SUBSCHEMA = ("additionalProperties", "items", "not", "contains", "if", "then", "else")


def _typed_objects(schema: Any) -> Any:
    """A copy of ``schema`` where untyped schemas with properties are typed as objects."""
    if not isinstance(schema, dict):
        return schema
    out = dict(schema)
    untyped = "type" not in out and "$ref" not in out
    if untyped and ("properties" in out or "additionalProperties" in out):
        out["type"] = "object"
    if isinstance(out.get("properties"), dict):
        out["properties"] = {k: _typed_objects(v) for k, v in out["properties"].items()}
    for key in _SUBSCHEMA:
        if key in out:
            out[key] = _typed_objects(out[key])
    for key in _SUBSCHEMA_LISTS:
        if isinstance(out.get(key), list):
            out[key] = [_typed_objects(v) for v in out[key]]
    return out


def _fail(where: str, message: str) -> None:
    text = f"{SCHEMA_ERROR_PREFIX}: {where}: {message}"
    if len(text) > _MESSAGE_LIMIT:
        text = text[: _MESSAGE_LIMIT - 3] + "..."
    raise bad_request(text if text.endswith(".") else text + ".")


def _location(path: Sequence[Any]) -> str:
    where = "body"
    for part in path:
        where += f"[{part}]" if isinstance(part, int) else f".{part}"
    return where


@functools.cache
def _ecma_validator() -> type[Validator]:
    """Draft 2020-12 with ECMA-262 patterns: ``$`` matches only at the very end ("m\\n" is no
    title)."""
    from jsonschema import Draft202012Validator, validators

    return validators.extend(Draft202012Validator, {"pattern": search_pattern})


class _Schema:
    """A JSON Schema whose validator is built on first use (or by :meth:`prepare`)."""

    def __init__(self, schema: dict[str, Any], components: dict[str, Any]) -> None:
        self._schema = {**_typed_objects(schema), "components": components}

    @functools.cached_property
    def validator(self) -> Validator:
        from jsonschema import Draft202012Validator

        # Formats are checked too: some alternatives of a oneOf differ only by format.
        return _ecma_validator()(self._schema, format_checker=Draft202012Validator.FORMAT_CHECKER)

    @property
    def prepared(self) -> bool:
        """Whether the validator is built."""
        return "validator" in self.__dict__


@dataclass(frozen=True)
class _QueryParameter:
    """A query parameter; an array one (``type=a&type=b``) checks each value as an item."""

    name: str
    required: bool
    schema: _Schema
    array: bool = False

    def check(self, raws: list[str]) -> None:
        where = f"query parameter {self.name!r}"
        if not raws:
            if self.required:
                _fail(where, "it is required")
            return
        for raw in raws if self.array else raws[:1]:
            error = None
            for candidate in _candidates(raw):
                error = next(iter(self.schema.validator.iter_errors(candidate)), None)
                if error is None:
                    break
            if error is not None:
                _fail(where, error.message)


def _candidates(raw: str) -> list[Any]:
    """The values a query string may stand for: itself, a boolean, a finite number."""
    values: list[Any] = [raw]
    if raw in ("true", "false"):
        values.append(raw == "true")
    if len(raw) <= 32 and _NUMBER.fullmatch(raw):
        number = int(raw) if _INTEGER.fullmatch(raw) else float(raw)
        if math.isfinite(number):
            values.append(number)
    return values


@dataclass(frozen=True)
class _PathParameter:
    """A path parameter: its name in the description and in the route's rule."""

    name: str
    argument: str
    schema: _Schema

    def check(self, value: str) -> None:
        error = next(iter(self.schema.validator.iter_errors(value)), None)
        if error is not None:
            _fail(f"path parameter {self.name!r}", error.message)


@dataclass(frozen=True)
class OperationRules:
    """What the description requires of one operation's requests."""

    label: str
    body: _Schema | None
    body_required: bool
    query: tuple[_QueryParameter, ...]
    path: tuple[_PathParameter, ...] = ()

    @property
    def schemas(self) -> tuple[_Schema, ...]:
        """The schemas of the path and query parameters and of the body."""
        found = [p.schema for p in self.path] + [q.schema for q in self.query]
        return tuple(found if self.body is None else [*found, self.body])

    def prepare(self) -> None:
        """Build every validator now (importing jsonschema), so no request builds one."""
        for schema in self.schemas:
            _ = schema.validator

    def check(self, ctx: Ctx, arguments: Mapping[str, str] | None = None) -> None:
        """Check the path parameters, the query parameters, then the JSON body of a request.

        Parameters
        ----------
        ctx
            The request.
        arguments
            The values of the route's placeholders, by the rule's names (``space_id``), as
            the router decoded them.

        Raises
        ------
        ApiError
            400 naming the parameter or the body field and the rule it breaks (also for a
            body that is not JSON).
        """
        for path_parameter in self.path:
            if arguments is not None and path_parameter.argument in arguments:
                path_parameter.check(arguments[path_parameter.argument])
        for parameter in self.query:
            parameter.check(ctx.request.args.getlist(parameter.name))
        if self.body is None:
            return
        if not ctx.has_body():
            if self.body_required:
                _fail("body", f"{self.label} needs a JSON body")
            return
        from jsonschema.exceptions import best_match

        error = best_match(self.body.validator.iter_errors(ctx.body()))
        if error is not None:
            _fail(_location(error.absolute_path), error.message)


class RequestRules:
    """The description's request rules, looked up by route (method and rule).

    Parameters
    ----------
    document
        An OpenAPI 3.1 description (default: the packaged one).

    Examples
    --------
    >>> rules = RequestRules()
    >>> rules.for_route("PATCH", "/spaces/<space_id>").label
    'PATCH /spaces/{spaceId}'
    >>> rules.for_route("GET", "/nowhere") is None
    True
    >>> [p.argument for p in rules.for_route("DELETE", "/collections/<cid>").path]
    ['cid']
    """

    def __init__(self, document: dict[str, Any] | None = None) -> None:
        self.document = document if document is not None else description()
        self._by_shape: dict[tuple[str, tuple[str, ...]], tuple[str, dict[str, Any], list]] = {}
        for template, item in self.document.get("paths", {}).items():
            for method, operation in item.items():
                if method in ("get", "put", "post", "patch", "delete", "head", "options"):
                    key = (method.upper(), path_shape(template))
                    self._by_shape[key] = (template, operation, item.get("parameters", []))
        self._built: dict[tuple[str, tuple[str, ...]], OperationRules | None] = {}
        components = dict(self.document.get("components", {}))
        components["schemas"] = {
            name: _typed_objects(schema) for name, schema in components.get("schemas", {}).items()
        }
        self._components = components

    def operations(self) -> Iterable[tuple[str, str]]:
        """(method, path template) of every operation of the description."""
        return ((method, template) for (method, _), (template, *_) in self._by_shape.items())

    def for_route(self, method: str, rule: str) -> OperationRules | None:
        """The rules of the operation a route serves, or None when the description lacks it."""
        key = (method.upper(), path_shape(rule))
        if key not in self._built:
            found = self._by_shape.get(key)
            self._built[key] = (
                None if found is None else self._build(method.upper(), path_arguments(rule), *found)
            )
        return self._built[key]

    def _resolve(self, node: dict[str, Any]) -> dict[str, Any]:
        while "$ref" in node and node["$ref"].startswith("#/"):
            target: Any = self.document
            for part in node["$ref"][2:].split("/"):
                target = target[part.replace("~1", "/").replace("~0", "~")]
            node = target
        return node

    def _schema(self, schema: dict[str, Any]) -> _Schema:
        return _Schema(schema, self._components)

    def _build(
        self,
        method: str,
        arguments: tuple[str, ...],
        template: str,
        operation: dict[str, Any],
        shared: list[Any],
    ) -> OperationRules:
        query = []
        path = []
        argument_of = dict(zip(path_arguments(template), arguments, strict=True))
        for parameter in [*shared, *operation.get("parameters", [])]:
            parameter = self._resolve(parameter)
            if parameter.get("in") == "path" and parameter.get("name") in argument_of:
                name = parameter["name"]
                checked = self._schema(self._resolve(parameter.get("schema", {})))
                path.append(_PathParameter(name, argument_of[name], checked))
            if parameter.get("in") == "query" and "schema" in parameter:
                schema = self._resolve(parameter["schema"])
                array = schema.get("type") == "array" and "items" in schema
                query.append(
                    _QueryParameter(
                        parameter["name"],
                        bool(parameter.get("required")),
                        self._schema(schema["items"] if array else schema),
                        array,
                    )
                )
        body, required = None, False
        request_body = operation.get("requestBody")
        if request_body is not None:
            request_body = self._resolve(request_body)
            schema = request_body.get("content", {}).get("application/json", {}).get("schema")
            if schema is not None:
                body, required = self._schema(schema), bool(request_body.get("required"))
        label = f"{method} {template}"
        return OperationRules(label, body, required, tuple(query), tuple(path))
