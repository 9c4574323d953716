"""The seeded demo organization: deterministic, and violating each audit rule exactly where
``sb.demo`` says (recomputed here independently, from the HTTP API)."""

from __future__ import annotations

import pytest
from contract import ApiSession

from docsapi.sandbox import Sandbox
from docsapi.sandbox._demo import DemoSize, build_demo

ORDER = ["read", "comment", "edit", "review", "create", "admin"]  # weakest first
WRITE = {"admin", "create", "edit"}


def rank(role):
    return ORDER.index(role) + 1 if role else 0


def audit(members, team_members, spaces, user_grants, team_grants):
    """Every audit rule under the default thresholds, from plain data.

    members: {user: org role or None}; team_members: {team: set(users)};
    spaces: [space ids]; user_grants / team_grants: {space: {user or team: role}}.
    """
    found = {
        key: set()
        for key in [
            "guest_write",
            "former_member",
            "admin_sprawl",
            "no_admin",
            "too_many_admins",
            "redundant_grant",
            "redundant_grant_alt",
            "empty_team",
        ]
    }
    admin_spaces = {}
    for space in spaces:
        via_teams = {}
        for team, role in team_grants[space].items():
            if not team_members[team]:
                found["empty_team"].add((space, team))
            for user in team_members[team]:
                via_teams.setdefault(user, []).append(role)
        effective = {}
        for user in set(user_grants[space]) | set(via_teams):
            direct = user_grants[space].get(user)
            effective[user] = max([direct, *via_teams.get(user, [])], key=rank)
            if direct and via_teams.get(user):
                if rank(direct) <= max(rank(r) for r in via_teams[user]):
                    found["redundant_grant"].add((space, user))
                if rank(direct) >= min(rank(r) for r in via_teams[user]):
                    found["redundant_grant_alt"].add((space, user))
            if user not in members and direct:
                found["former_member"].add((space, user))
            if effective[user] in WRITE and (user not in members or members[user] is None):
                found["guest_write"].add((space, user))
        admins = {u for u, r in effective.items() if r == "admin"}
        if not admins:
            found["no_admin"].add(space)
        if len(admins) > 5:
            found["too_many_admins"].add(space)
        for user in admins:
            admin_spaces[user] = admin_spaces.get(user, 0) + 1
    found["admin_sprawl"] = {u for u, n in admin_spaces.items() if n / len(spaces) > 0.5}
    return found


def _all(api, path):
    items, params = [], {"limit": 1000}
    while True:
        body = api.get(path, params=params).json()
        items.extend(body["items"])
        if "next" not in body:
            return items
        params = {"limit": 1000, "page": body["next"]["page"]}


def _expected(demo):
    return {
        key: set(map(tuple, demo[key]))
        if key != "admin_sprawl" and key != "no_admin" and key != "too_many_admins"
        else set(demo[key])
        for key in [
            "guest_write",
            "former_member",
            "admin_sprawl",
            "no_admin",
            "too_many_admins",
            "redundant_grant",
            "empty_team",
        ]
    }


def test_audit_rules_recomputed_over_http_match_the_demo_facts(sandbox):
    api = ApiSession(sandbox.url, sandbox.token, check=False)
    org = sandbox.org_id
    members = {m["id"]: m["role"] for m in _all(api, f"/orgs/{org}/members")}
    team_members = {
        t["id"]: {
            m["organization"]["id"] for m in _all(api, f"/orgs/{org}/teams/{t['id']}/members")
        }
        for t in _all(api, f"/orgs/{org}/teams")
    }
    spaces = [s["id"] for s in _all(api, f"/orgs/{org}/spaces")]
    user_grants = {
        s: {i["user"]["id"]: i["permission"] for i in _all(api, f"/spaces/{s}/permissions/users")}
        for s in spaces
    }
    team_grants = {
        s: {i["team"]["id"]: i["permission"] for i in _all(api, f"/spaces/{s}/permissions/teams")}
        for s in spaces
    }
    found = audit(members, team_members, spaces, user_grants, team_grants)
    expected = _expected(sandbox.demo)
    assert (
        found["redundant_grant"] == found["redundant_grant_alt"]
    )  # both readings of the rule agree
    for rule, places in expected.items():
        assert found[rule] == places, rule
        assert places, f"the demo must violate {rule}"


