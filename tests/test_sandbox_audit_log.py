"""The sandbox's audit log: paged and filtered as the description says, a history that agrees
with the demo's access, an event for every change, and a way to change without one.

Every response here is validated against the reference description (``ApiSession``).
"""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
import requests
from access_reading import fetch_all
from contract import ApiSession


@pytest.fixture
def api(sandbox):
    return ApiSession(sandbox.url, sandbox.token)


def _path(sandbox) -> str:
    return f"/orgs/{sandbox.org_id}/audit-events"


def _all(api, sandbox, **params) -> list[dict]:
    return fetch_all(api, _path(sandbox), **params)


# -- paging --------------------------------------------------------------------------------------
def test_pages_hold_20_by_default_at_most_100_newest_first_each_event_once(sandbox, api):
    first = api.get(_path(sandbox)).json()
    assert len(first["items"]) == 20 and first["count"] > 200
    events, query = [], {"limit": 100}
    while True:
        body = api.get(_path(sandbox), params=query).json()
        assert len(body["items"]) <= 100
        events += body["items"]
        if "next" not in body:
            break
        query["page"] = body["next"]["page"]
    assert len(events) == first["count"] == len({e["id"] for e in events})
    times = [e["occurredAt"] for e in events]
    assert times == sorted(times, reverse=True)
    assert [e["id"] for e in events[:20]] == [e["id"] for e in first["items"]]
    for limit in (0, 101, "many"):
        assert api.get(_path(sandbox), params={"limit": limit}).status_code == 400


