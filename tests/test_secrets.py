"""A canary token must never show up in a repr, an error, a log line or a redirected request."""

from __future__ import annotations

import logging
import traceback

import pytest
from fake_clock import FakeClock
from scripted_server import Reply, ScriptedServer

import docsapi
from docsapi.errors import DocsAPIError


@pytest.fixture
def canary_client(sandbox, canary_token):
    sandbox.add_token(canary_token, scheme="user")
    return docsapi.DocsClient(
        token=canary_token, base_url=sandbox.url, max_retries=1, clock=FakeClock()
    )


def test_repr_of_client_and_groups_hide_the_token(canary_client, canary_token):
    shown = [
        repr(canary_client),
        str(canary_client),
        repr(canary_client.spaces),
        repr(canary_client.transport),
    ]
    shown += [canary_client._repr_markdown_()] if hasattr(canary_client, "_repr_markdown_") else []
    assert all(canary_token not in text for text in shown)


def test_errors_and_tracebacks_hide_the_token(canary_client, sandbox, canary_token):
    failures: list[BaseException] = []
    for call in (
        lambda: canary_client.spaces.get("no-such-space"),
        lambda: canary_client.users.update("no-such-user", display_name="x"),
        lambda: docsapi.DocsClient(token=canary_token + "x", base_url=sandbox.url).users.me(),
        lambda: docsapi.DocsClient(
            token=canary_token, base_url="http://127.0.0.1:9/v1", clock=FakeClock()
        ).info(),
    ):
        with pytest.raises(DocsAPIError) as info:
            call()
        failures.append(info.value)
    for error in failures:
        rendered = "".join(traceback.format_exception(error))
        assert canary_token not in rendered
        assert canary_token not in repr(error)
        assert canary_token not in str(error)


def test_debug_logs_of_every_logger_hide_the_token(canary_client, caplog, canary_token):
    caplog.set_level(logging.DEBUG)
    canary_client.users.me()
    canary_client.spaces.list(org_id=canary_client.orgs.list()["id"].iloc[0])
    with pytest.raises(DocsAPIError):
        canary_client.spaces.get("no-such-space")
    logging.getLogger("urllib3.connectionpool").debug(
        "headers: Authorization: Bearer %s", canary_token
    )
    assert caplog.records, "expected debug records from docsapi and urllib3"
    assert canary_token not in caplog.text
    assert all(canary_token not in record.getMessage() for record in caplog.records)


def test_redirect_to_another_host_does_not_carry_the_token(canary_token):
    with ScriptedServer([Reply(200, {"version": "1", "build": "b"})]) as other:
        hop = Reply(
            302, b"", headers={"Location": other.url.replace("127.0.0.1", "localhost") + "/v1/"}
        )
        with ScriptedServer([hop]) as origin:
            client = docsapi.DocsClient(token=canary_token, base_url=origin.url + "/v1")
            client.info()
    assert origin.seen[0].headers["authorization"] == f"Bearer {canary_token}"
    assert all(canary_token not in str(v) for v in other.seen[0].headers.values())


def test_missing_token_explains_both_ways(monkeypatch, sandbox):
    monkeypatch.delenv("GITBOOK_API_TOKEN", raising=False)
    client = docsapi.DocsClient(base_url=sandbox.url)
    before = sandbox.request_count
    with pytest.raises(docsapi.MissingCredentialError) as info:
        client.users.me()
    assert "token=" in str(info.value) and "GITBOOK_API_TOKEN" in str(info.value)
    assert sandbox.request_count == before


def test_token_from_environment(monkeypatch, sandbox):
    monkeypatch.setenv("GITBOOK_API_TOKEN", sandbox.token)
    assert docsapi.DocsClient(base_url=sandbox.url).users.me().id
