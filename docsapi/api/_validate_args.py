"""Check a generated method's arguments against the description, then shape the request.

Every rule the description states about a parameter or the body is checked with
``jsonschema`` (imported on the first check, not with docsapi) before anything is sent:
required parameters, types, enums, lengths, patterns, bounds, the body's schema. A broken
rule raises :class:`~docsapi.errors.ValidationError` naming the argument as the caller wrote
it and the rule, e.g. ``title: must be at most 50 characters long, got 62 (maxLength)``.
"""

from __future__ import annotations

import decimal
import difflib
import enum
import functools
import json
import math
import numbers
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING, Any

from docsapi.api._operation import BODY, NOT_GIVEN, Operation, Parameter
from docsapi.api._spec import json_type, reader, validation_description
from docsapi.core.checks import check_id, check_page_path, check_query_length, check_text
from docsapi.core.patterns import search_pattern
from docsapi.core.redact import scrub
from docsapi.errors import ValidationError
from docsapi.wire.transport import quote_segment

if TYPE_CHECKING:
    from jsonschema.exceptions import (
        ValidationError as SchemaError,
    )
    from jsonschema.protocols import Validator

__all__ = ["SPEC_URI", "Call", "prepare", "schema_validator", "to_json"]

#: The URI under which the description is registered for ``$ref`` resolution.
SPEC_URI = "urn:docsapi:openapi"
_MAX_SHOWN = 60
_MAX_CHOICES = 12
_HEADER_VALUE = re.compile(r"[\x20-\x7e]*")
_SURROGATE = re.compile(r"[\ud800-\udfff]")
#: The deepest nesting of a JSON argument (a body the API takes is a few levels deep).
MAX_JSON_DEPTH = 64


@dataclass(frozen=True)
class Call:
    """A request ready for the transport: path with quoted segments, query, headers, body.

    ``body`` is :data:`~docsapi.api._operation.NOT_GIVEN` when no body is sent.
    """

    method: str
    path: str
    params: dict[str, Any]
    headers: dict[str, str]
    body: Any


# -- JSON schema checks -----------------------------------------------------------------------


@functools.cache
def _registry() -> Any:
    from referencing import Registry
    from referencing.jsonschema import DRAFT202012

    document = validation_description()
    return Registry().with_resource(SPEC_URI, DRAFT202012.create_resource(document))


@functools.cache
def schema_validator(pointer: str) -> Validator:
    """A JSON Schema 2020-12 validator of the schema at ``pointer`` in the description.

    Parameters
    ----------
    pointer : str
        A local reference such as ``"#/components/schemas/Space"``.
    """
    from jsonschema import Draft202012Validator

    return _ecma_validator()(
        {"$ref": SPEC_URI + pointer},
        registry=_registry(),
        format_checker=Draft202012Validator.FORMAT_CHECKER,
    )


@functools.cache
def _ecma_validator() -> Any:
    """Draft 2020-12 with ECMA-262's ``$`` in patterns (``"sp1\\n"`` is not an id)."""
    from jsonschema import Draft202012Validator, validators

    return validators.extend(Draft202012Validator, {"pattern": search_pattern})


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= _MAX_SHOWN else text[: _MAX_SHOWN - 1] + "…"


def _choices(values: Sequence[Any]) -> str:
    shown = ", ".join(repr(v) for v in values[:_MAX_CHOICES])
    return shown + (f", … ({len(values)} in all)" if len(values) > _MAX_CHOICES else "")


