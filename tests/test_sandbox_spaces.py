"""Space rules: delete/restore with the 7-day trash, move, update, duplicate, search."""

from __future__ import annotations

import pytest
from contract import ApiSession


@pytest.fixture
def api(sandbox):
    session = ApiSession(sandbox.url, sandbox.token)
    yield session
    session.close()


@pytest.fixture
def space_id(sandbox):
    return sandbox.demo["space_ids"][0]


def test_delete_answers_205_then_204_and_hides_the_space(api, space_id):
    assert api.delete(f"/spaces/{space_id}").status_code == 205
    assert api.get(f"/spaces/{space_id}").status_code == 404
    assert api.delete(f"/spaces/{space_id}").status_code == 204
    assert api.delete("/spaces/neverExisted").status_code == 204


def test_restore_within_seven_days_returns_the_space(sandbox, api, space_id):
    title = api.get(f"/spaces/{space_id}").json()["title"]
    api.delete(f"/spaces/{space_id}")
    sandbox.advance_clock(days=6, hours=23)
    restored = api.post(f"/spaces/{space_id}/restore")
    assert restored.status_code == 200
    assert restored.json()["title"] == title
    assert api.get(f"/spaces/{space_id}").status_code == 200


def test_after_seven_days_the_space_is_gone_for_good(sandbox, api, space_id):
    api.delete(f"/spaces/{space_id}")
    sandbox.advance_clock(days=7)
    assert api.post(f"/spaces/{space_id}/restore").status_code == 404
    assert api.get(f"/spaces/{space_id}").status_code == 404
    listed = api.get(f"/orgs/{sandbox.org_id}/spaces", params={"limit": 1000}).json()["items"]
    assert space_id not in {s["id"] for s in listed}


def test_restore_of_an_unknown_space_is_404(api):
    assert api.post("/spaces/neverExisted/restore").status_code == 404


def test_deleted_space_leaves_the_org_listing_and_comes_back(sandbox, api, space_id):
    def listed():
        return [
            s["id"]
            for s in api.get(f"/orgs/{sandbox.org_id}/spaces", params={"limit": 1000}).json()[
                "items"
            ]
        ]

    before = listed()
    api.delete(f"/spaces/{space_id}")
    assert space_id not in listed()
    api.post(f"/spaces/{space_id}/restore")
    assert listed() == before


# -- move ---------------------------------------------------------------------------------
def _children(sandbox, parent):
    # the order of siblings is observable through moves; read it from the sandbox's store
    return sandbox._store.siblings(sandbox.org_id, parent)


def test_move_needs_a_parent_or_a_position(api, space_id):
    response = api.post(f"/spaces/{space_id}/move", json={})
    assert response.status_code == 400
    assert api.post(f"/spaces/{space_id}/move", json={"colour": "red"}).status_code == 400


def test_move_into_a_collection_sets_parent(sandbox, api, space_id):
    collection = sandbox.demo["collection_ids"][0]
    current = api.get(f"/spaces/{space_id}").json().get("parent")
    target = collection if current != collection else sandbox.demo["collection_ids"][1]
    moved = api.post(f"/spaces/{space_id}/move", json={"parent": target})
    assert moved.status_code == 200
    assert moved.json()["parent"] == target
    assert api.get(f"/spaces/{space_id}").json()["parent"] == target


def test_move_to_the_root_removes_parent(sandbox, api):
    space = next(
        s for s in sandbox.demo["space_ids"] if api.get(f"/spaces/{s}").json().get("parent")
    )
    moved = api.post(f"/spaces/{space}/move", json={"parent": None})
    assert moved.status_code == 200
    assert "parent" not in moved.json()


def test_move_that_changes_nothing_is_409(sandbox, api, space_id):
    parent = api.get(f"/spaces/{space_id}").json().get("parent")
    siblings = _children(sandbox, parent)
    last = siblings[-1]
    if last[0] == "space":
        assert api.post(f"/spaces/{last[1]}/move", json={"parent": parent}).status_code == 409
    first_space = next(item for item in siblings if item[0] == "space")
    index = siblings.index(first_space)
    if index + 1 < len(siblings):
        before = {"type": siblings[index + 1][0], siblings[index + 1][0]: siblings[index + 1][1]}
        response = api.post(f"/spaces/{first_space[1]}/move", json={"position": {"before": before}})
        assert response.status_code == 409


