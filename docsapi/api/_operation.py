"""One operation of the description, as a client sees it: its parameters, body and answers."""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from docsapi.api._spec import Schema, SchemaReader, snake_case

__all__ = [
    "BODY",
    "JSON_MEDIA",
    "NOT_GIVEN",
    "STREAM_MEDIA",
    "Body",
    "NotGiven",
    "Operation",
    "Parameter",
    "operations_of",
]

#: The keyword that takes the whole request body.
BODY = "body"
JSON_MEDIA = "application/json"
STREAM_MEDIA = "text/event-stream"
_LOCATIONS = ("path", "query", "header")
_PYTHON_TYPES = {
    "string": str,
    "integer": int,
    "number": float,
    "boolean": bool,
    "array": list,
    "object": dict,
}


class NotGiven:
    """The default of optional arguments: "leave this out of the request".

    ``None`` cannot serve, since it is a value some fields accept (``null``).
    """

    _instance: NotGiven | None = None

    def __new__(cls) -> NotGiven:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "NOT_GIVEN"

    def __bool__(self) -> bool:
        return False


NOT_GIVEN = NotGiven()


@dataclass(frozen=True)
class Parameter:
    """A path, query or header parameter, or a field of the request body.

    Attributes
    ----------
    name : str
        The API's name (``organizationId``, ``editMode``).
    python_name : str
        The keyword a caller passes (``organization_id``, ``edit_mode``).
    location : str
        ``"path"``, ``"query"``, ``"header"`` or ``"body"`` (a body field).
    required : bool
        Whether the description requires it (body fields: required inside the body).
    schema : Mapping
        Its JSON schema, references unresolved.
    description : str
        The description's prose, possibly empty.
    deprecated : bool
        Whether the description marks it deprecated.
    pointer : str
        Where its schema sits in the description (a JSON pointer); empty for body fields,
        which are checked with the whole body.
    allow_empty : bool
        Whether an empty value may be sent (``allowEmptyValue``; query parameters only).
    """

    name: str
    python_name: str
    location: str
    required: bool
    schema: Schema
    description: str = ""
    deprecated: bool = False
    pointer: str = ""
    allow_empty: bool = False

    @property
    def page_path(self) -> bool:
        """Whether it is a path parameter holding a page path (``pagePath``: slugs with
        ``/`` between them) rather than one id."""
        return self.location == "path" and self.name.endswith("Path")


@dataclass(frozen=True)
class Body:
    """The request body of an operation.

    Attributes
    ----------
    required : bool
        Whether the operation needs a body.
    schema : Mapping
        Its JSON schema (references unresolved).
    pointer : str
        Where the schema sits in the description, as a JSON pointer.
    fields : tuple[Parameter, ...]
        The body's properties offered as keyword arguments (object bodies only).
    hidden : tuple[str, ...]
        Properties not offered as keywords because their name is taken; pass them in ``body``.
    description : str
        The description's prose about the body.
    """

    required: bool
    schema: Schema
    pointer: str
    fields: tuple[Parameter, ...] = ()
    hidden: tuple[str, ...] = ()
    description: str = ""


@dataclass(frozen=True)
class Operation:
    """Everything a generated method needs to know about one operation.

    Attributes
    ----------
    operation_id : str
        The description's ``operationId`` (``listSites``).
    python_name : str
        The method's name (``list_sites``).
    method, path : str
        The HTTP method (upper case) and the path template (``/orgs/{organizationId}/sites``).
    pointer : str
        The JSON pointer of the operation in the description.
    tags : tuple[str, ...]
        The description's tags, in order.
    summary, description : str
        The description's prose.
    deprecated, internal : bool
        ``deprecated`` and ``x-internal`` flags.
    scopes : tuple[str, ...]
        OAuth scopes the description names for it.
    parameters : tuple[Parameter, ...]
        Path parameters (in path order), then query and header parameters.
    body : Body or None
        The JSON request body, if the operation takes one.
    responses : Mapping[int, Mapping or None]
        Success status → JSON schema of the answer (None: no JSON body).
    streaming : bool
        True when the operation answers with server-sent events.
    """

    operation_id: str
    python_name: str
    method: str
    path: str
    pointer: str
    tags: tuple[str, ...]
    summary: str
    description: str
    deprecated: bool
    internal: bool
    scopes: tuple[str, ...]
    parameters: tuple[Parameter, ...]
    body: Body | None
    responses: Mapping[int, Schema | None]
    streaming: bool
    keywords: Mapping[str, Parameter] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        keywords = {p.python_name: p for p in self.parameters}
        if self.body is not None:
            keywords.update({f.python_name: f for f in self.body.fields})
        object.__setattr__(self, "keywords", keywords)

    @property
    def path_parameters(self) -> tuple[Parameter, ...]:
        """The path parameters, in the order they appear in the path."""
        return tuple(p for p in self.parameters if p.location == "path")

    @property
    def success_schema(self) -> Schema | None:
        """The JSON schema of the first success answer that has one."""
        return next((s for _, s in sorted(self.responses.items()) if s is not None), None)

    def signature(self, schemas: SchemaReader) -> inspect.Signature:
        """The Python signature: path parameters first, everything else keyword-only.

        Parameters
        ----------
        schemas : SchemaReader
            Resolves the parameters' schemas into plain Python types for the annotations.
        """

        def make(schema: Schema) -> Any:
            kinds = schemas.types(schema) - {"null"}
            return _PYTHON_TYPES.get(kinds.pop(), Any) if len(kinds) == 1 else Any

        positional = [
            inspect.Parameter(
                p.python_name, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=make(p.schema)
            )
            for p in self.path_parameters
        ]
        keyword_params = [p for p in self.parameters if p.location != "path"]
        if self.body is not None:
            keyword_params.extend(self.body.fields)
        keywords = [
            inspect.Parameter(
                p.python_name,
                inspect.Parameter.KEYWORD_ONLY,
                default=inspect.Parameter.empty
                if p.required and p.location != "body"
                else NOT_GIVEN,
                annotation=make(p.schema),
            )
            for p in keyword_params
        ]
        # Required keywords first reads best; Python allows any order for keyword-only ones.
        keywords.sort(key=lambda p: p.default is not inspect.Parameter.empty)
        if self.body is not None:
            keywords.append(
                inspect.Parameter(
                    BODY, inspect.Parameter.KEYWORD_ONLY, default=NOT_GIVEN, annotation=Any
                )
            )
        return inspect.Signature([*positional, *keywords])


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def _parameter(raw: Mapping[str, Any], pointer: str) -> Parameter:
    return Parameter(
        name=raw["name"],
        python_name=snake_case(raw["name"]),
        location=raw["in"],
        required=bool(raw.get("required")) or raw["in"] == "path",
        schema=raw.get("schema", {}),
        description=raw.get("description", ""),
        deprecated=bool(raw.get("deprecated")),
        pointer=pointer,
        allow_empty=bool(raw.get("allowEmptyValue")),
    )


