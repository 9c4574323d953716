"""The Sandbox object's Python API: lifecycle, addresses, reset, clock, controls, serve."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest
import requests
from contract import ApiSession

import docsapi.sandbox
from docsapi.sandbox import Sandbox, ServerThread


def test_url_points_at_v1_on_localhost(sandbox):
    assert sandbox.url.startswith("http://127.0.0.1:")
    assert sandbox.url.endswith("/v1")
    assert sandbox.url == f"http://127.0.0.1:{sandbox.port}/v1"


def test_context_manager_starts_and_stops():
    with Sandbox(seed=2) as sb:
        url = sb.url
        assert requests.get(
            url + "/", headers={"Authorization": f"Bearer {sb.token}"}, timeout=5
        ).ok
    with pytest.raises(requests.ConnectionError):
        requests.get(url + "/", timeout=2)


def test_reset_restores_the_seeded_state(sandbox):
    api = ApiSession(sandbox.url, sandbox.token)
    space = sandbox.demo["space_ids"][0]
    before = api.get(f"/spaces/{space}").json()
    api.patch(f"/spaces/{space}", json={"title": "Changed"})
    api.delete(f"/spaces/{sandbox.demo['space_ids'][1]}")
    api.post(f"/spaces/{space}/content/template", json={"id": "changelog"})
    sandbox.advance_clock(days=1)
    sandbox.set_latency(0.01)
    sandbox.set_rate_limit(100)
    sandbox.reset()
    assert sandbox.clock.offset.total_seconds() == 0
    assert api.get(f"/spaces/{space}").json() == before
    assert api.get(f"/spaces/{sandbox.demo['space_ids'][1]}").status_code == 200
    assert "X-RateLimit-Limit" not in api.get("/").headers
    assert sandbox.request_count == 3


def test_demo_is_a_copy(sandbox):
    facts = sandbox.demo
    facts["space_ids"].clear()
    assert sandbox.demo["space_ids"]


def test_advance_clock_validates(sandbox):
    with pytest.raises(ValueError):
        sandbox.advance_clock(days=-1)
    sandbox.advance_clock(hours=2, seconds=30)
    assert sandbox.clock.offset.total_seconds() == 2 * 3600 + 30


def test_rate_limit_arguments_are_checked(sandbox):
    with pytest.raises(ValueError):
        sandbox.set_rate_limit(0)
    with pytest.raises(ValueError):
        sandbox.set_rate_limit(5, per_seconds=0)


def test_client_talks_to_this_sandbox_with_its_token(sandbox):
    client = sandbox.client(timeout=3)
    before = sandbox.request_count
    assert client.base_url == sandbox.url
    assert client.transport.timeout.read == 3
    assert client.users.me().id == sandbox.demo["owner_id"]
    assert sandbox.request_count == before + 1


def test_adnetwork_sandbox_is_exported_lazily():
    assert "AdNetworkSandbox" in docsapi.sandbox.__all__
    with pytest.raises(AttributeError):
        docsapi.sandbox.NoSuchThing  # noqa: B018


def test_server_thread_serves_any_wsgi_app():
    def app(environ, start_response):
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"hello"]

    with ServerThread(app) as server:
        assert requests.get(server.url, timeout=5).text == "hello"
        port = server.port
    with (
        pytest.raises(OSError),
        ServerThread(app, port=port) as first,
        ServerThread(app, port=first.port),
    ):
        pass


def test_serve_prints_the_url_org_and_tokens_and_stops_on_ctrl_c():
    code = "from docsapi.sandbox import serve; serve(port=0, seed=0)"
    process = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        lines = []
        while not lines or "Ctrl-C" not in lines[-1]:
            line = process.stdout.readline()
            assert line, process.stderr.read()
            lines.append(line)
        url = lines[0].split()[4]
        token = Sandbox(seed=0).token
        assert requests.get(url + "/", headers={"Authorization": f"Bearer {token}"}, timeout=5).ok
        process.send_signal(signal.SIGINT)
        rest, _ = process.communicate(timeout=30)
    finally:
        process.kill()
    out = "".join(lines) + rest
    assert process.returncode == 0
    assert url.startswith("http://127.0.0.1:") and url.endswith("/v1")
    assert Sandbox(seed=0).org_id in out
    for value in Sandbox(seed=0).tokens.values():
        assert value in out
    assert "curl -H 'Authorization: Bearer " in out
    assert "stopped" in rest
