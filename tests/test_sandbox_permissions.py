"""Space permission rules: invite, change roles, remove users and teams (204/205/400/404)."""

from __future__ import annotations

import pytest
from contract import ApiSession


@pytest.fixture
def api(sandbox):
    session = ApiSession(sandbox.url, sandbox.token)
    yield session
    session.close()


def _users(api, space):
    items = api.get(f"/spaces/{space}/permissions/users", params={"limit": 1000}).json()["items"]
    return {item["user"]["id"]: item["permission"] for item in items}


def _teams(api, space):
    items = api.get(f"/spaces/{space}/permissions/teams", params={"limit": 1000}).json()["items"]
    return {item["team"]["id"]: item["permission"] for item in items}


def _space_with_a_team(sandbox, api):
    for space in sandbox.demo["space_ids"]:
        teams = _teams(api, space)
        if teams:
            return space, next(iter(teams))
    raise AssertionError("the demo has no team grant")


def test_remove_user_answers_205_then_204(sandbox, api):
    space = sandbox.demo["space_ids"][0]
    user = next(iter(_users(api, space)))
    assert api.delete(f"/spaces/{space}/permissions/users/{user}").status_code == 205
    assert user not in _users(api, space)
    assert api.delete(f"/spaces/{space}/permissions/users/{user}").status_code == 204
    assert api.delete(f"/spaces/{space}/permissions/users/noSuchUser").status_code == 204


def test_remove_team_answers_205_then_204(sandbox, api):
    space, team = _space_with_a_team(sandbox, api)
    assert api.delete(f"/spaces/{space}/permissions/teams/{team}").status_code == 205
    assert team not in _teams(api, space)
    assert api.delete(f"/spaces/{space}/permissions/teams/{team}").status_code == 204


def test_remove_a_team_of_another_organization_is_400(sandbox, api):
    space = sandbox.demo["space_ids"][0]
    assert api.delete(f"/spaces/{space}/permissions/teams/noSuchTeam").status_code == 400
    other_org = api.post("/orgs", json={"title": "Elsewhere Inc"}).json()["id"]
    foreign = api.put(f"/orgs/{other_org}/teams", json={"title": "Foreigners"}).json()["id"]
    response = api.delete(f"/spaces/{space}/permissions/teams/{foreign}")
    assert response.status_code == 400
    assert "organization" in response.json()["error"]["message"]


def test_remove_an_org_team_without_a_grant_is_204(sandbox, api):
    space = sandbox.demo["space_ids"][0]
    granted = _teams(api, space)
    team = next(t for t in sandbox.demo["team_ids"] if t not in granted)
    assert api.delete(f"/spaces/{space}/permissions/teams/{team}").status_code == 204


def test_invite_grants_users_and_teams(sandbox, api):
    space = sandbox.demo["space_ids"][0]
    user, team = sandbox.demo["guest_ids"][1], sandbox.demo["empty_team"][0][1]
    response = api.post(
        f"/spaces/{space}/permissions", json={"role": "comment", "users": [user], "teams": [team]}
    )
    assert response.status_code == 204
    assert _users(api, space)[user] == "comment"
    assert _teams(api, space)[team] == "comment"


@pytest.mark.parametrize(
    "body",
    [
        {"role": "read"},
        {"users": ["x"]},
        {"role": "superuser", "users": ["x"]},
        {"role": "read", "users": "x"},
        {"role": "read", "users": [], "teams": []},
    ],
)
def test_invite_rejects_bad_bodies(sandbox, api, body):
    space = sandbox.demo["space_ids"][0]
    assert api.post(f"/spaces/{space}/permissions", json=body).status_code == 400


def test_invite_of_an_unknown_user_or_team_is_404_and_changes_nothing(sandbox, api):
    space = sandbox.demo["space_ids"][0]
    before = _users(api, space)
    known = sandbox.demo["guest_ids"][1]
    assert (
        api.post(
            f"/spaces/{space}/permissions", json={"role": "read", "users": [known, "ghost"]}
        ).status_code
        == 404
    )
    assert (
        api.post(
            f"/spaces/{space}/permissions", json={"role": "read", "teams": ["ghost"]}
        ).status_code
        == 404
    )
    assert _users(api, space) == before


