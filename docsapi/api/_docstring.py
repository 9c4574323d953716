"""numpydoc docstrings for generated methods, written from the description."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

from docsapi.api._operation import BODY, Operation, Parameter
from docsapi.api._results import item_columns, list_shape
from docsapi.api._spec import Schema, SchemaReader, reader

__all__ = ["docstring", "returns_text", "type_text"]

_SIMPLE = {
    "string": "str",
    "integer": "int",
    "number": "float",
    "boolean": "bool",
    "object": "dict",
    "array": "list",
    "null": "None",
}
_MAX_ENUM = 8
_WIDTH = 92


def type_text(schema: Schema, schemas: SchemaReader | None = None) -> str:
    """A numpydoc type for ``schema``: ``str``, ``{'live', 'locked'}``, ``list of str``, …

    Examples
    --------
    >>> type_text({"type": "string", "enum": ["live", "locked"]})
    "{'live', 'locked'}"
    >>> type_text({"type": "array", "items": {"type": "integer"}})
    'list of int'
    """
    schemas = schemas or reader()
    node = schemas.resolve(schema)
    alternatives = [p for key in ("oneOf", "anyOf") for p in node.get(key, ())]
    if alternatives and "type" not in node and "enum" not in node:
        texts = []
        for part in alternatives:
            for text in type_text(part, schemas).split(" or "):
                if text not in texts:
                    texts.append(text)
        if len(texts) > 1 and "Any" in texts:
            texts.remove("Any")
        if "None" in texts:
            texts.append(texts.pop(texts.index("None")))
        return " or ".join(texts)
    enum = [v for b in schemas.branches(node) for v in b.get("enum", ())]
    if enum and len(enum) <= _MAX_ENUM:
        return "{" + ", ".join(repr(v) for v in enum) + "}"
    kinds = schemas.types(node)
    if kinds - {"null"} == {"array"}:
        items = next((b["items"] for b in schemas.branches(node) if "items" in b), None)
        inner = type_text(items, schemas) if items is not None else "Any"
        return f"list of {inner}"
    if enum:
        return f"str (one of {len(enum)} values)"
    names = [_SIMPLE.get(k, k) for k in sorted(kinds - {"null"})]
    if schemas.formats(node) == {"date-time"}:
        names = ["str or datetime"]
    text = " or ".join(names) or "Any"
    return text + (" or None" if "null" in kinds else "")


def _paragraph(text: str, indent: str = "    ") -> list[str]:
    lines: list[str] = []
    for block in text.strip().split("\n"):
        if not block.strip():
            lines.append("")
            continue
        lines.extend(
            textwrap.wrap(block.strip(), _WIDTH, initial_indent=indent, subsequent_indent=indent)
        )
    return lines


def _parameter_lines(parameter: Parameter) -> list[str]:
    optional = "" if parameter.required and parameter.location != "body" else ", optional"
    lines = [f"{parameter.python_name} : {type_text(parameter.schema)}{optional}"]
    where = {
        "path": "Path parameter",
        "query": "Query parameter",
        "header": "Header",
        "body": "Body field",
    }[parameter.location]
    flags = []
    if parameter.location == "body" and parameter.required:
        flags.append("required in the body")
    if parameter.deprecated:
        flags.append("deprecated")
    suffix = f" ({', '.join(flags)})" if flags else ""
    description = parameter.description.strip()
    if description and description[-1] not in ".!?:)`":
        description += "."
    lines += _paragraph(f"{where} ``{parameter.name}``{suffix}. {description}".rstrip())
    return lines


def returns_text(operation: Operation) -> tuple[str, list[str]]:
    """The Returns type and explanation for ``operation``."""
    schema = operation.success_schema
    schemas = reader()
    shape = list_shape(schema, schemas)
    if shape is not None:
        columns = item_columns(shape.item_schema, schemas)
        pages = (
            "every page followed, " if shape.kind == "pages" and operation.method == "GET" else ""
        )
        kind = schemas.ref_name(shape.item_schema) or "item"
        names = ", ".join(c.name for c in columns)
        return "pandas.DataFrame", _paragraph(
            f"One row per {kind} ({pages}same columns when empty). Columns: {names}."
        )
    if schema is not None:
        kind = schemas.ref_name(schema) or "object"
        return "ApiObject", _paragraph(
            f"The answer ({kind}): fields in snake_case as attributes, the JSON in ``.raw``."
        )
    return "None", _paragraph("The API answers with no content.")


def _example(operation: Operation, group: str) -> str:
    required = [p for p in operation.parameters if p.required]
    arguments = ", ".join(f"{p.python_name}=..." for p in required)
    call = f"client.api.{group}.{operation.python_name}({arguments})"
    return f">>> {call}  # fill in the arguments  # doctest: +SKIP"


def docstring(operation: Operation, group: str, aliases: Sequence[str] = ()) -> str:
    """The numpydoc docstring of the generated method for ``operation``.

    Parameters
    ----------
    operation : Operation
        The operation.
    group : str
        The attribute of ``client.api`` the method is read from (used in the example).
    aliases : sequence of str
        Other groups that offer the same method.
    """
    summary = operation.summary.strip() or operation.operation_id
    lines = [summary if summary.endswith(".") else summary + "."]
    if operation.deprecated:
        lines += ["", ".. deprecated::", "    The API description marks this operation deprecated."]
    if operation.streaming:
        lines += ["", "The API answers this operation with server-sent events, which docsapi does"]
        lines += ["not read: calling it raises StreamingNotSupportedError before sending anything."]
    if operation.description.strip():
        lines += ["", *_paragraph(operation.description, indent="")]
    facts = [f"``{operation.method} {operation.path}`` (operation ``{operation.operation_id}``"]
    if operation.internal:
        facts.append(", internal")
    facts.append(")")
    lines += ["", "".join(facts) + "."]
    if operation.scopes:
        lines.append(f"OAuth scopes: {', '.join(sorted(set(operation.scopes)))}.")
    if aliases:
        lines.append("Also in " + ", ".join(f"``client.api.{a}``" for a in aliases) + ".")
    parameters = list(operation.parameters)
    body = operation.body
    if body is not None:
        parameters.extend(body.fields)
    if parameters or body is not None:
        lines += ["", "Parameters", "----------"]
        for parameter in parameters:
            lines += _parameter_lines(parameter)
        if body is not None:
            lines.append(f"{BODY} : {type_text(body.schema)}, optional")
            text = "The whole request body, instead of or besides the body fields."
            if body.hidden:
                hidden = ", ".join(f"``{name}``" for name in body.hidden)
                text += f" Pass {hidden} here (the keyword name is taken)."
            if body.required:
                text += " The operation requires a body."
            lines += _paragraph(text)
    kind, explanation = returns_text(operation)
    lines += ["", "Returns", "-------", kind, *explanation]
    lines += [
        "",
        "Raises",
        "------",
        "ValidationError",
        "    An argument breaks the description's rules; nothing was sent.",
        "APIStatusError",
        "    The API answered with an error status (its most specific subclass).",
    ]
    if operation.streaming:
        lines += ["StreamingNotSupportedError", "    Always: the answer is an event stream."]
    lines += ["", "Examples", "--------", _example(operation, group)]
    return "\n".join(lines)
