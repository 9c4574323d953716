"""Offline tests of the core value objects: Secret, Timeout, RetryPolicy, errors, redaction."""

from __future__ import annotations

import pickle
import time

import pytest

from docsapi._config import RetryPolicy, Timeout
from docsapi._ratelimit import rate_limit_reset
from docsapi._redact import register_secret, scrub
from docsapi._secret import Secret
from docsapi.errors import (
    APIStatusError,
    AuthenticationError,
    ConflictError,
    NotFoundError,
    RateLimitError,
    ServerError,
    ValidationError,
    status_error_class,
)


def test_secret_never_shows_its_value():
    secret = Secret("  gb_api_topsecret  ")
    assert secret.reveal() == "gb_api_topsecret"
    assert "topsecret" not in repr(secret) + str(secret) + f"{secret}" + repr([secret])
    with pytest.raises(TypeError):
        pickle.dumps(secret)


@pytest.mark.parametrize("value", ["", "   "])
def test_secret_refuses_empty_values(value):
    with pytest.raises(ValueError):
        Secret(value)


def test_scrub_masks_registered_secrets_and_auth_headers():
    register_secret(Secret("key-5f2e9a"))
    assert "key-5f2e9a" not in scrub("sent key-5f2e9a to the server")
    assert scrub("X-Api-Key: abc123def") == "X-Api-Key: ********"
    assert scrub("'Authorization': 'Bearer xyz789'") == "'Authorization': 'Bearer ********'"


def test_timeout_coerces_numbers_pairs_and_refuses_nonsense():
    assert Timeout.coerce(10).as_requests() == (5.0, 10.0)
    assert Timeout.coerce(2).as_requests() == (2.0, 2.0)
    assert Timeout.coerce((1, 3)) == Timeout(1.0, 3.0)
    assert Timeout.coerce(None) == Timeout()
    for bad in (0, -1, True, "30"):
        with pytest.raises(TypeError):
            Timeout.coerce(bad)


def test_backoff_doubles_and_is_capped():
    policy = RetryPolicy(jitter=False)
    assert [policy.backoff_delay(n) for n in range(6)] == [0.5, 1.0, 2.0, 4.0, 8.0, 8.0]
    jittered = RetryPolicy()
    assert all(1.0 <= jittered.backoff_delay(2) <= 2.0 for _ in range(50))


@pytest.mark.parametrize(
    ("method", "unprocessed", "transient", "expected"),
    [
        ("GET", False, True, True),
        ("DELETE", False, True, True),
        ("GET", False, False, False),
        ("POST", False, True, False),
        ("PATCH", False, True, False),
        ("POST", True, False, True),
        ("PATCH", True, True, True),
    ],
)
def test_retry_decisions(method, unprocessed, transient, expected):
    decision = RetryPolicy().may_retry(method, surely_unprocessed=unprocessed, transient=transient)
    assert decision is expected


def test_retry_policy_validates_its_settings():
    with pytest.raises(ValueError):
        RetryPolicy(max_retries=-1)
    with pytest.raises(TypeError):
        RetryPolicy(max_retries=2.5)


@pytest.mark.parametrize(
    ("status", "cls"),
    [
        (401, AuthenticationError),
        (404, NotFoundError),
        (409, ConflictError),
        (429, RateLimitError),
        (500, ServerError),
        (503, ServerError),
        (418, APIStatusError),
    ],
)
def test_status_maps_to_the_most_specific_class(status, cls):
    assert status_error_class(status) is cls


def test_server_errors_worth_retrying():
    assert ServerError(503, "busy").retryable
    assert not ServerError(501, "not implemented").retryable
    assert RateLimitError(429, "slow down").unprocessed


def test_error_message_keeps_the_request_id_last_when_detail_is_added():
    error = NotFoundError(404, "Space not found.", method="GET", path="/spaces/x", request_id="r-1")
    error.add_detail("Check the id.")
    assert str(error) == "404 (GET /spaces/x): Space not found. Check the id. [request id r-1]"


def test_validation_error_is_a_value_error_naming_the_argument():
    error = ValidationError("title", "must have at most 50 characters")
    assert isinstance(error, ValueError)
    assert error.argument == "title" and str(error).startswith("title: ")


def test_rate_limit_reset_reads_epoch_seconds_milliseconds_and_deltas():
    now = time.time()
    assert rate_limit_reset({"X-RateLimit-Reset": "1700000000"}, now) == 1700000000
    assert rate_limit_reset({"X-RateLimit-Reset": "1700000000500"}, now) == 1700000000.5
    assert rate_limit_reset({"X-RateLimit-Reset": "30"}, now) == now + 30
    assert rate_limit_reset({"X-RateLimit-Reset": "soon"}, now) is None
    assert rate_limit_reset({}, now) is None
