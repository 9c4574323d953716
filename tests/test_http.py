"""The wire layer against a scripted server: retries, rate limits, redirects, bad bodies."""

from __future__ import annotations

import pytest
from fake_clock import FakeClock
from scripted_server import Reply, ScriptedServer

from docsapi.core.config import RetryPolicy, Timeout
from docsapi.core.secret import Secret
from docsapi.errors import (
    APIConnectionError,
    APITimeoutError,
    MissingCredentialError,
    NotFoundError,
    PaginationError,
    RateLimitError,
    ResponseFormatError,
    ServerError,
)
from docsapi.wire.transport import Transport, quote_segment

FAST = RetryPolicy(max_retries=3, backoff=0.5, jitter=False, max_rate_limit_wait=5.0)
OK = Reply(200, {"ok": True})


def transport(
    url: str,
    *,
    retry: RetryPolicy = FAST,
    token: str | None = "tok-123",
    timeout: Timeout | None = None,
    clock: FakeClock | None = None,
) -> Transport:
    """A transport on a fake clock: backoff and rate-limit waits are recorded, not slept."""
    return Transport(
        url + "/v1",
        credential=Secret(token) if token else None,
        timeout=timeout or Timeout(connect=2, read=5),
        retry=retry,
        missing_credential="Pass token=... or set GITBOOK_API_TOKEN.",
        clock=clock or FakeClock(),
    )


def test_get_sends_bearer_token_json_and_user_agent():
    with ScriptedServer([OK]) as srv:
        resp = transport(srv.url).request("GET", "/spaces/abc", params={"a": 1, "b": None})
    assert resp.status == 200 and resp.data == {"ok": True}
    seen = srv.seen[0]
    assert seen.path == "/v1/spaces/abc?a=1"
    assert seen.headers["authorization"] == "Bearer tok-123"
    assert seen.headers["accept"] == "application/json"


def test_post_sends_json_body():
    with ScriptedServer([Reply(201, {"id": "x"})]) as srv:
        transport(srv.url).request("POST", "/things", json={"title": "T"})
    assert srv.seen[0].body == b'{"title": "T"}'
    assert srv.seen[0].headers["content-type"] == "application/json"


def test_connection_dropped_on_get_is_retried():
    with ScriptedServer([Reply(action="drop"), OK]) as srv:
        resp = transport(srv.url).request("GET", "/x")
    assert resp.data == {"ok": True}
    assert len(srv.seen) == 2


def test_post_that_reached_the_server_is_not_retried_when_the_connection_drops():
    with (
        ScriptedServer([Reply(action="drop"), OK]) as srv,
        pytest.raises(APIConnectionError, match="outcome is unknown"),
    ):
        transport(srv.url).request("POST", "/spaces/abc/duplicate")
    assert len(srv.seen) == 1


def test_three_503_then_200_on_get_succeeds_after_doubling_backoff():
    clock = FakeClock()
    with ScriptedServer([Reply(503), Reply(503), Reply(503), OK]) as srv:
        t = transport(srv.url, clock=clock)
        resp = t.request("GET", "/x")
    assert resp.status == 200
    assert len(srv.seen) == 4
    assert clock.sleeps == [0.5, 1.0, 2.0]
    assert [r.waited for r in t.history] == [0.0, 0.5, 1.0, 2.0]


def test_retries_run_out_and_raise_the_last_error():
    with ScriptedServer([Reply(503)]) as srv, pytest.raises(ServerError) as info:
        transport(srv.url).request("GET", "/x")
    assert info.value.status == 503
    assert len(srv.seen) == 1 + FAST.max_retries


def test_503_on_post_raises_after_one_attempt():
    with ScriptedServer([Reply(503), OK]) as srv, pytest.raises(ServerError):
        transport(srv.url).request("POST", "/x")
    assert len(srv.seen) == 1


def test_retry_after_one_second_is_waited():
    clock = FakeClock()
    with ScriptedServer([Reply(429, headers={"Retry-After": "1"}), OK]) as srv:
        transport(srv.url, clock=clock).request("POST", "/x")
    assert len(srv.seen) == 2
    assert clock.sleeps == [pytest.approx(1.0, abs=1e-5)]


