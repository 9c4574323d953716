"""AdNetworkSandbox on the wire, spoken to with plain requests: envelopes, codes, controls."""

from __future__ import annotations

import pytest
import requests

from docsapi.sandbox.adnetwork import AdNetworkSandbox
from docsapi.sandbox.adnetwork._app import parse_fault


@pytest.fixture(scope="module")
def ans_server():
    with AdNetworkSandbox(seed=7, affiliates=45) as ans:
        yield ans


@pytest.fixture
def ans(ans_server):
    ans_server.reset()
    return ans_server


def send(ans, method, path, *, key=None, **kwargs):
    headers = {"X-Api-Key": ans.api_key if key is None else key, **kwargs.pop("headers", {})}
    return requests.request(method, ans.url + path, headers=headers, timeout=5, **kwargs)


def test_list_envelope_and_pages(ans):
    resp = send(ans, "GET", "/affiliate", params={"offset": 3, "limit": 20})
    body = resp.json()
    assert resp.status_code == 200 and resp.headers["Content-Type"] == "application/json"
    assert (body["code"], body["message"]) == (0, "Success")
    data = body["data"]
    assert {k: data[k] for k in ("totalRows", "totalPages", "offset", "limit")} == {
        "totalRows": 45,
        "totalPages": 3,
        "offset": 3,
        "limit": 20,
    }
    assert [r["id"] for r in data["rowset"]] == list(range(1041, 1046))
    assert ans.request_log == [("GET", "/api/affiliate?offset=3&limit=20", 200)]


def test_records_have_every_documented_field(ans):
    record = send(ans, "GET", "/affiliate/1001").json()["data"]
    assert list(record) == [
        "id",
        "name",
        "email",
        "company",
        "status",
        "country",
        "currency",
        "manager",
        "payout",
        "createdAt",
        "updatedAt",
    ]
    assert set(record["manager"]) == {"id", "name"} and set(record["payout"]) == {
        "totalPaid",
        "pending",
    }
    assert record["status"] in ("active", "pending", "paused", "rejected")


def test_same_seed_same_data_and_keys():
    one, two, other = (AdNetworkSandbox(seed=s, affiliates=20) for s in (3, 3, 4))
    assert one.affiliate_records() == two.affiliate_records() and one.keys == two.keys
    assert one.affiliate_records() != other.affiliate_records() and one.keys != other.keys
    emails = [r["email"] for r in AdNetworkSandbox(affiliates=300).affiliate_records()]
    assert len(set(emails)) == 300


@pytest.mark.parametrize(
    "data, headers, code, words",
    [
        (b'{"name": "x",', {"Content-Type": "application/json"}, 30, "not valid JSON"),
        (b"", {"Content-Type": "application/json"}, 30, "empty"),
        (b'{"name": "x"}', {"Content-Type": "text/plain"}, 30, "Content-Type"),
        (b"\xff\xfe{", {"Content-Type": "application/json"}, 30, "not UTF-8"),
        (b'["name"]', {"Content-Type": "application/json"}, 20, "JSON object"),
    ],
)
def test_unreadable_bodies(ans, data, headers, code, words):
    resp = send(ans, "POST", "/affiliate", data=data, headers=headers)
    body = resp.json()
    assert resp.status_code == 400 and body["code"] == code and words in body["message"]


@pytest.mark.parametrize(
    "method, path, allow",
    [("DELETE", "/affiliate", "GET, POST"), ("POST", "/affiliate/1001", "GET, PUT, PATCH, DELETE")],
)
def test_unsupported_method_is_405_with_allow(ans, method, path, allow):
    resp = send(ans, method, path)
    assert resp.status_code == 405 and resp.json()["code"] == 32
    assert resp.headers["Allow"] == allow


@pytest.mark.parametrize("path", ["/offers", "/affiliate/1001/extra", "/../admin"])
def test_unknown_uri_is_501(ans, path):
    resp = send(ans, "GET", path)
    assert resp.status_code == 501 and resp.json() == {
        "code": 32,
        "message": "Request uri not found",
    }


