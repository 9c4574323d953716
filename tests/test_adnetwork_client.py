"""AdNetworkClient over real HTTP against AdNetworkSandbox: every method, every code, retries."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pandas as pd
import pytest
from fake_clock import FakeClock

from docsapi import (
    AuthenticationError,
    BadRequestError,
    ConflictError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    RetryPolicy,
    ServerError,
    ValidationError,
)
from docsapi.adnetwork import (
    ERROR_CLASSES,
    AccountLockedError,
    AdNetworkClient,
    AdNetworkError,
    DuplicatedResourceError,
    IllegalOperationError,
    InsufficientPermissionError,
    InvalidAPIKeyError,
    InvalidRequestMethodError,
    IPNotWhitelistedError,
    OperationNotAllowedError,
    ParameterError,
    RequestURINotFoundError,
    ResourceNotFoundError,
    ServerInternalError,
    SystemUpgradeError,
    TooManyRequestsError,
    UnauthorizedRequestError,
)
from docsapi.sandbox.adnetwork import AdNetworkSandbox

FAST = RetryPolicy(max_retries=3, backoff=0.5, jitter=False, max_rate_limit_wait=5.0)
NEW = {
    "name": "Ada Byron",
    "email": "ada.byron@example.com",
    "country": "GB",
    "currency": "GBP",
    "manager": {"id": 2},
    "payout": {"totalPaid": 10, "pending": 2.5},
}


@pytest.fixture(scope="module")
def ans_server():
    with AdNetworkSandbox(seed=0, affiliates=300) as ans:
        yield ans


@pytest.fixture
def ans(ans_server):
    ans_server.reset()
    return ans_server


@pytest.fixture
def client(ans):
    """A client whose backoff runs on a fake clock (recorded, not slept)."""
    with ans.client(retry=FAST, clock=FakeClock()) as client:
        yield client


def first_with(ans, status):
    return next(r for r in ans.affiliate_records() if r["status"] == status)


# -- lists --------------------------------------------------------------------------------------


def test_affiliates_reads_every_page_into_a_typed_frame(ans, client):
    frame = client.affiliates()
    assert len(frame) == 300 and frame["id"].is_unique
    assert [target for _, target, _ in ans.request_log] == [
        f"/api/affiliate?limit=100&offset={page}" for page in (1, 2, 3)
    ]
    assert list(frame.columns[:2]) == ["id", "manager_id"]
    assert {
        "manager_name",
        "payout_total_paid",
        "payout_pending",
        "created_at",
        "updated_at",
        "email",
        "status",
        "country",
        "currency",
    } <= set(frame.columns)
    assert str(frame["id"].dtype) == "Int64"
    assert pd.api.types.is_float_dtype(frame["payout_total_paid"])
    assert str(frame["created_at"].dt.tz) == "UTC"
    first = ans.affiliate_records()[0]
    row = frame.iloc[0]
    assert row["manager_name"] == first["manager"]["name"]
    assert row["created_at"] == pd.Timestamp(first["createdAt"])


def test_affiliates_small_pages_and_filters(ans, client):
    expected = [
        r["id"]
        for r in ans.affiliate_records()
        if r["status"] in ("active", "paused") and r["country"] == "FR"
    ]
    frame = client.affiliates(page_size=3, status=["active", "paused"], country="FR")
    assert frame["id"].tolist() == expected
    assert ans.request_count == -(-len(expected) // 3)
    assert "filters%5Bstatus%5D=active%2Cpaused" in ans.request_log[0][1]


def test_affiliates_filter_on_a_nested_field(ans, client):
    frame = client.affiliates(manager_id=3)
    assert len(frame) > 0 and set(frame["manager_id"]) == {3}


def test_empty_result_still_has_the_columns(client):
    frame = client.affiliates(country="ZZ")
    assert frame.empty and list(frame.columns[:2]) == ["id", "manager_id"]
    assert str(frame["created_at"].dtype) == "datetime64[ns, UTC]"


def test_key_from_the_environment_reads_all_affiliates(ans, monkeypatch):
    monkeypatch.setenv("ADNETWORK_API_KEY", ans.api_key)
    with AdNetworkClient(ans.network, scheme="http", retry=FAST) as client:
        frame = client.affiliates()
    assert len(frame) == 300 and ans.request_count == 3


def test_page_size_out_of_range_is_refused_before_sending(ans, client):
    with pytest.raises(ValidationError, match="page_size"):
        client.affiliates(page_size=500)
    assert ans.request_count == 0


# -- get / create / replace / update / delete ---------------------------------------------------


def test_get_one_and_a_page(ans, client):
    assert client.get("affiliate", 1001) == ans.affiliate_records()[0]
    page = client.get("affiliate", params={"offset": 2, "limit": 50})
    assert page["offset"] == 2 and page["limit"] == 50 and page["totalRows"] == 300
    assert page["totalPages"] == 6 and page["rowset"][0]["id"] == 1051


def test_create_returns_the_stored_affiliate(ans, client):
    created = client.create("affiliate", NEW)
    assert created["id"] == 1301 and created["manager"] == {"id": 2, "name": "Tom Becker"}
    assert created["status"] == "pending" and created["payout"] == {
        "totalPaid": 10.0,
        "pending": 2.5,
    }
    assert client.get("affiliate", 1301) == created


def test_replace_puts_the_whole_record(ans, client):
    record = client.get("affiliate", 1002)
    stored = client.replace(
        "affiliate", 1002, {**record, "company": "Acme Ltd", "manager": {"id": 5}}
    )
    assert stored["company"] == "Acme Ltd" and stored["manager"]["id"] == 5
    assert stored["createdAt"] == record["createdAt"] and stored["email"] == record["email"]
    assert ans.request_log[-1][0] == "PUT"


def test_replace_resets_fields_left_out(client):
    stored = client.replace("affiliate", 1003, {"name": "Only Name", "email": "only@x.example"})
    assert stored["company"] == "" and stored["status"] == "pending"


def test_update_sends_only_the_changed_fields(ans, client):
    record = client.get("affiliate", 1004)
    changes = {"name": record["name"], "company": "New Co", "status": record["status"]}
    stored = client.update("affiliate", 1004, changes, current=record)
    assert stored["company"] == "New Co" and stored["name"] == record["name"]
    assert ans.request_log[-1][:2] == ("PATCH", "/api/affiliate/1004")


def test_update_with_nothing_changed_is_refused_before_sending(ans, client):
    record = client.get("affiliate", 1004)
    with pytest.raises(ValidationError, match="nothing to send"):
        client.update("affiliate", 1004, {"name": record["name"]}, current=record)
    with pytest.raises(ValidationError, match="nothing to send"):
        client.update("affiliate", 1004, {})
    assert ans.request_count == 1


def test_delete_a_paused_affiliate(ans, client):
    paused = first_with(ans, "paused")["id"]
    assert client.delete("affiliate", paused) == {"id": paused, "deleted": True}
    with pytest.raises(ResourceNotFoundError):
        client.get("affiliate", paused)


def test_pause_then_delete_an_active_affiliate(ans, client):
    active = first_with(ans, "active")["id"]
    with pytest.raises(OperationNotAllowedError, match="pause"):
        client.delete("affiliate", active)
    client.update("affiliate", active, {"status": "paused"})
    client.delete("affiliate", active)
    assert active not in {r["id"] for r in ans.affiliate_records()}


@pytest.mark.parametrize(
    "call",
    [
        lambda c: c.get("affiliate/1001"),
        lambda c: c.get("", 1),
        lambda c: c.delete("affiliate", "1/2"),
        lambda c: c.create("affiliate", {}),
        lambda c: c.update("affiliate", -1, {"name": "x"}),
    ],
)
def test_bad_arguments_are_refused_before_sending(ans, client, call):
    with pytest.raises(ValidationError):
        call(client)
    assert ans.request_count == 0


@pytest.mark.parametrize(
    "network",
    [
        "http://demo.example.com",
        "demo.example.com/api",
        "demo example.com",
        "",
        "host:99999",
        "user@host",
    ],
)
def test_network_must_be_a_host_and_port(network):
    with pytest.raises(ValidationError, match="network"):
        AdNetworkClient(network, api_key="k")


def test_scheme_is_checked():
    with pytest.raises(ValidationError, match="scheme"):
        AdNetworkClient("demo.example.com", api_key="k", scheme="ftp")


# -- application codes, raised without retry ----------------------------------------------------


def test_missing_key_explains_both_ways_and_sends_nothing(ans, monkeypatch):
    monkeypatch.delenv("ADNETWORK_API_KEY", raising=False)
    client = AdNetworkClient(ans.network, scheme="http")
    assert "api_key=missing" in repr(client)
    with pytest.raises(AuthenticationError) as info:
        client.get("affiliate", 1001)
    assert "api_key=" in str(info.value) and "ADNETWORK_API_KEY" in str(info.value)
    assert ans.request_count == 0


def test_wrong_key_is_code_13(ans):
    with pytest.raises(InvalidAPIKeyError) as info:
        ans.client(api_key="an_wrong", retry=FAST).get("affiliate", 1001)
    err = info.value
    assert isinstance(err, AuthenticationError) and isinstance(err, AdNetworkError)
    assert (err.code, err.status) == (13, 401)
    assert "data center" in str(err) and "ADNETWORK_API_KEY" in str(err)
    assert ans.request_count == 1


@pytest.mark.parametrize("role", ["expired", "other-dc"])
def test_expired_or_foreign_key_is_code_12(ans, role):
    with pytest.raises(UnauthorizedRequestError) as info:
        ans.client(api_key=ans.keys[role], retry=FAST).affiliates()
    assert (info.value.code, info.value.status) == (12, 401)
    assert "data center" in str(info.value) and isinstance(info.value, AuthenticationError)
    assert ans.request_count == 1


def test_read_only_key_reads_but_writes_get_code_5(ans):
    client = ans.client(api_key=ans.keys["readonly"], retry=FAST)
    assert client.get("affiliate", 1001)["id"] == 1001
    with pytest.raises(InsufficientPermissionError) as info:
        client.create("affiliate", NEW)
    assert (info.value.code, info.value.status) == (5, 403)
    assert isinstance(info.value, PermissionDeniedError)
    assert ans.request_count == 2


def test_locked_account_is_code_42(ans):
    with pytest.raises(AccountLockedError) as info:
        ans.client(api_key=ans.keys["locked"], retry=FAST).get("affiliate", 1001)
    assert (info.value.code, info.value.status) == (42, 403)
    assert ans.request_count == 1


def test_ip_outside_the_whitelist_is_code_41_with_instructions(ans, client):
    ans.set_whitelist(["203.0.113.7"])
    with pytest.raises(IPNotWhitelistedError) as info:
        client.get("affiliate", 1001)
    assert (info.value.code, info.value.status) == (41, 403)
    assert "whitelist" in str(info.value) and "/admin/settings.html" in str(info.value)
    assert ans.request_count == 1
    ans.set_whitelist(["127.0.0.1"])
    assert client.get("affiliate", 1001)["id"] == 1001


def test_unknown_id_is_code_31(ans, client):
    with pytest.raises(ResourceNotFoundError) as info:
        client.get("affiliate", 999999)
    assert (info.value.code, info.value.status) == (31, 404)
    assert isinstance(info.value, NotFoundError) and ans.request_count == 1


def test_unknown_resource_is_501(ans, client):
    with pytest.raises(RequestURINotFoundError) as info:
        client.get("offer")
    assert info.value.status == 501 and "Request uri not found" in str(info.value)
    assert ans.request_count == 1


def test_unsupported_method_is_405_code_32(ans, client):
    with pytest.raises(InvalidRequestMethodError) as info:
        client.transport.request("DELETE", "/affiliate")
    assert (info.value.code, info.value.status) == (32, 405)
    assert ans.request_count == 1


def test_duplicate_email_is_code_33(ans, client):
    existing = ans.affiliate_records()[5]["email"]
    with pytest.raises(DuplicatedResourceError) as info:
        client.create("affiliate", {**NEW, "email": existing.upper()})
    assert (info.value.code, info.value.status) == (33, 409)
    assert isinstance(info.value, ConflictError) and ans.request_count == 1


@pytest.mark.parametrize(
    "body, words",
    [
        ({"name": "No Email"}, "missing required field(s) email"),
        ({**NEW, "payout": {"totalPaid": "ten"}}, "payout.totalPaid must be a number"),
        ({**NEW, "status": "sleeping"}, "status must be one of"),
        ({**NEW, "manager": {"id": 99}}, "not an account manager"),
        ({**NEW, "colour": "red"}, "unknown field(s) colour"),
    ],
)
def test_bad_bodies_are_code_20(ans, client, body, words):
    with pytest.raises(ParameterError) as info:
        client.create("affiliate", body)
    assert (info.value.code, info.value.status) == (20, 400)
    assert words in str(info.value) and isinstance(info.value, BadRequestError)
    assert ans.request_count == 1


@pytest.mark.parametrize(
    "params",
    [{"limit": 1000}, {"offset": 0}, {"limit": "ten"}, {"filters[colour]": "red"}, {"sort": "id"}],
)
def test_bad_query_parameters_are_code_20(ans, client, params):
    with pytest.raises(ParameterError):
        client.get("affiliate", params=params)
    assert ans.request_count == 1


@pytest.mark.parametrize("change", [{"id": 5}, {"createdAt": "2020-01-01T00:00:00Z"}])
def test_changing_a_read_only_field_is_code_60(ans, client, change):
    with pytest.raises(IllegalOperationError) as info:
        client.update("affiliate", 1001, {"name": "X", **change})
    assert (info.value.code, info.value.status) == (60, 400)
    assert client.get("affiliate", 1001)["name"] != "X"


@pytest.mark.parametrize("code", sorted(c for c in ERROR_CLASSES if c not in (40, 50, 51)))
def test_each_injected_code_raises_its_class_after_one_request(ans, client, code):
    ans.inject(str(code))
    with pytest.raises(ERROR_CLASSES[code]) as info:
        client.get("affiliate", 1001)
    assert info.value.code == code and ans.request_count == 1


def test_error_code_in_an_http_200_answer_is_an_error(ans, client):
    ans.inject("200-with-code:20")
    with pytest.raises(ParameterError) as info:
        client.get("affiliate", 1001)
    assert (info.value.code, info.value.status) == (20, 200)
    assert ans.request_count == 1


CALLS = {
    "affiliates": lambda c, a: c.affiliates(),
    "get": lambda c, a: c.get("affiliate", 1001),
    "create": lambda c, a: c.create("affiliate", NEW),
    "replace": lambda c, a: c.replace("affiliate", 1001, {"name": "R", "email": "r@x.example"}),
    "update": lambda c, a: c.update("affiliate", 1001, {"company": "U"}),
    "delete": lambda c, a: c.delete("affiliate", first_with(a, "paused")["id"]),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_every_method_raises_a_refusal_after_one_request(ans, client, name):
    ans.inject("33")
    with pytest.raises(DuplicatedResourceError):
        CALLS[name](client, ans)
    assert ans.request_count == 1
    assert ans.affiliate_records() == AdNetworkSandbox(seed=0, affiliates=300).affiliate_records()


@pytest.mark.parametrize("name", sorted(CALLS))
def test_every_method_is_retried_through_a_rate_limit(ans, client, name):
    ans.inject("40", count=2)
    assert CALLS[name](client, ans) is not None
    assert [status for _, _, status in ans.request_log[:3]] == [429, 429, 200]


# -- retried codes --------------------------------------------------------------------------------


@pytest.mark.parametrize("fault", ["40", "50", "200-with-code:40"])
@pytest.mark.parametrize("method", ["get", "create"])
def test_rate_limit_and_upgrade_are_retried_until_they_clear(ans, client, fault, method):
    ans.inject(fault, count=2)
    if method == "get":
        assert client.get("affiliate", 1001)["id"] == 1001
    else:
        assert client.create("affiliate", NEW)["id"] == 1301
    assert ans.request_count == 3
    assert len(ans.affiliate_records()) == (300 if method == "get" else 301)


@pytest.mark.parametrize(
    "fault, cls, status", [("40", TooManyRequestsError, 429), ("50", SystemUpgradeError, 503)]
)
def test_retried_codes_raise_once_retries_run_out(ans, client, fault, cls, status):
    ans.inject(fault, count=10)
    with pytest.raises(cls) as info:
        client.update("affiliate", 1001, {"company": "Never"})
    assert info.value.status == status and info.value.retryable and info.value.unprocessed
    assert ans.request_count == 1 + FAST.max_retries


def test_maintenance_is_code_50_and_a_server_error(ans, client):
    ans.set_maintenance(True)
    with pytest.raises(SystemUpgradeError) as info:
        client.affiliates()
    assert isinstance(info.value, ServerError) and info.value.code == 50
    assert ans.request_count == 1 + FAST.max_retries
    ans.set_maintenance(False)
    assert len(client.affiliates(status="rejected")) > 0


def test_rate_limit_window_is_waited_out(ans):
    # The one test that really waits: the sandbox's window runs on real time, and this proves
    # the client sleeps until a real server lets it through (a fake clock cannot).
    ans.set_rate_limit(2, per_seconds=0.4)
    client = ans.client(retry=FAST)
    ids = [client.get("affiliate", 1001 + i)["id"] for i in range(3)]
    assert ids == [1001, 1002, 1003]
    statuses = [status for _, _, status in ans.request_log]
    assert statuses.count(429) >= 1 and statuses[-1] == 200


def test_rate_limit_longer_than_the_allowed_wait_raises_at_once(ans):
    ans.set_rate_limit(1, per_seconds=30.0)
    client = ans.client(
        retry=RetryPolicy(backoff=0.01, jitter=False, max_rate_limit_wait=1.0), clock=FakeClock()
    )
    client.get("affiliate", 1001)
    with pytest.raises(TooManyRequestsError) as info:
        client.get("affiliate", 1002)
    assert isinstance(info.value, RateLimitError) and info.value.code == 40
    assert ans.request_count == 2


def test_internal_error_is_retried_on_get_but_not_on_post(ans, client):
    ans.inject("51")
    assert client.get("affiliate", 1001)["id"] == 1001
    assert ans.request_count == 2
    ans.inject("51")
    with pytest.raises(ServerInternalError) as info:
        client.create("affiliate", NEW)
    assert (info.value.code, info.value.status) == (51, 500)
    assert ans.request_count == 3 and len(ans.affiliate_records()) == 300


# -- concurrency ----------------------------------------------------------------------------------


def test_concurrent_writes_lose_nothing(ans, client):
    start = threading.Barrier(8)

    def create(n):
        start.wait()
        return client.create("affiliate", {**NEW, "email": f"writer{n}@example.com"})["id"]

    def bump(n):
        return client.update("affiliate", 1001 + n, {"company": f"Co {n}"})["company"]

    with ThreadPoolExecutor(max_workers=8) as pool:
        created = list(pool.map(create, range(8)))
        companies = list(pool.map(bump, range(20)))
    assert sorted(created) == list(range(1301, 1309))
    assert companies == [f"Co {n}" for n in range(20)]
    records = {r["id"]: r for r in ans.affiliate_records()}
    assert len(records) == 308
    assert all(records[1001 + n]["company"] == f"Co {n}" for n in range(20))
