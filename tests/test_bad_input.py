"""Every public method refuses bad arguments with a ValidationError before anything is sent.

The table below names bad values per parameter; the tests walk every public method of every
resource group (found by introspection, so a new method or parameter without an entry here
fails ``test_every_parameter_has_bad_values``), substitute one bad value at a time into an
otherwise valid call, and check that a ValidationError naming the parameter is raised and
that the sandbox saw no request.
"""

from __future__ import annotations

import inspect
import re
from datetime import date, datetime

import pytest
from method_arguments import ADS_VALID, EXTRA, VALID

import docsapi
from docsapi import DocsClient, ValidationError
from docsapi.client import _resource_groups
from docsapi.core.reprs import method_listing

LONG = "x" * 10_000


def _stable_id(value: object) -> str:
    """A test id that is the same in every process (an object's repr holds its address)."""
    return re.sub(r" at 0x[0-9a-f]+", "", repr(value))


# -- bad values per kind of argument ----------------------------------------------------------

#: Not one path segment, or not a string.
SEGMENT_BAD = [
    1,
    1.5,
    b"sp1",
    ["sp1"],
    "",
    " ",
    ".",
    "..",
    "a/b",
    "/sp1",
    "sp1/",
    "%2e%2e",
    "%2E%2e",
    "%2F",
    "a%2Fb",
    "sp1\n",
    "sp1\r\nX-Injected: 1",
    "\x00",
    "a b",
    "a\\b",
    "a?b",
    "a#b",
    LONG,
]
ID_BAD = [None, *SEGMENT_BAD]
ENTITY_ID_BAD = [*ID_BAD, "a.b", "a~b"]
OPTIONAL_ENTITY_ID_BAD = [v for v in ENTITY_ID_BAD if v is not None]
OPTIONAL_ID_BAD = [v for v in ID_BAD if v is not None]
PAGE_PATH_BAD = [
    None,
    1,
    b"a",
    "",
    "/",
    "//",
    ".",
    "..",
    "a/../b",
    "./a",
    "a/./b",
    "a//b",
    "../secret",
    "%2e%2e/a",
    "a%2Fb",
    "a\nb",
    "a\\b",
    "a/\x00",
    LONG,
]
URL_BAD = [
    None,
    1,
    b"https://x.example",
    "",
    "ftp://x.example/a",
    "https://",
    "javascript:alert(1)",
    "https://x.example/\n",
    "https://x.example/a b",
    "https://x.example/" + LONG,
]
QUERY_BAD = [None, 1, b"q", "", "   ", "\x00\x01\x02", "a\nb", "\r\n", "\t", "q" * 513]
ROLE_BAD = [1, "", "owner", "guest", "READ", b"read", ["read"], "read\n"]
LIMIT_BAD = [0, -1, 1001, "5", True, 1.5, None.__class__]
TEXT_LINE_BAD = [None, 1, b"t", "a\x00b", "a\nb"]
#: Not a moment with a time zone.
INSTANT_BAD = [
    datetime(2025, 1, 31, 12),
    "2025-01-31T12:00:00",
    "2025-01-31",
    "yesterday",
    "",
    "2025-01-31T12:00:00Z\n",
    1,
    1.5,
    b"2025-01-31T12:00:00Z",
    date(2025, 1, 31),
]
POSITION_BAD = [
    "after:sp2",
    {},
    {"beside": "sp2"},
    {"after": 3},
    {"after": ".."},
    {"after": "a/b"},
    {"before": "a", "after": "b"},
    {"after": {"collection": "%2e%2e"}},
    7,
]
FLAG_BAD = [None, 1, 0, "true", "yes", b"1"]