def _body(
    reader: SchemaReader, raw: Mapping[str, Any] | None, pointer: str, taken: set[str]
) -> Body | None:
    if raw is None:
        return None
    content = raw.get("content", {})
    if JSON_MEDIA not in content:
        raise ValueError(f"{pointer}: only JSON request bodies are supported")
    schema = content[JSON_MEDIA].get("schema", {})
    fields: list[Parameter] = []
    hidden: list[str] = []
    if reader.is_object_like(schema):
        required = reader.required(schema)
        for name, sub in reader.properties(schema).items():
            python_name = snake_case(name)
            if python_name in taken:
                hidden.append(name)
                continue
            taken.add(python_name)
            resolved = reader.resolve(sub)
            fields.append(
                Parameter(
                    name=name,
                    python_name=python_name,
                    location="body",
                    required=name in required,
                    schema=sub,
                    description=resolved.get("description", "") or sub.get("description", ""),
                    deprecated=bool(resolved.get("deprecated")),
                )
            )
    return Body(
        required=bool(raw.get("required")),
        schema=schema,
        pointer=f"{pointer}/requestBody/content/{_escape(JSON_MEDIA)}/schema",
        fields=tuple(fields),
        hidden=tuple(hidden),
        description=raw.get("description", ""),
    )


def _responses(raw: Mapping[str, Any]) -> tuple[dict[int, Schema | None], bool]:
    responses: dict[int, Schema | None] = {}
    streaming = False
    for status, response in raw.items():
        content = response.get("content") or {}
        streaming = streaming or STREAM_MEDIA in content
        responses[int(status)] = content.get(JSON_MEDIA, {}).get("schema")
    return responses, streaming


def _path_order(path: str, parameters: list[Parameter]) -> list[Parameter]:
    in_path = [p for p in parameters if p.location == "path"]
    in_path.sort(key=lambda p: path.find("{" + p.name + "}"))
    return in_path + [p for p in parameters if p.location in _LOCATIONS[1:]]


def _operation(reader: SchemaReader, path: str, method: str, raw: Mapping[str, Any]) -> Operation:
    pointer = f"#/paths/{_escape(path)}/{method}"
    parameters = _path_order(
        path,
        [
            _parameter(p, f"{pointer}/parameters/{index}/schema")
            for index, p in enumerate(raw.get("parameters", ()))
        ],
    )
    taken = {p.python_name for p in parameters} | {BODY}
    responses, streaming = _responses(raw.get("responses", {}))
    scopes = tuple(
        scope
        for requirement in raw.get("security", ())
        for scope_list in requirement.values()
        for scope in scope_list
    )
    return Operation(
        operation_id=raw["operationId"],
        python_name=snake_case(raw["operationId"]),
        method=method.upper(),
        path=path,
        pointer=pointer,
        tags=tuple(raw.get("tags") or ()),
        summary=raw.get("summary", ""),
        description=raw.get("description", ""),
        deprecated=bool(raw.get("deprecated")),
        internal=bool(raw.get("x-internal")),
        scopes=scopes,
        parameters=tuple(parameters),
        body=_body(reader, raw.get("requestBody"), pointer, taken),
        responses=responses,
        streaming=streaming,
    )


def operations_of(reader: SchemaReader) -> list[Operation]:
    """Every operation of the reader's description, in the description's order.

    Examples
    --------
    >>> from docsapi.api._spec import reader
    >>> operations = operations_of(reader())
    >>> next(op for op in operations if op.operation_id == "listSites").python_name
    'list_sites'
    """
    document = reader.document
    return [
        _operation(reader, path, method, raw)
        for path, item in document["paths"].items()
        for method, raw in item.items()
    ]
