"""The wire: List envelopes and cursors, errors, malformed input, rate limiting, request log."""

from __future__ import annotations

import json
import socket
import time

import pytest
import requests
from contract import SPEC_PATH, ApiSession

from docsapi.sandbox.core._validation import SCHEMA_ERROR_PREFIX


@pytest.fixture
def api(sandbox):
    session = ApiSession(sandbox.url, sandbox.token)
    yield session
    session.close()


def test_lists_page_with_an_opaque_cursor_until_the_last_page(sandbox, api):
    path = f"/orgs/{sandbox.org_id}/members"
    seen, params, pages = [], {"limit": 7}, 0
    while True:
        body = api.get(path, params=params).json()
        pages += 1
        assert body["count"] == 59
        assert len(body["items"]) <= 7
        seen.extend(item["id"] for item in body["items"])
        if "next" not in body:
            break
        params = {"limit": 7, "page": body["next"]["page"]}
    assert pages == 9
    assert len(seen) == len(set(seen)) == 59


def test_default_page_size_is_100(sandbox, api):
    body = api.get(f"/orgs/{sandbox.org_id}/members").json()
    assert len(body["items"]) == 59
    assert "next" not in body


@pytest.mark.parametrize("limit", ["1001", "-3", "ten", "2.5"])
def test_limit_out_of_range_is_400(sandbox, api, limit):
    response = api.get(f"/orgs/{sandbox.org_id}/members", params={"limit": limit})
    assert response.status_code == 400
    assert "limit" in response.json()["error"]["message"]


def test_limit_bounds_are_accepted(sandbox, api):
    assert len(api.get(f"/orgs/{sandbox.org_id}/members", params={"limit": 1}).json()["items"]) == 1
    assert (
        len(api.get(f"/orgs/{sandbox.org_id}/members", params={"limit": 1000}).json()["items"])
        == 59
    )


def test_limit_zero_answers_an_empty_page_that_continues_where_it_stands(sandbox, api):
    """The description's ``listLimit`` allows 0: no item, the list's count, and (while items
    remain) a next page starting at the same place."""
    path = f"/orgs/{sandbox.org_id}/members"
    first = api.get(path, params={"limit": 0})
    assert first.status_code == 200
    body = first.json()
    assert body["items"] == [] and body["count"] == 59
    following = api.get(path, params={"limit": 5, "page": body["next"]["page"]}).json()
    assert following["items"] == api.get(path, params={"limit": 5}).json()["items"]
    cursor = api.get(path, params={"limit": 5}).json()["next"]["page"]
    middle = api.get(path, params={"limit": 0, "page": cursor}).json()
    assert middle["items"] == [] and middle["next"]["page"] == cursor
    empty_team = sandbox.demo["empty_team"][0][1]
    nothing = api.get(f"/orgs/{sandbox.org_id}/teams/{empty_team}/members", params={"limit": 0})
    assert nothing.json() == {"items": [], "count": 0}


def test_limit_zero_is_refused_where_the_description_starts_at_one(sandbox, api):
    response = api.get(f"/orgs/{sandbox.org_id}/audit-events", params={"limit": 0})
    assert response.status_code == 400
    assert "limit" in response.json()["error"]["message"]


@pytest.mark.parametrize("cursor", ["garbage", "eyJvIjoxfQ", "%%%"])
def test_an_invalid_cursor_is_400(sandbox, api, cursor):
    assert api.get(f"/orgs/{sandbox.org_id}/members", params={"page": cursor}).status_code == 400


def test_a_cursor_of_another_list_is_400(sandbox, api):
    cursor = api.get(f"/orgs/{sandbox.org_id}/members", params={"limit": 2}).json()["next"]["page"]
    assert api.get(f"/orgs/{sandbox.org_id}/teams", params={"page": cursor}).status_code == 400