#: Bad values by parameter name (``group.method.parameter`` wins over ``parameter``).
BAD = {
    "space_id": ENTITY_ID_BAD,
    "team_id": ENTITY_ID_BAD,
    "org_id": ENTITY_ID_BAD,
    "file_id": ENTITY_ID_BAD,
    "page_id": ENTITY_ID_BAD,
    "reusable_content_id": ENTITY_ID_BAD,
    "user_id": ID_BAD,
    "template_id": ID_BAD,
    "share_key": OPTIONAL_ID_BAD,
    "change_request_id": OPTIONAL_ENTITY_ID_BAD,
    "spaces.list.org_id": OPTIONAL_ENTITY_ID_BAD,
    "spaces.list.user_id": [v for v in OPTIONAL_ID_BAD],
    "spaces.move.parent": OPTIONAL_ENTITY_ID_BAD,
    "spaces.move.position": POSITION_BAD,
    "collection_id": ENTITY_ID_BAD,
    "invite_id": ENTITY_ID_BAD,
    "site_id": ID_BAD,
    "share_link_id": ID_BAD,
    "collections.create.parent": OPTIONAL_ENTITY_ID_BAD,
    "collections.move.parent": OPTIONAL_ENTITY_ID_BAD,
    "collections.move.position": POSITION_BAD,
    "collections.list.nested": FLAG_BAD,
    "collections.aggregate.role": [*ROLE_BAD, "inherit"],
    "permissions.aggregate.role": [*ROLE_BAD, "inherit"],
    "description": [None, 1, "x" * 101, "a\x00b", b"d"],
    "sites.update.title": [None, 1, "", "x", "x" * 129, "a\x00b"],
    "visibility": [None, 1, "", "private", "Public", b"public"],
    "basename": [None, 1, "", "x" * 101, "a\nb"],
    "adaptive_content": FLAG_BAD,
    "default_site_section": ID_BAD,
    "proxy": [
        1,
        b"company.com/docs",
        "",
        "https://company.com/docs",
        "company.com",
        "company.com/",
        "company/docs",
        "company.com/docs/",
        "company.com/docs\n",
        "company.com/d\u00e9j\u00e0",
        "a." * 300 + "com/docs",
    ],
    "styleguide": OPTIONAL_ID_BAD,
    "name": [None, 1, "x" * 51, "a\x00b", "a\nb", b"n"],
    "active": FLAG_BAD,
    "sites.set_user_role.role": [None, *ROLE_BAD],
    "sites.set_team_role.role": [None, *ROLE_BAD],
    "orgs.create_team.title": [None, 1, "", "x" * 65, "a\x00b", "a\nb"],
    "orgs.update_team.title": [None, 1, "", "x" * 65, "a\x00b", "a\nb"],
    "members": ["u1", [None], [""], [".."], ["a/b"], 1, {"u1": 1}, ["u1\n"]],
    "orgs.add_team_member.role": ["admin", "", "Owner", 1, b"owner", ["member"]],
    "orgs.create_invite_link.space_id": OPTIONAL_ENTITY_ID_BAD,
    "orgs.create_invite_link.collection_id": OPTIONAL_ENTITY_ID_BAD,
    "since": INSTANT_BAD,
    "until": INSTANT_BAD,
    "action": [1, "", "a\nb", b"x"],
    "actor_id": OPTIONAL_ID_BAD,
    "target_id": OPTIONAL_ID_BAD,
    # An audit log's target id may name two ids (``<space>/user/<user>``): a query value, not
    # a path segment, so only what no id is.
    "orgs.audit_events.target_id": [
        *(v for v in OPTIONAL_ID_BAD if v != "a/b"),  # two ids: a permission
        "a//b",
        "s1/../u1",
        "s1/user/u1\n",
    ],
    "orgs.audit_events.progress": FLAG_BAD,
    "display_name": ["", " ", "x" * 65, 5, "a\nb", b"Ada"],
    "photo_url": URL_BAD[1:],
    "url": URL_BAD,
    "query": QUERY_BAD,
    "limit": [0, -1, 1001, "5", True, 1.5],
    "role": ROLE_BAD,
    "users": ["u1", [None], [""], [".."], ["a/b"], 1, {"u1": 1}, ["u1\n"]],
    "teams": ["tm1", [None], [""], [".."], ["a/b"], 1, {"tm1": 1}],
    "title": [None, 1, "x" * 51, "a\x00"],
    "edit_mode": [None, 1, "", "frozen"],
    "default_level": [1, "", "owner"],
    "language": [None, 1, "", "tlh"],
    "merge_rules": ["inherit", {}, {"type": "x"}, {"type": "rules"}, {1: "x"}],
    "emoji": ["", 1, "x" * 51, "a\x00"],
    "icon": ["rocket", "", 1, "ftp://x.example/i.png", "https://x.example/\n"],
    "path": PAGE_PATH_BAD,
    "format": ["", "html", 1],
    "markdown_refs": ["", "absolute", 1],
    "evaluated": ["yes", 1, ""],
    "dereferenced": ["yes", 1, ""],
    "source": [None, [], {}, "x", {1: "a"}],
    "seed": [None, "", 1, "a\nb"],
    "schema": ["", "future", 1],
    "params": ["a=1", [1], {1: 2}],
    "ref": [None, "", 1, "main\n"],
    "commit_message": [None, "", 1, "msg\x00"],
    "subject": [1, "x" * 101, "a\x00", "a\nb"],
    "status": ["", "bogus", 1, b"open"],
}
#: Parameters taking any value the API accepts (none here yet besides catch-alls).
FREE = {"options"}


