"""client.api covers every operation of the full description, with matching signatures and docs.

The operations are read from the vendored full description (``tests/openapi/``), not from the
package's copy, so a new version of the description is covered by replacing that file.
"""

from __future__ import annotations

import inspect
import keyword
import re
import subprocess
import sys

import pytest
from api_recording import BASE_URL, TOKEN, RecordingSession, full_spec

import docsapi
from docsapi.api import ApiGroup, ApiNamespace, ApiObject

HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


def _snake(name: str) -> str:
    text = re.sub(r"[^0-9A-Za-z]+", "_", name)
    text = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", text)
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", text).strip("_").lower()
    return text + "_" if keyword.iskeyword(text) else text


def _deref(node):
    document = full_spec()
    while isinstance(node, dict) and "$ref" in node:
        target = document
        for token in node["$ref"][2:].split("/"):
            target = target[token.replace("~1", "/").replace("~0", "~")]
        node = target
    return node


def _description_operations():
    for path, item in full_spec()["paths"].items():
        for method in HTTP_METHODS:
            if method in item:
                yield method, path, item[method]


OPERATIONS = list(_description_operations())
IDS = [operation["operationId"] for _, _, operation in OPERATIONS]


@pytest.fixture(scope="module")
def api() -> ApiNamespace:
    return docsapi.DocsClient(token=TOKEN, base_url=BASE_URL, session=RecordingSession()).api


def _groups(path: str, operation: dict) -> list[str]:
    return [_snake(t) for t in operation.get("tags") or [path.strip("/").split("/")[0]]]


def test_every_operation_is_reachable(api, capsys):
    reached = 0
    for method, path, operation in OPERATIONS:
        for group in _groups(path, operation):
            function = getattr(getattr(api, group), _snake(operation["operationId"]))
            assert function.operation.method == method.upper()
            assert function.operation.path == path
        reached += 1
    assert reached == len(OPERATIONS) == len(api)
    with capsys.disabled():  # shown in the test run's output
        print(f"\nclient.api covers {reached}/{len(OPERATIONS)} operations of the API description")


@pytest.mark.parametrize(("method", "path", "operation"), OPERATIONS, ids=IDS)
def test_signature_matches_the_description(api, method, path, operation):
    group = _groups(path, operation)[0]
    function = getattr(getattr(api, group), _snake(operation["operationId"]))
    parameters = inspect.signature(function).parameters
    declared = [_deref(p) for p in operation.get("parameters", [])]
    in_path = sorted(
        (p for p in declared if p["in"] == "path"), key=lambda p: path.index("{" + p["name"] + "}")
    )
    positional = [name for name, p in parameters.items() if p.kind is p.POSITIONAL_OR_KEYWORD]
    assert positional == [_snake(p["name"]) for p in in_path]
    assert all(parameters[name].default is inspect.Parameter.empty for name in positional)
    for parameter in declared:
        if parameter["in"] == "path":
            continue
        python = parameters[_snake(parameter["name"])]
        assert python.kind is python.KEYWORD_ONLY
        assert (python.default is inspect.Parameter.empty) == bool(parameter.get("required"))
    body = _deref(operation.get("requestBody"))
    assert ("body" in parameters) == (body is not None)
    expected = {_snake(p["name"]) for p in declared} | ({"body"} if body is not None else set())
    if body is not None:
        schema = _deref(body["content"]["application/json"]["schema"])
        hidden = set(function.operation.body.hidden)
        for name in schema.get("properties", {}):
            if name not in hidden:
                assert parameters[_snake(name)].kind is inspect.Parameter.KEYWORD_ONLY
                expected.add(_snake(name))
        for part in schema.get("allOf", []):
            expected |= {_snake(n) for n in _deref(part).get("properties", {})} - {
                _snake(h) for h in hidden
            }
    assert expected <= set(parameters)
    extra = set(parameters) - expected
    assert all(parameters[name].default is not inspect.Parameter.empty for name in extra)