def test_move_before_and_after_a_sibling_reorders(sandbox, api):
    root = [item for item in _children(sandbox, None) if item[0] == "space"]
    first, second = root[0][1], root[1][1]
    response = api.post(
        f"/spaces/{second}/move", json={"position": {"before": {"type": "space", "space": first}}}
    )
    assert response.status_code == 200
    spaces = [i for _, i in _children(sandbox, None) if _ == "space"]
    assert spaces.index(second) == spaces.index(first) - 1
    response = api.post(
        f"/spaces/{second}/move", json={"position": {"after": {"type": "space", "space": first}}}
    )
    assert response.status_code == 200
    spaces = [i for _, i in _children(sandbox, None) if _ == "space"]
    assert spaces.index(second) == spaces.index(first) + 1


@pytest.mark.parametrize(
    "body",
    [
        {"parent": "noSuchCollection"},
        {"parent": 42},
        {"position": {}},
        {"position": {"before": {"type": "space", "space": "noSuchSpace"}}},
        {"position": {"before": {"type": "planet", "planet": "x"}}},
        {
            "position": {
                "before": {"type": "space", "space": "a"},
                "after": {"type": "space", "space": "b"},
            }
        },
        {"position": "first"},
    ],
)
def test_move_rejects_invalid_position_space_or_collection(api, space_id, body):
    assert api.post(f"/spaces/{space_id}/move", json=body).status_code == 400


def test_move_relative_to_itself_is_400(api, space_id):
    body = {"position": {"after": {"type": "space", "space": space_id}}}
    assert api.post(f"/spaces/{space_id}/move", json=body).status_code == 400


def test_move_of_an_unknown_space_is_404(api):
    assert api.post("/spaces/noSuchSpace/move", json={"parent": None}).status_code == 404


# -- update ---------------------------------------------------------------------------------
def test_patch_updates_the_settings(api, space_id):
    body = {
        "title": "Renamed",
        "editMode": "locked",
        "defaultLevel": "read",
        "language": "fr",
        "mergeRules": {"type": "rules", "rules": [{"rule": "require_at_least_one_review"}]},
    }
    updated = api.patch(f"/spaces/{space_id}", json=body).json()
    for key, value in body.items():
        assert updated[key] == value
    assert api.get(f"/spaces/{space_id}").json()["title"] == "Renamed"


def test_patch_sets_emoji_or_icon_or_clears_both(api, space_id):
    with_icon = api.patch(f"/spaces/{space_id}", json={"icon": "https://example.com/i.png"}).json()
    assert with_icon["urls"]["icon"] == "https://example.com/i.png"
    assert with_icon["emoji"] == ""
    with_emoji = api.patch(f"/spaces/{space_id}", json={"emoji": "1f680"}).json()
    assert with_emoji["emoji"] == "1f680"
    assert "icon" not in with_emoji["urls"]
    cleared = api.patch(f"/spaces/{space_id}", json={"emoji": None, "icon": None}).json()
    assert cleared["emoji"] == ""
    assert "icon" not in cleared["urls"]


@pytest.mark.parametrize(
    "body",
    [
        {"emoji": "1f680", "icon": "https://example.com/i.png"},
        {"title": "x" * 51},
        {"title": 7},
        {"editMode": "frozen"},
        {"defaultLevel": "owner"},
        {"language": "klingon"},
        {"mergeRules": {"type": "sometimes"}},
        {"mergeRules": {"type": "rules", "rules": [{"rule": "require_specific_reviewers"}]}},
        {"icon": "not a url"},
        {"visibility": "public"},
    ],
)
def test_patch_rejects_invalid_bodies(api, space_id, body):
    assert api.patch(f"/spaces/{space_id}", json=body).status_code == 400


def test_patch_title_of_50_characters_is_accepted(api, space_id):
    assert api.patch(f"/spaces/{space_id}", json={"title": "x" * 50}).status_code == 200


