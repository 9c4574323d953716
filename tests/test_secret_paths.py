"""The canary token and key through every error path: nothing reachable from an error holds them.

For each way a call can fail (401, 403, 404, 429, 500, timeouts, dropped and refused
connections, invalid JSON, a redirect loop, servers echoing the credential in a message, a
request id, a header, a body or a pagination cursor, refused constructor arguments), the
error is inspected whole: its text and repr, the formatted traceback, its attributes, every
exception in its ``__cause__``/``__context__`` chain, and the local variables of every
docsapi frame of every traceback (what ``pytest -l`` would print), walked into containers
and docsapi objects. Only :class:`~docsapi.core.secret.Secret` may hold the credential.
"""

from __future__ import annotations

import contextlib
import re
import traceback
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import pytest
import requests
from fake_clock import FakeClock
from scripted_server import Reply, ScriptedServer

import docsapi
from docsapi import DocsClient, RetryPolicy
from docsapi.adnetwork import AdNetworkClient
from docsapi.core.secret import Secret
from docsapi.errors import (
    APIConnectionError,
    APITimeoutError,
    AuthenticationError,
    DocsAPIError,
    MissingCredentialError,
    NotFoundError,
    PaginationError,
    PermissionDeniedError,
    RateLimitError,
    ResponseFormatError,
    ServerError,
    ValidationError,
)
from docsapi.sandbox.adnetwork import AdNetworkSandbox
from docsapi.wire.sender import CredentialAuth

CANARY_KEY = "an_CANARY_9d3e1b7a5c2f8e04d6a1"
NO_RETRY = RetryPolicy(max_retries=0)


def _walk(value: Any, depth: int = 0, seen: set[int] | None = None) -> Iterator[str]:
    """Every string reachable from ``value``: containers, exceptions and docsapi objects."""
    seen = set() if seen is None else seen
    if id(value) in seen or depth > 8:
        return
    seen.add(id(value))
    if isinstance(value, Secret):
        return  # the one object meant to hold it
    if isinstance(value, str):
        yield value
        return
    if isinstance(value, bytes | bytearray):
        yield bytes(value).decode("latin-1")
        return
    with contextlib.suppress(Exception):  # a broken repr shows nothing
        yield repr(value)
    if isinstance(value, Mapping):
        for key, item in list(value.items()):
            yield from _walk(key, depth + 1, seen)
            yield from _walk(item, depth + 1, seen)
    elif isinstance(value, list | tuple | set | frozenset):
        for item in list(value):
            yield from _walk(item, depth + 1, seen)
    elif isinstance(value, BaseException):
        yield str(value)
        yield from _walk(vars(value), depth + 1, seen)
        yield from _walk(value.args, depth + 1, seen)
    elif type(value).__module__.startswith("docsapi"):
        state = getattr(value, "__dict__", None)
        if state is not None:
            yield from _walk(state, depth + 1, seen)
        for slot in getattr(type(value), "__slots__", ()):
            if hasattr(value, slot):
                yield from _walk(getattr(value, slot), depth + 1, seen)


def _chain(error: BaseException) -> Iterator[BaseException]:
    stack, seen = [error], set()
    while stack:
        current = stack.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        stack += [current.__cause__, current.__context__]
        stack += [v for v in vars(current).values() if isinstance(v, BaseException)]


def leaks(error: BaseException, secret: str) -> list[str]:
    """Where ``secret`` (or its tail) can be found from ``error``; empty when nowhere."""
    needles = (secret, secret[-12:])
    found = []
    for exc in _chain(error):
        where = type(exc).__name__
        texts = {
            "str": str(exc),
            "repr": repr(exc),
            "traceback": "".join(traceback.format_exception(exc)),
        }
        for label, text in texts.items():
            if any(n in text for n in needles):
                found.append(f"{where} {label}")
        if any(n in text for text in _walk(vars(exc)) for n in needles):
            found.append(f"{where} attributes")
        tb = exc.__traceback__
        while tb is not None:
            frame = tb.tb_frame
            if frame.f_globals.get("__name__", "").startswith("docsapi"):
                for name, value in frame.f_locals.items():
                    if any(n in text for text in _walk(value) for n in needles):
                        found.append(f"{where} frame {frame.f_code.co_name} local {name}")
            tb = tb.tb_next
    return found


def failure(call: Callable[[], Any], expected: type[BaseException] = DocsAPIError) -> BaseException:
    with pytest.raises(expected) as info:
        call()
    return info.value