def test_multi_team_user_is_reachable_directly_and_through_several_teams(sandbox):
    api = ApiSession(sandbox.url, sandbox.token)
    fact = sandbox.demo["multi_team_user"]
    direct = {
        i["user"]["id"]: i["permission"]
        for i in _all(api, f"/spaces/{fact['space_id']}/permissions/users")
    }
    teams = {
        i["team"]["id"]: i["permission"]
        for i in _all(api, f"/spaces/{fact['space_id']}/permissions/teams")
    }
    assert direct[fact["user_id"]] == fact["direct_role"]
    assert len(fact["team_roles"]) >= 2
    for team, role in fact["team_roles"].items():
        assert teams[team] == role
        members = {
            m["organization"]["id"]
            for m in _all(api, f"/orgs/{sandbox.org_id}/teams/{team}/members")
        }
        assert fact["user_id"] in members
    assert fact["effective"] == max([fact["direct_role"], *fact["team_roles"].values()], key=rank)
    assert fact["effective"] != fact["direct_role"]


def test_demo_size_and_shape(sandbox):
    api = ApiSession(sandbox.url, sandbox.token)
    demo = sandbox.demo
    members = _all(api, f"/orgs/{sandbox.org_id}/members")
    assert 25 <= len(demo["space_ids"]) <= 35
    assert 55 <= len(members) <= 65
    assert 6 <= len(demo["team_ids"]) <= 10
    guests = {m["id"] for m in members if m["role"] is None}
    assert guests == set(demo["guest_ids"])
    roles = {m["role"] for m in members}
    assert {"admin", "create", "edit", "comment", "read", None} <= roles
    former = demo["former_member_ids"][0]
    assert former not in {m["id"] for m in members}
    assert api.get(f"/users/{former}").status_code == 200
    in_collections = [s for s in _all(api, f"/orgs/{sandbox.org_id}/spaces") if s.get("parent")]
    assert 0 < len(in_collections) < len(demo["space_ids"])
    assert {s["parent"] for s in in_collections} <= set(demo["collection_ids"])
    owner = next(m for m in members if m["id"] == demo["owner_id"])
    assert owner["role"] == "admin"
    assert api.get("/user").json()["id"] == demo["owner_id"]


def test_same_seed_same_organization_other_seed_other_one(sandbox):
    twin = Sandbox(seed=0)
    assert twin.demo == sandbox.demo
    assert twin.tokens == sandbox.tokens
    other = Sandbox(seed=1)
    assert other.org_id != sandbox.org_id
    assert set(other.demo["space_ids"]).isdisjoint(sandbox.demo["space_ids"])
    with Sandbox(seed=0) as live:
        space = live.demo["space_ids"][3]
        mine = ApiSession(sandbox.url, sandbox.token).get(f"/spaces/{space}/content/pages").text
        theirs = ApiSession(live.url, live.token).get(f"/spaces/{space}/content/pages").text
        assert mine == theirs


def test_ids_look_like_the_apis():
    state, facts = build_demo(5)
    assert all(len(s) == 20 and s.isalnum() for s in facts["space_ids"])
    assert all(len(u) == 28 and u.isalnum() for u in state.users)


def test_a_big_organization_keeps_exactly_the_deliberate_problems():
    state, facts = build_demo(3, DemoSize(spaces=400, users=1500, teams=25, grants_per_space=20))
    org = facts["org_id"]
    members = {u: m["role"] for u, m in state.members[org].items()}
    team_members = {t: set(team["members"]) for t, team in state.teams.items()}
    found = audit(members, team_members, list(state.spaces), state.user_grants, state.team_grants)
    assert found["redundant_grant"] == found["redundant_grant_alt"]
    for rule, places in _expected(facts).items():
        assert found[rule] == places, rule
    assert all(len(grants) >= 20 for grants in state.user_grants.values())


@pytest.mark.parametrize(
    "size", [{"spaces": 3}, {"users": 10}, {"teams": 2}, {"grants_per_space": -1}]
)
def test_too_small_organizations_are_refused(size):
    with pytest.raises(ValueError):
        Sandbox(**size)