def test_malformed_json_and_wrong_types_are_400_never_500(sandbox, api):
    space = sandbox.demo["space_ids"][0]
    headers = {"Content-Type": "application/json"}
    for data in [b"{", b"[1, 2]", b"null", b"", b"\xff\xfe", b'"text"']:
        response = api.patch(f"/spaces/{space}", data=data, headers=headers)
        assert response.status_code == 400, data
        assert response.json()["error"]["code"] == 400
    for body in [{"title": None}, {"title": ["a"]}, {"editMode": 1}, {"language": True}]:
        assert api.patch(f"/spaces/{space}", json=body).status_code == 400
    owner = sandbox.demo["owner_id"]
    for body in [
        {},
        {"displayName": ""},
        {"displayName": "x" * 65},
        {"photoURL": "ftp:/x"},
        {"nickname": "x"},
        {"displayName": 5},
    ]:
        assert api.patch(f"/users/{owner}", json=body).status_code == 400, body


def test_patch_user_updates_name_and_photo(sandbox, api):
    owner = sandbox.demo["owner_id"]
    body = {"displayName": "x" * 64, "photoURL": "https://example.com/me.png"}
    updated = api.patch(f"/users/{owner}", json=body).json()
    assert updated["displayName"] == "x" * 64
    assert updated["photoURL"] == "https://example.com/me.png"
    assert api.get("/user").json()["displayName"] == "x" * 64


def test_unknown_route_is_404_and_wrong_method_405_in_the_error_shape(sandbox, api):
    missing = api.get("/no/such/thing")
    assert missing.status_code == 404
    assert missing.json()["error"]["code"] == 404
    outside = requests.get(sandbox.url.removesuffix("/v1") + "/elsewhere", timeout=5)
    assert outside.status_code == 404
    wrong = api.request("PUT", f"/spaces/{sandbox.demo['space_ids'][0]}")
    assert wrong.status_code == 405
    assert "PATCH" in wrong.headers["Allow"]
    assert wrong.json()["error"]["code"] == 405


def test_api_information(api):
    assert api.get("/").json() == {"version": "0.0.1-beta", "build": "2025-01-06T09:00:00.000Z"}


def test_rate_limit_headers_and_429(sandbox, api):
    assert "X-RateLimit-Limit" not in api.get("/").headers
    sandbox.set_rate_limit(3, per_seconds=60)
    remaining = []
    for _ in range(3):
        response = api.get("/")
        assert response.status_code == 200
        remaining.append(int(response.headers["X-RateLimit-Remaining"]))
        assert response.headers["X-RateLimit-Limit"] == "3"
        reset = int(response.headers["X-RateLimit-Reset"])
        assert time.time() < reset <= time.time() + 61
    assert remaining == [2, 1, 0]
    limited = api.get("/")
    assert limited.status_code == 429
    assert 1 <= int(limited.headers["Retry-After"]) <= 60
    assert limited.headers["X-RateLimit-Remaining"] == "0"
    sandbox.set_rate_limit(None)
    assert api.get("/").status_code == 200


def test_rate_limit_window_resets(sandbox, api):
    sandbox.set_rate_limit(1, per_seconds=0.5)
    assert api.get("/").status_code == 200
    assert api.get("/").status_code == 429
    time.sleep(0.6)
    assert api.get("/").status_code == 200


def test_request_count_and_log(sandbox, api):
    assert sandbox.request_count == 0
    api.get("/", params={"x": "1"})
    api.get("/nowhere")
    assert sandbox.request_count == 2
    assert sandbox.request_log == [("GET", "/v1/?x=1", 200), ("GET", "/v1/nowhere", 404)]
    requests.get(sandbox.url.removesuffix("/v1") + "/_sandbox/stats", timeout=5)
    assert sandbox.request_count == 2


