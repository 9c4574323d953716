"""Injected faults: HTTP-level failures and connection-level ones, checked over raw sockets."""

from __future__ import annotations

import socket
from urllib.parse import urlsplit

import pytest
import requests
from contract import ApiSession


@pytest.fixture
def api(sandbox):
    session = ApiSession(sandbox.url, sandbox.token, check=False)
    yield session
    session.close()


def _raw(sandbox, request_line: str, body: bytes = b"") -> bytes:
    """Send one request over a raw socket and read until the server closes it."""
    parts = urlsplit(sandbox.url)
    head = (
        f"{request_line} HTTP/1.1\r\nHost: {parts.netloc}\r\n"
        f"Authorization: Bearer {sandbox.token}\r\n"
        f"Content-Length: {len(body)}\r\nContent-Type: application/json\r\n\r\n"
    ).encode()
    with socket.create_connection((parts.hostname, parts.port), timeout=5) as connection:
        connection.sendall(head + body)
        received = b""
        try:
            while chunk := connection.recv(65536):
                received += chunk
        except ConnectionResetError:
            pass
    return received


@pytest.mark.parametrize("fault", ["500", "503"])
def test_server_errors_once_then_normal(sandbox, api, fault):
    sandbox.inject(fault)
    failed = api.get("/")
    assert failed.status_code == int(fault)
    assert failed.json()["error"]["code"] == int(fault)
    assert api.get("/").status_code == 200


def test_count_applies_the_fault_to_several_requests(sandbox, api):
    sandbox.inject("503", count=2)
    assert [api.get("/").status_code for _ in range(3)] == [503, 503, 200]


def test_429_and_retry_after(sandbox, api):
    sandbox.inject("429")
    sandbox.inject("retry-after:7")
    first, second = api.get("/"), api.get("/")
    assert (first.status_code, first.headers["Retry-After"]) == (429, "1")
    assert (second.status_code, second.headers["Retry-After"]) == (429, "7")


def test_html_page_with_200(sandbox, api):
    sandbox.inject("html")
    response = api.get("/user")
    assert response.status_code == 200
    assert response.headers["Content-Type"].startswith("text/html")
    with pytest.raises(ValueError):
        response.json()


def test_methods_and_path_filters(sandbox, api):
    space = sandbox.demo["space_ids"][0]
    sandbox.inject("503", methods=["POST"])
    assert api.get("/").status_code == 200
    assert api.post(f"/spaces/{space}/change-requests", json={}).status_code == 503
    sandbox.inject("503", path="/spaces/")
    assert api.get("/").status_code == 200
    assert api.get(f"/spaces/{space}").status_code == 503
    sandbox.inject("503", path="/v1/spaces/*/content")
    assert api.get(f"/spaces/{space}").status_code == 200
    assert api.get(f"/spaces/{space}/content").status_code == 503
    assert sandbox.faults_pending == 0


def test_drop_reads_the_request_then_closes_without_answering(sandbox, api):
    space = sandbox.demo["space_ids"][0]
    before = len(api.get(f"/spaces/{space}/change-requests").json()["items"])
    sandbox.inject("drop", methods=["POST"])
    assert _raw(sandbox, f"POST /v1/spaces/{space}/change-requests", b'{"subject": "x"}') == b""
    sandbox.inject("drop")
    with pytest.raises(requests.ConnectionError):
        api.post(f"/spaces/{space}/change-requests", json={"subject": "y"})
    assert ("POST", f"/v1/spaces/{space}/change-requests", None) in sandbox.request_log
    assert len(api.get(f"/spaces/{space}/change-requests").json()["items"]) == before


def test_reset_before_read(sandbox, api):
    sandbox.inject("reset-before-read")
    assert _raw(sandbox, "GET /v1/") == b""
    sandbox.inject("reset-before-read", path="/user")
    assert api.get("/").status_code == 200
    with pytest.raises(requests.ConnectionError):
        api.get("/user")
    assert sandbox.request_log[-1] == ("GET", "/v1/user", None)
    assert api.get("/user").status_code == 200


def test_truncate_declares_more_than_it_sends(sandbox, api):
    sandbox.inject("truncate")
    raw = _raw(sandbox, "GET /v1/user")
    head, _, body = raw.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200")
    declared = next(
        int(line.split(b":")[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length")
    )
    assert 0 < len(body) < declared
    sandbox.inject("truncate")
    with pytest.raises(requests.exceptions.ChunkedEncodingError):
        api.get("/user")


def test_stall_outlasts_the_client_timeout(sandbox, api):
    sandbox.stall_seconds = 1.0
    try:
        sandbox.inject("stall")
        with pytest.raises(requests.exceptions.ReadTimeout):
            api.get("/", timeout=0.2)
        assert sandbox.request_log == [("GET", "/v1/", None)]
        assert api.get("/").status_code == 200
    finally:
        sandbox.stall_seconds = 5.0


def test_latency_keeps_answers_correct(sandbox, api):
    sandbox.set_latency(0.05)
    assert api.get("/").status_code == 200
    with pytest.raises(ValueError):
        sandbox.set_latency(-1)


@pytest.mark.parametrize(
    "bad", [("explode", 1), ("503", 0), ("503", "2"), ("retry-after:99999999", 1), (503, 1)]
)
def test_inject_rejects_unknown_faults_and_counts(sandbox, bad):
    fault, count = bad
    with pytest.raises(ValueError):
        sandbox.inject(fault, count)


def test_reset_clears_faults(sandbox, api):
    sandbox.inject("503", count=5)
    sandbox.reset()
    assert api.get("/").status_code == 200


def test_faults_are_an_enum_and_names_map_to_it(sandbox, api):
    from docsapi.sandbox import Fault

    assert Fault("503") is Fault.SERVICE_UNAVAILABLE
    sandbox.inject(Fault.SERVICE_UNAVAILABLE)
    assert api.get("/").status_code == 503
    root = sandbox.url.removesuffix("/v1")
    sent = requests.post(f"{root}/_sandbox/faults", json={"fault": "retry-after:2"}, timeout=5)
    assert sent.status_code == 204
    limited = api.get("/")
    assert (limited.status_code, limited.headers["Retry-After"]) == (429, "2")
    for name in ["RETRY-AFTER:2", "Drop", "SERVICE_UNAVAILABLE", "retry-after"]:
        refused = requests.post(f"{root}/_sandbox/faults", json={"fault": name}, timeout=5)
        assert refused.status_code == 400
        assert "unknown fault" in refused.json()["error"]["message"]
    assert sandbox.faults_pending == 0


def test_connection_faults_hit_a_kept_alive_connection(sandbox, api):
    assert api.get("/").status_code == 200  # the session now holds an open connection
    sandbox.inject("reset-before-read")
    with pytest.raises(requests.ConnectionError):
        api.get("/user")
    assert api.get("/").status_code == 200  # a fresh connection after the reset
    sandbox.inject("drop")
    with pytest.raises(requests.ConnectionError):
        api.get("/user")
    assert api.get("/user").status_code == 200
    assert [status for _, _, status in sandbox.request_log].count(None) == 2


@pytest.mark.parametrize(
    ("setting", "value"),
    [("latency", 61), ("latency", float("nan")), ("stall", 1e9), ("stall", -1)],
)
def test_waits_are_bounded(sandbox, setting, value):
    with pytest.raises(ValueError):
        if setting == "latency":
            sandbox.set_latency(value)
        else:
            sandbox.stall_seconds = value