def _rule(error: SchemaError) -> str:
    """Say which rule ``error`` broke, in words, followed by the schema keyword."""
    keyword = error.validator
    expected: Any = error.validator_value
    value: Any = error.instance
    if keyword == "required":
        return "is required (required)"
    if keyword == "enum":
        text = f"must be one of {_choices(list(expected))}, got {_shown(value)}"
    elif keyword == "const":
        text = f"must be {expected!r}, got {_shown(value)}"
    elif keyword == "type":
        wanted = " or ".join(expected) if isinstance(expected, list) else expected
        text = f"must be of type {wanted}, got {json_type(value)} {_shown(value)}"
    elif keyword in ("maxLength", "minLength"):
        bound = "at most" if keyword == "maxLength" else "at least"
        text = f"must be {bound} {expected} characters long, got {len(value)}"
    elif keyword == "pattern":
        text = f"must match the pattern {expected!r}, got {_shown(value)}"
    elif keyword in ("maximum", "minimum", "exclusiveMaximum", "exclusiveMinimum"):
        sign = {"maximum": "≤", "minimum": "≥", "exclusiveMaximum": "<", "exclusiveMinimum": ">"}
        text = f"must be {sign[keyword]} {expected}, got {_shown(value)}"
    elif keyword in ("maxItems", "minItems"):
        bound = "at most" if keyword == "maxItems" else "at least"
        text = f"must have {bound} {expected} items, got {len(value)}"
    elif keyword in ("maxProperties", "minProperties"):
        bound = "at most" if keyword == "maxProperties" else "at least"
        text = f"must have {bound} {expected} fields, got {len(value)}"
    elif keyword == "uniqueItems":
        text = "must not repeat an item"
    elif keyword == "format":
        text = f"must be a valid {expected}, got {_shown(value)}"
    elif keyword in ("additionalProperties", "unevaluatedProperties"):
        known = error.schema.get("properties", {}) if isinstance(error.schema, Mapping) else {}
        extra = sorted(set(value) - set(known)) if isinstance(value, Mapping) else []
        text = f"has fields the API does not know: {', '.join(extra) or '?'}"
    elif keyword in ("oneOf", "anyOf"):
        text = f"matches none of the shapes the API accepts, got {_shown(value)}"
    else:
        text = error.message if len(error.message) <= 2 * _MAX_SHOWN else f"breaks {keyword!r}"
    return f"{text} ({keyword})"


def _rules_out(error: SchemaError) -> bool:
    """True when ``error`` says the value is not meant to be this alternative at all: the
    wrong type, or another value of a field that tells the alternatives apart."""
    if error.validator == "type":
        return not error.relative_path
    return error.validator in ("enum", "const") and len(error.relative_path) <= 1


def _merged_choices(branches: list[list[SchemaError]]) -> tuple[list[Any], list[Any]] | None:
    """Where every alternative wants another value at the same place: that place and the
    values they accept together."""
    places, accepted = set(), []
    for errors in branches:
        chosen = [e for e in errors if e.validator in ("enum", "const")]
        if not chosen:
            return None
        places.add(tuple(chosen[0].relative_path))
        values: Any = chosen[0].validator_value
        for one in values if chosen[0].validator == "enum" else [values]:
            if one not in accepted:
                accepted.append(one)
    return (list(places.pop()), accepted) if len(places) == 1 else None


def _explain(error: SchemaError) -> tuple[list[Any], str]:
    """Where in the value ``error`` is and the rule it broke, looking into the alternative of
    a ``oneOf``/``anyOf`` that the value was meant to be."""
    from jsonschema.exceptions import best_match

    path = list(error.absolute_path)
    while error.validator in ("oneOf", "anyOf") and error.context:
        branches: dict[Any, list[SchemaError]] = {}
        for sub in error.context:
            branches.setdefault(sub.relative_schema_path[0], []).append(sub)
        meant = [errors for errors in branches.values() if not any(map(_rules_out, errors))]
        if meant:
            shortest: list[SchemaError] = min(meant, key=len)
            error = best_match(shortest)
            path = list(error.absolute_path)
            continue
        merged = _merged_choices(list(branches.values()))
        if merged is not None:
            where, accepted = merged
            got: Any = error.instance
            for key in where:
                got = got[key]
            text = f"must be one of {_choices(accepted)}, got {_shown(got)} ({error.validator})"
            return path + where, text
        break
    if error.validator == "required":
        required: Any = error.validator_value
        present: Any = error.instance or {}
        missing = [n for n in required if n not in present]
        path.append(missing[0] if missing else "?")
    return path, _rule(error)


def _location(path: Sequence[Any]) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)


def _best_error(validator: Validator, value: Any) -> SchemaError | None:
    if validator.is_valid(value):
        return None
    from jsonschema.exceptions import best_match

    return best_match(validator.iter_errors(value))


def _check_parameter(parameter: Parameter, value: Any) -> None:
    error = _best_error(schema_validator(parameter.pointer), value)
    if error is None:
        return
    path, rule = _explain(error)
    raise ValidationError(parameter.python_name + _location(path), scrub(rule))


def _check_body(operation: Operation, body: Any, by_keyword: Mapping[str, str]) -> None:
    assert operation.body is not None
    error = _best_error(schema_validator(operation.body.pointer), body)
    if error is None:
        return
    path, rule = _explain(error)
    if error.validator == "required" and len(path) == 1:
        by_keyword = {f.name: f.python_name for f in operation.body.fields}
    if path and isinstance(path[0], str) and path[0] in by_keyword:
        where = by_keyword[path[0]] + _location(path[1:])
    else:
        where = BODY + _location(path)
    raise ValidationError(where, scrub(rule))


