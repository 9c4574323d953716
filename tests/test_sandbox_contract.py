"""Every operation the sandbox implements answers in the shapes of the reference description."""

from __future__ import annotations

from urllib.parse import quote, urlsplit

import pytest
from contract import ApiSession, ContractError, operation_for, spec, validate


def _walk(sandbox):
    """Call every in-scope operation once with valid input; yield each response."""
    api = ApiSession(sandbox.url, sandbox.token, check=False)
    demo = sandbox.demo
    org, owner = demo["org_id"], demo["owner_id"]
    space = demo["space_ids"][0]
    team = demo["team_ids"][0]
    other = demo["other_user_id"]
    yield api.get("/")
    yield api.get("/user")
    yield ApiSession(sandbox.url, sandbox.tokens["user-internal"], check=False).post(
        "/user/notifications/token"
    )
    yield api.get(f"/users/{owner}")
    yield api.patch(f"/users/{owner}", json={"displayName": "Frances L."})
    yield api.get(f"/users/{owner}/spaces")
    yield api.get("/orgs")
    new_org = api.post("/orgs", json={"title": "Contract Test Org"})
    yield new_org
    yield api.get(f"/orgs/{org}")
    yield api.patch(
        f"/orgs/{new_org.json()['id']}", json={"title": "Renamed Org", "inviteLinks": True}
    )
    yield api.get(f"/orgs/{org}/members")
    yield api.get(f"/orgs/{org}/members/{other}")
    yield api.patch(f"/orgs/{org}/members/{other}", json={"role": "comment"})
    yield api.get(f"/orgs/{org}/members/{other}/spaces")
    yield api.get(f"/orgs/{org}/members/{demo['multi_team_user']['user_id']}/teams")
    yield api.get(f"/orgs/{org}/spaces")
    created = api.post(f"/orgs/{org}/spaces", json={"title": "Contract space"})
    yield created
    yield api.get(f"/orgs/{org}/teams")
    new_team = api.put(f"/orgs/{org}/teams", json={"title": "Contract team", "members": [other]})
    yield new_team
    team_id = new_team.json()["id"]
    yield api.get(f"/orgs/{org}/teams/{team}")
    yield api.patch(f"/orgs/{org}/teams/{team_id}", json={"title": "Contract team 2"})
    yield api.get(f"/orgs/{org}/teams/{team}/members")
    yield api.put(f"/orgs/{org}/teams/{team_id}/members", json={"add": [owner]})
    yield api.put(f"/orgs/{org}/teams/{team_id}/members/{owner}", json={"role": "owner"})
    yield api.delete(f"/orgs/{org}/teams/{team_id}/members/{owner}")
    yield api.delete(f"/orgs/{org}/teams/{team_id}")
    yield api.delete(f"/orgs/{org}/members/{demo['guest_ids'][-1]}")
    yield api.get(f"/spaces/{space}")
    yield api.patch(f"/spaces/{space}", json={"title": "Contract title", "emoji": "1f680"})
    yield api.get(f"/spaces/{space}/change-requests")
    yield api.post(f"/spaces/{space}/change-requests", json={"subject": "Contract change"})
    yield api.get(f"/spaces/{space}/content")
    source = {
        "type": "builtin:openapi",
        "dependencies": {"spec": {"ref": {"kind": "openapi", "spec": "x"}}},
        "props": {"doc": "models"},
    }
    yield api.post(
        f"/spaces/{space}/content/computed/document", json={"source": source, "seed": "s1"}
    )
    revision_source = {**source, "props": {"models": True}}
    yield api.post(
        f"/spaces/{space}/content/computed/revision", json={"source": revision_source, "seed": "s1"}
    )
    files = api.get(f"/spaces/{space}/content/files")
    yield files
    yield api.get(f"/spaces/{space}/content/files/{files.json()['items'][0]['id']}")
    pages = api.get(f"/spaces/{space}/content/pages")
    yield pages
    group = next(p for p in pages.json()["pages"] if p["type"] == "group")
    document = group["pages"][0]
    yield api.get(f"/spaces/{space}/content/page/{document['id']}")
    yield api.get(f"/spaces/{space}/content/page/{document['id']}", params={"format": "markdown"})
    yield api.get(f"/spaces/{space}/content/page/{group['id']}")
    yield api.get(f"/spaces/{space}/content/page/{document['id']}/meta-links")
    yield api.get(f"/spaces/{space}/content/path/{quote(document['path'], safe='')}")
    yield api.get(f"/spaces/{space}/content/path/{group['path']}")
    with_reusable = next(
        s for s in demo["space_ids"] if api.get(f"/spaces/{s}/content").json()["reusableContents"]
    )
    reusable = api.get(f"/spaces/{with_reusable}/content").json()["reusableContents"][0]
    yield api.get(f"/spaces/{with_reusable}/content/reusable-contents/{reusable['id']}")
    yield api.post(f"/spaces/{space}/content/template", json={"id": "changelog"})
    duplicate = api.post(f"/spaces/{space}/duplicate")
    yield duplicate
    yield api.get(f"/spaces/{space}/embed", params={"url": "https://www.youtube.com/watch?v=abc"})
    yield api.get(f"/spaces/{space}/embed", params={"url": "https://example.com/blog/post"})
    yield api.post(
        f"/spaces/{space}/git/import",
        json={"url": "https://github.com/acme/docs.git", "ref": "main"},
    )
    yield api.get(f"/spaces/{space}/git/info")
    yield api.post(
        f"/spaces/{space}/git/export",
        json={"url": "https://github.com/acme/docs.git", "ref": "main", "commitMessage": "Sync"},
    )
    yield api.get(f"/spaces/{space}/git/info")
    yield (
        api.get(f"/spaces/{demo['space_ids'][-1]}/git/info")
        if demo["space_ids"][-1] not in demo["git_space_ids"]
        else api.get(f"/spaces/{demo['space_ids'][1]}/git/info")
    )
    yield api.post(f"/spaces/{space}/move", json={"parent": demo["collection_ids"][0]})
    yield api.post(f"/spaces/{space}/move", json={"parent": demo["collection_ids"][0]})
    yield api.post(f"/spaces/{space}/move", json={"parent": "not-a-collection"})
    yield api.post("/spaces/does-not-exist/move", json={"parent": None})
    yield api.post(f"/spaces/{space}/permissions", json={"role": "read", "users": [other]})
    yield api.post(f"/spaces/{space}/permissions", json={"role": "read", "users": ["nobody"]})
    yield api.get(f"/spaces/{space}/permissions/aggregate")
    yield api.get(f"/spaces/{space}/permissions/teams")
    yield api.get("/spaces/does-not-exist/permissions/teams")
    yield api.patch(f"/spaces/{space}/permissions/teams/{team}", json={"role": "comment"})
    yield api.patch(f"/spaces/{space}/permissions/teams/nobody", json={"role": "comment"})
    yield api.delete(f"/spaces/{space}/permissions/teams/{team}")
    yield api.delete(f"/spaces/{space}/permissions/teams/{team}")
    yield api.delete(f"/spaces/{space}/permissions/teams/not-a-team")
    yield api.get(f"/spaces/{space}/permissions/users")
    yield api.get("/spaces/does-not-exist/permissions/users")
    yield api.patch(f"/spaces/{space}/permissions/users/{other}", json={"role": "edit"})
    yield api.patch(f"/spaces/{space}/permissions/users/nobody", json={"role": "edit"})
    yield api.delete(f"/spaces/{space}/permissions/users/{other}")
    yield api.delete(f"/spaces/{space}/permissions/users/{other}")
    yield api.get(f"/spaces/{space}/search", params={"query": "configure"})
    yield api.delete(f"/spaces/{space}")
    yield api.post(f"/spaces/{space}/restore")
    yield api.delete(f"/spaces/{duplicate.json()['id']}")
    yield api.delete(f"/spaces/{duplicate.json()['id']}")
    yield api.get("/users/nobody")
    yield api.patch("/users/nobody", json={"displayName": "x"})
    yield api.get("/orgs/nobody")


