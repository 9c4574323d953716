"""Query strings: one too long for any server is refused before sending, naming the argument;
a page cursor a server sends that cannot be sent back is the server's fault, said so."""

from __future__ import annotations

import pytest
from scripted_server import Reply, ScriptedServer

from docsapi import DocsClient, ResponseFormatError, ValidationError
from docsapi.core.config import RetryPolicy

LONG = "x" * 100_000


def _refused(sandbox, call, argument: str) -> None:
    before = sandbox.request_count
    with pytest.raises(ValidationError) as caught:
        call()
    assert caught.value.argument == argument
    assert "query string" in str(caught.value)
    assert sandbox.request_count == before


def test_a_query_too_long_for_a_server_is_refused_naming_the_argument(client, sandbox):
    org = sandbox.org_id
    _refused(sandbox, lambda: client.api.sites.list_sites(org, title=LONG), "title")
    _refused(sandbox, lambda: client.api.sites.list_sites(org, type=["basic"] * 5000), "type")
    path = f"/orgs/{org}/sites"
    _refused(sandbox, lambda: client.request("GET", path, params={"q": LONG}), "params['q']")
    _refused(sandbox, lambda: list(client.paginate(path, params={"q": LONG})), "params['q']")


def test_a_long_but_reasonable_query_is_sent(client, sandbox):
    assert client.api.sites.list_sites(sandbox.org_id, title="x" * 5000).empty


BAD_CURSORS = ["c\n1", "\u2028", "x" * 7000, {"a": 1}, ["p"], True]


@pytest.mark.parametrize("cursor", BAD_CURSORS, ids=lambda c: repr(c)[:12])
def test_a_cursor_that_cannot_be_sent_back_is_a_response_format_error(cursor):
    pages = [
        Reply(200, {"items": [{"id": 1}], "next": {"page": cursor}}),
        Reply(200, {"items": [{"id": 2}]}),
    ]
    with ScriptedServer(pages) as server:
        client = DocsClient(
            token="gb_api_pages", base_url=server.url + "/v1", retry=RetryPolicy(max_retries=0)
        )
        with pytest.raises(ResponseFormatError, match="page cursor that cannot be sent back"):
            list(client.paginate("/things"))
        assert len(server.seen) == 1


@pytest.mark.parametrize("cursor", [5, "a b&c=d", "eyJvZmZzZXQiOjEwfQ=="], ids=repr)
def test_ordinary_cursors_are_sent_back(cursor):
    pages = [
        Reply(200, {"items": [{"id": 1}], "next": {"page": cursor}}),
        Reply(200, {"items": [{"id": 2}]}),
    ]
    with ScriptedServer(pages) as server:
        client = DocsClient(
            token="gb_api_pages", base_url=server.url + "/v1", retry=RetryPolicy(max_retries=0)
        )
        assert list(client.paginate("/things")) == [{"id": 1}, {"id": 2}]
