"""Any http(s) base URL: the API at the root, under /v1, or under a gateway's path."""

from __future__ import annotations

import json
from typing import Any

import pytest

import docsapi
from docsapi.api._spec import load_description
from docsapi.sandbox import Sandbox, ServerThread


@pytest.mark.parametrize("prefix", ["", "/gitbook"])
def test_the_client_and_the_audit_work_wherever_the_api_sits(prefix):
    with Sandbox(seed=0, prefix=prefix) as sandbox:
        assert sandbox.url == sandbox.root_url + prefix
        client = sandbox.client()
        assert client.users.me().id == sandbox.demo["owner_id"]
        spaces = client.spaces.list(org_id=sandbox.org_id)
        assert len(spaces) == len(sandbox.demo["space_ids"])
        audit = docsapi.audit_permissions(client, sandbox.org_id, progress=False)
        assert audit.complete and audit.count("spaces") == len(spaces)
        paths = {path for _, path, _ in sandbox.request_log}
        assert all(path.startswith(f"{prefix}/") for path in paths)
        assert not any(path.startswith("/v1/") for path in paths)


def test_the_sandbox_refuses_a_prefix_that_is_not_a_path():
    for prefix in ("v1", "/_sandbox", "/a b", "/../x", None):
        with pytest.raises(ValueError, match="prefix must be"):
            Sandbox(prefix=prefix)


# -- a server made from the description alone, with the API at its root -------------------------


def _resolve(schema: Any, description: dict[str, Any]) -> Any:
    while isinstance(schema, dict) and "$ref" in schema:
        node: Any = description
        for part in schema["$ref"].removeprefix("#/").split("/"):
            node = node[part]
        schema = node
    return schema


def instance(schema: Any, description: dict[str, Any], depth: int = 0) -> Any:
    """The smallest value the schema accepts, with one item in each array (a few levels deep)."""
    schema = _resolve(schema, description)
    if not isinstance(schema, dict):
        return None
    if "allOf" in schema:
        merged: dict[str, Any] = {}
        for part in schema["allOf"]:
            value = instance(part, description, depth)
            if isinstance(value, dict):
                merged.update(value)
        return merged
    for alternatives in ("oneOf", "anyOf"):
        if alternatives in schema:
            return instance(schema[alternatives][0], description, depth)
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type", "object" if "properties" in schema else None)
    if isinstance(kind, list):
        kind = next(k for k in kind if k != "null")
    if kind == "object":
        properties = schema.get("properties", {})
        return {
            name: instance(properties.get(name, {}), description, depth + 1)
            for name in schema.get("required", [])
        }
    if kind == "array":
        return [instance(schema.get("items", {}), description, depth + 1)] if depth < 4 else []
    if kind == "string":
        formats = {"date-time": "2026-01-05T09:30:00.000Z", "uri": "https://example.com/x"}
        return formats.get(schema.get("format"), "x" * max(1, schema.get("minLength", 1)))
    if kind in ("integer", "number"):
        return schema.get("minimum", 1)
    if kind == "boolean":
        return False
    return None


def _parameterless_gets(description: dict[str, Any]) -> dict[str, tuple[str, Any]]:
    """path -> (operationId, 200 schema) of every GET without a path or required parameter."""
    found = {}
    for path, item in description["paths"].items():
        operation = item.get("get")
        if operation is None:
            continue
        parameters = [
            _resolve(p, description)
            for p in (*item.get("parameters", ()), *operation.get("parameters", ()))
        ]
        if any(p.get("in") == "path" or p.get("required") for p in parameters):
            continue
        content = operation["responses"]["200"].get("content", {})
        found[path] = (operation["operationId"], content["application/json"]["schema"])
    return found


def test_every_parameterless_get_answers_from_a_server_at_the_root():
    description = load_description()
    answers = {
        path: json.dumps(instance(schema, description)).encode()
        for path, (_, schema) in _parameterless_gets(description).items()
    }
    seen: list[str] = []

    def app(environ, start_response):
        path = environ["PATH_INFO"]
        seen.append(path)
        body = answers.get(path)
        status = "200 OK" if body is not None else "404 Not Found"
        body = body or b'{"error": {"code": 404, "message": "no such operation"}}'
        start_response(status, [("Content-Type", "application/json")])
        return [body]

    operations = docsapi.DocsClient(token="gb_api_t", base_url="http://x").api.find("")
    names = zip(operations["group"], operations["name"], strict=True)
    by_id = dict(zip(operations["operation_id"], names, strict=True))
    with ServerThread(app) as server:
        client = docsapi.DocsClient(token="gb_api_t", base_url=server.url)  # no /v1
        for path, (operation_id, _) in _parameterless_gets(description).items():
            group, name = by_id[operation_id]
            seen.clear()
            result = getattr(getattr(client.api, group), name)()
            assert result is not None, operation_id
            assert seen and seen[0] == path, (operation_id, seen)
    assert len(answers) >= 4  # information, the token's user, integrations, organizations
