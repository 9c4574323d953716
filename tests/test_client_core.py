"""DocsClient itself over real HTTP: tokens, reprs, escape hatches, context manager."""

from __future__ import annotations

import inspect
from functools import cached_property

import pytest

import docsapi
from docsapi import DocsClient
from docsapi.errors import AuthenticationError, NotFoundError
from docsapi.models import ApiInformation
from docsapi.resources import ChangeRequests, Content, Git, Orgs, Permissions, Spaces, Users
from docsapi.resources._base import ResourceGroup

GROUPS = {
    "users": Users,
    "spaces": Spaces,
    "permissions": Permissions,
    "content": Content,
    "git": Git,
    "change_requests": ChangeRequests,
    "orgs": Orgs,
}


def test_signature_matches_the_design():
    parameters = inspect.signature(DocsClient).parameters
    design = [
        "token",
        "base_url",
        "timeout",
        "max_retries",
        "max_rate_limit_wait",
        "session",
        "headers",
    ]
    assert list(parameters)[: len(design)] == design
    extras = [p for p in parameters.values() if p.name not in design]
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in extras)
    assert parameters["base_url"].default == "https://api.gitbook.com/v1"
    assert parameters["timeout"].default == 30.0
    assert parameters["max_retries"].default == 3
    assert parameters["max_rate_limit_wait"].default == 60.0


def test_info_returns_api_information(client):
    info = client.info()
    assert isinstance(info, ApiInformation)
    assert info.version and info.build


def test_missing_token_raises_on_first_call_without_sending(sandbox, monkeypatch):
    monkeypatch.delenv("GITBOOK_API_TOKEN", raising=False)
    client = DocsClient(base_url=sandbox.url)
    before = sandbox.request_count
    with pytest.raises(AuthenticationError) as info:
        client.users.me()
    message = str(info.value)
    assert "token=" in message and "GITBOOK_API_TOKEN" in message
    assert sandbox.request_count == before
    assert "missing" in repr(client)


def test_token_is_read_from_the_environment(sandbox, monkeypatch):
    monkeypatch.setenv("GITBOOK_API_TOKEN", sandbox.token)
    with DocsClient(base_url=sandbox.url) as client:
        assert client.users.me().id == sandbox.demo["owner_id"]


def test_argument_wins_over_the_environment(sandbox, monkeypatch):
    monkeypatch.setenv("GITBOOK_API_TOKEN", "gb_api_not_a_real_token")
    with DocsClient(token=sandbox.token, base_url=sandbox.url) as client:
        assert client.users.me().id == sandbox.demo["owner_id"]


def test_unknown_token_is_refused_with_advice(sandbox):
    client = DocsClient(token="gb_api_unknown", base_url=sandbox.url, max_retries=0)
    with pytest.raises(AuthenticationError) as info:
        client.users.me()
    assert "GITBOOK_API_TOKEN" in str(info.value)
    assert "gb_api_unknown" not in str(info.value)


def test_blank_or_non_string_tokens_are_refused():
    with pytest.raises(docsapi.ValidationError):
        DocsClient(token="   ")
    with pytest.raises(TypeError):
        DocsClient(token=12345)


def test_repr_never_shows_the_token(sandbox, canary_token):
    sandbox.add_token(canary_token)
    client = DocsClient(token=canary_token, base_url=sandbox.url)
    assert client.users.me().id
    for text in (repr(client), str(client), client._repr_markdown_(), client._repr_html_()):
        assert canary_token not in text
    assert "token=from argument" in repr(client) and sandbox.url in repr(client)


def test_groups_are_cached_properties_sharing_the_transport(client):
    for name, cls in GROUPS.items():
        group = getattr(client, name)
        assert isinstance(group, cls)
        assert getattr(client, name) is group
        assert group._transport is client.transport
    assert set(GROUPS) <= set(dir(client))


@pytest.mark.parametrize("name", sorted(GROUPS))
def test_group_reprs_list_public_methods_with_signatures(client, name):
    group = getattr(client, name)
    markdown = group._repr_markdown_()
    html = group._repr_html_()
    public = [m for m in dir(type(group)) if not m.startswith("_")]
    assert public
    for method in public:
        assert f"client.{name}.{method}(" in markdown
        assert f"client.{name}.{method}(" in html
    first_line = inspect.getdoc(getattr(type(group), public[0])).splitlines()[0]
    assert first_line in markdown


def test_client_repr_lists_groups_and_methods(client):
    markdown = client._repr_markdown_()
    for name in GROUPS:
        assert f"client.{name}" in markdown
    assert "client.request(method, path, *, params=None, json=None)" in markdown
    assert "client.spaces" in client._repr_html_()


def test_request_escape_hatch_returns_parsed_json(client, sandbox):
    org = client.request("GET", f"/orgs/{sandbox.org_id}")
    assert org["id"] == sandbox.org_id
    assert client.request("get", "user")["id"] == sandbox.demo["owner_id"]


def test_request_errors_are_typed(client):
    with pytest.raises(NotFoundError):
        client.request("GET", "/spaces/does-not-exist")


def test_paginate_yields_every_item(client, sandbox):
    members = list(client.paginate(f"/orgs/{sandbox.org_id}/members", params={"limit": 7}))
    frame = client.orgs.members(sandbox.org_id)
    assert len(members) == len(frame) > 7
    assert {m["user"]["id"] for m in members} == set(frame["user_id"])


def test_context_manager_closes_the_session(sandbox):
    import requests

    session = requests.Session()
    closed = []
    session.close = lambda: closed.append(True)
    with DocsClient(token=sandbox.token, base_url=sandbox.url, session=session) as client:
        assert client.users.me().id
    # a session passed in belongs to the caller; the client leaves it open
    assert closed == []
    with DocsClient(token=sandbox.token, base_url=sandbox.url) as client:
        own = client.transport.sender.session
        own_closed = []
        own.close = lambda: own_closed.append(True)
    assert own_closed == [True]


def test_extra_headers_and_timeout_are_accepted(sandbox):
    with DocsClient(
        token=sandbox.token, base_url=sandbox.url, timeout=(2, 5), headers={"X-Trace": "1"}
    ) as client:
        assert client.transport.timeout.read == 5
        assert client.users.me().id


def test_import_docsapi_stays_light():
    import subprocess
    import sys

    code = (
        "import sys, docsapi; c = docsapi.DocsClient; "
        "print(any(m in sys.modules for m in ('pandas', 'docsapi.frames')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


class Labels(ResourceGroup):
    """Labels of spaces (a group added by a subclass)."""

    _name = "labels"

    def tag(self, space_id: str) -> None:
        """Tag a space."""


class LabelledClient(DocsClient):
    @cached_property
    def labels(self) -> Labels:
        """Labels."""
        return Labels(self._transport)


def test_groups_are_found_by_introspection_and_list_their_own_methods(client):
    extended = LabelledClient(token="gb_api_x", base_url=client.base_url)
    lines = dict(extended._group_lines())
    assert list(lines) == [*GROUPS, "labels"]
    assert lines["labels"] == "Labels: tag"
    assert lines["users"] == "User accounts: get, me, notifications_token, update"
    assert "client.labels" in extended._repr_markdown_()