def test_non_numeric_id_is_not_found(ans):
    resp = send(ans, "GET", "/affiliate/abc")
    assert resp.status_code == 404 and resp.json()["code"] == 31


@pytest.mark.parametrize("key, status, code", [("", 401, 13), ("nope", 401, 13)])
def test_missing_or_unknown_key(ans, key, status, code):
    resp = send(ans, "GET", "/affiliate", key=key)
    assert resp.status_code == status and resp.json()["code"] == code


def test_put_keeps_id_and_creation_time_and_rejects_other_values(ans):
    record = send(ans, "GET", "/affiliate/1002").json()["data"]
    resp = send(ans, "PUT", "/affiliate/1002", json={**record, "updatedAt": "2000-01-01T00:00:00Z"})
    assert resp.status_code == 400 and resp.json()["code"] == 60
    stored = send(ans, "PUT", "/affiliate/1002", json={**record, "country": "NL"}).json()["data"]
    assert stored["country"] == "NL" and stored["createdAt"] == record["createdAt"]
    assert stored["id"] == 1002


def test_patch_with_an_empty_object_is_code_20(ans):
    resp = send(ans, "PATCH", "/affiliate/1002", json={})
    assert resp.status_code == 400 and resp.json()["code"] == 20


def test_faults_can_be_limited_to_methods(ans):
    ans.inject("51", methods=["POST"])
    assert send(ans, "GET", "/affiliate/1001").status_code == 200
    resp = send(ans, "POST", "/affiliate", json={"name": "A", "email": "a@b.example"})
    assert resp.status_code == 500 and resp.json()["code"] == 51
    assert send(ans, "POST", "/affiliate", json={"name": "A", "email": "a@b.example"}).ok


def test_rate_limit_answer_says_when_to_retry(ans):
    ans.set_rate_limit(1, per_seconds=60)
    assert send(ans, "GET", "/affiliate/1001").ok
    resp = send(ans, "GET", "/affiliate/1001")
    assert resp.status_code == 429 and resp.json()["code"] == 40
    assert 1 <= int(resp.headers["Retry-After"]) <= 60


def test_reset_restores_data_and_clears_controls(ans):
    send(ans, "PATCH", "/affiliate/1001", json={"company": "Changed"})
    ans.set_maintenance(True)
    ans.set_whitelist(["203.0.113.9"])
    ans.inject("50", count=5)
    ans.reset()
    assert ans.request_count == 0 and ans.request_log == []
    resp = send(ans, "GET", "/affiliate/1001")
    assert resp.ok and resp.json()["data"]["company"] != "Changed"


def test_bad_controls_are_refused(ans):
    for fault in ("99", "html", "200-with-code:0", "0"):
        with pytest.raises(ValueError, match="unknown fault"):
            ans.inject(fault)
    with pytest.raises(ValueError):
        ans.inject("40", count=0)
    with pytest.raises(ValueError):
        ans.set_rate_limit(0)
    with pytest.raises(ValueError):
        ans.add_key("k", role="owner")
    assert parse_fault("200-with-code:51") == (51, 200)


def test_client_helper_and_addresses(ans):
    assert ans.url == f"http://{ans.network}/api" and ans.network.startswith("127.0.0.1:")
    client = ans.client()
    assert client.base_url == ans.url and client.get("affiliate", 1045)["id"] == 1045


@pytest.mark.parametrize(
    "query",
    [
        "offset=%EF%BC%91",
        "limit=-1",
        "filters%5Bstatus=active",
        "filters%5Bstatus%5D=",
        "offset=99999999999999999999",
        "limit=1e3",
    ],
)
def test_odd_queries_get_an_api_error_or_an_answer_never_a_crash(ans, query):
    resp = send(ans, "GET", f"/affiliate?{query}")
    assert resp.status_code in (200, 400) and resp.json()["code"] in (0, 20)
