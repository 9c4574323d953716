"""The seeded demo organization: deterministic, exercising every access path, and violating
each audit rule exactly where ``sb.demo`` says (recomputed here independently, from the HTTP
API, by ``access_reading``)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from access_reading import (
    crawl,
    effective,
    fetch_all,
    findings,
    from_state,
    paths,
    rank,
    read_invites,
    resolved_default,
    spaces_under,
)
from contract import ApiSession

from docsapi.sandbox import Sandbox
from docsapi.sandbox.demo._build import build_demo
from docsapi.sandbox.demo._size import DemoSize

PAIR_RULES = (
    "guest_write",
    "former_member",
    "redundant_grant",
    "empty_team",
    "public_exposure",
    "stale_share_link",
    "inactive_writer",
    "guest_collection_write",
)
ID_RULES = ("admin_sprawl", "no_admin", "too_many_admins", "risky_invite_link")


def expected(demo: dict) -> dict[str, set]:
    places = {rule: set(map(tuple, demo[rule])) for rule in PAIR_RULES}
    places.update({rule: set(demo[rule]) for rule in ID_RULES})
    return places


@pytest.fixture(scope="module")
def org(sandbox_server):
    """The demo organization as the API shows it (read once for the read-only tests)."""
    sandbox_server.reset()
    return crawl(ApiSession(sandbox_server.url, sandbox_server.token), sandbox_server.org_id)


@pytest.mark.parametrize("rule_set", ["precedence", "highest"])
def test_every_rule_recomputed_over_http_matches_the_demo_facts(org, sandbox_server, rule_set):
    found = findings(org, datetime.now(UTC), rule_set)
    for rule, places in expected(sandbox_server.demo).items():
        assert found[rule] == places, rule
        assert places, f"the demo must violate {rule}"
    assert sandbox_server.demo["aggregate_mismatch"] == []


def test_other_direct_grants_give_more_than_any_other_path(org, sandbox_server):
    """Outside the deliberate cases a direct grant is never redundant, however the rule is
    read (any other path, or only the space's teams), so the audit's reading cannot matter."""
    deliberate = set(map(tuple, sandbox_server.demo["redundant_grant"]))
    for space_id, grants in org.space_users.items():
        for user, role in grants.items():
            others = [r for s, r in paths(org, space_id, user) if s != "direct"]
            in_teams = [r for s, r in paths(org, space_id, user) if s.startswith("team:")]
            if (space_id, user) in deliberate:
                assert others and rank(role) <= max(map(rank, others))
                assert in_teams and rank(role) <= max(map(rank, in_teams))
            else:
                assert all(rank(role) > rank(other) for other in others), (space_id, user)


def test_the_legacy_rules_agree_with_explicit_space_grants_alone(org, sandbox_server):
    """Read with space grants only (no defaults, collections or disabled members), the demo
    shows the same admins, admin sprawl and redundant grants: only guest write access
    through a collection needs the whole model."""
    demo = sandbox_server.demo
    admins: dict[str, set[str]] = {}
    redundant = set()
    for space_id in org.spaces:
        roles = dict(org.space_users[space_id])
        via_teams: dict[str, list[str]] = {}
        for team, role in org.space_teams[space_id].items():
            for user in org.team_members[team]:
                roles[user] = max(roles.get(user), role, key=rank)
                via_teams.setdefault(user, []).append(role)
        admins[space_id] = {u for u, r in roles.items() if r == "admin"}
        for user, direct in org.space_users[space_id].items():
            if user in via_teams and rank(direct) <= max(map(rank, via_teams[user])):
                redundant.add((space_id, user))
    assert {s for s, users in admins.items() if not users} == set(demo["no_admin"])
    assert {s for s, users in admins.items() if len(users) > 5} == set(demo["too_many_admins"])
    assert redundant == set(map(tuple, demo["redundant_grant"]))
    share = {u: sum(u in a for a in admins.values()) / len(admins) for u in demo["admin_sprawl"]}
    assert all(value > 0.5 for value in share.values())
    via_collection = set(map(tuple, demo["guest_write_via_collection"]))
    assert via_collection < set(map(tuple, demo["guest_write"]))
    assert all(user == demo["guest_collection_write"][0][1] for _, user in via_collection)


def test_every_access_path_is_exercised(org, sandbox_server):
    demo = sandbox_server.demo
    kinds = set()
    for space_id in org.spaces:
        for user in effective(org, space_id):
            kinds |= {source.split(":")[0] for source, _ in paths(org, space_id, user)}
            kinds |= {s for s, _ in paths(org, space_id, user) if s.startswith("default:")}
    assert {
        "org-admin",
        "default:inherit",
        "default:read",
        "direct",
        "team",
        "collection",
        "collection-team",
        "site",
        "site-team",
        "site-default",
        "creator",
    } <= kinds
    levels = {s["defaultLevel"] for s in org.spaces.values()}
    assert {"inherit", None} <= levels
    assert {"read", None} <= {resolved_default(org, s) for s in org.spaces.values()}
    depth = max(len(_chain(org, c)) for c in org.collections.values())
    assert depth >= 1  # collections two levels deep
    assert any(org.collection_users[c] for c in org.collections if org.collections[c].get("parent"))
    assert any(org.collection_teams[c] for c in org.collections if org.collections[c].get("parent"))
    guests = {u for u, m in org.members.items() if m["role"] is None}
    assert any(set(g) & guests for g in org.space_users.values())
    assert any(set(g) & guests for g in org.collection_users.values())
    disabled = demo["disabled_member_ids"][0]
    assert org.members[disabled]["disabled"]
    assert any(disabled in grants for grants in org.space_users.values())
    assert all(disabled not in effective(org, s) for s in org.spaces)
    former = demo["former_member_ids"][0]
    assert former not in org.members
    assert any(former in effective(org, s) for s in org.spaces)
    now = datetime.now(UTC)
    unseen = {
        u
        for u, m in org.members.items()
        if (now - datetime.fromisoformat(m["lastSeenAt"].replace("Z", "+00:00"))).days > 90
    }
    assert set(demo["inactive_member_ids"]) <= unseen
    assert any(org.site_teams.values()) and any(org.site_users.values())
    visibilities = {s["visibility"] for s in org.sites.values() if s["published"]}
    assert visibilities == {"public", "unlisted", "share-link", "visitor-auth"}
    assert any(not s["published"] for s in org.sites.values())
    links = org.share_links[demo["sites"]["share-link"]]
    assert {link["active"] for link in links} == {True, False}
    assert "admin" in {invite["role"] for invite in org.invites}
    api = ApiSession(sandbox_server.url, sandbox_server.token)
    by_id = read_invites(api, sandbox_server.org_id, demo["invite_ids"].values())
    assert {("space" in i, "collection" in i) for i in by_id} == {
        (False, False),
        (True, False),
        (False, True),
    }


def _chain(org, record):
    found, parent = [], record.get("parent")
    while parent:
        found.append(parent)
        parent = org.collections[parent].get("parent")
    return found


def test_path_examples_name_real_paths(org, sandbox_server):
    for name, example in sandbox_server.demo["path_examples"].items():
        found = dict(paths(org, example["space_id"], example["user_id"]))
        assert found.get(example["source"]) == example["role"], name


def test_aggregate_of_every_space_and_collection_follows_the_model(org, sandbox_server):
    api = ApiSession(sandbox_server.url, sandbox_server.token)
    for space_id in org.spaces:
        listed = fetch_all(api, f"/spaces/{space_id}/permissions/aggregate")
        assert {i["user"]["id"]: i["permission"] for i in listed} == effective(org, space_id)
    partners = sandbox_server.demo["collections"]["partners"]
    assert len(spaces_under(org, partners)) >= 5


def test_a_highest_sandbox_answers_by_the_highest_role(org, highest_sandbox):
    api = ApiSession(highest_sandbox.url, highest_sandbox.token)
    differ = 0
    for space_id in org.spaces:
        listed = fetch_all(api, f"/spaces/{space_id}/permissions/aggregate")
        roles = {i["user"]["id"]: i["permission"] for i in listed}
        assert roles == effective(org, space_id, "highest")
        differ += roles != effective(org, space_id, "precedence")
    assert differ  # the demo tells the two rule sets apart


def test_each_access_case_has_its_roles_under_both_rule_sets(org, sandbox_server):
    cases = sandbox_server.demo["access_cases"]
    assert all(cases.values())
    for name, case in cases.items():
        for rule_set, expected_role in case["roles"].items():
            found = effective(org, case["space_id"], rule_set).get(case["user_id"])
            assert found == expected_role, (name, rule_set)
    assert cases["site_overrides_collection"]["roles"] == {
        "precedence": "comment",
        "highest": "edit",
    }
    reached = cases["site_reaches_linked_spaces"]
    site_only = [s for s, _ in paths(org, reached["space_id"], reached["user_id"])]
    assert site_only == [f"site:{reached['site_id']}"]
    creator = cases["private_space_creator"]
    assert [s for s, _ in paths(org, creator["space_id"], creator["user_id"])] == ["creator"]
    direct = cases["direct_overrides_site"]
    kinds = {s.split(":")[0] for s, _ in paths(org, direct["space_id"], direct["user_id"])}
    assert {"direct", "site-default"} <= kinds


def test_multi_team_user_is_reachable_directly_and_through_several_teams(sandbox):
    api = ApiSession(sandbox.url, sandbox.token)
    fact = sandbox.demo["multi_team_user"]
    space = fact["space_id"]
    direct = {
        i["user"]["id"]: i["permission"]
        for i in fetch_all(api, f"/spaces/{space}/permissions/users")
    }
    teams = {
        i["team"]["id"]: i["permission"]
        for i in fetch_all(api, f"/spaces/{space}/permissions/teams")
    }
    assert direct[fact["user_id"]] == fact["direct_role"]
    assert len(fact["team_roles"]) >= 2
    for team, role in fact["team_roles"].items():
        assert teams[team] == role
        members = {
            m["organization"]["id"]
            for m in fetch_all(api, f"/orgs/{sandbox.org_id}/teams/{team}/members")
        }
        assert fact["user_id"] in members
    assert fact["effective"] == max([fact["direct_role"], *fact["team_roles"].values()], key=rank)
    assert fact["effective"] != fact["direct_role"]


def test_demo_size_and_shape(org, sandbox_server):
    demo = sandbox_server.demo
    assert len(org.spaces) == len(demo["space_ids"]) == 30
    assert 55 <= len(org.members) <= 65
    assert 6 <= len(demo["team_ids"]) <= 10
    assert {u for u, m in org.members.items() if m["role"] is None} == set(demo["guest_ids"])
    roles = {m["role"] for m in org.members.values()}
    assert {"admin", "create", "edit", "comment", "read", None} <= roles
    assert {u for u, m in org.members.items() if m["role"] == "admin"} == set(demo["org_admin_ids"])
    in_collections = [s for s in org.spaces.values() if s.get("parent")]
    assert 0 < len(in_collections) < len(org.spaces)
    assert set(org.collections) == set(demo["collection_ids"])
    assert set(org.sites) == set(demo["site_ids"])
    assert org.members[demo["owner_id"]]["role"] == "admin"


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


@pytest.mark.full
def test_a_big_organization_keeps_exactly_the_deliberate_problems():
    size = DemoSize(spaces=400, users=1500, teams=25, grants_per_space=20)
    state, facts = build_demo(3, size)
    org = from_state(state, facts["org_id"])
    found = findings(org, datetime.now(UTC))
    for rule in ("guest_write", "former_member", "redundant_grant", "inactive_writer"):
        assert found[rule] == set(map(tuple, facts[rule])), rule
    for rule in ("admin_sprawl", "no_admin", "too_many_admins"):
        assert found[rule] == set(facts[rule]), rule
    space_teams = [(s, t) for s, grants in org.space_teams.items() for t in grants]
    assert [(s, t) for s, t in space_teams if not org.team_members[t]] == facts["empty_team"]
    assert all(len(state.space_users.on(s)) >= 20 for s in state.spaces)
    inheriting = sum(1 for s in state.spaces.values() if s["defaultLevel"] == "inherit")
    assert inheriting < len(state.spaces) * 0.15  # most spaces are private at scale
    assert len(state.collections) > 6 and len(state.sites) > 5


@pytest.mark.parametrize(
    "size",
    [{"spaces": 3}, {"users": 10}, {"teams": 2}, {"grants_per_space": -1}, {"inherit_share": 2}],
)
def test_too_small_organizations_are_refused(size):
    with pytest.raises(ValueError):
        Sandbox(**size)


@pytest.mark.parametrize(
    ("arguments", "named"),
    [
        ({"spaces": 10**400}, "spaces"),
        ({"users": 10**400}, "users"),
        ({"users": "x\n"}, "users"),
        ({"teams": 10**6}, "teams"),
        ({"grants_per_space": 10**9}, "grants_per_space"),
        ({"port": 10**400}, "port"),
        ({"port": 70_000}, "port"),
        ({"port": True}, "port"),
        ({"channel_timeout": 10**400}, "channel_timeout"),
        ({"prefix": "/" + "a" * 70_000}, "prefix"),
        ({"model": "x" * 70_000}, "model"),
    ],
)
def test_out_of_range_arguments_are_refused_at_once_in_one_short_message(arguments, named):
    """Huge counts would build for ever, ports and timeouts past their range fail deep in the
    server: each is refused with a message that names it and stays short."""
    with pytest.raises(ValueError, match=named) as refused:
        Sandbox(**arguments)
    assert len(str(refused.value)) < 200


def test_an_unknown_rule_set_is_refused_naming_the_known_ones():
    with pytest.raises(ValueError, match="precedence, highest"):
        Sandbox(model="lowest")
    assert Sandbox(model="highest").model == "highest"