# -- the documentation-platform client against the sandbox ---------------------------------------


@pytest.fixture
def canary(sandbox, canary_token):
    sandbox.add_token(canary_token, scheme="user")
    return DocsClient(
        token=canary_token,
        base_url=sandbox.url,
        retry=RetryPolicy(max_retries=1),
        clock=FakeClock(),
    )


@pytest.fixture
def space_id(sandbox):
    return sandbox.demo["space_ids"][0]


SANDBOX_PATHS = {
    "404": (lambda c, sb, sp: c.spaces.get("NoSuchSpace0000000000"), NotFoundError, None),
    "401-unknown": (
        lambda c, sb, sp: DocsClient(token=c._canary + "x", base_url=sb.url).users.me(),
        AuthenticationError,
        None,
    ),
    "403-scope": (
        lambda c, sb, sp: c._read_only.spaces.update(sp, title="x"),
        PermissionDeniedError,
        None,
    ),
    "429": (lambda c, sb, sp: c.spaces.get(sp), RateLimitError, "retry-after:3600"),
    "500": (lambda c, sb, sp: c.spaces.get(sp), ServerError, "500"),
    "503-post": (lambda c, sb, sp: c.spaces.duplicate(sp), ServerError, "503"),
    "drop-post": (lambda c, sb, sp: c.spaces.duplicate(sp), APIConnectionError, "drop"),
    "truncate-post": (lambda c, sb, sp: c.spaces.duplicate(sp), APIConnectionError, "truncate"),
    "html": (lambda c, sb, sp: c.spaces.get(sp), ResponseFormatError, "html"),
    "refused": (
        lambda c, sb, sp: DocsClient(
            token=c._canary, base_url="http://127.0.0.1:9/v1", clock=FakeClock()
        ).info(),
        APIConnectionError,
        None,
    ),
    "pagination-500": (lambda c, sb, sp: c.permissions.users(sp), ServerError, "500"),
}


@pytest.mark.parametrize("path", sorted(SANDBOX_PATHS))
def test_sandbox_error_paths_hold_no_token(sandbox, canary, canary_token, space_id, path):
    call, expected, fault = SANDBOX_PATHS[path]
    canary._canary = canary_token
    sandbox.add_token(canary_token + "-ro", scheme="oauth", scopes=["space:read"])
    canary._read_only = DocsClient(token=canary_token + "-ro", base_url=sandbox.url)
    if fault is not None:
        sandbox.inject(fault, count=5)
    error = failure(lambda: call(canary, sandbox, space_id), expected)
    assert leaks(error, canary_token) == []
    assert error.__context__ is None and error.__cause__ is None


def test_a_timeout_holds_no_token(canary_token):
    with ScriptedServer([Reply(200, {}, action="stall", stall_seconds=1.0)]) as srv:
        client = DocsClient(
            token=canary_token, base_url=srv.url + "/v1", timeout=(1, 0.2), retry=NO_RETRY
        )
        error = failure(client.info, APITimeoutError)
    assert leaks(error, canary_token) == []


# -- servers that echo the credential --------------------------------------------------------------


def _echoed(request) -> str:
    return request.headers.get("authorization", "") + " " + request.headers.get("x-api-key", "")


ECHOES = {
    "message": Reply(401, lambda r: {"error": {"code": 401, "message": f"bad {_echoed(r)}"}}),
    "request-id": Reply(
        404, {"error": {"message": "gone"}}, lambda r: {"X-Request-Id": _echoed(r)}
    ),
    "header": Reply(500, {"error": {"message": "x"}}, lambda r: {"X-Seen": _echoed(r)}),
    "nested-body": Reply(400, lambda r: {"error": {"message": "x", "detail": [{"t": _echoed(r)}]}}),
    "html-page": Reply(502, lambda r: f"<html>proxy saw {_echoed(r)}</html>"),
    "invalid-json": Reply(200, lambda r: f'{{"token": "{_echoed(r)}"'.encode()),
    "text-body": Reply(200, lambda r: f"<p>{_echoed(r)}</p>"),
    "retry-after": Reply(429, {}, lambda r: {"Retry-After": _echoed(r)}),
}


@pytest.mark.parametrize("where", sorted(ECHOES))
def test_a_server_echoing_the_token_does_not_make_errors_carry_it(canary_token, where):
    with ScriptedServer([ECHOES[where]]) as srv:
        client = DocsClient(
            token=canary_token, base_url=srv.url + "/v1", retry=NO_RETRY, clock=FakeClock()
        )
        error = failure(lambda: client.users.me())
    assert srv.seen[0].headers["authorization"] == f"Bearer {canary_token}"
    assert leaks(error, canary_token) == []