def test_sandbox_http_controls_mirror_the_python_methods(sandbox, api):
    root = sandbox.url.removesuffix("/v1")
    space = sandbox.demo["space_ids"][0]
    api.delete(f"/spaces/{space}")
    clock = requests.post(f"{root}/_sandbox/clock", json={"days": 8}, timeout=5).json()
    assert clock["offsetSeconds"] == 8 * 86400
    assert api.post(f"/spaces/{space}/restore").status_code == 404
    assert (
        requests.post(f"{root}/_sandbox/faults", json={"fault": "503"}, timeout=5).status_code
        == 204
    )
    assert api.get("/").status_code == 503
    assert (
        requests.post(f"{root}/_sandbox/faults", json={"fault": "nope"}, timeout=5).status_code
        == 400
    )
    assert (
        requests.post(f"{root}/_sandbox/rate-limit", json={"limit": 1}, timeout=5).status_code
        == 204
    )
    api.get("/")
    assert api.get("/").status_code == 429
    assert (
        requests.post(f"{root}/_sandbox/latency", json={"seconds": 0}, timeout=5).status_code == 204
    )
    stats = requests.get(f"{root}/_sandbox/stats", timeout=5).json()
    assert stats["requestCount"] == sandbox.request_count
    assert requests.post(f"{root}/_sandbox/reset", timeout=5).status_code == 204
    assert sandbox.request_count == 0
    assert api.get(f"/spaces/{space}").status_code == 200


def test_file_download_urls_serve_the_declared_size(sandbox, api):
    space = sandbox.demo["space_ids"][0]
    item = api.get(f"/spaces/{space}/content/files").json()["items"][0]
    download = requests.get(item["downloadURL"], timeout=10)
    assert download.status_code == 200
    assert len(download.content) == item["size"]
    assert download.headers["Content-Type"].startswith(item["contentType"])


JUNK = [
    [],
    "x",
    5,
    None,
    True,
    {"role": []},
    {"users": [1]},
    {"teams": {}},
    {"parent": {}},
    {"position": {"before": []}},
    {"title": {}},
    {"url": 3, "ref": []},
    {"source": [], "seed": 1},
    {"id": None},
    {"memberships": []},
    {"add": "x"},
    {"displayName": []},
    {"mergeRules": []},
    {"emoji": 5},
    {"subject": 3},
    {"changeRequestId": 4, "id": "changelog"},
    {"role": "x", "users": "y"},
]


def test_junk_bodies_on_every_write_operation_are_client_errors(sandbox):
    from docsapi.sandbox._app import ROUTES

    api = ApiSession(sandbox.url, sandbox.token, check=False)
    demo = sandbox.demo
    values = {
        "space_id": demo["space_ids"][0],
        "org_id": sandbox.org_id,
        "user_id": demo["owner_id"],
        "team_id": demo["team_ids"][0],
        "page_id": "p",
        "file_id": "f",
        "page_path": "a%2Fb",
        "reusable_content_id": "r",
    }
    statuses = set()
    for route in ROUTES:
        if route.method not in ("POST", "PATCH", "PUT"):
            continue
        path = route.rule
        for name, value in values.items():
            path = path.replace(f"<{name}>", value).replace(f"<path:{name}>", value)
        for body in JUNK:
            response = api.request(route.method, path, json=body)
            statuses.add(response.status_code)
            assert response.status_code < 500, (route.method, path, body, response.text)
        sandbox.reset()
    assert 400 in statuses


def test_answers_keep_the_connection_alive(sandbox):
    host, port = sandbox.url.split("//")[1].split("/")[0].split(":")
    request = (
        f"GET /v1/user HTTP/1.1\r\nHost: {host}:{port}\r\n"
        f"Authorization: Bearer {sandbox.token}\r\n\r\n"
    ).encode()
    with socket.create_connection((host, int(port)), timeout=10) as connection:
        answers = []
        for _ in range(3):  # three requests, one after the other, on the same connection
            connection.sendall(request)
            received = b""
            while b'"displayName"' not in received or not received.endswith(b"}"):
                chunk = connection.recv(65536)
                assert chunk, "the server closed a kept-alive connection"
                received += chunk
            answers.append(received)
    for answer in answers:
        head = answer.split(b"\r\n\r\n")[0].lower()
        assert head.startswith(b"http/1.1 200")
        assert b"connection: close" not in head