def test_patch_user_and_team_roles(sandbox, api):
    space, team = _space_with_a_team(sandbox, api)
    user = next(iter(_users(api, space)))
    assert (
        api.patch(f"/spaces/{space}/permissions/users/{user}", json={"role": "review"}).status_code
        == 204
    )
    assert _users(api, space)[user] == "review"
    assert (
        api.patch(f"/spaces/{space}/permissions/teams/{team}", json={"role": "admin"}).status_code
        == 204
    )
    assert _teams(api, space)[team] == "admin"
    assert (
        api.patch(f"/spaces/{space}/permissions/users/{user}", json={"role": None}).status_code
        == 204
    )
    assert user not in _users(api, space)


def test_patch_unknown_user_or_team_is_404_and_bad_role_is_400(sandbox, api):
    space = sandbox.demo["space_ids"][0]
    assert (
        api.patch(f"/spaces/{space}/permissions/users/ghost", json={"role": "read"}).status_code
        == 404
    )
    assert (
        api.patch(f"/spaces/{space}/permissions/teams/ghost", json={"role": "read"}).status_code
        == 404
    )
    user = next(iter(_users(api, space)))
    assert (
        api.patch(f"/spaces/{space}/permissions/users/{user}", json={"role": "boss"}).status_code
        == 400
    )


def test_a_patch_without_role_changes_nothing(sandbox, api):
    """The description does not require ``role``: a PATCH without it is 204 and keeps every
    grant as it was (none is created); unknown users and teams are still 404."""
    space, team = _space_with_a_team(sandbox, api)
    users, teams = _users(api, space), _teams(api, space)
    user = next(iter(users))
    no_grant = next(u for u in sandbox.demo["guest_ids"] if u not in users)
    for who in (f"users/{user}", f"users/{no_grant}", f"teams/{team}"):
        assert api.patch(f"/spaces/{space}/permissions/{who}", json={}).status_code == 204
    assert _users(api, space) == users and _teams(api, space) == teams
    assert api.patch(f"/spaces/{space}/permissions/users/ghost", json={}).status_code == 404
    assert api.patch(f"/spaces/{space}/permissions/teams/ghost", json={}).status_code == 404
    collection = sandbox.demo["collections"]["partners"]
    granted = f"/collections/{collection}/permissions/users"
    before = {i["user"]["id"]: i["permission"] for i in api.get(granted).json()["items"]}
    assert api.patch(f"{granted}/{next(iter(before))}", json={}).status_code == 204
    assert {i["user"]["id"]: i["permission"] for i in api.get(granted).json()["items"]} == before


def test_permissions_of_an_unknown_space_are_404(api):
    assert api.get("/spaces/ghost/permissions/users").status_code == 404
    assert api.get("/spaces/ghost/permissions/teams").status_code == 404


def test_aggregate_combines_direct_and_team_roles(sandbox, api):
    fact = sandbox.demo["multi_team_user"]
    items = api.get(
        f"/spaces/{fact['space_id']}/permissions/aggregate", params={"limit": 1000}
    ).json()["items"]
    effective = {item["user"]["id"]: item["permission"] for item in items}
    assert effective[fact["user_id"]] == fact["effective"]
    assert _users(api, fact["space_id"])[fact["user_id"]] == fact["direct_role"]


def test_other_user_cannot_change_permissions(sandbox):
    weak = ApiSession(sandbox.url, sandbox.tokens["other-user"])
    space = sandbox.demo["space_ids"][0]
    assert weak.get(f"/spaces/{space}/permissions/users").status_code == 200
    response = weak.post(
        f"/spaces/{space}/permissions",
        json={"role": "admin", "users": [sandbox.demo["other_user_id"]]},
    )
    assert response.status_code == 403