def test_an_echoed_token_is_masked_in_the_body_and_headers_kept_on_the_error(canary_token):
    reply = Reply(
        403,
        lambda r: {"error": {"code": 403, "message": f"denied for {_echoed(r)}"}},
        lambda r: {"X-Request-Id": f"req-{_echoed(r)}", "X-Echo": _echoed(r)},
    )
    with ScriptedServer([reply]) as srv:
        client = DocsClient(token=canary_token, base_url=srv.url + "/v1", retry=NO_RETRY)
        error = failure(lambda: client.users.me(), PermissionDeniedError)
    assert error.body["error"]["message"].startswith("denied for Bearer ********")
    assert error.headers["X-Echo"].startswith("Bearer ********")
    assert error.request_id.startswith("req-Bearer ********")
    assert canary_token not in str(error)


def test_a_cursor_echoing_the_token_is_left_out_of_the_pagination_error(canary_token):
    page = Reply(200, lambda r: {"items": [{"id": "a"}], "next": {"page": canary_token}})
    with ScriptedServer([page]) as srv:
        client = DocsClient(token=canary_token, base_url=srv.url + "/v1", retry=NO_RETRY)
        error = failure(lambda: list(client.paginate("/orgs")), PaginationError)
    assert "twice" in str(error) and "********" not in str(error)
    assert leaks(error, canary_token) == []


def test_an_error_after_an_echoed_cursor_leaves_no_cursor_in_frames(canary_token):
    pages = [
        Reply(200, {"items": [{"id": "a"}], "next": {"page": canary_token}}),
        Reply(500, {"error": {"message": "busy"}}),
    ]
    with ScriptedServer(pages) as srv:
        client = DocsClient(token=canary_token, base_url=srv.url + "/v1", retry=NO_RETRY)
        error = failure(lambda: client.orgs.list(), ServerError)
    assert leaks(error, canary_token) == []


def test_a_redirect_loop_holds_no_token(canary_token):
    loop = Reply(302, b"", headers={"Location": "/v1/again"})
    with ScriptedServer([loop]) as srv:
        client = DocsClient(token=canary_token, base_url=srv.url + "/v1", retry=NO_RETRY)
        error = failure(client.info, APIConnectionError)
    assert "redirects" in str(error)
    assert leaks(error, canary_token) == []


# -- refused and missing credentials -------------------------------------------------------------


@pytest.mark.parametrize(
    "bad",
    ["\u20ac", "\u00e9\u4e2d", "\nx", "\r\nX-Injected: 1", "\x00"],
    ids=["euro", "cjk", "newline", "crlf", "nul"],
)
def test_a_token_that_cannot_be_sent_is_refused_without_repeating_it(canary_token, bad):
    token = canary_token + bad
    error = failure(lambda: DocsClient(token=token), ValidationError)
    assert "token" in str(error)
    assert leaks(error, canary_token) == []
    assert error.__context__ is None


def test_constructor_errors_after_the_token_is_read_hold_no_token(canary_token):
    for kwargs in (
        {"base_url": "https://api.gitbook.com"},
        {"timeout": (0, 0)},
        {"headers": {"X-A": "1\r\n"}},
        {"max_retries": -1},
    ):
        error = failure(lambda kw=kwargs: DocsClient(token=canary_token, **kw), ValidationError)
        assert leaks(error, canary_token) == [], kwargs


def test_a_token_from_the_environment_is_refused_without_repeating_it(monkeypatch, canary_token):
    monkeypatch.setenv("GITBOOK_API_TOKEN", canary_token + "\u20ac")
    error = failure(DocsClient, ValidationError)
    assert "GITBOOK_API_TOKEN" in str(error)
    assert leaks(error, canary_token) == []


def test_missing_token_says_where_it_looked_and_claims_no_status(sandbox, monkeypatch):
    monkeypatch.delenv("GITBOOK_API_TOKEN", raising=False)
    client = DocsClient(base_url=sandbox.url)
    before = sandbox.request_count
    error = failure(client.users.me, MissingCredentialError)
    message = str(error)
    assert "No API token found" in message
    assert "token= argument" in message and "GITBOOK_API_TOKEN environment variable" in message
    assert "Nothing was sent" in message
    # No HTTP status is claimed (the sandbox's port may itself contain "401": leave the URL out).
    assert not re.search(r"\b401\b", message.replace(sandbox.url, ""))
    assert error.status is None and isinstance(error, docsapi.AuthenticationError)
    assert sandbox.request_count == before


