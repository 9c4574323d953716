"""Authentication and per-operation schemes and OAuth scopes (seed section 5)."""

from __future__ import annotations

import pytest
from contract import ApiSession

ALL = ("user", "user-internal", "integration", "oauth:space:read", "oauth:all")
GIT = {"url": "https://github.com/acme/docs.git", "ref": "main"}

# (method, path template, body, token names that are accepted); every other name gets 403
TABLE = [
    ("GET", "/", None, {"user", "user-internal", "integration"}),
    ("GET", "/user", None, {"user", "oauth:all"}),
    ("POST", "/user/notifications/token", None, {"user-internal"}),
    ("GET", "/users/{owner}", None, {"user"}),
    ("GET", "/spaces/{space}", None, {"user", "integration", "oauth:space:read", "oauth:all"}),
    (
        "GET",
        "/spaces/{space}/content",
        None,
        {"user", "integration", "oauth:space:read", "oauth:all"},
    ),
    ("POST", "/spaces/{space}/git/import", GIT, {"user", "integration", "oauth:all"}),
    ("PATCH", "/spaces/{space}", {"title": "T"}, {"user", "oauth:all"}),
    ("POST", "/spaces/{space}/duplicate", None, {"user", "oauth:all"}),
    ("GET", "/spaces/{space}/search?query=a", None, {"user", "oauth:space:read", "oauth:all"}),
    ("GET", "/spaces/{space}/content/pages", None, {"user", "oauth:space:read", "oauth:all"}),
    (
        "POST",
        "/spaces/{space}/permissions",
        {"role": "read", "users": ["{owner}"]},
        {"user", "oauth:all"},
    ),
    ("GET", "/spaces/{space}/permissions/users", None, {"user", "oauth:all"}),
    ("GET", "/orgs/{org}/members", None, {"user", "oauth:all"}),
    ("GET", "/orgs/{org}/spaces", None, {"user", "oauth:space:read", "oauth:all"}),
]


def _fill(value, sandbox):
    names = {
        "owner": sandbox.demo["owner_id"],
        "space": sandbox.demo["space_ids"][0],
        "org": sandbox.org_id,
    }
    if isinstance(value, str):
        return value.format(**names)
    if isinstance(value, dict):
        return {k: _fill(v, sandbox) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, sandbox) for v in value]
    return value


@pytest.mark.parametrize(
    ("method", "path", "body", "accepted"), TABLE, ids=[f"{m} {p}" for m, p, _, _ in TABLE]
)
def test_each_operation_accepts_exactly_its_schemes(sandbox, method, path, body, accepted):
    for name in ALL:
        api = ApiSession(sandbox.url, sandbox.tokens[name])
        response = api.request(method, _fill(path, sandbox), json=_fill(body, sandbox))
        if name in accepted:
            assert response.status_code < 400, (name, response.text)
        else:
            assert response.status_code == 403, (name, response.text)


def test_missing_malformed_or_unknown_tokens_are_401(sandbox):
    assert ApiSession(sandbox.url).get("/user").status_code == 401
    assert ApiSession(sandbox.url, "sbx_not_registered").get("/user").status_code == 401
    response = ApiSession(sandbox.url).get(
        "/user", headers={"Authorization": f"Token {sandbox.token}"}
    )
    assert response.status_code == 401


def test_a_registered_canary_token_works_and_is_never_echoed(sandbox, canary_token):
    api = ApiSession(sandbox.url, canary_token)
    assert api.get("/user").status_code == 401
    assert canary_token not in api.get("/user").text
    sandbox.add_token(canary_token)
    me = api.get("/user")
    assert me.status_code == 200
    assert me.json()["id"] == sandbox.demo["owner_id"]
    sandbox.reset()
    assert api.get("/user").status_code == 401


def test_add_token_with_scopes_and_user(sandbox):
    sandbox.add_token(
        "sbx_custom_reader",
        scheme="oauth",
        scopes=["user:read"],
        user_id=sandbox.demo["other_user_id"],
    )
    api = ApiSession(sandbox.url, "sbx_custom_reader")
    assert api.get("/user").json()["id"] == sandbox.demo["other_user_id"]
    assert api.get(f"/spaces/{sandbox.demo['space_ids'][0]}").status_code == 403
    with pytest.raises(ValueError, match="scheme"):
        sandbox.add_token("x1", scheme="password")
    with pytest.raises(ValueError, match="scopes"):
        sandbox.add_token("x2", scheme="oauth", scopes=["everything"])


def test_sandbox_tokens_never_look_like_real_ones(sandbox):
    tokens = sandbox.tokens
    assert set(tokens) == {
        "user",
        "user-internal",
        "integration",
        "oauth:space:read",
        "oauth:all",
        "other-user",
    }
    assert all(value.startswith("sbx_") for value in tokens.values())
    assert not any("gb_api_" in value for value in tokens.values())
    assert len(set(tokens.values())) == len(tokens)
    assert sandbox.token == tokens["user"]
    assert sandbox.token not in repr(sandbox)


def test_other_user_has_few_rights(sandbox):
    weak = ApiSession(sandbox.url, sandbox.tokens["other-user"])
    me = weak.get("/user").json()
    assert me["id"] == sandbox.demo["other_user_id"]
    reachable = {s["id"] for s in weak.get(f"/orgs/{sandbox.org_id}/spaces").json()["items"]}
    assert 0 < len(reachable) < len(sandbox.demo["space_ids"])
    hidden = next(s for s in sandbox.demo["space_ids"] if s not in reachable)
    assert weak.get(f"/spaces/{hidden}").status_code == 403
    readable = next(iter(reachable))
    assert weak.patch(f"/spaces/{readable}", json={"title": "Mine"}).status_code == 403
    assert weak.delete(f"/spaces/{readable}").status_code == 403
    assert (
        weak.patch(f"/users/{sandbox.demo['owner_id']}", json={"displayName": "Hacker"}).status_code
        == 403
    )


def test_an_organization_admin_may_edit_a_members_profile_but_not_a_strangers(sandbox):
    admin = ApiSession(sandbox.url, sandbox.token)
    member = sandbox.demo["other_user_id"]
    answer = admin.patch(f"/users/{member}", json={"displayName": "Renamed by admin"})
    assert answer.status_code == 200 and answer.json()["displayName"] == "Renamed by admin"
    stranger = sandbox.demo["former_member_ids"][0]
    assert admin.patch(f"/users/{stranger}", json={"displayName": "x"}).status_code == 403
