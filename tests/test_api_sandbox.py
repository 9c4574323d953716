"""client.api against the sandbox: every operation it serves answers, with the typed groups' data.

The read operations of the vendored subset (the operations the sandbox serves) are called
through ``client.api`` over real HTTP; lists must come back as DataFrames and objects as
ApiObjects. Then the generated and the hand-written surfaces are compared on the same data.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

import docsapi
from docsapi.api import ApiObject, catalog
from docsapi.api._results import list_shape
from docsapi.api._spec import snake_case

SUBSET = json.loads((Path(__file__).parent / "openapi" / "gitbook-openapi-subset.json").read_text())
OPERATIONS = {op.operation_id: op for ops in catalog().values() for op in ops}
SERVED_READS = sorted(
    operation["operationId"]
    for item in SUBSET["paths"].values()
    for method, operation in item.items()
    if method == "get"
)
#: Path parameters an operation needs from a particular demo resource.
SPECIFIC = {"getSitePublishingAuthById": {"siteId": "visitor-auth"}}
#: Required query parameters the sandbox's data can answer.
QUERY = {
    "searchSpaceContent": {"query": "guide"},
    "getEmbedByUrlInSpace": {"url": "https://example.com/video"},
}


def _method(client, operation_id):
    return client.api.operation(operation_id)


@pytest.fixture
def ids(client, sandbox) -> dict[str, str]:
    """A value for every path parameter name of the subset, from the seeded demo."""
    demo = sandbox.demo
    space_id = demo["git_space_ids"][0]  # a space with pages, files and Git sync
    pages = client.content.pages(space_id)
    files = client.content.files(space_id)
    page = pages[pages["kind"] == "document"].iloc[0]
    values = {
        "organizationId": sandbox.org_id,
        "userId": demo["owner_id"],
        "teamId": demo["team_ids"][0],
        "spaceId": space_id,
        "pageId": page["id"],
        "pagePath": page["path"],
        "collectionId": demo["collection_ids"][0],
        "siteId": demo["site_ids"][0],
        "inviteId": demo["invite_ids"]["admin"],
    }
    if len(files):
        values["fileId"] = files["id"].iloc[0]
    return values


@pytest.mark.parametrize("operation_id", SERVED_READS)
def test_every_read_the_sandbox_serves_answers_through_client_api(
    client, sandbox, ids, operation_id
):
    operation = OPERATIONS[operation_id]
    missing = [p.name for p in operation.path_parameters if p.name not in ids]
    if missing:
        pytest.skip(f"the demo has no {missing[0]} to read")
    arguments = {p.python_name: ids[p.name] for p in operation.path_parameters}
    for name, site in SPECIFIC.get(operation_id, {}).items():
        arguments[snake_case(name)] = sandbox.demo["sites"][site]
    result = _method(client, operation_id)(**arguments, **QUERY.get(operation_id, {}))
    if list_shape(operation.success_schema) is not None:
        assert isinstance(result, pd.DataFrame)
    else:
        assert isinstance(result, ApiObject)
        assert result.raw


def test_space_is_the_same_as_the_typed_group(client, sandbox):
    space_id = sandbox.demo["space_ids"][1]
    generated = client.api.spaces.get_space_by_id(space_id=space_id)
    typed = client.spaces.get(space_id)
    assert generated.raw == typed.raw
    assert generated.title == typed.title and generated.edit_mode == typed.edit_mode
    assert generated.created_at == typed.created_at


def test_org_members_are_the_same_as_the_typed_group(client, sandbox):
    generated = client.api.organization_members.list_members_in_organization_by_id(sandbox.org_id)
    typed = client.orgs.members(sandbox.org_id)
    left = generated.set_index("user_id")[["role", "user_display_name", "joined_at"]]
    right = typed.set_index("user_id")[["role", "display_name", "joined_at"]]
    assert sorted(left.index) == sorted(right.index)
    right = right.loc[left.index]
    assert left["role"].tolist() == right["role"].tolist()  # guests missing in both
    assert left["user_display_name"].tolist() == right["display_name"].tolist()
    assert (left["joined_at"] == right["joined_at"]).all()


def test_spaces_permissions_and_teams_are_the_same_as_the_typed_groups(client, sandbox):
    before = client.transport.request_count
    spaces = client.api.spaces.list_spaces_in_organization_by_id(sandbox.org_id, limit=7)
    pages = client.transport.request_count - before
    typed = client.spaces.list(org_id=sandbox.org_id)
    assert sorted(spaces["id"]) == sorted(typed["id"])
    assert pages == -(-len(typed) // 7) > 1  # every page of 7 was followed
    space_id = sandbox.demo["multi_team_user"]["space_id"]
    users = client.api.space_permissions.list_user_permissions_in_space(space_id)
    typed_users = client.permissions.users(space_id)
    assert sorted(zip(users["user_id"], users["permission"], strict=True)) == sorted(
        zip(typed_users["user_id"], typed_users["role"], strict=True)
    )
    teams = client.api.teams.list_teams_in_organization_by_id(sandbox.org_id)
    assert sorted(teams["id"]) == sorted(client.orgs.teams(sandbox.org_id)["id"])
    me = client.api.users.get_authenticated_user()
    assert me.raw == client.users.me().raw


def test_writes_through_client_api_are_seen_by_the_typed_group(client, sandbox):
    space_id = sandbox.demo["space_ids"][2]
    updated = client.api.spaces.update_space_by_id(space_id, title="Renamed", edit_mode="locked")
    assert updated.title == "Renamed"
    assert client.spaces.get(space_id).edit_mode == "locked"
    assert client.api.spaces.delete_space_by_id(space_id) is None
    with pytest.raises(docsapi.NotFoundError):
        client.spaces.get(space_id)
    with pytest.raises(docsapi.NotFoundError):
        client.api.spaces.get_space_by_id(space_id)


def test_site_insights_through_client_api(client, sandbox):
    org, site = sandbox.org_id, sandbox.demo["sites"]["public"]
    insights = client.api.site_insights
    event = {
        "type": "page_view",
        "session": {
            "visitorId": "v1",
            "sessionId": "s1",
            "cookies": {},
            "userAgent": "Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0",
            "language": "en",
            "referrer": None,
        },
        "location": {
            "url": "https://docs.example.com/a",
            **dict.fromkeys(("siteSection", "siteSpace", "siteShareKey", "page", "space")),
            "revision": None,
        },
    }
    assert insights.track_events_in_site_by_id(org, site, events=[event, event]) is None
    result = insights.aggregate_site_events(
        org, site, range="last24Hours", group_by=[{"column": "visitorBrowser"}]
    )
    assert result.raw == {
        "columns": [
            {"column": "visitorBrowser", "values": ["firefox"]},
            {"column": "eventsCount", "values": [2]},
        ]
    }
    assert [c.column for c in result.columns] == ["visitorBrowser", "eventsCount"]
    segments = insights.list_site_visitor_segments(org, sandbox.demo["sites"]["visitor-auth"])
    assert list(segments.columns) == ["title", "claims", "events", "visitors", "sessions"]
    assert str(segments["visitors"].dtype) == "Float64"  # the description says number


def test_both_surfaces_share_one_transport(client, sandbox):
    before = client.transport.request_count
    client.api.spaces.get_space_by_id(sandbox.demo["space_ids"][0])
    client.spaces.get(sandbox.demo["space_ids"][0])
    assert client.transport.request_count == before + 2