def _methods():
    client = DocsClient(token="gb_api_table", base_url="http://127.0.0.1:9/v1")
    for group, _ in _resource_groups(DocsClient):
        for name, _, _ in method_listing(getattr(client, group)):
            function = getattr(type(getattr(client, group)), name)
            yield group, name, inspect.signature(function)


METHODS = list(_methods())


def _cases():
    for group, name, signature in METHODS:
        for parameter in list(signature.parameters)[1:]:
            if parameter in FREE:
                continue
            values = BAD.get(f"{group}.{name}.{parameter}", BAD.get(parameter))
            yield pytest.param(group, name, parameter, values, id=f"{group}.{name}.{parameter}")


def _call(client, group, name, signature, parameter, value):
    key = f"{group}.{name}"
    kwargs = {**EXTRA.get(key, {}), parameter: value}
    positional = []
    for pname, spec in list(signature.parameters.items())[1:]:
        if spec.kind in (spec.VAR_KEYWORD, spec.VAR_POSITIONAL):
            continue
        if pname == parameter or pname in kwargs:
            continue
        if spec.default is spec.empty:
            kwargs[pname] = VALID[pname]
    method = getattr(getattr(client, group), name)
    bound = signature.bind_partial(None, *positional, **kwargs)
    return method(*bound.args[1:], **bound.kwargs)


def test_every_parameter_has_bad_values():
    missing = [
        f"{group}.{name}.{parameter}"
        for group, name, signature in METHODS
        for parameter in list(signature.parameters)[1:]
        if parameter not in FREE
        and f"{group}.{name}.{parameter}" not in BAD
        and parameter not in BAD
    ]
    assert missing == []


def _refused(call, parameter: str) -> list[str]:
    """Run ``call`` for each bad value; return the values that were not refused properly."""
    problems = []
    for value in call.values:
        try:
            call(value)
        except ValidationError as error:
            if parameter.split(".")[0] not in str(error):
                problems.append(f"{value!r:.40}: message does not name {parameter}: {error}")
        except Exception as error:
            problems.append(f"{value!r:.40}: {type(error).__name__}: {error}")
        else:
            problems.append(f"{value!r:.40}: accepted")
    return problems


@pytest.mark.parametrize(("group", "name", "parameter", "values"), list(_cases()))
def test_bad_value_is_refused_before_sending(client, sandbox, group, name, parameter, values):
    signature = next(sig for g, n, sig in METHODS if (g, n) == (group, name))
    before = sandbox.request_count

    def call(value):
        return _call(client, group, name, signature, parameter, value)

    call.values = values
    assert _refused(call, parameter) == []
    assert sandbox.request_count == before
    assert client.transport.request_count == 0


