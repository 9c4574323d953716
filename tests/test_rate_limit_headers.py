"""Rate-limit headers come from the network: odd values never fail a call, HTTP dates count.

``X-RateLimit-Reset``, ``X-RateLimit-Remaining`` and ``Retry-After`` are read from real answers
of a scripted server by a transport on a fake clock, so waits are recorded instead of slept.
"""

from __future__ import annotations

from datetime import UTC, datetime
from email.utils import format_datetime

import pytest
from fake_clock import FakeClock
from scripted_server import Reply, ScriptedServer

from docsapi.core.config import RetryPolicy, Timeout
from docsapi.core.secret import Secret
from docsapi.errors import RateLimitError
from docsapi.wire.ratelimit import (
    MAX_WAIT,
    rate_limit_reset,
    rate_limit_wait,
    remaining_budget,
    retry_after,
)
from docsapi.wire.transport import Transport

NOW = 1_700_000_000.0
POLICY = RetryPolicy(max_retries=2, backoff=0.5, jitter=False, max_rate_limit_wait=30.0)
OK = Reply(200, {"ok": True})

ODD_NUMBERS = [
    "99999999999999999999",
    "999999999999999999999999999999",
    "1e400",
    "inf",
    "-inf",
    "Infinity",
    "nan",
    "NaN",
    "-1",
    "-99999999999999999999",
    "",
    " ",
    "abc",
    "1.5.5",
    "0x10",
    "\u0661\u0662",  # Arabic-Indic digits
    "1_000",
]


def transport(url: str, clock: FakeClock) -> Transport:
    return Transport(
        url + "/v1",
        credential=Secret("tok-rate"),
        timeout=Timeout(connect=2, read=5),
        retry=POLICY,
        clock=clock,
    )


@pytest.mark.parametrize("header", ["X-RateLimit-Reset", "X-RateLimit-Remaining", "Retry-After"])
@pytest.mark.parametrize("value", ODD_NUMBERS, ids=repr)
def test_odd_headers_on_a_success_never_fail_this_call_or_the_next(header, value):
    clock = FakeClock(start=NOW)
    odd = Reply(200, {"n": 1}, headers={header: value, "X-RateLimit-Limit": "10"})
    with ScriptedServer([odd, odd, OK]) as srv:
        t = transport(srv.url, clock)
        assert t.request("GET", "/x").data == {"n": 1}
        assert t.request("GET", "/x").data == {"n": 1}
        assert t.request("GET", "/x").data == {"ok": True}
    assert all(wait <= MAX_WAIT for wait in clock.sleeps)


@pytest.mark.parametrize(
    ("remaining", "reset"),
    [("0", "99999999999999999999"), ("inf", "1700000005"), ("-3", "nan"), ("0", "inf")],
)
def test_odd_budget_headers_wait_a_bounded_time_or_refuse_clearly(remaining, reset):
    clock = FakeClock(start=NOW)
    spent = Reply(
        200, {"n": 1}, headers={"X-RateLimit-Remaining": remaining, "X-RateLimit-Reset": reset}
    )
    with ScriptedServer([spent, OK]) as srv:
        t = transport(srv.url, clock)
        t.request("GET", "/x")
        try:
            t.request("GET", "/x")
        except RateLimitError as error:
            assert "max_rate_limit_wait" in str(error)
            assert error.reset_at is not None
    assert all(wait <= POLICY.max_rate_limit_wait for wait in clock.sleeps)


@pytest.mark.parametrize("value", ODD_NUMBERS, ids=repr)
@pytest.mark.parametrize("header", ["X-RateLimit-Reset", "Retry-After"])
def test_odd_wait_headers_on_a_429_are_ignored_or_clamped(header, value):
    clock = FakeClock(start=NOW)
    with ScriptedServer([Reply(429, {}, headers={header: value}), OK]) as srv:
        t = transport(srv.url, clock)
        try:
            assert t.request("GET", "/x").data == {"ok": True}
        except RateLimitError as error:  # a wait longer than allowed: refused, with a date
            assert "max_rate_limit_wait" in str(error)
            assert error.reset_at.year <= datetime.fromtimestamp(NOW + MAX_WAIT, UTC).year
    assert all(0 <= wait <= POLICY.max_rate_limit_wait for wait in clock.sleeps)


def test_an_http_date_retry_after_is_honoured():
    clock = FakeClock(start=NOW)
    when = format_datetime(datetime.fromtimestamp(NOW + 7, UTC), usegmt=True)
    with ScriptedServer([Reply(429, {}, headers={"Retry-After": when}), OK]) as srv:
        t = transport(srv.url, clock)
        assert t.request("POST", "/x").data == {"ok": True}
    assert clock.sleeps == [pytest.approx(7.0, abs=1e-5)]
    assert len(srv.seen) == 2


def test_an_http_date_in_the_past_retries_at_once():
    clock = FakeClock(start=NOW)
    with ScriptedServer(
        [Reply(429, {}, headers={"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}), OK]
    ) as srv:
        transport(srv.url, clock).request("GET", "/x")
    assert clock.sleeps == [0.0]


def test_an_http_date_beyond_the_allowed_wait_raises_with_its_date():
    clock = FakeClock(start=NOW)
    when = format_datetime(datetime.fromtimestamp(NOW + 3600, UTC), usegmt=True)
    with (
        ScriptedServer([Reply(429, {}, headers={"Retry-After": when}), OK]) as srv,
        pytest.raises(RateLimitError) as info,
    ):
        transport(srv.url, clock).request("GET", "/x")
    assert info.value.reset_at.timestamp() == pytest.approx(NOW + 3600)
    assert clock.sleeps == [] and len(srv.seen) == 1


# -- the parsers, offline ------------------------------------------------------------------------


@pytest.mark.parametrize("value", ODD_NUMBERS, ids=repr)
def test_parsers_return_none_or_a_bounded_number(value):
    headers = {"X-RateLimit-Reset": value, "Retry-After": value, "X-RateLimit-Remaining": value}
    reset = rate_limit_reset(headers, NOW)
    assert reset is None or NOW - 1 <= reset <= NOW + MAX_WAIT
    wait = retry_after(headers, NOW)
    assert wait is None or 0 <= wait <= MAX_WAIT
    wait = rate_limit_wait(headers, NOW)
    assert wait is None or 0 <= wait <= MAX_WAIT
    budget = remaining_budget(headers)
    assert budget is None or 0 <= budget <= 10**9


def test_parsers_read_the_usual_forms():
    assert rate_limit_reset({"X-RateLimit-Reset": "1700000030"}, NOW) == NOW + 30
    assert rate_limit_reset({"X-RateLimit-Reset": "1700000030000"}, NOW) == NOW + 30
    assert rate_limit_reset({"X-RateLimit-Reset": "30"}, NOW) == NOW + 30
    assert retry_after({"Retry-After": "2.5"}, NOW) == 2.5
    assert retry_after({"Retry-After": "Tue, 14 Nov 2023 22:13:30 GMT"}, NOW) == 10.0
    assert remaining_budget({"X-RateLimit-Remaining": " 42 "}) == 42
    assert remaining_budget({"X-RateLimit-Remaining": "-2"}) == 0
    assert remaining_budget({"X-RateLimit-Remaining": "99999999999999999999"}) == 10**9
