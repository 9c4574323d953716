"""The Sandbox object's Python API: lifecycle, addresses, reset, clock, controls, serve."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
from datetime import timedelta
from email.utils import parsedate_to_datetime

import pytest
import requests
from contract import ApiSession
from interrupt import interruptible

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


def test_answers_are_dated_by_the_sandbox_clock(sandbox):
    api = ApiSession(sandbox.url, sandbox.token)
    before = parsedate_to_datetime(api.get("/").headers["Date"])
    sandbox.advance_clock(days=30)
    after = parsedate_to_datetime(api.get("/").headers["Date"])
    assert timedelta(days=30) <= after - before < timedelta(days=30, minutes=5)


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
    process = interruptible(
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


def test_sandbox_command_reports_a_port_in_use_in_one_sentence(capfd):
    from docsapi.cli import EXIT_USAGE, main

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["sandbox", "--port", str(port)]) == EXIT_USAGE
    out, err = capfd.readouterr()
    assert out == ""
    assert err == (
        f"docsapi: error: cannot listen on 127.0.0.1:{port}: the port is in use; "
        "choose another with --port.\n"
    )


@pytest.mark.parametrize("timeout", [0, 1.5, True, "5"])
def test_channel_timeout_is_a_whole_number_of_seconds(timeout):
    with pytest.raises(ValueError):
        Sandbox(seed=0, channel_timeout=timeout)


def test_stop_closes_kept_alive_connections():
    with Sandbox(seed=0) as sb:
        connection = socket.create_connection(("127.0.0.1", sb.port), timeout=10)
        connection.sendall(b"GET /v1/ HTTP/1.1\r\nHost: x\r\n\r\n")
        received = b""
        while not received.endswith(b"}"):  # the whole 401 answer; the connection stays open
            received += connection.recv(65536)
        assert received.startswith(b"HTTP/1.1 401")
    try:
        assert connection.recv(65536) == b""  # closed by stop()
    finally:
        connection.close()


@pytest.mark.parametrize(
    "amount", [{"days": 1e10}, {"days": float("nan")}, {"hours": float("inf")}, {"days": 40000}]
)
def test_the_clock_moves_a_bounded_finite_amount(sandbox, amount):
    with pytest.raises(ValueError):
        sandbox.advance_clock(**amount)
    assert sandbox.clock.offset.total_seconds() == 0


def test_the_trash_expires_when_it_is_read_not_before_each_request(sandbox):
    api = ApiSession(sandbox.url, sandbox.token)
    space = sandbox.demo["space_ids"][0]
    assert api.delete(f"/spaces/{space}").status_code == 205
    sandbox.clock.advance(timedelta(days=8))  # the clock alone: nothing is purged yet
    assert space in sandbox._store.state.trash
    assert api.get("/").status_code == 200
    assert space in sandbox._store.state.trash  # other requests do not purge
    assert api.post(f"/spaces/{space}/restore").status_code == 404  # reading the trash does


def test_a_git_operation_finishes_when_its_state_is_read(sandbox):
    api = ApiSession(sandbox.url, sandbox.token)
    space = sandbox.demo["space_ids"][0]
    repo = {"url": "https://github.com/acme/docs.git", "ref": "main"}
    assert api.post(f"/spaces/{space}/git/import", json=repo).status_code == 204
    sandbox.clock.advance(timedelta(seconds=6))  # past the delay, without advance_clock()
    assert api.get("/").status_code == 200
    assert sandbox._store.state.git[space]["operation"]["state"] == "running"
    info = api.get(f"/spaces/{space}/git/info").json()  # the first read finishes it
    assert info["operation"]["state"] == "success"