def test_baseline_calls_are_valid(client, sandbox):
    """The table's valid values pass validation (the sandbox answers, often 404)."""
    for group, name, signature in METHODS:
        parameters = list(signature.parameters)[1:]
        first = next(
            (p for p in parameters if signature.parameters[p].default is inspect.Parameter.empty),
            None,
        )
        if first is None or first in FREE:
            continue
        try:
            _call(client, group, name, signature, first, VALID[first])
        except ValidationError as error:
            pytest.fail(f"{group}.{name}: the baseline is refused: {error}")
        except docsapi.DocsAPIError:
            pass  # the sandbox answered; validation let it through


# -- git options, the escape hatches, constructors -----------------------------------------------

GIT_OPTION_BAD = [
    ("colour", "red"),
    ("force", 1),
    ("force", "true"),
    ("standalone", None),
    ("timestamp", "2020-01-01"),
    ("repo_tree_url", "ftp://x.example"),
    ("repo_project_directory", "a\x00b"),
]


@pytest.mark.parametrize(("option", "value"), GIT_OPTION_BAD)
@pytest.mark.parametrize("method", ["import_repo", "export_repo"])
def test_git_options_are_checked(client, sandbox, method, option, value):
    extra = {"commit_message": "Sync"} if method == "export_repo" else {}
    before = sandbox.request_count
    with pytest.raises(ValidationError, match=option):
        getattr(client.git, method)(
            "sp1", url=VALID["url"], ref=VALID["ref"], **extra, **{option: value}
        )
    assert sandbox.request_count == before


PATHS_BAD = [
    None,
    1,
    b"/user",
    "",
    "/../_sandbox/",
    "../_sandbox/",
    "/%2e%2e/_sandbox/",
    "/%252e%252e/_sandbox/",
    "/spaces/../_sandbox/reset",
    "/spaces/./x",
    "/spaces/x/..",
    "/spaces/x/%2E",
    "http://127.0.0.1:9/v1/user",
    "//evil.example/v1",
    "/a b",
    "/user\n",
    "/user\r\nX: 1",
    "/user?x=1",
    "/user#top",
    "/a//b",
    "/a\\b",
    "/" + LONG,
]
PARAMS_BAD = [
    "a=1",
    [("a", 1)],
    {"a": float("nan")},
    {"a": float("inf")},
    {"a": {"b": 1}},
    {1: "x"},
    {"": "x"},
    {"q": "\x00"},
    {"q": "a\r\nb"},
    {"a": [{"b": 1}]},
    {"a": b"x"},
]
JSON_BAD = [{1, 2}, float("nan"), object(), {"a": float("inf")}, {"a": {"b": {1, 2}}}]


@pytest.mark.parametrize("path", PATHS_BAD, ids=_stable_id)
def test_request_and_paginate_refuse_paths_leaving_the_base_url(client, sandbox, path):
    before = sandbox.request_count
    with pytest.raises(ValidationError, match="path"):
        client.request("GET", path)
    with pytest.raises(ValidationError, match="path"):
        client.paginate(path)
    with pytest.raises(ValidationError, match="path"):
        client.transport.request("GET", path)
    assert sandbox.request_count == before


@pytest.mark.parametrize("params", PARAMS_BAD, ids=_stable_id)
def test_request_and_paginate_refuse_bad_params(client, sandbox, params):
    before = sandbox.request_count
    with pytest.raises(ValidationError, match="params"):
        client.request("GET", "/user", params=params)
    with pytest.raises(ValidationError, match="params"):
        client.paginate("/orgs", params=params)
    assert sandbox.request_count == before


@pytest.mark.parametrize("body", JSON_BAD, ids=_stable_id)
def test_request_refuses_a_body_that_is_not_json(client, sandbox, body):
    before = sandbox.request_count
    with pytest.raises(ValidationError, match="json"):
        client.request("POST", "/spaces/sp1/duplicate", json=body)
    assert sandbox.request_count == before


@pytest.mark.parametrize("method", [None, 1, "", "FETCH", "GET\n", "GE T"], ids=_stable_id)
def test_request_refuses_unknown_methods(client, sandbox, method):
    before = sandbox.request_count
    with pytest.raises(ValidationError, match="method"):
        client.request(method, "/user")
    assert sandbox.request_count == before