def test_every_operation_answers_per_the_reference(sandbox):
    failures, covered = [], set()
    for response in _walk(sandbox):
        found = operation_for(response.request.method, response.request.url)
        if found is not None:
            covered.add((response.request.method.lower(), found[0]))
        try:
            validate(response)
        except ContractError as error:
            failures.append(str(error)[:600])
    assert failures == []
    declared = {(m, p) for p, ops in spec()["paths"].items() for m in ops if m != "parameters"}
    assert declared - covered == set()
    assert len(declared) == 59  # the reference's 58 operations plus GET /users/{userId}/spaces


def test_validation_catches_a_broken_body(sandbox):
    response = ApiSession(sandbox.url, sandbox.token, check=False).get(
        f"/spaces/{sandbox.demo['space_ids'][0]}"
    )
    response._content = response.content.replace(b'"object": "space"', b'"object": "page"')
    with pytest.raises(ContractError):
        validate(response)


def test_undeclared_errors_must_still_have_the_error_shape(sandbox):
    api = ApiSession(sandbox.url, None, check=False)
    response = api.get("/user")
    assert response.status_code == 401
    validate(response)
    response._content = b'{"message": "nope"}'
    with pytest.raises(ContractError):
        validate(response)


def test_requests_are_matched_on_the_reference_host(sandbox):
    response = ApiSession(sandbox.url, sandbox.token).get("/")
    assert urlsplit(response.request.url).hostname == "127.0.0.1"
