"""The sandbox's ``permissions/aggregate`` follows ``docs/access-model.md``, rule by rule.

Each test makes one change through the API (or, where the API has no operation, through the
sandbox's controls) and reads the aggregate back over raw HTTP.
"""

from __future__ import annotations

import pytest
from access_reading import fetch_all
from contract import ApiSession


@pytest.fixture
def api(sandbox):
    session = ApiSession(sandbox.url, sandbox.token)
    yield session
    session.close()


def aggregate(api, space_id: str, kind: str = "spaces") -> dict[str, str]:
    items = fetch_all(api, f"/{kind}/{space_id}/permissions/aggregate")
    return {item["user"]["id"]: item["permission"] for item in items}


def members(api, org_id: str) -> dict[str, dict]:
    return {m["id"]: m for m in fetch_all(api, f"/orgs/{org_id}/members")}


def explicit_holders(api, org_id: str, space_id: str) -> set[str]:
    """Users named by a permission on the space or its collections, directly or by team."""
    holders: set[str] = set()
    targets = [f"/spaces/{space_id}"]
    parent = api.get(f"/spaces/{space_id}").json().get("parent")
    while parent:
        targets.append(f"/collections/{parent}")
        parent = api.get(f"/collections/{parent}").json().get("parent")
    for target in targets:
        holders |= {i["user"]["id"] for i in fetch_all(api, f"{target}/permissions/users")}
        for item in fetch_all(api, f"{target}/permissions/teams"):
            team = item["team"]["id"]
            found = fetch_all(api, f"/orgs/{org_id}/teams/{team}/members")
            holders |= {m["organization"]["id"] for m in found}
    return holders


def plain_member(api, sandbox, role: str, space_id: str | None = None) -> str:
    """An enabled member with organization ``role`` and no explicit path to ``space_id``."""
    taken = explicit_holders(api, sandbox.org_id, space_id) if space_id else set()
    special = {*sandbox.demo["org_admin_ids"], *sandbox.demo["disabled_member_ids"]}
    return next(
        user
        for user, member in members(api, sandbox.org_id).items()
        if member["role"] == role and not member["disabled"] and user not in special | taken
    )


def private_space(sandbox) -> str:
    """A demo space whose default level is null: only explicit grants reach it."""
    return sandbox.demo["no_admin"][0]


def new_space(api, sandbox, parent: str | None = None) -> str:
    body = {"title": "Model check", **({"parent": parent} if parent else {})}
    return api.post(f"/orgs/{sandbox.org_id}/spaces", json=body).json()["id"]


def new_collection(api, sandbox, level, parent: str | None = None) -> str:
    body = {"title": "Model check", **({"parent": parent} if parent else {})}
    collection = api.post(f"/orgs/{sandbox.org_id}/collections", json=body).json()["id"]
    assert api.patch(f"/collections/{collection}", json={"defaultLevel": level}).ok
    return collection


# -- organization role ------------------------------------------------------------------
def test_org_admins_are_admin_on_a_private_space_without_any_grant(sandbox, api):
    space = private_space(sandbox)
    explicit = {i["user"]["id"] for i in fetch_all(api, f"/spaces/{space}/permissions/users")}
    roles = aggregate(api, space)
    for admin in sandbox.demo["org_admin_ids"]:
        assert admin not in explicit
        assert roles[admin] == "admin"


def test_making_a_member_org_admin_makes_them_admin_everywhere(sandbox, api):
    space = private_space(sandbox)
    user = plain_member(api, sandbox, "read", space)
    assert user not in aggregate(api, space)
    api.patch(f"/orgs/{sandbox.org_id}/members/{user}", json={"role": "admin"})
    for space_id in sandbox.demo["space_ids"]:
        assert aggregate(api, space_id)[user] == "admin"


# -- default levels ----------------------------------------------------------------------
def test_default_inherit_gives_each_member_their_own_role_and_guests_nothing(sandbox, api):
    space = new_space(api, sandbox)  # at the top level, inheriting; only its creator is granted
    roles = aggregate(api, space)
    for user, member in members(api, sandbox.org_id).items():
        if member["disabled"] or member["role"] is None:
            assert user not in roles
        elif user != sandbox.demo["owner_id"]:
            assert roles[user] == member["role"]


def test_a_read_default_is_read_even_for_members_with_a_higher_role(sandbox, api):
    space = new_space(api, sandbox)
    api.patch(f"/spaces/{space}", json={"defaultLevel": "read"})
    roles = aggregate(api, space)
    for user, member in members(api, sandbox.org_id).items():
        if member["disabled"] or member["role"] is None:
            assert user not in roles
        elif member["role"] != "admin":
            assert roles[user] == "read"


