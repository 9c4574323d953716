"""The fast paths of the wire layer give what the plain ones gave.

msgspec decodes answers (json.loads for what it refuses), large lists decode into shapes of
the columns kept, the sender's own session sends through its pool directly: each is checked
here against the value or the route it replaces, over real HTTP to a scripted server.
"""

from __future__ import annotations

import math

import pandas as pd
import pytest
import requests
from fake_clock import FakeClock
from scripted_server import Reply, ScriptedServer

from docsapi.audit.data import _duplicated
from docsapi.core.config import RetryPolicy, Timeout
from docsapi.core.secret import Secret
from docsapi.data.fields import UserPermissionFields
from docsapi.data.shapes import Shape
from docsapi.wire.sender import CredentialAuth
from docsapi.wire.transport import Transport

PAGE = {
    "items": [
        {"permission": "edit", "user": {"id": "u1", "displayName": "Ada", "urls": {"a": "x"}}},
        {"permission": None, "user": {"id": "u2", "displayName": None}},
        {"user": {"id": 7}},
    ]
}
COLUMNS = ("user_id", "display_name", "role")


def transport(url: str) -> Transport:
    return Transport(
        url + "/v1",
        credential=Secret("tok-fast"),
        timeout=Timeout(connect=2, read=5),
        retry=RetryPolicy(max_retries=0),
        clock=FakeClock(),
    )


@pytest.mark.parametrize(
    ("body", "check"),
    [
        (b'{"n": NaN, "x": 1e400}', lambda d: math.isnan(d["n"]) and d["x"] == math.inf),
        (
            b'{"s": "a\\ud800b", "\\udc00k": ["\\udbff", {"t": "\\ud83d\\ude00"}]}',
            lambda d: d == {"s": "a\ufffdb", "\ufffdk": ["\ufffd", {"t": "\U0001f600"}]},
        ),
        (
            b'{"big": 123456789012345678901234567890}',
            lambda d: d["big"] == 12345678901234567890 * 10**10 + 1234567890,
        ),
        (b'{"bad": "\xff"}', lambda d: d["bad"] == "\ufffd"),
    ],
    ids=["nan-infinity", "lone-surrogate-replaced", "big-int-exact", "undecodable-byte"],
)
def test_bodies_msgspec_refuses_decode_as_json_loads_did(body, check):
    """As json.loads decodes them, except lone surrogates: U+FFFD, as for undecodable bytes
    (pandas' string columns, pages and workbooks hold only what UTF-8 can encode)."""
    with ScriptedServer([Reply(200, body)]) as srv:
        data = transport(srv.url).request("GET", "/x").data
    assert check(data)


def test_a_shaped_page_and_a_plain_one_give_the_same_columns():
    shape = Shape(UserPermissionFields, COLUMNS)
    with ScriptedServer([Reply(200, PAGE)]) as srv:
        fast = list(transport(srv.url).paginate("/p", shape=shape.page))
    assert {type(item) for item in fast} == {shape.item}
    assert shape.columns(fast) == shape.columns(PAGE["items"])
    assert shape.columns(fast) == {
        "user_id": ["u1", "u2", 7],
        "display_name": ["Ada", None, None],
        "role": ["edit", None, None],
    }


def test_a_page_that_does_not_fit_the_shape_is_read_as_plain_json():
    shape = Shape(UserPermissionFields, COLUMNS)
    odd = {"items": [{"permission": "read", "user": "u9"}, {"user": {"id": "u1"}}]}
    with ScriptedServer([Reply(200, odd)]) as srv:
        items = list(transport(srv.url).paginate("/p", shape=shape.page))
    assert all(type(item) is dict for item in items)
    assert shape.columns(items) == {
        "user_id": [None, "u1"],
        "display_name": [None, None],
        "role": ["read", None],
    }


def test_the_credential_header_value_is_masked_in_reprs():
    value = CredentialAuth(Secret("tok-fast"), "https://api.example.com/v1").value()
    assert value == "Bearer tok-fast"
    assert "tok-fast" not in repr({"Authorization": value})


def test_an_adapter_mounted_on_the_clients_own_session_is_used():
    class Counting(requests.adapters.HTTPAdapter):
        sent = 0

        def send(self, request, **kwargs):  # type: ignore[no-untyped-def]
            Counting.sent += 1
            return super().send(request, **kwargs)

    with ScriptedServer([Reply(200, {"ok": True})]) as srv:
        wire = transport(srv.url)
        assert wire.request("GET", "/a").data == {"ok": True}  # the direct route
        wire.sender.session.mount("http://", Counting())
        assert wire.request("GET", "/b").data == {"ok": True}
    assert Counting.sent == 1
    assert [seen.headers["authorization"] for seen in srv.seen] == ["Bearer tok-fast"] * 2


def test_history_makes_a_frame_with_a_column_per_field():
    with ScriptedServer([Reply(200, {"ok": True})]) as srv:
        wire = transport(srv.url)
        wire.request("GET", "/a")
    frame = pd.DataFrame(wire.history)
    assert list(frame.columns[:3]) == ["method", "path", "status"]
    assert frame[["method", "path", "status"]].values.tolist() == [["GET", "/a", 200]]


@pytest.mark.parametrize("seed", range(5))
def test_duplicate_keys_are_those_pandas_finds(seed):
    rng = pd.Series(range(400)).sample(frac=1, random_state=seed).to_numpy() % 37
    frame = pd.DataFrame(
        {
            "a": pd.Categorical([None if v % 11 == 0 else f"s{v % 5}" for v in rng]),
            "b": [None if v % 7 == 0 else f"u{v % 9}" for v in rng],
        }
    )
    assert _duplicated(frame, ["a", "b"]).tolist() == frame.duplicated(["a", "b"]).tolist()