def test_a_session_reuses_its_connection(sandbox):
    session = requests.Session()
    session.headers["Authorization"] = f"Bearer {sandbox.token}"
    first = session.get(f"{sandbox.url}/user", timeout=5, stream=True)
    port = first.raw._connection.sock.getsockname()[1]
    first.content  # noqa: B018 - read the body so the connection returns to the pool
    second = session.get(f"{sandbox.url}/user", timeout=5, stream=True)
    assert second.raw._connection.sock.getsockname()[1] == port
    assert "close" not in second.headers.get("Connection", "")
    session.close()


@pytest.mark.parametrize(
    ("path", "method", "body", "field"),
    [
        ("/orgs/{org}", "PATCH", {"title": "m\t"}, "body.title"),
        ("/orgs", "POST", {"title": "m\t"}, "body.title"),
        (
            "/spaces/{space}",
            "PATCH",
            {
                "mergeRules": {
                    "type": "rules",
                    "rules": [{"rule": "custom", "expression": "", "message": {}}],
                }
            },
            "body.mergeRules",
        ),
        (
            "/orgs/{org}",
            "PATCH",
            {
                "mergeRules": {
                    "type": "rules",
                    "rules": [{"rule": "custom", "expression": "", "message": {}}],
                }
            },
            "body.mergeRules",
        ),
        (
            "/spaces/{space}/content/computed/document",
            "POST",
            {"source": {"type": "builtin:openapi", "props": {"spec": "x"}}, "seed": "s"},
            "body.source",
        ),
        (
            "/spaces/{space}/content/computed/revision",
            "POST",
            {"source": {"type": "builtin:translation", "props": {}}, "seed": "s"},
            "body.source",
        ),
        ("/spaces/{space}/permissions", "POST", {"role": "read"}, "body"),
        ("/spaces/{space}/move", "POST", {}, "body"),
    ],
)
def test_what_the_description_forbids_is_refused_naming_the_field(
    sandbox, api, path, method, body, field
):
    target = path.format(org=sandbox.org_id, space=sandbox.demo["space_ids"][0])
    before = api.get(target if method == "PATCH" else "/").json()
    response = api.request(method, target, json=body)
    assert response.status_code == 400
    message = response.json()["error"]["message"]
    assert message.startswith(SCHEMA_ERROR_PREFIX)
    assert f": {field}" in message, message
    assert api.get(target if method == "PATCH" else "/").json() == before


def test_the_description_rules_come_before_the_seed_rules(sandbox, api):
    # the description allows other properties; the sandbox refuses unknown ones
    response = api.patch(f"/users/{sandbox.demo['owner_id']}", json={"nickname": "x"})
    assert response.status_code == 400
    assert not response.json()["error"]["message"].startswith(SCHEMA_ERROR_PREFIX)
    # limit=2.5 passes the description (a number) and is refused by the sandbox (a page
    # holds a whole number of items)
    response = api.get(f"/orgs/{sandbox.org_id}/members", params={"limit": 2.5})
    assert response.status_code == 400
    assert not response.json()["error"]["message"].startswith(SCHEMA_ERROR_PREFIX)


def test_every_operation_of_the_description_is_served_and_checked():
    from docsapi.sandbox._app import ROUTES
    from docsapi.sandbox.core._validation import RequestRules

    rules = RequestRules()
    routes = {(route.method, route.rule) for route in ROUTES}
    checked = {
        rules.for_route(method, rule).label
        for method, rule in routes
        if rules.for_route(method, rule) is not None
    }
    described = {f"{method} {template}" for method, template in rules.operations()}
    assert checked == described
    unchecked = {(m, r) for m, r in routes if rules.for_route(m, r) is None}
    assert unchecked == {("GET", "/users/<user_id>/spaces")}  # the seed's, not described


def test_the_packaged_description_is_the_vendored_one():
    from docsapi.sandbox.core._validation import description

    vendored = json.loads(SPEC_PATH.read_text())
    assert description() == vendored
