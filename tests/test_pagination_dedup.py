"""Lists never hold an id twice, even when a server's pages shift while the list changes.

A scripted server serves pages whose offsets moved between two requests (an item inserted
before the cursor repeats the previous page's last item; an item removed skips one). Every
list method keeps each id once, at the place it was first seen; what was skipped stays
missing (README: Reliability).
"""

from __future__ import annotations

import pytest
from scripted_server import Reply, ScriptedServer

from docsapi import DocsClient, RetryPolicy
from docsapi.adnetwork import AdNetworkClient


def _pages(*pages, key=lambda i: {"id": i}):
    replies = []
    for number, ids in enumerate(pages):
        body = {"items": [key(i) for i in ids]}
        if number < len(pages) - 1:
            body["next"] = {"page": f"c{number + 1}"}
        replies.append(Reply(200, body))
    return replies


def _client(srv) -> DocsClient:
    return DocsClient(
        token="gb_api_pages", base_url=srv.url + "/v1", retry=RetryPolicy(max_retries=0)
    )


SHIFTED = (["a", "b", "c"], ["c", "d", "e"], ["e", "f"])

LISTS = {
    "spaces.list": (lambda c: c.spaces.list(org_id="org1"), lambda i: {"id": i}, "id"),
    "content.files": (lambda c: c.content.files("sp1"), lambda i: {"id": i}, "id"),
    "orgs.list": (lambda c: c.orgs.list(), lambda i: {"id": i}, "id"),
    "orgs.teams": (lambda c: c.orgs.teams("org1"), lambda i: {"id": i}, "id"),
    "orgs.members": (
        lambda c: c.orgs.members("org1"),
        lambda i: {"id": i, "user": {"id": i}, "role": "read"},
        "user_id",
    ),
    "orgs.team_members": (
        lambda c: c.orgs.team_members("org1", "tm1"),
        lambda i: {"organization": {"id": i, "user": {"id": i}}},
        "user_id",
    ),
    "permissions.users": (
        lambda c: c.permissions.users("sp1"),
        lambda i: {"permission": "read", "user": {"id": i}},
        "user_id",
    ),
    "permissions.teams": (
        lambda c: c.permissions.teams("sp1"),
        lambda i: {"permission": "read", "team": {"id": i}},
        "team_id",
    ),
    "change_requests.list": (lambda c: c.change_requests.list("sp1"), lambda i: {"id": i}, "id"),
    "spaces.search": (lambda c: c.spaces.search("sp1", "q"), lambda i: {"id": i}, "id"),
}


@pytest.mark.parametrize("name", sorted(LISTS))
def test_items_repeated_by_shifted_pages_are_kept_once(name):
    call, key, column = LISTS[name]
    with ScriptedServer(_pages(*SHIFTED, key=key)) as srv:
        frame = call(_client(srv))
    assert frame[column].tolist() == ["a", "b", "c", "d", "e", "f"]
    assert len(srv.seen) == 3


def test_an_item_removed_mid_listing_is_missing_not_invented():
    # "c" was removed after page 1 was read: the server's offsets moved back and "d" went
    # unseen on page 2. The list holds what the server sent, each id once.
    with ScriptedServer(_pages(["a", "b", "c"], ["e", "f"])) as srv:
        frame = _client(srv).spaces.list(org_id="org1")
    assert frame["id"].tolist() == ["a", "b", "c", "e", "f"]


def test_the_escape_hatch_keeps_each_id_once_and_every_item_without_one():
    pages = [
        Reply(200, {"items": [{"id": 1}, {"x": "no id"}], "next": {"page": "c1"}}),
        Reply(200, {"items": [{"id": 1}, {"x": "no id"}, {"id": 2}]}),
    ]
    with ScriptedServer(pages) as srv:
        items = list(_client(srv).paginate("/things"))
    assert items == [{"id": 1}, {"x": "no id"}, {"x": "no id"}, {"id": 2}]


def test_adnetwork_offset_pages_that_shift_keep_each_affiliate_once():
    def page(number, ids):
        rows = [{"id": i, "name": f"A{i}", "email": f"a{i}@x.example"} for i in ids]
        data = {"rowset": rows, "totalRows": 5, "totalPages": 3, "offset": number, "limit": 2}
        return Reply(200, {"code": 0, "message": "Success", "data": data})

    with ScriptedServer([page(1, [1, 2]), page(2, [2, 3]), page(3, [4, 5])]) as srv:
        client = AdNetworkClient(
            f"127.0.0.1:{srv.port}", api_key="an_pages", scheme="http", max_retries=0
        )
        frame = client.affiliates(page_size=2)
    assert frame["id"].tolist() == [1, 2, 3, 4, 5]