def test_retry_after_longer_than_the_allowed_wait_raises_at_once():
    clock = FakeClock()
    with (
        ScriptedServer([Reply(429, headers={"Retry-After": "3600"}), OK]) as srv,
        pytest.raises(RateLimitError) as info,
    ):
        transport(srv.url, clock=clock).request("GET", "/x")
    assert len(srv.seen) == 1
    assert info.value.reset_at is not None
    assert info.value.reset_at.timestamp() - clock.time() == pytest.approx(3600, abs=1e-3)
    assert "max_rate_limit_wait" in str(info.value)
    assert clock.sleeps == []


def test_rate_limit_reset_header_is_honoured_on_429():
    clock = FakeClock(start=1_700_000_000.0)
    reset = "1700000002"
    with ScriptedServer([Reply(429, headers={"X-RateLimit-Reset": reset}), OK]) as srv:
        transport(srv.url, clock=clock).request("GET", "/x")
    assert len(srv.seen) == 2
    assert clock.sleeps == [2.0]


def test_exhausted_budget_waits_for_the_reset_before_the_next_request():
    clock = FakeClock(start=1_700_000_000.0)
    exhausted = Reply(
        200,
        {"n": 1},
        headers={
            "X-RateLimit-Limit": "5",
            "X-RateLimit-Remaining": "0",
            "X-RateLimit-Reset": "1700000002",
        },
    )
    with ScriptedServer([exhausted, OK]) as srv:
        t = transport(srv.url, clock=clock)
        t.request("GET", "/x")
        assert clock.sleeps == []
        t.request("GET", "/x")
    assert len(srv.seen) == 2
    assert clock.sleeps == [2.0]
    assert t.history[-1].waited == 2.0


def test_exhausted_budget_with_a_distant_reset_raises_without_sending():
    clock = FakeClock(start=1_700_000_000.0)
    exhausted = Reply(
        200,
        {},
        headers={"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1700000900"},
    )
    with ScriptedServer([exhausted, OK]) as srv:
        t = transport(srv.url, clock=clock)
        t.request("GET", "/x")
        with pytest.raises(RateLimitError, match="max_rate_limit_wait"):
            t.request("GET", "/x")
    assert len(srv.seen) == 1


def test_truncated_json_on_get_is_retried():
    with ScriptedServer([Reply(200, {"items": list(range(50))}, action="truncate"), OK]) as srv:
        resp = transport(srv.url).request("GET", "/x")
    assert resp.data == {"ok": True}
    assert len(srv.seen) == 2


def test_truncated_json_on_post_is_not_retried():
    with (
        ScriptedServer([Reply(200, {"items": list(range(50))}, action="truncate"), OK]) as srv,
        pytest.raises(APIConnectionError, match="cut short"),
    ):
        transport(srv.url).request("POST", "/x")
    assert len(srv.seen) == 1


def test_html_body_gives_a_clear_error_with_an_excerpt():
    page = "<html><body><h1>Welcome to the login portal</h1></body></html>"
    with ScriptedServer([Reply(200, page)]) as srv, pytest.raises(ResponseFormatError) as info:
        transport(srv.url).request("GET", "/x")
    message = str(info.value)
    assert "expected JSON" in message and "text/html" in message
    assert "Welcome to the login portal" in message
    assert len(srv.seen) == 1


def test_error_body_maps_to_the_status_class_with_message_and_hint():
    body = {"error": {"code": 404, "message": "Space not found"}}
    with (
        ScriptedServer([Reply(404, body, headers={"X-Request-Id": "req-9"})]) as srv,
        pytest.raises(NotFoundError) as info,
    ):
        transport(srv.url).request("GET", "/spaces/nope")
    err = info.value
    assert err.status == 404 and err.request_id == "req-9" and err.code == 404
    assert "Space not found" in str(err) and "Check the id" in str(err)
    assert err.method == "GET" and err.path == "/spaces/nope"


def test_error_without_json_body_keeps_an_excerpt():
    with (
        ScriptedServer([Reply(502, "<html>Bad gateway from proxy</html>")]) as srv,
        pytest.raises(ServerError, match="Bad gateway from proxy"),
    ):
        transport(srv.url, retry=RetryPolicy(max_retries=0)).request("GET", "/x")