def test_changing_a_default_level_changes_the_role(sandbox, api):
    space = new_space(api, sandbox)
    editor = plain_member(api, sandbox, "edit", space)
    assert aggregate(api, space)[editor] == "edit"  # a new space inherits
    api.patch(f"/spaces/{space}", json={"defaultLevel": "comment"})
    assert aggregate(api, space)[editor] == "comment"
    api.patch(f"/spaces/{space}", json={"defaultLevel": None})
    assert editor not in aggregate(api, space)


def test_inherit_resolves_through_collections_two_levels_up(sandbox, api):
    top = new_collection(api, sandbox, "comment")
    middle = new_collection(api, sandbox, "inherit", parent=top)
    space = new_space(api, sandbox, parent=middle)
    editor = plain_member(api, sandbox, "edit", space)
    assert aggregate(api, space)[editor] == "comment"
    api.patch(f"/collections/{top}", json={"defaultLevel": None})
    assert editor not in aggregate(api, space)
    api.patch(f"/collections/{top}", json={"defaultLevel": "inherit"})
    assert aggregate(api, space)[editor] == "edit"
    api.patch(f"/collections/{middle}", json={"defaultLevel": "read"})
    assert aggregate(api, space)[editor] == "read"


# -- explicit permissions ----------------------------------------------------------------
def test_a_direct_grant_lists_the_user_with_its_role(sandbox, api):
    space = private_space(sandbox)
    user = plain_member(api, sandbox, "comment", space)
    api.patch(f"/spaces/{space}/permissions/users/{user}", json={"role": "review"})
    assert aggregate(api, space)[user] == "review"
    api.delete(f"/spaces/{space}/permissions/users/{user}")
    assert user not in aggregate(api, space)


def test_a_team_grant_reaches_its_members_while_they_are_in_it(sandbox, api):
    space, org = private_space(sandbox), sandbox.org_id
    user = plain_member(api, sandbox, "read", space)
    team = api.put(f"/orgs/{org}/teams", json={"title": "Checkers", "members": [user]}).json()
    api.post(f"/spaces/{space}/permissions", json={"role": "edit", "teams": [team["id"]]})
    assert aggregate(api, space)[user] == "edit"
    api.delete(f"/orgs/{org}/teams/{team['id']}/members/{user}")
    assert user not in aggregate(api, space)


def test_a_grant_on_a_collection_two_levels_up_reaches_the_space(sandbox, api):
    top = new_collection(api, sandbox, None)
    middle = new_collection(api, sandbox, "inherit", parent=top)
    space = new_space(api, sandbox, parent=middle)
    user = plain_member(api, sandbox, "read", space)
    assert user not in aggregate(api, space)
    api.post(f"/collections/{top}/permissions", json={"role": "edit", "users": [user]})
    assert aggregate(api, space)[user] == "edit"
    assert aggregate(api, middle, "collections")[user] == "edit"
    api.delete(f"/collections/{top}/permissions/users/{user}")
    assert user not in aggregate(api, space)


def test_a_level_that_sets_its_own_default_takes_nothing_from_above(sandbox, api):
    top = new_collection(api, sandbox, None)
    middle = new_collection(api, sandbox, None, parent=top)  # "No access", not inherited
    space = new_space(api, sandbox, parent=middle)
    user = plain_member(api, sandbox, "read", space)
    api.post(f"/collections/{top}/permissions", json={"role": "edit", "users": [user]})
    assert user not in aggregate(api, space)
    assert user not in aggregate(api, middle, "collections")
    api.patch(f"/collections/{middle}", json={"defaultLevel": "inherit"})
    assert aggregate(api, space)[user] == "edit"


def test_a_team_grant_on_an_ancestor_collection_reaches_the_team_members(sandbox, api):
    top = new_collection(api, sandbox, None)
    space = new_space(api, sandbox, parent=top)
    user = plain_member(api, sandbox, "read", space)
    team = api.put(f"/orgs/{sandbox.org_id}/teams", json={"title": "Far", "members": [user]})
    team_id = team.json()["id"]
    api.patch(f"/collections/{top}/permissions/teams/{team_id}", json={"role": "review"})
    assert aggregate(api, space)[user] == "review"


def test_under_highest_the_highest_role_over_all_paths_wins(highest_sandbox):
    sandbox = highest_sandbox
    api = ApiSession(sandbox.url, sandbox.token)
    top = new_collection(api, sandbox, "read")
    space = new_space(api, sandbox, parent=top)
    user = plain_member(api, sandbox, "comment", space)
    assert aggregate(api, space)[user] == "read"  # default: the collection's read
    api.patch(f"/spaces/{space}/permissions/users/{user}", json={"role": "comment"})
    assert aggregate(api, space)[user] == "comment"
    api.patch(f"/collections/{top}/permissions/users/{user}", json={"role": "create"})
    assert aggregate(api, space)[user] == "create"
    api.patch(f"/spaces/{space}", json={"defaultLevel": None})  # collections still count
    assert aggregate(api, space)[user] == "create"


