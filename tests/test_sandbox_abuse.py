"""Abuse over raw sockets: malformed HTTP, hostile sizes and values, slow and idle peers.

Every case gets a 4xx answer with the API's error body ``{"error": {"code", "message"}}``: never
a 500, never a connection closed without an answer, never a hang (each exchange has a socket
timeout; reaching it fails the test). After each case a normal request is still answered.
"""

from __future__ import annotations

import contextlib
import json
import socket
from urllib.parse import urlsplit

import pytest
import requests
from contract import spec

from docsapi.sandbox import Sandbox
from docsapi.sandbox.core._server import MAX_BODY_BYTES, MAX_HEAD_BYTES, MAX_TARGET_LENGTH

TIMEOUT = 15.0


def _address(sandbox) -> tuple[str, int]:
    parts = urlsplit(sandbox.url)
    return parts.hostname, parts.port


def _exchange(sandbox, data: bytes) -> bytes:
    """Send ``data`` on a new connection and read until the server closes it."""
    with socket.create_connection(_address(sandbox), timeout=TIMEOUT) as connection:
        # the server may answer and close before everything was sent
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            connection.sendall(data)
        received = b""
        while chunk := connection.recv(65536):
            received += chunk
    return received


def _read_one_answer(connection: socket.socket) -> bytes:
    """Read exactly one answer (head and Content-Length body) from an open connection."""
    received = b""
    while b"\r\n\r\n" not in received:
        chunk = connection.recv(65536)
        assert chunk, "the connection was closed before the answer"
        received += chunk
    head, _, body = received.partition(b"\r\n\r\n")
    length = next(
        int(line.split(b":")[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length:")
    )
    while len(body) < length:
        chunk = connection.recv(65536)
        assert chunk, "the connection was closed before the answer's end"
        body += chunk
    return head + b"\r\n\r\n" + body


def _answer(raw: bytes) -> tuple[int, dict[str, str], bytes]:
    head, separator, body = raw.partition(b"\r\n\r\n")
    assert separator, f"no complete answer: {raw[:200]!r}"
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", len(body)))
    assert len(body) == length, "the answer's body was cut short"
    return int(status_line.split()[1]), headers, body


def _assert_api_error(raw: bytes, status: int) -> str:
    code, headers, body = _answer(raw)
    assert code == status, raw[:300]
    assert headers["content-type"].startswith("application/json")
    error = json.loads(body)["error"]
    assert error["code"] == status
    assert isinstance(error["message"], str) and error["message"]
    return error["message"]


def _request(sandbox, line: str, *, body: bytes = b"", headers: str = "") -> bytes:
    host, port = _address(sandbox)
    return (
        f"{line}\r\nHost: {host}:{port}\r\nAuthorization: Bearer {sandbox.token}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n{headers}"
        "Connection: close\r\n\r\n"
    ).encode() + body


def _still_answers(sandbox) -> None:
    response = requests.get(
        sandbox.url + "/user", headers={"Authorization": f"Bearer {sandbox.token}"}, timeout=10
    )
    assert response.status_code == 200


@pytest.fixture
def answered(sandbox):
    """The sandbox; after the test, a normal request must still be answered."""
    yield sandbox
    _still_answers(sandbox)


# -- malformed HTTP: answered by the server itself, with the API's error body --------------------
def _host(sandbox) -> bytes:
    host, port = _address(sandbox)
    return f"Host: {host}:{port}\r\n".encode()


MALFORMED = {
    "raw CR in the request line": (lambda h: b"GET /v1/\r HTTP/1.1\r\n" + h + b"\r\n", 400),
    "bare LF in a header": (lambda h: b"GET /v1/ HTTP/1.1\r\n" + h + b"X-A: b\nc\r\n\r\n", 400),
    "TLS handshake bytes": (lambda h: b"\x16\x03\x01\x00\xa5\x01\x00\x00\xa1\x03\x03", 400),
    "binary junk with a blank line": (lambda h: b"\x00\xffjunk\x01\r\n\r\n", 400),
    "a line of text": (lambda h: b"hello there\r\n", 400),
    "HTTP/2 preface": (lambda h: b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 400),
    "lowercase method": (lambda h: b"get /v1/ HTTP/1.1\r\n" + h + b"\r\n", 400),
    "header without a colon": (lambda h: b"GET /v1/ HTTP/1.1\r\n" + h + b"Nonsense\r\n\r\n", 400),
    "Content-Length not a number": (
        lambda h: b"POST /v1/orgs HTTP/1.1\r\n" + h + b"Content-Length: ten\r\n\r\n",
        400,
    ),
    "malformed chunked body": (
        lambda h: (
            b"POST /v1/orgs HTTP/1.1\r\n"
            + h
            + b"Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n"
        ),
        400,
    ),
    "chunk without its CRLF": (
        lambda h: (
            b"POST /v1/orgs HTTP/1.1\r\n"
            + h
            + b"Transfer-Encoding: chunked\r\n\r\n2\r\n{}XX0\r\n\r\n"
        ),
        400,
    ),
    "unknown Transfer-Encoding": (
        lambda h: b"POST /v1/orgs HTTP/1.1\r\n" + h + b"Transfer-Encoding: gzip\r\n\r\n",
        400,
    ),
    "70 KB URL": (lambda h: b"GET /v1/" + b"a" * 70_000 + b" HTTP/1.1\r\n" + h + b"\r\n", 414),
    "long query string": (
        lambda h: (
            b"GET /v1/user?q=" + b"a" * (MAX_TARGET_LENGTH + 1) + b" HTTP/1.1\r\n" + h + b"\r\n"
        ),
        414,
    ),
    "oversized headers": (
        lambda h: b"GET /v1/ HTTP/1.1\r\n" + h + b"X-A: " + b"a" * MAX_HEAD_BYTES + b"\r\n\r\n",
        431,
    ),
    "oversized declared body": (
        lambda h: (
            b"POST /v1/orgs HTTP/1.1\r\n"
            + h
            + f"Content-Length: {MAX_BODY_BYTES + 1}\r\n\r\n".encode()
            + b"x" * 50_000
        ),
        413,
    ),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_http_gets_a_4xx_with_the_api_error_body(answered, case):
    build, status = MALFORMED[case]
    _assert_api_error(_exchange(answered, build(_host(answered))), status)


def test_an_oversized_chunked_body_is_413(answered):
    chunk = b"x" * 1_000_000
    body = (f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n") * 11 + b"0\r\n\r\n"
    data = b"POST /v1/orgs HTTP/1.1\r\n" + _host(answered) + b"Transfer-Encoding: chunked\r\n\r\n"
    _assert_api_error(_exchange(answered, data + body), 413)


def test_the_ad_network_answers_malformed_http_in_its_own_error_shape():
    from docsapi.sandbox import AdNetworkSandbox

    with AdNetworkSandbox(affiliates=1) as ans:
        raw = _exchange(ans, b"GET /api/affiliate\r HTTP/1.1\r\nHost: x\r\n\r\n")
    status, _, body = _answer(raw)
    assert status == 400
    answer = json.loads(body)
    assert answer["code"] == 30 and "not valid HTTP" in answer["message"]


# -- hostile bodies: parsed strictly, refused with 400 ---------------------------------------
BODIES = {
    "JSON nested 100k deep": b"[" * 100_000 + b"]" * 100_000,
    "objects nested 100 deep": b'{"a":' * 100 + b"1" + b"}" * 100,
    "NaN": b'{"title": NaN}',
    "Infinity": b'{"title": Infinity}',
    "a number beyond a double": b'{"title": 1e400}',
    "an integer of 5000 digits": b'{"title": ' + b"9" * 5000 + b"}",
    "invalid UTF-8": b'{"title": "\xff\xfe"}',
    "truncated JSON": b'{"title": "x',
}


@pytest.mark.parametrize("case", sorted(BODIES))
def test_hostile_json_bodies_are_400(answered, case):
    space = answered.demo["space_ids"][0]
    raw = _exchange(
        answered, _request(answered, f"PATCH /v1/spaces/{space} HTTP/1.1", body=BODIES[case])
    )
    _assert_api_error(raw, 400)


# -- numeric query parameters -----------------------------------------------------------------
def _numeric_query_cases() -> list[tuple[str, str, str]]:
    """(path template, numeric query parameter, the other required query parameters) for
    every numeric query parameter of the description's GET operations."""
    cases = []
    document = spec()
    for template, item in document["paths"].items():
        parameters = [
            document["components"]["parameters"][p["$ref"].split("/")[-1]] if "$ref" in p else p
            for p in item.get("get", {}).get("parameters", [])
        ]
        query = [p for p in parameters if p["in"] == "query"]
        required = "".join(f"&{p['name']}=x" for p in query if p.get("required"))
        for parameter in query:
            if parameter["schema"].get("type") in ("number", "integer"):
                cases.append((template, parameter["name"], required))
    return cases


NUMERIC = _numeric_query_cases()


@pytest.mark.parametrize("value", ["nan", "NaN", "inf", "-inf", "Infinity", "1e400", "", "0x10"])
def test_every_numeric_query_parameter_refuses_non_numbers(answered, value):
    assert NUMERIC
    demo = answered.demo
    ids = {
        "{organizationId}": answered.org_id,
        "{spaceId}": demo["space_ids"][0],
        "{userId}": demo["owner_id"],
        "{teamId}": demo["team_ids"][0],
        "{collectionId}": demo["collection_ids"][0],
        "{siteId}": demo["site_ids"][0],
    }
    for template, name, required in NUMERIC:
        path = template
        for placeholder, value_ in ids.items():
            path = path.replace(placeholder, value_)
        line = f"GET /v1{path}?{name}={value}{required} HTTP/1.1"
        message = _assert_api_error(_exchange(answered, _request(answered, line)), 400)
        assert repr(name) in message or name in message, (line, message)


# -- the sandbox's controls: bad values are 400 -------------------------------------------------
CONTROLS = [
    ("latency", {"seconds": 1e10}),
    ("latency", {"seconds": -1}),
    ("latency", {"seconds": "1"}),
    ("latency", {"seconds": True}),
    ("latency", {"seconds": None}),
    ("latency", {"second": 1}),
    ("clock", {"days": 1e10}),
    ("clock", {"days": -1}),
    ("clock", {"hours": "2"}),
    ("clock", {"seconds": [1]}),
    ("clock", {"days": 36000, "hours": 24 * 1000}),
    ("faults", {"fault": "nope"}),
    ("faults", {"fault": None}),
    ("faults", {"fault": "retry-after:1e10"}),
    ("faults", {"fault": "retry-after"}),
    ("faults", {"fault": "503", "count": 0}),
    ("faults", {"fault": "503", "count": 1.5}),
    ("faults", {"fault": "503", "count": "2"}),
    ("faults", {"fault": "503", "methods": [1]}),
    ("faults", {"fault": "503", "methods": "GE T"}),
    ("faults", {"fault": "503", "methods": {"a": 1}}),
    ("faults", {"fault": "503", "path": 5}),
    ("rate-limit", {"limit": 0}),
    ("rate-limit", {"limit": 10**10}),
    ("rate-limit", {"limit": True}),
    ("rate-limit", {"limit": 5, "per_seconds": 0}),
    ("rate-limit", {"limit": 5, "per_seconds": 1e10}),
    ("rate-limit", {"limit": 5, "per_seconds": "60"}),
    ("reset", {"now": True}),
    ("faults", [1, 2]),
    ("faults", "503"),
]


@pytest.mark.parametrize(("control", "body"), CONTROLS, ids=[f"{c}-{b}" for c, b in CONTROLS])
def test_controls_refuse_bad_values_with_400(answered, control, body):
    data = json.dumps(body).encode()
    raw = _exchange(answered, _request(answered, f"POST /_sandbox/{control} HTTP/1.1", body=data))
    _assert_api_error(raw, 400)
    assert answered.faults_pending == 0
    assert answered.clock.offset.total_seconds() == 0


@pytest.mark.parametrize(
    "data", [b"{", b"NaN", b'{"seconds": 1e400}', b"[" * 50_000 + b"]" * 50_000, b"\xff"]
)
def test_controls_refuse_bodies_that_are_not_json(answered, data):
    raw = _exchange(answered, _request(answered, "POST /_sandbox/latency HTTP/1.1", body=data))
    _assert_api_error(raw, 400)


# -- slow and idle peers --------------------------------------------------------------------------
@pytest.fixture(scope="module")
def short_timeout_sandbox():
    """A sandbox that closes idle and slow connections after 1 second."""
    with Sandbox(seed=0, channel_timeout=1) as sb:
        yield sb


def test_a_half_sent_body_freezes_nothing_and_is_closed_after_the_timeout(short_timeout_sandbox):
    sandbox = short_timeout_sandbox
    space = sandbox.demo["space_ids"][0]
    head = _request(sandbox, f"PATCH /v1/spaces/{space} HTTP/1.1").replace(
        b"Content-Length: 0", b"Content-Length: 1000"
    )
    slow = socket.create_connection(_address(sandbox), timeout=TIMEOUT)
    try:
        slow.sendall(head + b'{"title": ')  # headers, then 10 of the 1000 body bytes
        # while it hangs, reads and writes from other connections are answered
        session = requests.Session()
        session.headers["Authorization"] = f"Bearer {sandbox.token}"
        assert session.get(f"{sandbox.url}/spaces/{space}", timeout=10).status_code == 200
        renamed = session.patch(
            f"{sandbox.url}/spaces/{space}", json={"title": "Still"}, timeout=10
        )
        assert renamed.json()["title"] == "Still"
        session.close()
        # the slow connection is closed by the server without an answer: it never completed
        assert slow.recv(1024) == b""
    finally:
        slow.close()
    _still_answers(sandbox)


def test_many_slow_connections_hold_no_worker(short_timeout_sandbox):
    sandbox = short_timeout_sandbox
    stalled = []
    try:
        for _ in range(64):
            connection = socket.create_connection(_address(sandbox), timeout=TIMEOUT)
            connection.sendall(b"POST /v1/orgs HTTP/1.1\r\nContent-Length: 100\r\n\r\n{")
            stalled.append(connection)
        _still_answers(sandbox)
    finally:
        for connection in stalled:
            connection.close()


def test_an_idle_keep_alive_connection_is_closed_after_the_timeout(short_timeout_sandbox):
    sandbox = short_timeout_sandbox
    with socket.create_connection(_address(sandbox), timeout=TIMEOUT) as connection:
        request = _request(sandbox, "GET /v1/user HTTP/1.1").replace(b"Connection: close\r\n", b"")
        connection.sendall(request)
        status, headers, _ = _answer(_read_one_answer(connection))
        assert status == 200 and headers.get("connection") != "close"
        assert connection.recv(1024) == b""  # closed by the server once idle
