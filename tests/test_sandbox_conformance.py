"""Generated requests: bodies and query values drawn from the description, sent to the sandbox.

For every write operation of the vendored description with a JSON request body, hypothesis
(with hypothesis-jsonschema) draws bodies from the operation's request schema:

* valid bodies are never refused for the description's sake (no 400 with
  ``SCHEMA_ERROR_PREFIX``) and never answered 5xx; the sandbox's stricter seed rules may still
  refuse them (400, 403, 404, 409), and every answer validates against the description;
* the same bodies broken in one place (a wrong value, a missing property, or not an object at
  all) are answered 400 naming the description, and the sandbox's data is left exactly as it was.

Query parameters of every operation without a request body are drawn the same way. Runs are
derandomized (the same examples on every run) and kept small.

Drawing uses a generation-only copy of each schema: references inlined (a recursive reference
becomes an empty object), and each object limited to the property names it declares, so the
drawn bodies are not refused by the sandbox's rule against unknown properties. Whether a body is
valid is always decided on the description itself, with jsonschema.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import itertools
import json
import pickle
import re
from typing import Any

import pytest
from contract import ApiSession, spec, validate
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema
from jsonschema import Draft202012Validator, validators
from suite_scope import examples

from docsapi.core.patterns import search_pattern
from docsapi.sandbox.core._validation import SCHEMA_ERROR_PREFIX

EXAMPLES = examples(6)
#: Below this many levels of a body, only required properties are drawn (drawing stays fast).
GENERATED_DEPTH = 2
SETTINGS = settings(
    max_examples=EXAMPLES,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
CUSTOM_FORMATS = {
    "emoji": st.sampled_from(["1f4d8", "1f680", "2728"]),
    "icon": st.just("https://example.com/icon.png"),
    "int32": st.integers(0, 2**31 - 1).map(str),
}
WRITE_METHODS = ("post", "put", "patch")


def _operations(with_body: bool) -> list[tuple[str, str]]:
    found = []
    for template, item in spec()["paths"].items():
        for method, operation in item.items():
            body = operation.get("requestBody", {}).get("content", {}).get("application/json")
            if with_body and method in WRITE_METHODS and body and "schema" in body:
                found.append((method, template))
            if not with_body and "requestBody" not in operation and _query_parameters(operation):
                found.append((method, template))
    return found


def _resolve(node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        target: Any = spec()
        for part in node["$ref"][2:].split("/"):
            target = target[part]
        node = target
    return node


def _query_parameters(operation: dict[str, Any]) -> list[dict[str, Any]]:
    return [p for p in map(_resolve, operation.get("parameters", [])) if p.get("in") == "query"]


def _typed(schema: Any) -> Any:
    """The description read as the sandbox documents: untyped schemas with properties are
    objects (``PlainObject``)."""
    if isinstance(schema, list):
        return [_typed(v) for v in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: _typed(v) for k, v in schema.items()}
    if (
        "type" not in out
        and "$ref" not in out
        and ("properties" in out or "additionalProperties" in out)
    ):
        out["type"] = "object"
    return out


@functools.cache
def _components() -> dict[str, Any]:
    return _typed(spec()["components"])


def _oracle(schema: dict[str, Any]) -> Draft202012Validator:
    # JSON Schema patterns are ECMA-262's: "$" matches only at the end, not before a final "\n".
    ecma = validators.extend(Draft202012Validator, {"pattern": search_pattern})
    return ecma({**_typed(schema), "components": _components()})


def _inline(node: Any, stack: tuple[str, ...] = ()) -> Any:
    if isinstance(node, list):
        return [_inline(v, stack) for v in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[-1]
        if name in stack:
            return {"type": "object", "maxProperties": 0}
        return _inline(copy.deepcopy(_components()["schemas"][name]), (*stack, name))
    out = {}
    for key, value in node.items():
        if key == "properties":
            out[key] = {name: _inline(sub, stack) for name, sub in value.items()}
        else:
            out[key] = _inline(value, stack)
    return out


def _declared_names(schema: dict[str, Any]) -> set[str]:
    names = set(schema.get("properties", {}))
    for key in ("allOf", "anyOf", "oneOf"):
        for branch in schema.get(key, []):
            names |= _declared_names(branch)
    return names


def _closed(schema: Any, here: bool = True, depth: int = 0) -> Any:
    """The generation copy of a schema: every object limited to the property names it declares
    (its branches' included; the branches of allOf/anyOf/oneOf are not closed themselves, the
    object they describe together is), and below :data:`GENERATED_DEPTH` levels only the
    required properties are drawn."""
    if isinstance(schema, list):
        return [_closed(v, depth=depth) for v in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "properties":
            kept = (
                value
                if depth < GENERATED_DEPTH
                else {n: v for n, v in value.items() if n in schema.get("required", ())}
            )
            out[key] = {name: _closed(sub, depth=depth + 1) for name, sub in kept.items()}
        elif key in ("allOf", "anyOf", "oneOf"):
            out[key] = [_closed(branch, here=False, depth=depth) for branch in value]
        else:
            out[key] = _closed(value, depth=depth + 1)
    names = _declared_names(out)
    open_ended = {"additionalProperties", "patternProperties", "propertyNames"} & set(schema)
    if here and (names or "properties" in schema) and not open_ended:
        out["properties"] = {**{n: {} for n in sorted(names)}, **out.get("properties", {})}
        out["additionalProperties"] = False
    return out


def _body_schema(method: str, template: str) -> dict[str, Any]:
    operation = spec()["paths"][template][method]
    return operation["requestBody"]["content"]["application/json"]["schema"]


@functools.cache
def _valid_bodies(method: str, template: str) -> st.SearchStrategy:
    schema = _closed(_inline(_body_schema(method, template)))
    return from_schema(schema, custom_formats=CUSTOM_FORMATS)


def _path(sandbox, template: str) -> str:
    demo = sandbox.demo
    values = {
        "organizationId": sandbox.org_id,
        "spaceId": demo["space_ids"][0],
        "userId": demo["owner_id"],
        "teamId": demo["team_ids"][0],
    }
    path = template
    for name, value in values.items():
        path = path.replace("{" + name + "}", value)
    return path.replace("{", "unknown-").replace("}", "")


def _fingerprint(sandbox) -> bytes:
    state = sandbox._store.state
    with sandbox._store.lock:
        fields = {
            f.name: getattr(state, f.name) for f in dataclasses.fields(state) if f.name != "rng"
        }
        return pickle.dumps((fields, state.rng.getstate()))


def _refused_for_the_description(response) -> bool:
    if response.status_code != 400:
        return False
    return response.json()["error"]["message"].startswith(SCHEMA_ERROR_PREFIX)


@pytest.fixture
def api(sandbox):
    session = ApiSession(sandbox.url, sandbox.token, check=False)
    yield session
    session.close()


WRITES = _operations(with_body=True)


def test_every_write_operation_with_a_body_is_generated():
    assert len(WRITES) >= 20
    assert ("patch", "/spaces/{spaceId}") in WRITES


WRONG_VALUES = [None, True, 0, 1.5, "x", [], {}, [None], {"x": None}]


def _valid_and_broken(method: str, template: str, oracle: Draft202012Validator) -> Any:
    """Pairs of a valid body and the same body broken in one place (or a non-object)."""
    valid = _valid_bodies(method, template)

    @st.composite
    def pairs(draw: Any) -> tuple[Any, Any]:
        body = draw(valid)
        assume(oracle.is_valid(body))
        kind = draw(st.sampled_from(["not-an-object", "wrong-value", "missing-key"]))
        if kind == "not-an-object" or not isinstance(body, dict) or not body:
            broken: Any = draw(st.sampled_from([None, True, 3, "text", [body]]))
        else:
            key = draw(st.sampled_from(sorted(body)))
            broken = dict(body)
            if kind == "wrong-value":
                broken[key] = draw(st.sampled_from(WRONG_VALUES))
            else:
                del broken[key]
        assume(not oracle.is_valid(broken))
        return body, broken

    return pairs()


@pytest.mark.parametrize(("method", "template"), WRITES, ids=[f"{m} {t}" for m, t in WRITES])
def test_generated_bodies_follow_the_description(sandbox, api, method, template):
    """Valid bodies are not refused for the description; broken ones are, changing nothing."""
    oracle = _oracle(_body_schema(method, template))
    path = _path(sandbox, template)

    @SETTINGS
    @given(_valid_and_broken(method, template, oracle))
    def run(bodies):
        body, broken = bodies
        sandbox.reset()
        before = _fingerprint(sandbox)
        refused = api.request(method.upper(), path, data=json.dumps(broken))
        assert _refused_for_the_description(refused), (broken, refused.status_code, refused.text)
        validate(refused)
        assert _fingerprint(sandbox) == before
        response = api.request(method.upper(), path, json=body)
        assert response.status_code < 500, (body, response.text)
        assert not _refused_for_the_description(response), (body, response.text)
        validate(response)

    run()


QUERIES = _operations(with_body=False)


def _as_query(value: Any) -> str | list[str]:
    if isinstance(value, list):  # an array parameter: one value per item (type=a&type=b)
        return [str(_as_query(item)) for item in value]
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


@pytest.mark.parametrize(("method", "template"), QUERIES, ids=[f"{m} {t}" for m, t in QUERIES])
def test_valid_query_values_are_not_refused_for_the_description(sandbox, api, method, template):
    parameters = _query_parameters(spec()["paths"][template][method])
    strategies = {
        p["name"]: from_schema(_inline(p["schema"]), custom_formats=CUSTOM_FORMATS).map(_as_query)
        for p in parameters
    }
    required = {p["name"] for p in parameters if p.get("required")}
    path = _path(sandbox, template)
    optional = {n: s for n, s in strategies.items() if n not in required}

    @SETTINGS
    @given(st.fixed_dictionaries({n: strategies[n] for n in required}, optional=optional))
    def run(params):
        sandbox.reset()
        response = api.request(method.upper(), path, params=params)
        assert response.status_code < 500, (params, response.text)
        assert not _refused_for_the_description(response), (params, response.text)
        validate(response)

    run()


# -- path parameters ------------------------------------------------------------------------------
#: A value breaking the description's id pattern (``EntityId``: letters, digits, ``_`` and ``-``).
MALFORMED_ID = "bad.id"


def _patterned_path_parameters() -> list[tuple[str, str, int, str]]:
    """(method, sandbox rule, position, name) of every path parameter, in every route of the
    sandbox's route table, whose schema in the description has a pattern."""
    from docsapi.sandbox._app import ROUTES
    from docsapi.sandbox.core._validation import path_arguments, path_shape

    templates = {
        (method.upper(), path_shape(template)): template
        for template, item in spec()["paths"].items()
        for method in item
    }
    found = []
    for route in ROUTES:
        template = templates.get((route.method, path_shape(route.rule)))
        if template is None:
            continue
        item = spec()["paths"][template]
        parameters = [
            *item.get("parameters", []),
            *item[route.method.lower()].get("parameters", []),
        ]
        declared = {p["name"]: p for p in map(_resolve, parameters) if p["in"] == "path"}
        for position, name in enumerate(path_arguments(template)):
            if "pattern" in _resolve(declared[name]["schema"]):
                found.append((route.method, route.rule, position, name))
    return found


