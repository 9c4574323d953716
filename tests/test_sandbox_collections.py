"""Collections: listing, nesting, defaults, moves, deletion, their permissions (204/205/400/404)."""

from __future__ import annotations

import pytest
from access_reading import fetch_all
from contract import ApiSession


@pytest.fixture
def api(sandbox):
    session = ApiSession(sandbox.url, sandbox.token)
    yield session
    session.close()


def _create(api, sandbox, **body):
    response = api.post(f"/orgs/{sandbox.org_id}/collections", json={"title": "New", **body})
    assert response.status_code == 201
    return response.json()


def test_list_is_in_tree_order_and_nested_false_keeps_the_top_level(sandbox, api):
    path = f"/orgs/{sandbox.org_id}/collections"
    listed = fetch_all(api, path)
    assert [c["id"] for c in listed] != [] and {c["id"] for c in listed} == set(
        sandbox.demo["collection_ids"]
    )
    position = {c["id"]: i for i, c in enumerate(listed)}
    for collection in listed:
        if collection.get("parent"):
            assert position[collection["parent"]] < position[collection["id"]]
    top = fetch_all(api, path, nested="false")
    assert top and all("parent" not in c for c in top)
    assert len(top) < len(listed)


def test_create_nested_collection_then_read_update_and_list_its_spaces(sandbox, api):
    parent = sandbox.demo["collections"]["product"]
    created = _create(api, sandbox, parent=parent)
    assert created["parent"] == parent and created["defaultLevel"] == "inherit"
    assert created["permissions"]["admin"] is True
    assert api.get(f"/collections/{created['id']}").json()["title"] == "New"
    changed = api.patch(f"/collections/{created['id']}", json={"defaultLevel": None}).json()
    assert changed["defaultLevel"] is None
    space = api.post(
        f"/orgs/{sandbox.org_id}/spaces", json={"title": "Inside", "parent": created["id"]}
    ).json()
    listed = fetch_all(api, f"/collections/{created['id']}/spaces")
    assert [s["id"] for s in listed] == [space["id"]]
    assert api.patch(f"/collections/{created['id']}", json={"title": "x" * 51}).status_code == 400
    assert (
        api.patch(f"/collections/{created['id']}", json={"defaultLevel": "boss"}).status_code == 400
    )
    bad = api.post(f"/orgs/{sandbox.org_id}/collections", json={"parent": "ghost"})
    assert bad.status_code == 400


def test_move_rules_400_404_409(sandbox, api):
    collections = sandbox.demo["collections"]
    product, api_ref = collections["product"], collections["api"]
    assert api.post(f"/collections/{product}/move", json={"parent": api_ref}).status_code == 400
    assert api.post(f"/collections/{product}/move", json={"parent": product}).status_code == 400
    assert api.post(f"/collections/{product}/move", json={}).status_code == 400
    assert api.post("/collections/ghost/move", json={"parent": None}).status_code == 404
    to_the_end = {"parent": product}  # the end of its parent's items: after its spaces
    assert api.post(f"/collections/{api_ref}/move", json=to_the_end).status_code == 200
    assert api.post(f"/collections/{api_ref}/move", json=to_the_end).status_code == 409
    moved = api.post(f"/collections/{api_ref}/move", json={"parent": None})
    assert moved.status_code == 200 and "parent" not in moved.json()
    before = {"before": {"type": "collection", "collection": product}}
    placed = api.post(f"/collections/{api_ref}/move", json={"position": before})
    top = fetch_all(api, f"/orgs/{sandbox.org_id}/collections", nested="false")
    order = [c["id"] for c in top]
    assert placed.status_code == 200 and order.index(api_ref) == order.index(product) - 1


def test_delete_sends_its_spaces_to_the_trash_and_answers_205_then_204(sandbox, api):
    partners = sandbox.demo["collections"]["partners"]
    inside = [s["id"] for s in fetch_all(api, f"/collections/{partners}/spaces")]
    assert inside
    assert api.delete(f"/collections/{partners}").status_code == 205
    assert api.delete(f"/collections/{partners}").status_code == 204
    assert api.get(f"/collections/{partners}").status_code == 404
    assert api.get(f"/spaces/{inside[0]}").status_code == 404
    restored = api.post(f"/spaces/{inside[0]}/restore").json()
    assert "parent" not in restored and restored["visibility"] == "private"


def test_deleting_a_parent_deletes_the_collections_inside(sandbox, api):
    product, api_ref = sandbox.demo["collections"]["product"], sandbox.demo["collections"]["api"]
    assert api.delete(f"/collections/{product}").status_code == 205
    assert api.get(f"/collections/{api_ref}").status_code == 404


def test_permissions_invite_change_remove(sandbox, api):
    collection = _create(api, sandbox)["id"]
    user, team = sandbox.demo["guest_ids"][-1], sandbox.demo["team_ids"][0]
    body = {"role": "comment", "users": [user], "teams": [team]}
    assert api.post(f"/collections/{collection}/permissions", json=body).status_code == 204
    users = {
        i["user"]["id"]: i["permission"]
        for i in fetch_all(api, f"/collections/{collection}/permissions/users")
    }
    teams = {
        i["team"]["id"]: i["permission"]
        for i in fetch_all(api, f"/collections/{collection}/permissions/teams")
    }
    assert users[user] == "comment" and teams[team] == "comment"
    path = f"/collections/{collection}/permissions"
    assert api.patch(f"{path}/users/{user}", json={"role": "edit"}).status_code == 204
    assert api.patch(f"{path}/users/{user}", json={"role": "boss"}).status_code == 400
    assert api.patch(f"{path}/teams/ghost", json={"role": "edit"}).status_code == 404
    assert api.delete(f"{path}/users/{user}").status_code == 205
    assert api.delete(f"{path}/users/{user}").status_code == 204
    assert api.delete(f"{path}/teams/{team}").status_code == 205
    assert api.delete(f"{path}/teams/ghost").status_code == 400
    refused = api.post(path, json={"role": "read", "users": [user, "ghost"]})
    assert refused.status_code == 404
    assert user not in {i["user"]["id"] for i in fetch_all(api, f"{path}/users")}


def test_a_member_without_admin_cannot_manage_a_collection(sandbox):
    weak = ApiSession(sandbox.url, sandbox.tokens["other-user"], check=False)
    engineering = sandbox.demo["collections"]["engineering"]  # read by default
    assert weak.get(f"/collections/{engineering}").status_code == 200
    assert weak.patch(f"/collections/{engineering}", json={"title": "Mine"}).status_code == 403
    internal = sandbox.demo["collections"]["internal"]  # private
    assert weak.get(f"/collections/{internal}").status_code == 403
    listed = {c["id"] for c in fetch_all(weak, f"/orgs/{sandbox.org_id}/collections")}
    assert engineering in listed and internal not in listed
    assert weak.post(f"/orgs/{sandbox.org_id}/collections", json={"title": "x"}).status_code == 403


def test_an_oauth_token_needs_the_scopes_of_each_operation(sandbox):
    read_only = ApiSession(sandbox.url, sandbox.tokens["oauth:space:read"], check=False)
    collection = sandbox.demo["collections"]["api"]
    assert read_only.get(f"/collections/{collection}").status_code == 200
    assert read_only.patch(f"/collections/{collection}", json={"title": "x"}).status_code == 403
    assert read_only.get(f"/collections/{collection}/permissions/users").status_code == 403
