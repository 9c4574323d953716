"""The sandbox's new controls and routes under hostile values and concurrent writes: a 400 with
the API's error body and nothing stored, or a consistent state (no cycle, nothing lost)."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

import docsapi

TIMEOUT = 20


def _control(sandbox, name: str, body: object) -> requests.Response:
    root = sandbox.url.rsplit("/v1", 1)[0]
    return requests.post(f"{root}/_sandbox/{name}", data=json.dumps(body), timeout=TIMEOUT)


def _refused(answer: requests.Response) -> str:
    assert answer.status_code == 400, answer.text[:200]
    return answer.json()["error"]["message"]


@pytest.mark.parametrize("name", [1, None, True, [], {"a": 1}, "x" * 51, "a\nb", "\x00"], ids=repr)
def test_the_share_links_control_refuses_names_the_api_would_not_store(sandbox, name):
    site = sandbox.demo["site_ids"][0]
    before = dict(sandbox._store.state.share_links[site])
    assert "name" in _refused(_control(sandbox, "share-links", {"site": site, "name": name}))
    assert sandbox._store.state.share_links[site] == before


@pytest.mark.parametrize("active", ["false", 0, 1, None, []], ids=repr)
def test_the_share_link_control_takes_only_true_or_false(sandbox, active):
    state = sandbox._store.state
    site, link = next((s, next(iter(links))) for s, links in state.share_links.items() if links)
    was = state.share_links[site][link]["active"]
    body = {"site": site, "link": link, "active": active}
    assert "active" in _refused(_control(sandbox, "share-link", body))
    assert state.share_links[site][link]["active"] is was


@pytest.mark.parametrize("disabled", ["false", "true", 0, 1, []], ids=repr)
def test_the_member_control_takes_only_true_false_or_null_for_disabled(sandbox, disabled):
    user = sandbox.demo["other_user_id"]
    member = sandbox._store.member(sandbox.org_id, user)
    was = member["disabled"]
    assert "disabled" in _refused(_control(sandbox, "member", {"user": user, "disabled": disabled}))
    assert sandbox._store.member(sandbox.org_id, user)["disabled"] is was


def test_crossing_concurrent_moves_never_make_a_cycle(sandbox):
    headers = {"Authorization": f"Bearer {sandbox.token}", "Content-Type": "application/json"}
    create = f"{sandbox.url}/orgs/{sandbox.org_id}/collections"
    a, b = (
        requests.post(
            create, headers=headers, data=json.dumps({"title": t}), timeout=TIMEOUT
        ).json()["id"]
        for t in ("A", "B")
    )

    def move(pair):
        child, parent = pair
        url = f"{sandbox.url}/collections/{child}/move"
        return requests.post(
            url, headers=headers, data=json.dumps({"parent": parent}), timeout=TIMEOUT
        )

    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(move, [(a, b), (b, a)] * 8))
    assert {r.status_code for r in answers} <= {200, 400, 409}
    state = sandbox._store.state
    assert not (state.collections[a]["parent"] == b and state.collections[b]["parent"] == a)
    for collection in (a, b):
        parent = state.collections[collection]["parent"]
        assert state.children[(sandbox.org_id, parent)].count(("collection", collection)) == 1
    listed = requests.get(create, headers=headers, timeout=TIMEOUT)
    assert listed.status_code == 200
    assert {a, b} <= {c["id"] for c in listed.json()["items"]}


def test_deleting_twice_concurrently_deletes_once_and_loses_no_space(sandbox):
    headers = {"Authorization": f"Bearer {sandbox.token}"}
    collection = sandbox.demo["collection_ids"][0]
    inside = [
        s["id"]
        for s in requests.get(
            f"{sandbox.url}/collections/{collection}/spaces", headers=headers, timeout=TIMEOUT
        ).json()["items"]
    ]
    assert inside
    url = f"{sandbox.url}/collections/{collection}"
    with ThreadPoolExecutor(4) as pool:
        codes = sorted(
            r.status_code
            for r in pool.map(
                lambda _: requests.delete(url, headers=headers, timeout=TIMEOUT), range(4)
            )
        )
    assert codes == [204, 204, 204, 205]
    trash = sandbox._store.state.trash
    assert all(space in trash for space in inside)


@pytest.mark.parametrize(
    "body", [b'{"title": "a\\ud800b"}', b'{"\\udc00": "x"}', b'{"title": ["\\udbff"]}'], ids=repr
)
def test_a_body_with_a_lone_surrogate_escape_is_400(sandbox, body):
    collection = sandbox.demo["collection_ids"][0]
    headers = {"Authorization": f"Bearer {sandbox.token}", "Content-Type": "application/json"}
    url = f"{sandbox.url}/collections/{collection}"
    title = sandbox._store.state.collections[collection]["title"]
    assert "Unicode" in _refused(requests.patch(url, headers=headers, data=body, timeout=TIMEOUT))
    assert sandbox._store.state.collections[collection]["title"] == title
    paired = b'{"title": "\\ud83d\\ude00 Docs"}'  # an escaped pair is one character
    answer = requests.patch(url, headers=headers, data=paired, timeout=TIMEOUT)
    assert answer.status_code == 200 and answer.json()["title"] == "\U0001f600 Docs"


def test_the_last_enabled_admin_can_be_neither_demoted_nor_removed(client, sandbox):
    org = sandbox.org_id
    me = client.users.me().id
    members = client.orgs.members(org)
    for other in members[members.role == "admin"].user_id:
        if other != me:
            client.orgs.update_member(org, other, role="read")
    before = sandbox._store.member(org, me)["role"]
    for call in (
        lambda: client.orgs.update_member(org, me, role="read"),
        lambda: client.orgs.update_member(org, me, role=None),
        lambda: client.orgs.remove_member(org, me),
    ):
        with pytest.raises(docsapi.BadRequestError, match="at least one admin"):
            call()
    assert before == "admin" and sandbox._store.member(org, me)["role"] == "admin"
    assert client.orgs.update_member(org, me, role="admin").role == "admin"  # no change: fine