# -- Python values to JSON ---------------------------------------------------------------------


def to_json(value: Any) -> Any:
    """Turn the Python values a notebook user has at hand into JSON values.

    Datetimes become ISO 8601 strings (a naive one is taken as UTC), dates ISO dates,
    enums their value, tuples and sets lists, NumPy scalars Python numbers.

    Examples
    --------
    >>> to_json({"since": datetime(2024, 5, 1, 12, 0), "ids": ("a", "b")})
    {'since': '2024-05-01T12:00:00Z', 'ids': ['a', 'b']}
    """
    if value is None or isinstance(value, str | bool):
        return value
    if isinstance(value, datetime):
        aware = value if value.tzinfo is not None else value.replace(tzinfo=UTC)
        return aware.astimezone(UTC).isoformat().replace("+00:00", "Z")
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, enum.Enum):
        return to_json(value.value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real | decimal.Decimal):
        return float(value)
    if isinstance(value, Mapping):
        return {k: to_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [to_json(v) for v in value]
    return value


def _converted(value: Any, where: str) -> Any:
    """:func:`to_json` of an argument; a value nested beyond recursion is refused."""
    try:
        return to_json(value)
    except RecursionError:
        raise ValidationError(where, f"is nested more than {MAX_JSON_DEPTH} levels deep") from None


def _wire(value: Any) -> Any:
    """A checked JSON value as a query string or header value (lists stay lists)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, list):
        return [_wire(v) for v in value]
    if isinstance(value, dict):
        return json.dumps(value, separators=(",", ":"))
    return value if isinstance(value, str) else str(value)


def _query(parameter: Parameter, value: Any) -> Any:
    wire = _wire(value)
    for text in wire if isinstance(wire, list) else [wire]:
        check_text(text, parameter.python_name)
    return wire


def _header(parameter: Parameter, value: Any) -> str:
    text = _wire(value)
    if not isinstance(text, str) or not _HEADER_VALUE.fullmatch(text):
        raise ValidationError(
            parameter.python_name,
            "must be printable ASCII without line breaks (it is sent as a header)",
        )
    return text


def _segment(parameter: Parameter, value: Any) -> str:
    """One path parameter as its quoted path segment.

    A page path parameter (``pagePath``) is checked by
    :func:`~docsapi.core.checks.check_page_path`, any other by
    :func:`~docsapi.core.checks.check_id`: the rule every method and
    :meth:`DocsClient.request <docsapi.DocsClient.request>` apply to an id.
    """
    text = _wire(value)
    if parameter.page_path:
        return quote_segment(check_page_path(text, parameter.python_name))
    return quote_segment(check_id(text, parameter.python_name))


def _plain_json(value: Any, where: str) -> None:
    """Refuse what JSON cannot carry faithfully, naming where it is: NaN and infinities,
    keys that are not strings, lone surrogates, objects of other types, and nesting deeper
    than :data:`MAX_JSON_DEPTH`."""
    stack = [(value, where, 0)]
    while stack:
        item, place, depth = stack.pop()
        if depth > MAX_JSON_DEPTH:
            raise ValidationError(where, f"is nested more than {MAX_JSON_DEPTH} levels deep")
        if isinstance(item, float) and not math.isfinite(item):
            raise ValidationError(place, f"must be a finite number, got {item!r}")
        if isinstance(item, str):
            if _SURROGATE.search(item):
                raise ValidationError(place, "must be valid Unicode: it holds a lone surrogate")
        elif isinstance(item, dict):
            for key, sub in item.items():
                if not isinstance(key, str):
                    raise ValidationError(place, f"keys must be strings, got {_shown(key)}")
                stack.append((key, place, depth + 1))
                stack.append((sub, f"{place}.{key}", depth + 1))
        elif isinstance(item, list):
            stack.extend((sub, f"{place}[{i}]", depth + 1) for i, sub in enumerate(item))
        elif item is not None and not isinstance(item, bool | int | float):
            raise ValidationError(
                place, f"must be a JSON value, got {type(item).__name__} {_shown(item)}"
            )


# -- binding ------------------------------------------------------------------------------


def _unknown(operation: Operation, name: str) -> ValidationError:
    accepted = list(operation.keywords) + ([BODY] if operation.body is not None else [])
    close = difflib.get_close_matches(name, accepted, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else "."
    listed = ", ".join(accepted) or "none"
    return ValidationError(
        name,
        f"is not a parameter of {operation.python_name}{hint} It takes: {listed}",
    )


def _bind(operation: Operation, args: tuple[Any, ...], kwargs: Mapping[str, Any]):
    positional = operation.path_parameters
    if len(args) > len(positional):
        names = ", ".join(p.python_name for p in positional) or "none"
        raise TypeError(
            f"{operation.python_name}() takes {len(positional)} positional arguments "
            f"({names}) but {len(args)} were given; pass the others by keyword"
        )
    values = {p.python_name: value for p, value in zip(positional, args, strict=False)}
    for name, value in kwargs.items():
        if name in values:
            raise TypeError(f"{operation.python_name}() got multiple values for {name!r}")
        if name not in operation.keywords and not (name == BODY and operation.body is not None):
            raise _unknown(operation, name)
        values[name] = value
    return {name: value for name, value in values.items() if value is not NOT_GIVEN}


def _body(operation: Operation, values: Mapping[str, Any]) -> Any:
    body = operation.body
    if body is None:
        return NOT_GIVEN
    fields = {
        f.name: _converted(values[f.python_name], f.python_name)
        for f in body.fields
        if f.python_name in values
    }
    by_keyword = {f.name: f.python_name for f in body.fields if f.python_name in values}
    whole = _converted(values[BODY], BODY) if BODY in values else NOT_GIVEN
    if whole is not NOT_GIVEN and fields:
        if not isinstance(whole, dict):
            raise ValidationError(BODY, "must be an object when body fields are also given")
        twice = sorted(set(whole) & set(fields))
        if twice:
            raise ValidationError(
                by_keyword[twice[0]], f"given twice: as a keyword and as body[{twice[0]!r}]"
            )
        whole = {**whole, **fields}
    elif whole is NOT_GIVEN:
        if fields:
            whole = fields
        elif body.required and body.fields:
            whole = {}
        elif body.required:
            raise ValidationError(BODY, "is required: this operation needs a request body")
        else:
            return NOT_GIVEN
    if isinstance(whole, dict):
        for name in whole:
            if not isinstance(name, str):
                raise ValidationError(BODY, f"keys must be strings, got {_shown(name)}")
        for name, item in whole.items():
            _plain_json(item, by_keyword.get(name, f"{BODY}.{name}"))
    else:
        _plain_json(whole, BODY)
    _check_body(operation, whole, by_keyword)
    return whole


def prepare(operation: Operation, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> Call:
    """Check the arguments of a call of ``operation`` and shape the request.

    Parameters
    ----------
    operation : Operation
        The operation called.
    args, kwargs
        The arguments as the caller passed them.

    Returns
    -------
    Call

    Raises
    ------
    ValidationError
        An unknown or missing argument, or a value that breaks the description's rules.
    TypeError
        Too many positional arguments, or one given twice.
    """
    values = _bind(operation, args, kwargs)
    path = operation.path
    params: dict[str, Any] = {}
    headers: dict[str, str] = {}
    for parameter in operation.parameters:
        value = values.get(parameter.python_name, NOT_GIVEN)
        if value is None and parameter.location != "path":
            value = NOT_GIVEN
        if value is NOT_GIVEN:
            if parameter.required:
                raise ValidationError(
                    parameter.python_name,
                    f"is required ({parameter.location} parameter {parameter.name!r})",
                )
            continue
        value = _converted(value, parameter.python_name)
        _plain_json(value, parameter.python_name)
        if parameter.location == "query" and value in ("", []) and not parameter.allow_empty:
            if value == [] and not parameter.required:
                continue
            raise ValidationError(
                parameter.python_name,
                "must not be empty (the API takes no empty query parameter; "
                + ("it is required)" if parameter.required else "leave it out instead)"),
            )
        if (
            isinstance(value, float)
            and value.is_integer()
            and "integer" in reader().types(parameter.schema)
        ):
            value = int(value)
        if parameter.location == "path":
            segment = _segment(parameter, value)  # the id rule first, the same everywhere
            _check_parameter(parameter, value)
            path = path.replace("{" + parameter.name + "}", segment)
            continue
        _check_parameter(parameter, value)
        if parameter.location == "query":
            params[parameter.name] = _query(parameter, value)
        else:
            headers[parameter.name] = _header(parameter, value)
    by_name = {p.name: p.python_name for p in operation.parameters}
    try:
        check_query_length(params, "")
    except ValidationError as error:
        raise ValidationError(by_name[error.argument], str(error).partition(": ")[2]) from None
    return Call(operation.method, path, params, headers, _body(operation, values))
