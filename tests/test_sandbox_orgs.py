"""Organizations, members and teams."""

from __future__ import annotations

import pytest
from contract import ApiSession


@pytest.fixture
def api(sandbox):
    session = ApiSession(sandbox.url, sandbox.token)
    yield session
    session.close()


def _ids(api, path, **params):
    return [item["id"] for item in api.get(path, params={"limit": 1000, **params}).json()["items"]]


def test_list_orgs_and_get_one(sandbox, api):
    orgs = api.get("/orgs").json()["items"]
    assert [o["id"] for o in orgs] == [sandbox.org_id]
    org = api.get(f"/orgs/{sandbox.org_id}").json()
    assert org["permissions"]["admin"] is True
    assert api.get("/orgs/ghost").status_code == 404


def test_create_and_update_an_org(sandbox, api):
    response = api.post("/orgs", json={"title": "New Co"})
    assert response.status_code == 201
    org = response.json()
    assert response.headers["Location"].endswith(f"/orgs/{org['id']}")
    assert org["id"] in {o["id"] for o in api.get("/orgs").json()["items"]}
    updated = api.patch(
        f"/orgs/{org['id']}", json={"title": "Newer Co", "defaultRole": None}
    ).json()
    assert (updated["title"], updated["defaultRole"]) == ("Newer Co", None)
    assert api.patch(f"/orgs/{org['id']}", json={"title": "x"}).status_code == 400
    assert api.post("/orgs", json={}).status_code == 400


def test_members_filter_search_and_sort(sandbox, api):
    path = f"/orgs/{sandbox.org_id}/members"
    guests = _ids(api, path, role="guest")
    assert set(guests) == set(sandbox.demo["guest_ids"])
    admins = api.get(path, params={"role": "admin"}).json()["items"]
    assert all(m["role"] == "admin" for m in admins)
    owner = api.get(f"/users/{sandbox.demo['owner_id']}").json()
    found = _ids(api, path, search=owner["displayName"].split()[1].lower())
    assert sandbox.demo["owner_id"] in found
    names = [
        m["user"]["displayName"]
        for m in api.get(path, params={"sort": "name", "order": "asc", "limit": 1000}).json()[
            "items"
        ]
    ]
    assert names == sorted(names, key=str.lower)
    assert api.get(path, params={"sort": "age"}).status_code == 400


def test_member_role_change_and_removal(sandbox, api):
    org, user = sandbox.org_id, sandbox.demo["other_user_id"]
    assert api.patch(f"/orgs/{org}/members/{user}", json={"role": "edit"}).json()["role"] == "edit"
    assert api.get(f"/orgs/{org}/members/{user}").json()["role"] == "edit"
    assert api.delete(f"/orgs/{org}/members/{user}").status_code == 205
    assert api.delete(f"/orgs/{org}/members/{user}").status_code == 204
    assert user not in _ids(api, f"/orgs/{org}/members")
    assert api.get(f"/orgs/{org}/members/{user}").status_code == 404
    space = sandbox.demo["space_ids"][0]
    still = {i["user"]["id"] for i in api.get(f"/spaces/{space}/permissions/users").json()["items"]}
    assert user in still  # grants outlive membership: a former member


def test_member_spaces_and_teams(sandbox, api):
    fact = sandbox.demo["multi_team_user"]
    org = sandbox.org_id
    spaces = api.get(
        f"/orgs/{org}/members/{fact['user_id']}/spaces", params={"limit": 1000}
    ).json()["items"]
    by_space = {item["space"]["id"]: item["permission"] for item in spaces}
    assert by_space[fact["space_id"]] == fact["effective"]
    teams = api.get(f"/orgs/{org}/members/{fact['user_id']}/teams").json()["items"]
    assert {t["team"]["id"] for t in teams} >= set(fact["team_roles"])


def test_teams_lifecycle(sandbox, api):
    org, member = sandbox.org_id, sandbox.demo["other_user_id"]
    created = api.put(f"/orgs/{org}/teams", json={"title": "Writers", "members": [member]})
    assert created.status_code == 201
    team = created.json()
    assert team["members"] == 1
    assert (
        api.patch(f"/orgs/{org}/teams/{team['id']}", json={"title": "Editors"}).json()["title"]
        == "Editors"
    )
    owner = sandbox.demo["owner_id"]
    assert (
        api.put(
            f"/orgs/{org}/teams/{team['id']}/members/{owner}", json={"role": "owner"}
        ).status_code
        == 204
    )
    roles = {
        m["organization"]["id"]: m["team"]["role"]
        for m in api.get(f"/orgs/{org}/teams/{team['id']}/members").json()["items"]
    }
    assert roles == {member: "member", owner: "owner"}
    assert (
        api.put(f"/orgs/{org}/teams/{team['id']}/members", json={"remove": [member]}).status_code
        == 204
    )
    assert api.delete(f"/orgs/{org}/teams/{team['id']}/members/{owner}").status_code == 205
    assert api.delete(f"/orgs/{org}/teams/{team['id']}/members/{owner}").status_code == 204
    assert api.get(f"/orgs/{org}/teams/{team['id']}").json()["members"] == 0
    assert api.delete(f"/orgs/{org}/teams/{team['id']}").status_code == 205
    assert api.delete(f"/orgs/{org}/teams/{team['id']}").status_code == 204
    assert api.get(f"/orgs/{org}/teams/{team['id']}").status_code == 404


