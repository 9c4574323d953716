"""client.api: path parameters are one segment, numbers are finite, patterns end at the end.

Every operation of the description with a path parameter gets each hostile value in turn; the
call must raise a ValidationError naming that parameter, and nothing may reach the sandbox.
"""

from __future__ import annotations

import warnings

import pytest

import docsapi
from docsapi.api import StreamingNotSupportedError, catalog
from docsapi.api._validate_args import schema_validator
from docsapi.sandbox.core._validation import _Schema

HOSTILE_SEGMENTS = [
    ".",
    "..",
    "%2e%2e",
    "%2E.",
    "a/b",
    "%2F",
    "a%2Fb",
    "sp1\n",
    "sp1\r\nX-Injected: 1",
    "\x00",
    "a\tb",
    "a b",
    " ",
    "\u2028",
    "x" * 10_000,
]
HOSTILE_PAGE_PATHS = ["../x", "a/../b", "./a", "a//b", "%2e%2e/a", "a\nb", "a/\x00"]


def _operations():
    seen = set()
    for group, operations in catalog().items():
        for operation in operations:
            if operation.operation_id not in seen and operation.path_parameters:
                seen.add(operation.operation_id)
                yield group, operation


OPERATIONS = list(_operations())


def _call(client, group, operation, index, value):
    arguments = ["x1"] * len(operation.path_parameters)
    arguments[index] = value
    method = getattr(getattr(client.api, group), operation.python_name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return method(*arguments)


@pytest.mark.parametrize("value", HOSTILE_SEGMENTS, ids=lambda v: repr(v)[:20])
def test_every_path_parameter_refuses_what_is_not_one_segment(client, sandbox, value):
    before = sandbox.request_count
    problems = []
    for group, operation in OPERATIONS:
        for index, parameter in enumerate(operation.path_parameters):
            if parameter.name.endswith("Path") and value in ("a/b", "a b"):
                continue  # a page path may have several segments, slugs may have spaces
            try:
                _call(client, group, operation, index, value)
            except StreamingNotSupportedError:
                continue
            except docsapi.ValidationError as error:
                if error.argument != parameter.python_name:
                    problems.append(f"{operation.python_name}: names {error.argument}")
            except Exception as error:
                problems.append(f"{operation.python_name}.{parameter.python_name}: {error!r:.80}")
            else:
                problems.append(f"{operation.python_name}.{parameter.python_name}: accepted")
    assert problems == []
    assert sandbox.request_count == before


@pytest.mark.parametrize("value", HOSTILE_PAGE_PATHS, ids=repr)
def test_page_path_parameters_refuse_dot_and_empty_segments(client, sandbox, value):
    paths = [(g, op) for g, op in OPERATIONS if op.path_parameters[-1].name == "pagePath"]
    assert paths
    before = sandbox.request_count
    for group, operation in paths:
        with pytest.raises(docsapi.ValidationError) as caught:
            _call(client, group, operation, len(operation.path_parameters) - 1, value)
        assert caught.value.argument == "page_path"
    assert sandbox.request_count == before


def test_a_page_path_of_several_segments_is_sent(client, sandbox):
    space = sandbox.demo["space_ids"][0]
    page = client.content.pages(space).query("depth == 2").iloc[0]
    found = client.api.space_content.get_page_by_path(space, page.path)
    assert found["id"] == page.id


@pytest.mark.parametrize("number", [float("nan"), float("inf"), float("-inf")], ids=repr)
def test_numbers_must_be_finite_in_queries_and_bodies(client, sandbox, number):
    org = sandbox.org_id
    before = sandbox.request_count
    with pytest.raises(docsapi.ValidationError) as caught:
        client.api.sites.list_sites(org, limit=number)
    assert caught.value.argument == "limit"
    space = sandbox.demo["space_ids"][0]
    with pytest.raises(docsapi.ValidationError) as caught:
        client.api.spaces.update_space_by_id(space, body={"title": "T", "extra": [1, number]})
    assert caught.value.argument == "body.extra[1]"
    assert "finite" in str(caught.value)
    assert sandbox.request_count == before


def test_a_pattern_ending_in_dollar_refuses_a_trailing_line_break(client, sandbox):
    """Python's ``$`` matches before a final "\\n"; the description's (ECMA-262) does not."""
    before = sandbox.request_count
    with pytest.raises(docsapi.ValidationError) as caught:
        client.api.spaces.get_space_by_id("sp1\n")
    assert caught.value.argument == "space_id"
    assert sandbox.request_count == before
    entity_id = schema_validator("#/components/schemas/EntityId")
    assert entity_id.is_valid("sp1") and not entity_id.is_valid("sp1\n")
    hostname = schema_validator("#/components/schemas/SiteHostname")
    assert hostname.is_valid("docs.acme.example") and not hostname.is_valid("docs.acme.example\n")


def test_the_sandbox_reads_patterns_as_the_description_means_them():
    schema = _Schema({"type": "string", "pattern": "^[a-z]+$"}, {})
    assert schema.validator.is_valid("abc")
    assert not schema.validator.is_valid("abc\n")
    unanchored = _Schema({"type": "string", "pattern": "\\S.*\\S"}, {})
    assert unanchored.validator.is_valid("Acme\n")  # the description's own choice


def _deep(levels: int) -> list:
    root: list = []
    node = root
    for _ in range(levels):
        node.append([])
        node = node[0]
    return root


@pytest.mark.parametrize(
    ("body", "argument", "rule"),
    [
        ({"title": "T", 1: "a"}, "body", "keys must be strings"),
        ({"title": "T", "x": {2: "b"}}, "body.x", "keys must be strings"),
        ({"title": "T", "x": object()}, "body.x", "must be a JSON value"),
        ({"title": "T", "x": _deep(5_000)}, "body", "nested more than 64 levels"),
        ({"title": "T", "x": _deep(70)}, "body.x", "nested more than 64 levels"),
        ({"title": "a\ud800b"}, "body.title", "lone surrogate"),
    ],
    ids=["int key", "nested int key", "object", "5000 deep", "70 deep", "surrogate"],
)
def test_bodies_json_cannot_carry_are_refused_where_they_break(
    client, sandbox, body, argument, rule
):
    before = sandbox.request_count
    space = sandbox.demo["space_ids"][0]
    with pytest.raises(docsapi.ValidationError, match=rule) as caught:
        client.api.spaces.update_space_by_id(space, body=body)
    assert caught.value.argument == argument
    assert sandbox.request_count == before


def test_keyword_and_query_values_json_cannot_carry_are_refused(client, sandbox):
    from decimal import Decimal

    before = sandbox.request_count
    space = sandbox.demo["space_ids"][0]
    with pytest.raises(docsapi.ValidationError, match="lone surrogate") as caught:
        client.api.spaces.update_space_by_id(space, title="a\ud800b")
    assert caught.value.argument == "title"
    with pytest.raises(docsapi.ValidationError, match="lone surrogate") as caught:
        client.api.sites.list_sites(sandbox.org_id, title="a\ud800")
    assert caught.value.argument == "title"
    with pytest.raises(docsapi.ValidationError, match="finite") as caught:
        client.api.sites.list_sites(sandbox.org_id, limit=Decimal("NaN"))
    assert caught.value.argument == "limit"
    assert sandbox.request_count == before
    assert client.api.sites.list_sites(sandbox.org_id, limit=Decimal("5")).shape[0] <= 5


@pytest.mark.parametrize("text", [5, None, b"insights", ["insights"]], ids=repr)
def test_find_refuses_what_is_not_text(client, text):
    with pytest.raises(docsapi.ValidationError) as caught:
        client.api.find(text)
    assert caught.value.argument == "text"