@pytest.mark.parametrize(("method", "path", "operation"), OPERATIONS, ids=IDS)
def test_docstring_is_written_from_the_description(api, method, path, operation):
    group = _groups(path, operation)[0]
    function = getattr(getattr(api, group), _snake(operation["operationId"]))
    doc = inspect.getdoc(function)
    assert doc.splitlines()[0].rstrip(".") == operation["summary"].strip().rstrip(".")
    assert f"``{method.upper()} {path}``" in doc
    assert ("deprecated" in doc.split("\n\n")[1]) == bool(operation.get("deprecated"))
    for parameter in operation.get("parameters", []):
        assert f"\n{_snake(_deref(parameter)['name'])} : " in doc
    assert "Returns\n-------" in doc and "Raises\n------" in doc


def test_no_group_hides_a_helper_of_the_namespace(api):
    helpers = {name for name in dir(ApiNamespace) if not name.startswith("_")}
    assert not helpers & set(api.groups)
    for group in api.groups:
        own = {name for name in dir(ApiGroup) if not name.startswith("_")}
        assert not own & set(getattr(api, group).operations), group


def test_tab_completion_lists_groups_and_operations(api):
    assert {"sites", "site_insights", "spaces", "organization_members"} <= set(dir(api))
    assert "list_sites" in dir(api.sites)
    assert "aggregate_site_events" in dir(api.site_insights)


def test_unknown_names_suggest_the_closest(api):
    with pytest.raises(AttributeError, match="did you mean 'sites'"):
        api.sitez  # noqa: B018
    with pytest.raises(AttributeError, match="did you mean 'list_sites'"):
        api.sites.list_site  # noqa: B018


def test_displays_list_operations_per_group(api):
    html = api._repr_html_()
    markdown = api._repr_markdown_()
    for group in api.groups:
        assert f"client.api.{group}" in html and f"client.api.{group}" in markdown
    assert "list_sites" in html and "377 operations" in markdown
    group_md = api.site_insights._repr_markdown_()
    assert "aggregate_site_events(organization_id, site_id, *" in group_md
    assert "(deprecated)" in group_md  # submitSiteAgentFeedback is deprecated
    assert "<code>list_sites(organization_id, *" in api.sites._repr_html_()


def test_operation_lookup_and_catalog(api):
    assert api.operation("listSites") is api.sites.list_sites
    assert api.operation("list_sites") is api.sites.list_sites
    with pytest.raises(docsapi.ValidationError, match="operation_id"):
        api.operation("noSuchOperation")
    catalog = api.operations()
    assert catalog["operation_id"].nunique() == len(OPERATIONS)
    assert set(catalog["returns"]) == {"DataFrame", "ApiObject", "None", "event stream"}
    found = api.find("visitor-segments")
    assert list(found["name"]) == ["list_site_visitor_segments"]


def test_return_annotations_say_what_comes_back(api):
    assert inspect.signature(api.sites.list_sites).return_annotation == "pandas.DataFrame"
    assert inspect.signature(api.spaces.get_space_by_id).return_annotation == "ApiObject"
    assert inspect.signature(api.spaces.delete_space_by_id).return_annotation == "None"
    assert ApiObject.__name__ in api.spaces.get_space_by_id.__doc__


def test_import_stays_cheap_and_the_description_loads_on_first_use():
    code = (
        "import sys, docsapi\n"
        "heavy = {'pandas', 'jsonschema', 'referencing', 'docsapi.api'}\n"
        "print(sorted(heavy & set(sys.modules)))\n"
        "client = docsapi.DocsClient(token='t')\n"
        "print(sorted({'jsonschema', 'referencing'} & set(sys.modules)))\n"
        "client.api.sites\n"
        "print('docsapi.api._spec' in sys.modules, 'jsonschema' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert out == ["[]", "[]", "True False"]