def test_under_precedence_the_nearest_level_with_a_say_decides(sandbox, api):
    top = new_collection(api, sandbox, "read")
    space = new_space(api, sandbox, parent=top)
    user = plain_member(api, sandbox, "comment", space)
    assert aggregate(api, space)[user] == "read"  # the collection's default decides
    api.patch(f"/collections/{top}/permissions/users/{user}", json={"role": "create"})
    assert aggregate(api, space)[user] == "create"  # an override on the collection
    api.patch(f"/spaces/{space}/permissions/users/{user}", json={"role": "comment"})
    assert aggregate(api, space)[user] == "comment"  # the space's own override wins, lower
    api.delete(f"/spaces/{space}/permissions/users/{user}")
    api.patch(f"/spaces/{space}", json={"defaultLevel": "edit"})
    assert aggregate(api, space)[user] == "edit"  # the space's own default: nothing above


def test_moving_a_space_into_a_collection_brings_the_collections_grants(sandbox, api):
    collection = new_collection(api, sandbox, None)
    space = new_space(api, sandbox)
    user = plain_member(api, sandbox, "read", space)
    api.patch(f"/collections/{collection}/permissions/users/{user}", json={"role": "edit"})
    assert aggregate(api, space)[user] == "read"  # by default (the new space inherits)
    api.post(f"/spaces/{space}/move", json={"parent": collection})
    assert aggregate(api, space)[user] == "edit"


# -- who is who ----------------------------------------------------------------------------
def test_guests_get_no_default_access_only_their_grants(sandbox, api):
    space = new_space(api, sandbox)  # inherits: every member reaches it
    guest = sandbox.demo["guest_ids"][-1]
    assert guest not in aggregate(api, space)
    api.patch(f"/spaces/{space}", json={"defaultLevel": "read"})
    assert guest not in aggregate(api, space)
    api.patch(f"/spaces/{space}/permissions/users/{guest}", json={"role": "comment"})
    assert aggregate(api, space)[guest] == "comment"


def test_a_guest_reaches_every_space_of_a_collection_granted_to_them(sandbox, api):
    demo = sandbox.demo
    collection, guest = demo["guest_collection_write"][0]
    for space_id, user in demo["guest_write_via_collection"]:
        assert user == guest
        assert aggregate(api, space_id)[guest] == "edit"
    assert len(demo["guest_write_via_collection"]) >= 5
    api.delete(f"/collections/{collection}/permissions/users/{guest}")
    assert all(guest not in aggregate(api, s) for s, _ in demo["guest_write_via_collection"])


def test_a_member_who_leaves_keeps_their_grants_and_loses_the_rest(sandbox, api):
    space = new_space(api, sandbox)
    user = plain_member(api, sandbox, "edit", space)
    other = private_space(sandbox)
    api.patch(f"/spaces/{other}/permissions/users/{user}", json={"role": "comment"})
    assert aggregate(api, space)[user] == "edit"
    assert api.delete(f"/orgs/{sandbox.org_id}/members/{user}").status_code == 205
    assert user not in aggregate(api, space)  # no organization role: no default access
    assert aggregate(api, other)[user] == "comment"  # a non-member with a grant


def test_the_demo_non_member_is_listed_through_their_grants(sandbox, api):
    for space_id, user in sandbox.demo["former_member"]:
        direct = {
            i["user"]["id"]: i["permission"]
            for i in fetch_all(api, f"/spaces/{space_id}/permissions/users")
        }
        assert aggregate(api, space_id)[user] == direct[user]


def test_disabled_members_reach_nothing(sandbox, api):
    disabled = sandbox.demo["disabled_member_ids"][0]
    held = [s for s, u in sandbox.demo["inactive_writer"] if u == disabled]
    assert held
    for space_id in sandbox.demo["space_ids"]:
        assert disabled not in aggregate(api, space_id)
    space = new_space(api, sandbox)
    user = plain_member(api, sandbox, "edit", space)
    sandbox.set_member(user, disabled=True)
    assert user not in aggregate(api, space)
    sandbox.set_member(user, disabled=False)
    assert aggregate(api, space)[user] == "edit"


# -- content and site permissions --------------------------------------------------------
def test_a_space_in_the_trash_has_no_aggregate_until_restored(sandbox, api):
    space = sandbox.demo["space_ids"][3]
    before = aggregate(api, space)
    assert api.delete(f"/spaces/{space}").status_code == 205
    assert api.get(f"/spaces/{space}/permissions/aggregate").status_code == 404
    api.post(f"/spaces/{space}/restore")
    assert aggregate(api, space) == before