def test_deleting_a_team_removes_its_space_grants(sandbox, api):
    space, team = sandbox.demo["empty_team"][0]
    assert api.delete(f"/orgs/{sandbox.org_id}/teams/{team}").status_code == 205
    teams = {i["team"]["id"] for i in api.get(f"/spaces/{space}/permissions/teams").json()["items"]}
    assert team not in teams


def test_team_member_changes_need_members_of_the_org(sandbox, api):
    org, team = sandbox.org_id, sandbox.demo["team_ids"][0]
    former = sandbox.demo["former_member_ids"][0]
    assert api.put(f"/orgs/{org}/teams/{team}/members", json={"add": [former]}).status_code == 404
    assert api.put(f"/orgs/{org}/teams", json={"title": ""}).status_code == 400


def test_non_admins_cannot_manage_the_org(sandbox):
    weak = ApiSession(sandbox.url, sandbox.tokens["other-user"])
    assert weak.get(f"/orgs/{sandbox.org_id}/members").status_code == 200
    assert weak.put(f"/orgs/{sandbox.org_id}/teams", json={"title": "Mine"}).status_code == 403
    assert weak.patch(f"/orgs/{sandbox.org_id}", json={"title": "Taken over"}).status_code == 403


def _counts(api, sandbox):
    """Counts the API reports, and the same counts recomputed from the grant listings."""
    org = sandbox.org_id
    reported_members = {
        m["id"]: (m["spaces"], m["teams"])
        for m in api.get(f"/orgs/{org}/members", params={"limit": 1000}).json()["items"]
    }
    reported_teams = {
        t["id"]: (t["spaces"], t["members"])
        for t in api.get(f"/orgs/{org}/teams", params={"limit": 1000}).json()["items"]
    }
    spaces = [
        s["id"] for s in api.get(f"/orgs/{org}/spaces", params={"limit": 1000}).json()["items"]
    ]
    user_spaces, team_spaces = {}, {}
    for space in spaces:
        for item in api.get(f"/spaces/{space}/permissions/users", params={"limit": 1000}).json()[
            "items"
        ]:
            user_spaces[item["user"]["id"]] = user_spaces.get(item["user"]["id"], 0) + 1
        for item in api.get(f"/spaces/{space}/permissions/teams", params={"limit": 1000}).json()[
            "items"
        ]:
            team_spaces[item["team"]["id"]] = team_spaces.get(item["team"]["id"], 0) + 1
    team_members = {
        t: {
            m["organization"]["id"]
            for m in api.get(f"/orgs/{org}/teams/{t}/members", params={"limit": 1000}).json()[
                "items"
            ]
        }
        for t in reported_teams
    }
    recounted_members = {
        user: (user_spaces.get(user, 0), sum(user in members for members in team_members.values()))
        for user in reported_members
    }
    recounted_teams = {t: (team_spaces.get(t, 0), len(team_members[t])) for t in reported_teams}
    return (reported_members, reported_teams), (recounted_members, recounted_teams)


def test_member_and_team_counts_stay_right_through_writes(sandbox, api):
    reported, recounted = _counts(api, sandbox)
    assert reported == recounted
    demo, org = sandbox.demo, sandbox.org_id
    space, other = demo["space_ids"][0], demo["other_user_id"]
    team = demo["team_ids"][0]
    api.patch(f"/spaces/{demo['no_admin'][0]}/permissions/users/{other}", json={"role": "edit"})
    api.patch(f"/spaces/{demo['no_admin'][0]}/permissions/teams/{team}", json={"role": "read"})
    api.delete(f"/spaces/{space}")  # its grants leave the counts while it is in the trash
    api.put(f"/orgs/{org}/teams/{demo['admin_team_id']}/members/{other}")
    api.delete(f"/orgs/{org}/teams/{demo['empty_team'][0][1]}")
    duplicate = api.post(f"/spaces/{demo['space_ids'][2]}/duplicate").json()["id"]
    assert duplicate
    reported, recounted = _counts(api, sandbox)
    assert reported == recounted
    assert reported[0][other][1] == 1
    api.post(f"/spaces/{space}/restore")
    api.delete(f"/orgs/{org}/members/{other}")
    reported, recounted = _counts(api, sandbox)
    assert reported == recounted