# -- duplicate ------------------------------------------------------------------------------
def test_duplicate_creates_a_copy_with_location(sandbox, api, space_id):
    original = api.get(f"/spaces/{space_id}").json()
    response = api.post(f"/spaces/{space_id}/duplicate")
    assert response.status_code == 201
    copy = response.json()
    assert copy["id"] != space_id
    assert response.headers["Location"] == f"{sandbox.url}/spaces/{copy['id']}"
    assert copy["organization"] == original["organization"]
    assert copy["visibility"] not in ("public", "unlisted", "share-link")
    assert api.get(f"/spaces/{copy['id']}").status_code == 200

    def pages(space):
        return [p["title"] for p in api.get(f"/spaces/{space}/content/pages").json()["pages"]]

    def users(space):
        items = api.get(f"/spaces/{space}/permissions/users").json()["items"]
        return {i["user"]["id"]: i["permission"] for i in items}

    assert pages(copy["id"]) == pages(space_id)
    assert users(copy["id"]) == users(space_id)


# -- search and embed -----------------------------------------------------------------------
def test_search_finds_pages_by_title_and_text(api, space_id):
    pages = api.get(f"/spaces/{space_id}/content/pages").json()["pages"]
    title = pages[0]["title"]
    results = api.get(f"/spaces/{space_id}/search", params={"query": title}).json()
    assert results["items"][0]["title"] == title
    assert [r["rank"] for r in results["items"]] == list(range(1, len(results["items"]) + 1))
    assert (
        api.get(f"/spaces/{space_id}/search", params={"query": "zzzunfindable"}).json()["items"]
        == []
    )


def test_search_requires_a_query_of_at_most_512_characters(api, space_id):
    assert api.get(f"/spaces/{space_id}/search").status_code == 400
    assert api.get(f"/spaces/{space_id}/search", params={"query": "a" * 513}).status_code == 400
    assert api.get(f"/spaces/{space_id}/search", params={"query": "a" * 512}).status_code == 200


def test_search_pages_through_results(api, space_id):
    first = api.get(f"/spaces/{space_id}/search", params={"query": "the", "limit": 2}).json()
    assert len(first["items"]) == 2
    second = api.get(
        f"/spaces/{space_id}/search",
        params={"query": "the", "limit": 2, "page": first["next"]["page"]},
    ).json()
    assert second["items"][0]["rank"] == 3


def test_embed_describes_a_url(api, space_id):
    link = api.get(
        f"/spaces/{space_id}/embed", params={"url": "https://example.com/blog/launch-day"}
    ).json()
    assert link == {
        "type": "link",
        "title": "Launch day",
        "site": "example.com",
        "icon": "https://example.com/favicon.ico",
    }
    rich = api.get(f"/spaces/{space_id}/embed", params={"url": "https://youtu.be/abc"}).json()
    assert rich["type"] == "rich" and "<iframe" in rich["html"]
    assert api.get(f"/spaces/{space_id}/embed").status_code == 400


# -- listings -------------------------------------------------------------------------------
def test_user_spaces_lists_what_the_user_can_reach(sandbox, api):
    other = sandbox.demo["other_user_id"]
    listed = {s["id"] for s in api.get(f"/users/{other}/spaces").json()["items"]}
    expected = {
        s
        for s in sandbox.demo["space_ids"]
        if other
        in {
            i["user"]["id"]
            for i in api.get(f"/spaces/{s}/permissions/aggregate", params={"limit": 1000}).json()[
                "items"
            ]
        }
    }
    assert listed == expected
    assert len(listed) >= 2


def test_org_spaces_lists_every_space(sandbox, api):
    listed = api.get(f"/orgs/{sandbox.org_id}/spaces", params={"limit": 1000}).json()
    assert sorted(s["id"] for s in listed["items"]) == sorted(sandbox.demo["space_ids"])
    assert listed["count"] == len(sandbox.demo["space_ids"])


def test_create_space_in_a_collection(sandbox, api):
    collection = sandbox.demo["collection_ids"][1]
    response = api.post(
        f"/orgs/{sandbox.org_id}/spaces", json={"title": "Fresh", "parent": collection}
    )
    assert response.status_code == 201
    created = response.json()
    assert created["parent"] == collection
    assert api.get(f"/spaces/{created['id']}/content/pages").json() == {"pages": []}