# -- filters -------------------------------------------------------------------------------------
def test_from_and_to_are_inclusive_date_times(sandbox, api):
    events = _all(api, sandbox)
    middle = events[len(events) // 2]["occurredAt"]
    since = _all(api, sandbox, **{"from": middle})
    until = _all(api, sandbox, to=middle)
    assert [e["id"] for e in since] == [e["id"] for e in events if e["occurredAt"] >= middle]
    assert [e["id"] for e in until] == [e["id"] for e in events if e["occurredAt"] <= middle]
    both = _all(api, sandbox, **{"from": middle, "to": middle})
    assert both and all(e["occurredAt"] == middle for e in both)
    # A bound with an offset means the same instant in UTC.
    moment = datetime.fromisoformat(middle.replace("Z", "+00:00"))
    shifted = moment.astimezone(datetime.fromisoformat("2026-01-01T00:00:00+02:00").tzinfo)
    assert _all(api, sandbox, **{"from": shifted.isoformat()}) == since
    after = (moment + timedelta(microseconds=1)).isoformat()
    assert all(e["occurredAt"] > middle for e in _all(api, sandbox, **{"from": after}))
    assert api.get(_path(sandbox), params={"from": "last week"}).status_code == 400


def test_action_actor_and_target_keep_exact_matches(sandbox, api):
    events = _all(api, sandbox)
    action = "space.permission.updated"
    only = _all(api, sandbox, action=action)
    assert only and [e["id"] for e in only] == [e["id"] for e in events if e["action"] == action]
    assert _all(api, sandbox, action="space.permission") == []  # exact, not a prefix
    actor = events[-1]["actor"]["id"]
    mine = _all(api, sandbox, actor=actor)
    assert [e["id"] for e in mine] == [e["id"] for e in events if e["actor"]["id"] == actor]
    target = next(e["target"]["id"] for e in events if e["target"]["type"] == "space-permission")
    about = _all(api, sandbox, target=target)
    assert about and all(e["target"]["id"] == target for e in about)
    combined = _all(api, sandbox, action=action, actor=actor)
    assert all(e["action"] == action and e["actor"]["id"] == actor for e in combined)


def test_only_organization_admins_read_the_log(sandbox):
    weak = ApiSession(sandbox.url, sandbox.tokens["other-user"])
    assert weak.get(_path(sandbox)).status_code == 403


# -- the demo's history --------------------------------------------------------------------------
def test_the_seeded_history_agrees_with_the_demos_access(sandbox, api):
    events = _all(api, sandbox)
    times = [datetime.fromisoformat(e["occurredAt"].replace("Z", "+00:00")) for e in events]
    assert (times[0] - times[-1]).days > 300  # months of history
    last: dict[str, dict] = {}
    for event in events:
        if event["target"]["type"].endswith("-permission"):
            last.setdefault(event["target"]["id"], event)
    space = sandbox.demo["space_ids"][1]
    users = fetch_all(api, f"/spaces/{space}/permissions/users")
    for item in users:
        event = last.get(f"{space}/user/{item['user']['id']}")
        if event is not None:  # a grant older than the log has none
            assert event["action"] != "space.permission.removed"
            assert event["target"]["label"].endswith(f"-> {item['permission']}")
    guest, collection = sandbox.demo["guest_collection_write"][0][::-1]
    invited = last[f"{collection}/user/{guest}"]
    assert invited["action"] == "collection.permission.added" and invited["actor"]["type"] == "user"
    for link in fetch_all(
        api, f"/orgs/{sandbox.org_id}/sites/{sandbox.demo['sites']['share-link']}/share-links"
    ):
        made = _all(api, sandbox, target=link["id"], action="site.share-link.created")
        assert [e["occurredAt"] for e in made] == [link["createdAt"]]


# -- every change is logged, unless asked not to -------------------------------------------------
def test_every_access_change_through_the_api_records_one_event(sandbox, api):
    org, demo = sandbox.org_id, sandbox.demo
    space, collection = demo["space_ids"][2], demo["collections"]["engineering"]
    user, team = demo["other_user_id"], demo["team_ids"][0]
    site = demo["sites"]["share-link"]
    changes = [
        ("PATCH", f"/spaces/{space}/permissions/users/{user}", {"role": "edit"}),
        ("PATCH", f"/spaces/{space}/permissions/teams/{team}", {"role": "read"}),
        ("PATCH", f"/collections/{collection}/permissions/users/{user}", {"role": "read"}),
        ("PATCH", f"/spaces/{space}", {"defaultLevel": "read"}),
        ("PATCH", f"/collections/{collection}", {"defaultLevel": "comment"}),
        ("PATCH", f"/orgs/{org}/sites/{site}", {"defaultLevel": "read"}),
        ("PATCH", f"/orgs/{org}/members/{user}", {"role": "edit"}),
        ("POST", f"/orgs/{org}/sites/{site}/share-links", {"name": "Logged"}),
        ("POST", f"/orgs/{org}/sites/{demo['sites']['unpublished']}/publish", None),
        ("PUT", f"/orgs/{org}/teams/{team}/members/{user}", {"role": "member"}),
        ("DELETE", f"/spaces/{space}/permissions/users/{user}", None),
    ]
    for method, path, body in changes:
        before = api.get(_path(sandbox)).json()["count"]
        answer = api.request(method, path, json=body)
        assert answer.status_code < 300, (method, path, answer.text)  # each changes something
        newest = api.get(_path(sandbox), params={"limit": 1}).json()
        assert newest["count"] == before + 1, (method, path)
        event = newest["items"][0]
        assert event["actor"]["id"] == demo["owner_id"] and event["source"] == "api"


def test_changes_without_an_event_through_the_controls(sandbox, api):
    before = api.get(_path(sandbox)).json()["count"]
    space, guest = sandbox.demo["no_admin"][0], sandbox.demo["guest_ids"][-1]
    with sandbox.unlogged():
        sandbox.grant(space, guest, "read")
        sandbox.set_default_level(space, "read")
    control = f"{sandbox.root_url}/_sandbox"
    answer = requests.post(
        f"{control}/grant",
        json={"target": space, "principal": guest, "role": "edit", "log": False},
        timeout=10,
    )
    assert answer.status_code == 200
    assert api.get(_path(sandbox)).json()["count"] == before
    users = fetch_all(api, f"/spaces/{space}/permissions/users")
    roles = {i["user"]["id"]: i["permission"] for i in users}
    assert roles[guest] == "edit"
    sandbox.grant(space, guest, "read")  # outside the block: logged again
    assert api.get(_path(sandbox)).json()["count"] == before + 1
    refused = requests.post(f"{control}/grant", json={"target": space, "log": "no"}, timeout=10)
    assert refused.status_code == 400 and "log" in refused.json()["error"]["message"]