def test_encoded_slashes_within_a_segment_still_reach_page_paths(client, sandbox):
    space = sandbox.demo["space_ids"][0]
    page = client.content.pages(space).query("depth == 1").iloc[0]
    by_path = client.request("GET", f"/spaces/{space}/content/path/{page.path.replace('/', '%2F')}")
    assert by_path["id"] == page.id


CONSTRUCTOR_BAD = [
    ("token", 1),
    ("token", b"gb_api_x"),
    ("token", ""),
    ("token", "   "),
    ("token", "gb_api_\u20ac"),
    ("token", "gb_api\nX-Injected: 1"),
    ("token", "gb\x00api"),
    ("base_url", 1),
    ("base_url", ""),
    ("base_url", "api.gitbook.com/v1"),
    ("base_url", "ftp://api.gitbook.com/v1"),
    ("base_url", "https://user:pass@api.gitbook.com/v1"),
    ("base_url", "https://api.gitbook.com/v1?x=1"),
    ("base_url", "https://api.gitbook.com:99999/v1"),
    ("base_url", "https://api.gitbook.com/v1\n"),
    ("timeout", 0),
    ("timeout", -1),
    ("timeout", (0, 0)),
    ("timeout", (1,)),
    ("timeout", (1, 2, 3)),
    ("timeout", (1, None)),
    ("timeout", "30"),
    ("timeout", True),
    ("timeout", float("nan")),
    ("timeout", float("inf")),
    ("timeout", 10**9),
    ("max_retries", -1),
    ("max_retries", 1.5),
    ("max_retries", "3"),
    ("max_retries", True),
    ("max_retries", 10**6),
    ("max_rate_limit_wait", -1),
    ("max_rate_limit_wait", "60"),
    ("max_rate_limit_wait", float("nan")),
    ("session", "session"),
    ("session", 1),
    ("headers", "X-A: 1"),
    ("headers", {"X-A": "1\r\nX-B: 2"}),
    ("headers", {"X-A": "1\n"}),
    ("headers", {"X-A": 1}),
    ("headers", {"Bad Name": "1"}),
    ("headers", {"X-A\n": "1"}),
    ("headers", {"Authorization": "Bearer gb_api_other"}),
    ("headers", {"authorization": "Bearer gb_api_other"}),
    ("headers", {"X-A": "\u20ac"}),
    ("retry", 3),
    ("retry", "fast"),
    ("clock", 1),
    ("clock", object()),
]


@pytest.mark.parametrize(("argument", "value"), CONSTRUCTOR_BAD, ids=_stable_id)
def test_constructor_problems_are_validation_errors_naming_the_argument(argument, value):
    kwargs = {"token": "gb_api_ok", "base_url": "https://api.gitbook.com/v1", argument: value}
    with pytest.raises(ValidationError) as info:
        DocsClient(**kwargs)
    assert argument in str(info.value) or argument in info.value.argument


@pytest.mark.parametrize(
    "base_url",
    ["http://127.0.0.1:4010", "https://gw.example.com/gitbook", "https://api.gitbook.com/v1/"],
)
def test_any_http_base_url_is_taken_as_the_api_address(base_url):
    client = DocsClient(token="gb_api_ok", base_url=base_url)
    assert client.transport.base_url == base_url.rstrip("/")


def test_validation_error_is_also_a_type_error_and_a_value_error():
    with pytest.raises(TypeError):
        DocsClient(token="gb_api_ok").spaces.get(123)
    with pytest.raises(ValueError):
        DocsClient(token="gb_api_ok").spaces.get("..")


# -- the ad-network client -----------------------------------------------------------------------