def test_the_role_filter_keeps_exactly_that_role(sandbox, api):
    space = sandbox.demo["space_ids"][0]
    roles = aggregate(api, space)
    for role in ("read", "edit", "admin"):
        items = fetch_all(api, f"/spaces/{space}/permissions/aggregate", role=role)
        assert {i["user"]["id"] for i in items} == {u for u, r in roles.items() if r == role}
    assert api.get(f"/spaces/{space}/permissions/aggregate?role=guest").status_code == 400


# -- sites and creators ---------------------------------------------------------------------
def test_site_permissions_reach_only_the_linked_spaces_that_inherit(sandbox, api):
    demo = sandbox.demo
    site = demo["sites"]["public"]
    private = demo["public_exposure"][0][0]  # linked by that site, with its own level (null)
    inheriting = demo["access_cases"]["site_reaches_linked_spaces"]["space_ids"]
    user = plain_member(api, sandbox, "read", private)
    path = f"/orgs/{sandbox.org_id}/sites/{site}/permissions/users/{user}"
    assert api.patch(path, json={"role": "review"}).status_code == 204
    assert user not in aggregate(api, private)
    assert all(aggregate(api, space)[user] == "review" for space in inheriting)
    other = new_space(api, sandbox)  # inherits, but no site links it
    assert aggregate(api, other)[user] == "read"


def test_a_site_default_level_decides_for_members_of_its_inheriting_spaces(sandbox, api):
    case = sandbox.demo["access_cases"]["site_default_over_collection_default"]
    space, site, user = case["space_id"], case["site_id"], case["user_id"]
    assert aggregate(api, space)[user] == "comment"
    api.patch(f"/orgs/{sandbox.org_id}/sites/{site}", json={"defaultLevel": None})
    assert user not in aggregate(api, space)  # "No access" on the site
    api.patch(f"/orgs/{sandbox.org_id}/sites/{site}", json={"defaultLevel": "inherit"})
    assert aggregate(api, space)[user] == "read"  # the collection's default again


def test_the_creator_of_a_private_space_keeps_their_organization_role(sandbox, api):
    case = sandbox.demo["access_cases"]["private_space_creator"]
    space, creator = case["space_id"], case["user_id"]
    role = members(api, sandbox.org_id)[creator]["role"]
    assert aggregate(api, space)[creator] == role
    api.patch(f"/spaces/{space}", json={"defaultLevel": "read"})
    assert aggregate(api, space)[creator] == "read"  # no longer "No access": no exception


def test_the_site_aggregate_says_where_each_role_comes_from(sandbox, api):
    demo = sandbox.demo
    site = demo["sites"]["unlisted"]
    team = next(iter(_site_teams(api, sandbox.org_id, site)))
    items = fetch_all(api, f"/orgs/{sandbox.org_id}/sites/{site}/permissions/aggregate")
    by_user = {item["user"]["id"]: item for item in items}
    owner = by_user[demo["owner_id"]]
    assert (owner["permission"], owner["origin"]["type"]) == ("admin", "organization")
    reader = by_user[demo["access_cases"]["site_default_over_collection_default"]["user_id"]]
    assert (reader["permission"], reader["origin"]["reason"]) == ("comment", "default")
    in_team = [i for i in items if i["origin"].get("team") == team]
    assert in_team and all(i["permission"] == "read" for i in in_team)
    disabled = by_user[demo["disabled_member_ids"][0]]
    assert disabled["disabled"] is True
    public = demo["sites"]["public"]
    readers = fetch_all(
        api, f"/orgs/{sandbox.org_id}/sites/{public}/permissions/aggregate", role="read"
    )
    guest = demo["access_cases"]["site_reaches_linked_spaces"]["user_id"]
    assert guest in {i["user"]["id"] for i in readers}
    assert {i["permission"] for i in readers} == {"read"}


def _site_teams(api, org_id: str, site_id: str) -> set[str]:
    items = fetch_all(api, f"/orgs/{org_id}/sites/{site_id}/permissions/teams")
    return {item["team"]["id"] for item in items}


def test_the_callers_rights_follow_the_same_model(sandbox, api):
    weak = ApiSession(sandbox.url, sandbox.tokens["other-user"], check=False)
    space, collection = new_space(api, sandbox), new_collection(api, sandbox, None)
    api.post(f"/spaces/{space}/move", json={"parent": collection})
    api.patch(f"/spaces/{space}", json={"defaultLevel": "inherit"})
    assert weak.get(f"/spaces/{space}").status_code == 403  # inherits null from the collection
    other = sandbox.demo["other_user_id"]
    api.patch(f"/collections/{collection}/permissions/users/{other}", json={"role": "edit"})
    assert weak.get(f"/spaces/{space}").json()["permissions"]["edit"] is True
    assert weak.get(f"/collections/{collection}").status_code == 200
