"""The ad-network API key never leaks: reprs, errors, tracebacks, logs, redirects."""

from __future__ import annotations

import logging
import traceback

import pytest
from scripted_server import Reply, ScriptedServer

from docsapi import RetryPolicy
from docsapi.adnetwork import AdNetworkClient, AdNetworkError, InvalidAPIKeyError
from docsapi.errors import PaginationError
from docsapi.sandbox.adnetwork import AdNetworkSandbox

CANARY_KEY = "an_CANARY_4e1d9b7c2a6f8e03d5b1"
FAST = RetryPolicy(max_retries=2, backoff=0.01, jitter=False, max_rate_limit_wait=5.0)


@pytest.fixture(scope="module")
def ans():
    with AdNetworkSandbox(seed=1, affiliates=120) as sandbox:
        sandbox.add_key(CANARY_KEY)
        yield sandbox


def leaked(text: str) -> bool:
    return CANARY_KEY in text or CANARY_KEY[3:] in text


def test_canary_key_never_appears_in_reprs_errors_or_logs(ans, caplog):
    ans.reset()
    caplog.set_level(logging.DEBUG)
    client = ans.client(api_key=CANARY_KEY, retry=FAST)
    texts = [repr(client), repr(client.transport), client._repr_markdown_(), repr(ans)]
    assert len(client.affiliates(page_size=50)) == 120
    ans.inject("50")
    client.get("affiliate", 1001)
    errors = []
    for trigger in (
        lambda: client.get("affiliate", 5),
        lambda: client.create("affiliate", {"name": "no email"}),
        lambda: ans.set_maintenance(True) or client.get("affiliate", 1001),
    ):
        with pytest.raises(AdNetworkError) as info:
            trigger()
        errors.append(info.value)
    ans.set_maintenance(False)
    for error in errors:
        texts += [str(error), repr(error), "".join(traceback.format_exception(error))]
    texts += [record.getMessage() for record in caplog.records]
    texts += [repr(record) for record in client.transport.history]
    assert caplog.records, "expected DEBUG log records from the wire layer"
    assert not [text for text in texts if leaked(text)]


def test_a_refused_canary_key_is_not_echoed(ans, caplog):
    ans.reset()
    caplog.set_level(logging.DEBUG)
    client = AdNetworkClient(ans.network, api_key=CANARY_KEY + "x", scheme="http", retry=FAST)
    with pytest.raises(InvalidAPIKeyError) as info:
        client.affiliates()
    texts = [str(info.value), repr(info.value), "".join(traceback.format_exception(info.value))]
    texts += [record.getMessage() for record in caplog.records]
    assert not [text for text in texts if leaked(text)]


def test_redirect_to_another_host_does_not_carry_the_key():
    answer = Reply(200, {"code": 0, "message": "Success", "data": {"id": 1}})
    with ScriptedServer([answer]) as other:
        hop = Reply(307, b"", headers={"Location": other.url + "/api/affiliate/1"})
        with ScriptedServer([hop]) as first:
            client = AdNetworkClient(
                f"127.0.0.1:{first.port}", api_key=CANARY_KEY, scheme="http", retry=FAST
            )
            assert client.get("affiliate", 1) == {"id": 1}
    assert first.seen[0].headers["x-api-key"] == CANARY_KEY
    assert "x-api-key" not in other.seen[0].headers
    assert not any(leaked(f"{name}: {value}") for name, value in other.seen[0].headers.items())


def test_a_server_repeating_a_page_is_stopped():
    page = {
        "code": 0,
        "message": "Success",
        "data": {"rowset": [{"id": 1}], "totalRows": 3, "totalPages": 3, "offset": 1, "limit": 1},
    }
    with ScriptedServer([Reply(200, page)]) as srv:
        client = AdNetworkClient(
            f"127.0.0.1:{srv.port}", api_key=CANARY_KEY, scheme="http", retry=FAST
        )
        with pytest.raises(PaginationError, match="page 1 when page 2"):
            client.affiliates(page_size=1)
    assert len(srv.seen) == 2
    assert srv.seen[0].headers["cache-control"] == "no-cache"
