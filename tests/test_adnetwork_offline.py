"""Offline pieces of docsapi.adnetwork: the error parser, the frame builder, the checks."""

from __future__ import annotations

import pandas as pd
import pytest

from docsapi import (
    AuthenticationError,
    BadRequestError,
    ConflictError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    ServerError,
    ValidationError,
)
from docsapi.adnetwork import (
    ERROR_CLASSES,
    AdNetworkClient,
    AdNetworkError,
    InvalidAPIKeyError,
    RequestURINotFoundError,
    ServerInternalError,
    SystemUpgradeError,
    TooManyRequestsError,
)
from docsapi.adnetwork._checks import check_changes, check_network
from docsapi.adnetwork.errors import make_error_parser
from docsapi.adnetwork.frames import affiliates, flatten, snake_case

SETTINGS = "https://net.example/admin/settings.html"
parse = make_error_parser(SETTINGS)


def call(status, body, text=""):
    return parse(status, body, text, method="GET", path="/affiliate", request_id="r-1")


FAMILY = {
    5: PermissionDeniedError,
    11: ConflictError,
    12: AuthenticationError,
    13: AuthenticationError,
    20: BadRequestError,
    30: BadRequestError,
    31: NotFoundError,
    33: ConflictError,
    40: RateLimitError,
    41: PermissionDeniedError,
    42: PermissionDeniedError,
    50: ServerError,
    51: ServerError,
    60: BadRequestError,
}


@pytest.mark.parametrize("code", sorted(ERROR_CLASSES))
def test_every_code_maps_to_its_class_and_family(code):
    err = call(400, {"code": code, "message": "Some message"})
    assert type(err) is ERROR_CLASSES[code] and isinstance(err, AdNetworkError)
    if code in FAMILY:
        assert isinstance(err, FAMILY[code])
    assert err.code == code and err.status == 400 and err.request_id == "r-1"
    assert str(err).count(".") >= 2, "the message must say what to do next"


def test_success_envelopes_are_not_errors():
    assert call(200, {"code": 0, "message": "Success", "data": []}) is None
    assert call(200, {"code": "0", "data": []}) is None
    assert call(204, None) is None


def test_code_in_a_200_answer_is_an_error_with_the_http_status():
    err = call(200, {"code": "33", "message": "Duplicated Resource"})
    assert isinstance(err, ConflictError) and (err.code, err.status) == (33, 200)


def test_retry_flags():
    assert call(429, {"code": 40}).retryable and call(429, {"code": 40}).unprocessed
    upgrade = call(503, {"code": 50, "message": "System upgrade"})
    assert isinstance(upgrade, SystemUpgradeError) and upgrade.retryable and upgrade.unprocessed
    assert call(200, {"code": 50}).retryable
    internal = call(500, {"code": 51})
    assert isinstance(internal, ServerInternalError) and not internal.unprocessed
    assert not call(400, {"code": 20}).retryable


def test_answers_without_a_code_are_classified_by_status():
    assert isinstance(call(401, None, "<html>denied</html>"), InvalidAPIKeyError)
    assert isinstance(call(429, None), TooManyRequestsError)
    assert isinstance(call(501, {"code": 32}), RequestURINotFoundError)
    err = call(418, None, "<p>I am a teapot</p>")
    assert type(err) is AdNetworkError and "I am a teapot" in str(err)


def test_hints_point_at_the_admin_settings():
    assert SETTINGS in str(call(401, {"code": 13, "message": "Invalid API Key"}))
    whitelist = str(call(403, {"code": 41, "message": "Request IP Not Whitelisted"}))
    assert "whitelist" in whitelist and SETTINGS in whitelist


def test_frame_flattens_snake_cases_and_types_columns():
    records = [
        {
            "name": "A",
            "id": 2,
            "manager": {"id": 7, "fullName": "M"},
            "score": 1.5,
            "isVip": True,
            "tags": ["x"],
            "createdAt": "2024-01-02T03:04:05Z",
            "note": None,
        },
        {
            "name": "B",
            "id": 3,
            "manager": {"id": 8, "fullName": "N"},
            "score": 2,
            "isVip": False,
            "tags": [],
            "createdAt": "2024-02-03T04:05:06+00:00",
            "note": "n",
        },
    ]
    frame = affiliates(records)
    assert list(frame.columns) == [
        "id",
        "manager_id",
        "name",
        "manager_full_name",
        "score",
        "is_vip",
        "tags",
        "created_at",
        "note",
    ]
    dtypes = frame.dtypes.astype(str).to_dict()
    assert dtypes["id"] == "Int64" and dtypes["score"] == "float64"
    assert dtypes["is_vip"] == "boolean" and dtypes["created_at"] == "datetime64[ns, UTC]"
    assert frame.loc[1, "created_at"] == pd.Timestamp("2024-02-03T04:05:06Z")
    assert pd.isna(frame.loc[0, "note"]) and frame.loc[1, "tags"] == []


def test_frame_keeps_fields_some_records_lack():
    frame = affiliates([{"id": 1}, {"id": 2, "extra": "x"}])
    assert frame["extra"].isna().tolist() == [True, False]


def test_snake_case_and_flatten():
    assert snake_case("totalPaid") == "total_paid" and snake_case("HTTPCode") == "http_code"
    assert flatten({"a": {"b": {"cD": 1}}}) == {"a_b_c_d": 1}


def test_check_changes_keeps_only_differences():
    current = {"name": "A", "manager": {"id": 1, "name": "M"}}
    assert check_changes({"name": "A", "manager": {"id": 2}}, current) == {"manager": {"id": 2}}
    with pytest.raises(ValidationError, match="nothing to send"):
        check_changes({"name": "A"}, current)
    with pytest.raises(TypeError):
        check_changes(["name"], None)


@pytest.mark.parametrize(
    "network",
    ["demo.example.com", "127.0.0.1:8080", "[::1]:9000", "localhost", "net-1.example.co.uk"],
)
def test_good_networks(network):
    assert check_network(network) == network


def test_client_repr_and_markdown_do_not_show_the_key():
    client = AdNetworkClient("demo.example.com", api_key="secret-key-123")
    text = repr(client) + client._repr_markdown_() + client._repr_html_()
    assert "secret-key-123" not in text
    assert "api_key=from argument" in repr(client)
    for name in ("affiliates", "get", "create", "replace", "update", "delete"):
        assert f".{name}(" in client._repr_markdown_()


def test_empty_key_argument_is_refused():
    with pytest.raises(ValidationError, match="api_key"):
        AdNetworkClient("demo.example.com", api_key="  ")
