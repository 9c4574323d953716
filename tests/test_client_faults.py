"""The client against the sandbox's injected faults: what is retried, what is raised."""

from __future__ import annotations

import pytest
from fake_clock import FakeClock

from docsapi import RetryPolicy
from docsapi.errors import APIConnectionError, RateLimitError, ResponseFormatError, ServerError

FAST = RetryPolicy(max_retries=3, backoff=0.5, jitter=False, max_rate_limit_wait=5.0)


@pytest.fixture
def clock():
    return FakeClock()


@pytest.fixture
def fast_client(sandbox, clock):
    """A client whose waits (backoff, Retry-After) run on a fake clock: recorded, not slept."""
    return sandbox.client(retry=FAST, clock=clock)


@pytest.fixture
def space_id(sandbox):
    return sandbox.demo["space_ids"][0]


def _calls(sandbox, method: str, fragment: str) -> int:
    return sum(1 for m, path, _ in sandbox.request_log if m == method and fragment in path)


def test_get_survives_three_503s(sandbox, fast_client, clock, space_id):
    sandbox.inject("503", count=3, methods=["GET"])
    assert fast_client.spaces.get(space_id).id == space_id
    assert _calls(sandbox, "GET", f"/spaces/{space_id}") == 4
    assert clock.sleeps == [0.5, 1.0, 2.0]


def test_post_503_raises_after_one_attempt(sandbox, fast_client, space_id):
    sandbox.inject("503", count=1, methods=["POST"])
    with pytest.raises(ServerError):
        fast_client.spaces.duplicate(space_id)
    assert _calls(sandbox, "POST", "/duplicate") == 1


def test_post_whose_connection_drops_is_not_repeated(sandbox, fast_client, space_id):
    spaces_before = len(fast_client.spaces.list(org_id=sandbox.org_id))
    sandbox.inject("drop", count=1, methods=["POST"])
    with pytest.raises(APIConnectionError, match="outcome is unknown"):
        fast_client.spaces.duplicate(space_id)
    assert _calls(sandbox, "POST", "/duplicate") == 1
    assert len(fast_client.spaces.list(org_id=sandbox.org_id)) == spaces_before


def test_dropped_get_and_truncated_get_are_retried(sandbox, fast_client, space_id):
    sandbox.inject("drop", count=1, methods=["GET"])
    sandbox.inject("truncate", count=1, methods=["GET"])
    assert fast_client.spaces.get(space_id).id == space_id
    assert _calls(sandbox, "GET", f"/spaces/{space_id}") == 3


def test_html_page_is_a_clear_error(sandbox, fast_client, space_id):
    sandbox.inject("html", count=1)
    with pytest.raises(ResponseFormatError, match="expected JSON"):
        fast_client.spaces.get(space_id)


def test_short_retry_after_is_waited_and_long_one_raises(sandbox, fast_client, clock, space_id):
    sandbox.inject("retry-after:1", count=1)
    assert fast_client.spaces.get(space_id).id == space_id
    assert fast_client.transport.history[-1].attempt == 1
    assert clock.sleeps == [pytest.approx(1.0, abs=1e-5)]
    sandbox.inject("retry-after:3600", count=1)
    with pytest.raises(RateLimitError) as info:
        fast_client.spaces.get(space_id)
    assert info.value.reset_at is not None
    assert len(clock.sleeps) == 1


def test_max_retries_zero_never_retries(sandbox, space_id):
    client = sandbox.client(max_retries=0, clock=FakeClock())
    sandbox.inject("503", count=1)
    with pytest.raises(ServerError):
        client.spaces.get(space_id)
    assert _calls(sandbox, "GET", f"/spaces/{space_id}") == 1