PATTERNED = _patterned_path_parameters()


def test_every_delete_route_with_an_id_pattern_is_covered():
    deletes = {rule for method, rule, *_ in PATTERNED if method == "DELETE"}
    assert "/collections/<collection_id>" in deletes
    assert "/orgs/<org_id>/teams/<team_id>" in deletes
    assert "/orgs/<org_id>/link-invites/<invite_id>" in deletes
    assert len(deletes) >= 10


@pytest.mark.parametrize(
    ("method", "rule", "position", "name"),
    PATTERNED,
    ids=[f"{m} {r} {n}" for m, r, _, n in PATTERNED],
)
def test_an_id_breaking_the_description_pattern_is_400(sandbox, api, method, rule, position, name):
    """Every route, DELETE included (not a 204), answers an id breaking the description's
    pattern with the API's 400 naming the parameter, changing nothing."""
    placeholders = itertools.count()
    path = re.sub(
        r"<[^>]+>",
        lambda _: MALFORMED_ID if next(placeholders) == position else "valid-id",
        rule,
    )
    before = _fingerprint(sandbox)
    body = {} if method in ("PATCH", "PUT", "POST") else None
    response = api.request(method, path, json=body)
    assert response.status_code == 400, (method, path, response.text)
    message = response.json()["error"]["message"]
    assert message.startswith(SCHEMA_ERROR_PREFIX), message
    assert f"path parameter {name!r}" in message and MALFORMED_ID in message, message
    validate(response)
    assert _fingerprint(sandbox) == before