def test_missing_credential_raises_before_any_request():
    with (
        ScriptedServer([OK]) as srv,
        pytest.raises(MissingCredentialError, match="GITBOOK_API_TOKEN") as info,
    ):
        transport(srv.url, token=None).request("GET", "/user")
    assert srv.seen == []
    assert info.value.status is None and "401" not in str(info.value)


def test_connect_failure_is_retried_even_for_post_then_raised():
    with ScriptedServer([OK]) as srv:
        url = srv.url
    clock = FakeClock()
    t = transport(url, retry=RetryPolicy(max_retries=2, jitter=False), clock=clock)
    with pytest.raises(APIConnectionError, match="could not connect"):
        t.request("POST", "/x")
    assert [r.attempt for r in t.history] == [0, 1, 2]
    assert clock.sleeps == [0.5, 1.0]


# The two tests below wait for real: a read timeout is the socket's, not the clock's.
def test_read_timeout_on_post_is_not_retried():
    with ScriptedServer([Reply(200, {}, action="stall", stall_seconds=1.5), OK]) as srv:
        t = transport(srv.url, timeout=Timeout(connect=1, read=0.2))
        with pytest.raises(APITimeoutError, match="outcome unknown"):
            t.request("POST", "/x")
    assert len(srv.seen) == 1


def test_read_timeout_on_get_is_retried():
    with ScriptedServer([Reply(200, {}, action="stall", stall_seconds=1.0), OK]) as srv:
        t = transport(srv.url, timeout=Timeout(connect=1, read=0.2))
        assert t.request("GET", "/x").data == {"ok": True}
    assert len(srv.seen) == 2


def test_paginate_follows_cursors_until_absent():
    pages = [
        Reply(200, {"items": [1, 2], "next": {"page": "c1"}}),
        Reply(200, {"items": [3], "next": {"page": "c2"}}),
        Reply(200, {"items": [4]}),
    ]
    with ScriptedServer(pages) as srv:
        items = list(transport(srv.url).paginate("/list", limit=2))
    assert items == [1, 2, 3, 4]
    assert [s.path for s in srv.seen] == [
        "/v1/list?limit=2",
        "/v1/list?limit=2&page=c1",
        "/v1/list?limit=2&page=c2",
    ]


def test_repeated_cursor_raises_pagination_error():
    loop = Reply(200, {"items": [1], "next": {"page": "same"}})
    with ScriptedServer([loop]) as srv, pytest.raises(PaginationError, match="twice"):
        list(transport(srv.url).paginate("/list"))
    assert len(srv.seen) == 2


def test_redirect_to_another_port_drops_the_credential():
    with ScriptedServer([OK]) as other:
        hop = Reply(307, b"", headers={"Location": other.url + "/elsewhere"})
        with ScriptedServer([hop]) as srv:
            transport(srv.url).request("GET", "/x")
    assert srv.seen[0].headers["authorization"] == "Bearer tok-123"
    assert "authorization" not in other.seen[0].headers


def test_redirect_within_the_origin_keeps_the_credential():
    with ScriptedServer([Reply(302, b"", headers={"Location": "/v1/moved"}), OK]) as srv:
        transport(srv.url).request("GET", "/x")
    assert srv.seen[1].path == "/v1/moved"
    assert srv.seen[1].headers["authorization"] == "Bearer tok-123"


def test_quote_segment_encodes_slashes():
    assert quote_segment("guides/getting started") == "guides%2Fgetting%20started"


def test_own_session_pools_enough_connections_for_audit_threads():
    import requests

    own = transport("http://127.0.0.1:9")
    assert own.sender.session.get_adapter("http://127.0.0.1:9")._pool_maxsize >= 16
    given = requests.Session()
    borrowed = Transport(
        "http://127.0.0.1:9/v1", credential=None, timeout=Timeout(), retry=FAST, session=given
    )
    assert borrowed.sender.session is given


def test_connection_reset_before_the_request_is_read_is_retried_on_get():
    with ScriptedServer([Reply(action="close-before-read"), OK]) as srv:
        t = transport(srv.url)
        assert t.request("GET", "/x").data == {"ok": True}
    assert [r.outcome for r in t.history] == ["APIConnectionError", "ok"]
    assert len(srv.seen) == 1