def test_an_extra_authorization_header_is_refused_without_repeating_it(canary_token):
    error = failure(
        lambda: DocsClient(token="gb_api_ok", headers={"Authorization": f"Bearer {canary_token}"}),
        ValidationError,
    )
    assert leaks(error, canary_token) == []


def test_the_credential_is_attached_while_requests_prepares_a_same_origin_request(canary_token):
    """No docsapi frame builds the header: an auth object adds it, for its own origin only."""
    auth = CredentialAuth(Secret(canary_token), "https://api.example.com/v1")
    same = requests.Request("GET", "https://api.example.com/v1/user", auth=auth).prepare()
    other_port = requests.Request("GET", "https://api.example.com:8443/v1", auth=auth).prepare()
    other_host = requests.Request("GET", "https://evil.example/v1", auth=auth).prepare()
    downgraded = requests.Request("GET", "http://api.example.com/v1", auth=auth).prepare()
    assert same.headers["Authorization"] == f"Bearer {canary_token}"
    for prepared in (other_port, other_host, downgraded):
        assert "Authorization" not in prepared.headers
    assert canary_token not in repr(auth)


# -- the ad-network key ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def ans():
    with AdNetworkSandbox(seed=1, affiliates=30) as sandbox:
        sandbox.add_key(CANARY_KEY)
        yield sandbox


ADNETWORK_PATHS = {
    "31-not-found": (lambda c: c.get("affiliate", 5), None),
    "20-parameter": (lambda c: c.create("affiliate", {"name": "no email"}), None),
    "13-wrong-key": (
        lambda c: AdNetworkClient(c.network, api_key=CANARY_KEY + "x", scheme="http").get(
            "affiliate", 1001
        ),
        None,
    ),
    "50-upgrade": (lambda c: c.get("affiliate", 1001), "50"),
    "40-rate": (lambda c: c.get("affiliate", 1001), "40"),
    "51-post": (lambda c: c.create("affiliate", {"name": "A", "email": "a@x.example"}), "51"),
}


@pytest.mark.parametrize("path", sorted(ADNETWORK_PATHS))
def test_adnetwork_error_paths_hold_no_key(ans, path):
    ans.reset()
    call, fault = ADNETWORK_PATHS[path]
    client = ans.client(api_key=CANARY_KEY, retry=RetryPolicy(max_retries=1), clock=FakeClock())
    if fault is not None:
        ans.inject(fault, count=5)
    error = failure(lambda: call(client))
    assert leaks(error, CANARY_KEY) == []


def test_adnetwork_key_echoed_by_a_server_is_masked():
    reply = Reply(
        403,
        lambda r: {"code": 41, "message": f"IP not whitelisted for key {r.headers['x-api-key']}"},
        lambda r: {"X-Request-Id": r.headers["x-api-key"]},
    )
    with ScriptedServer([reply]) as srv:
        client = AdNetworkClient(
            f"127.0.0.1:{srv.port}", api_key=CANARY_KEY, scheme="http", retry=NO_RETRY
        )
        error = failure(lambda: client.get("affiliate", 1))
    assert srv.seen[0].headers["x-api-key"] == CANARY_KEY
    assert leaks(error, CANARY_KEY) == []


def test_adnetwork_key_that_cannot_be_sent_is_refused_without_repeating_it():
    error = failure(
        lambda: AdNetworkClient("demo.example.com", api_key=CANARY_KEY + "\u20ac"), ValidationError
    )
    assert "api_key" in str(error)
    assert leaks(error, CANARY_KEY) == []
    error = failure(
        lambda: AdNetworkClient("demo example.com", api_key=CANARY_KEY), ValidationError
    )
    assert leaks(error, CANARY_KEY) == []


def test_adnetwork_missing_key_claims_no_status(ans, monkeypatch):
    ans.reset()
    monkeypatch.delenv("ADNETWORK_API_KEY", raising=False)
    client = AdNetworkClient(ans.network, scheme="http")
    error = failure(lambda: client.get("affiliate", 1001), MissingCredentialError)
    assert error.status is None and "ADNETWORK_API_KEY" in str(error)
    assert "No API key found" in str(error) and ans.request_count == 0
