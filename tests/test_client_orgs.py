"""client.orgs over real HTTP against the sandbox, and listing a 2,000-space organization."""

from __future__ import annotations

import pytest

from docsapi import frames
from docsapi.errors import NotFoundError
from docsapi.models import Organization, Team


def test_list_organizations(client, sandbox):
    orgs = client.orgs.list()
    assert list(orgs.columns) == list(frames.SCHEMAS["organizations"])
    assert sandbox.org_id in set(orgs["id"])


def test_get_organization(client, sandbox):
    org = client.orgs.get(sandbox.org_id)
    assert isinstance(org, Organization)
    assert org.id == sandbox.org_id and org.title
    with pytest.raises(NotFoundError):
        client.orgs.get("no_such_org")


def test_members_are_current_members_with_guests_as_missing_roles(client, sandbox):
    members = client.orgs.members(sandbox.org_id)
    assert list(members.columns) == list(frames.SCHEMAS["org_members"])
    ids = set(members["user_id"])
    assert sandbox.demo["owner_id"] in ids
    assert not ids & set(sandbox.demo["former_member_ids"])
    guests = members.set_index("user_id").loc[sandbox.demo["guest_ids"], "role"]
    assert guests.isna().all()
    assert members["joined_at"].notna().all()


def test_teams_team_and_team_members(client, sandbox):
    teams = client.orgs.teams(sandbox.org_id)
    assert list(teams.columns) == list(frames.SCHEMAS["teams"])
    assert set(teams["id"]) == set(sandbox.demo["team_ids"])
    team_id = sandbox.demo["admin_team_id"]
    team = client.orgs.team(sandbox.org_id, team_id)
    assert isinstance(team, Team)
    members = client.orgs.team_members(sandbox.org_id, team_id)
    assert list(members.columns) == list(frames.SCHEMAS["team_members"])
    assert len(members) == team.members > 0
    assert set(members["role"]) <= {"owner", "member"}


def test_empty_team_has_an_empty_typed_frame(client, sandbox):
    _, empty_team = sandbox.demo["empty_team"][0]
    members = client.orgs.team_members(sandbox.org_id, empty_team)
    assert members.empty
    assert list(members.columns) == list(frames.SCHEMAS["team_members"])


def test_unknown_team_is_404(client, sandbox):
    with pytest.raises(NotFoundError):
        client.orgs.team_members(sandbox.org_id, "no_such_team")


@pytest.fixture(scope="module")
def big_org():
    from docsapi.sandbox import Sandbox

    with Sandbox(seed=3, spaces=2000) as sandbox:
        yield sandbox


@pytest.mark.timeout(60)
def test_two_thousand_spaces_come_back_complete(big_org):
    with big_org.client() as client:
        frame = client.spaces.list(org_id=big_org.org_id)
        assert len(frame) == 2000
        assert frame["id"].is_unique
        assert set(frame["id"]) == set(big_org.demo["space_ids"])
        assert list(frame.columns) == list(frames.SCHEMAS["spaces"])
        assert {str(t) for t in frame.dtypes} <= {"string", "datetime64[ns, UTC]"}
        pages = [path for _, path, _ in big_org.request_log if "/spaces" in path]
        assert len(pages) > 1  # it took several pages to get them all
