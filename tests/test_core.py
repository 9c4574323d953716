"""Offline tests of the core value objects: Secret, Timeout, RetryPolicy, errors, redaction."""

from __future__ import annotations

import pickle
import time

import pytest

from docsapi.core.config import RetryPolicy, Timeout
from docsapi.core.redact import register_secret, scrub
from docsapi.core.secret import Secret
from docsapi.errors import (
    APIConnectionError,
    APIStatusError,
    AuthenticationError,
    ConflictError,
    MissingCredentialError,
    NotFoundError,
    RateLimitError,
    ResponseFormatError,
    ServerError,
    ValidationError,
    retry_flags,
    status_error_class,
)
from docsapi.wire.ratelimit import rate_limit_reset


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


def test_validation_error_is_also_a_type_error():
    error = ValidationError("space_id", "must be a str, got int")
    assert isinstance(error, TypeError) and isinstance(error, ValueError)


@pytest.mark.parametrize(
    ("error", "flags"),
    [
        (ServerError(503, "busy"), (True, False)),
        (ServerError(501, "no"), (False, False)),
        (NotFoundError(404, "gone"), (False, False)),
        (RateLimitError(429, "slow"), (True, True)),
        (APIConnectionError("refused", reached=False), (True, True)),
        (APIConnectionError("lost", reached=True), (True, False)),
        (APIConnectionError("loop", transient=False), (False, False)),
        (ResponseFormatError("cut", truncated=True), (True, False)),
        (ResponseFormatError("html"), (False, False)),
        (MissingCredentialError("none"), (False, False)),
        (ValidationError("x", "bad"), (False, False)),
    ],
    ids=lambda value: type(value).__name__ if isinstance(value, Exception) else str(value),
)
def test_retry_flags_are_decided_in_one_place(error, flags):
    assert retry_flags(error) == flags == (error.retryable, error.unprocessed)
    with pytest.raises(AttributeError):
        error.retryable = True


def test_errors_keep_the_parsed_body_headers_and_request_id_masked():
    register_secret(Secret("tok-e8d1c0ffee"))
    error = NotFoundError(
        404,
        "no space for tok-e8d1c0ffee",
        request_id="req-tok-e8d1c0ffee",
        body={"error": {"message": "tok-e8d1c0ffee"}, "tok-e8d1c0ffee": [1]},
        headers={"X-Echo": "Bearer tok-e8d1c0ffee"},
    )
    rendered = str(error) + repr(error) + repr(vars(error))
    assert "tok-e8d1c0ffee" not in rendered
    assert error.body == {"error": {"message": "********"}, "********": [1]}
    assert error.headers == {"X-Echo": "Bearer ********"}
    assert error.request_id == "req-********"


def test_missing_credential_error_claims_no_status():
    error = MissingCredentialError("No API token found.", method="GET", path="/user")
    assert error.status is None and isinstance(error, AuthenticationError)
    assert str(error) == "No API token found. Nothing was sent (GET /user)."


def test_timeout_and_retry_settings_refuse_nonsense_as_validation_errors():
    for bad in ((0, 0), (1, float("nan")), (1,), float("inf"), -1, "30", True):
        with pytest.raises(ValidationError, match="timeout"):
            Timeout.coerce(bad)
    with pytest.raises(ValidationError, match="max_rate_limit_wait"):
        RetryPolicy(max_rate_limit_wait=float("nan"))
    with pytest.raises(ValidationError, match="backoff"):
        RetryPolicy(backoff=-1)


def test_secret_refuses_what_a_header_cannot_carry_without_repeating_it():
    for bad in ("tok\u20ac-9f1", "tok\r\n-9f1", "tok\x00-9f1", 123, b"tok"):
        with pytest.raises(ValidationError) as info:
            Secret(bad)
        assert "9f1" not in str(info.value)
        assert info.value.__context__ is None


def test_the_package_namespace_is_clean_and_complete():
    import docsapi

    names = dir(docsapi)
    assert not {"annotations", "import_module", "TYPE_CHECKING"} & set(names)
    assert set(docsapi.__all__) <= set(names)
    assert {"ResponseFormatError", "MissingCredentialError"} <= set(docsapi.__all__)


def test_the_version_has_one_source():
    from importlib.metadata import version
    from pathlib import Path

    import docsapi

    assert docsapi.__version__ == version("docsapi")
    source = Path(docsapi.__file__).read_text()
    assert version("docsapi") not in source


def test_docsapi_version_option(capsys):
    from docsapi.cli import main

    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    import docsapi

    assert capsys.readouterr().out.strip() == f"docsapi {docsapi.__version__}"


def test_not_given_reads_well_in_signatures():
    import inspect

    from docsapi.resources import Spaces
    from docsapi.resources._base import NOT_GIVEN

    assert repr(NOT_GIVEN) == "NOT_GIVEN" and not NOT_GIVEN
    signature = str(inspect.signature(Spaces.update))
    assert "title: 'str | NotGiven' = NOT_GIVEN" in signature
    assert "Ellipsis" not in signature and "..." not in signature