ADS_BAD = {
    "resource": [
        None,
        1,
        b"affiliate",
        "",
        ".",
        "..",
        "a/b",
        "affiliate/1",
        "%2e%2e",
        "%2F",
        "x\n",
        "affiliate\r\n",
        "x" * 10_000,
        "1abc",
        "_a",
        "a b",
    ],
    "id": [
        None,
        True,
        1.5,
        -1,
        "",
        ".",
        "..",
        "a/b",
        "%2F",
        "%2e%2e",
        "1\n",
        "x" * 10_000,
        [1],
        b"1",
        "1 2",
    ],
    "get.id": [v for v in SEGMENT_BAD if v not in (1,)] + [True, -1, 1.5],
    "data": [None, [], {}, "x", 1],
    "changes": [None, [], {}, "x"],
    "current": ["x", 1, []],
    "params": ["x", [1], {"a": float("nan")}, {"a": {"b": 1}}, {1: "a"}, {"q": "\x00"}],
    "page_size": [0, 101, -1, "10", True, 1.5, None],
}
ADS_FILTERS_BAD = [{"a": 1}, "a,b", "x\n", [], object(), b"x"]


@pytest.fixture(scope="module")
def ans():
    from docsapi.sandbox.adnetwork import AdNetworkSandbox

    with AdNetworkSandbox(seed=0, affiliates=20) as sandbox:
        yield sandbox


def _ads_methods():
    from docsapi.adnetwork import AdNetworkClient

    client = AdNetworkClient("demo.example.com", api_key="an_table")
    for name, _, _ in method_listing(client):
        if name != "close":
            yield name, inspect.signature(getattr(AdNetworkClient, name))


ADS_METHODS = list(_ads_methods())


def _ads_cases():
    for name, signature in ADS_METHODS:
        for parameter, spec in list(signature.parameters.items())[1:]:
            if spec.kind is spec.VAR_KEYWORD:
                yield pytest.param(name, "filters", ADS_FILTERS_BAD, id=f"{name}.**filters")
                continue
            values = ADS_BAD.get(f"{name}.{parameter}", ADS_BAD.get(parameter))
            yield pytest.param(name, parameter, values, id=f"{name}.{parameter}")


def test_every_adnetwork_parameter_has_bad_values():
    assert all(values is not None for *_, values in (case.values for case in _ads_cases()))


@pytest.mark.parametrize(("name", "parameter", "values"), list(_ads_cases()))
def test_adnetwork_bad_value_is_refused_before_sending(ans, name, parameter, values):
    ans.reset()
    client = ans.client()
    signature = dict(ADS_METHODS)[name]

    def call(value):
        kwargs = {}
        for pname, spec in list(signature.parameters.items())[1:]:
            if spec.kind is spec.VAR_KEYWORD:
                continue
            if pname == parameter:
                kwargs[pname] = value
            elif spec.default is spec.empty:
                kwargs[pname] = ADS_VALID[pname]
        if parameter == "filters":
            kwargs["status"] = value
        result = getattr(client, name)(**kwargs)
        return list(result) if name == "paginate" else result

    call.values = values
    assert _refused(call, "status" if parameter == "filters" else parameter) == []
    assert ans.request_count == 0


ADS_CONSTRUCTOR_BAD = [
    ("network", None),
    ("network", 1),
    ("network", ""),
    ("network", "http://demo.example.com"),
    ("network", "demo.example.com/api"),
    ("network", "demo.exa\nmple.com"),
    ("network", "demo example.com"),
    ("network", "host:99999"),
    ("network", "user@host"),
    ("api_key", 1),
    ("api_key", ""),
    ("api_key", "an_\u20ac"),
    ("api_key", "an\r\nX: 1"),
    ("scheme", "ftp"),
    ("scheme", 1),
    ("timeout", (0, 0)),
    ("timeout", "30"),
    ("max_retries", -1),
    ("max_rate_limit_wait", float("nan")),
    ("retry", 3),
    ("session", "s"),
    ("headers", {"X-Api-Key": "an_other"}),
    ("headers", {"X-A": "1\r\nX-B: 2"}),
    ("headers", "X-A: 1"),
    ("clock", 1),
]


@pytest.mark.parametrize(("argument", "value"), ADS_CONSTRUCTOR_BAD, ids=_stable_id)
def test_adnetwork_constructor_problems_are_validation_errors(argument, value):
    from docsapi.adnetwork import AdNetworkClient

    kwargs = {"network": "demo.example.com", "api_key": "an_ok", argument: value}
    with pytest.raises(ValidationError) as info:
        AdNetworkClient(**kwargs)
    assert argument in str(info.value)
