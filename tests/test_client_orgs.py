"""client.orgs over real HTTP against the sandbox, and listing a 2,000-space organization."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pandas as pd
import pytest
from client_checks import assert_schema, member_client
from scripted_server import Reply, ScriptedServer

from docsapi import DocsClient, frames
from docsapi.errors import NotFoundError, PermissionDeniedError, ValidationError
from docsapi.models import InviteLink, Organization, OrganizationMember, Team


@pytest.fixture
def other(sandbox):
    return member_client(sandbox)


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


# -- members --------------------------------------------------------------------------------------


def test_member_matches_the_members_frame(client, sandbox):
    members = client.orgs.members(sandbox.org_id).set_index("user_id")
    for user_id in [sandbox.demo["owner_id"], *sandbox.demo["guest_ids"][:1]]:
        member = client.orgs.member(sandbox.org_id, user_id)
        assert isinstance(member, OrganizationMember)
        assert member.user_id == user_id
        expected = members.loc[user_id, "role"]
        assert member.role == (None if pd.isna(expected) else expected)
    disabled = client.orgs.member(sandbox.org_id, sandbox.demo["disabled_member_ids"][0])
    assert disabled.disabled is True
    with pytest.raises(NotFoundError):
        client.orgs.member(sandbox.org_id, sandbox.demo["former_member_ids"][0])


def test_update_member_role_reads_back_and_is_logged(client, sandbox):
    user_id = sandbox.demo["other_user_id"]
    updated = client.orgs.update_member(sandbox.org_id, user_id, role="edit")
    assert updated.role == "edit"
    assert client.orgs.member(sandbox.org_id, user_id).role == "edit"
    assert client.orgs.update_member(sandbox.org_id, user_id, role=None).role is None
    members = client.orgs.members(sandbox.org_id).set_index("user_id")
    assert pd.isna(members.loc[user_id, "role"])
    events = client.orgs.audit_events(sandbox.org_id, action="organization.member.updated")
    assert (events["target_id"] == user_id).sum() == 2
    with pytest.raises(NotFoundError):
        client.orgs.update_member(sandbox.org_id, "no_such_user", role="read")


def test_remove_member_answers_true_then_false(client, sandbox):
    user_id = sandbox.demo["inactive_member_ids"][0]
    assert client.orgs.remove_member(sandbox.org_id, user_id) is True
    with pytest.raises(NotFoundError):
        client.orgs.member(sandbox.org_id, user_id)
    assert user_id not in set(client.orgs.members(sandbox.org_id)["user_id"])
    assert client.orgs.remove_member(sandbox.org_id, user_id) is False


def test_member_spaces_agree_with_the_aggregate(client, sandbox):
    user_id = sandbox.demo["multi_team_user"]["user_id"]
    reached = client.orgs.member_spaces(sandbox.org_id, user_id)
    assert_schema(reached, "member_spaces")
    assert (reached["user_id"] == user_id).all() and reached["space_id"].is_unique
    space_id = sandbox.demo["multi_team_user"]["space_id"]
    assert reached.set_index("space_id").loc[space_id, "role"] == "edit"
    for space, role in reached[["space_id", "role"]].head(5).itertuples(index=False):
        aggregate = client.permissions.aggregate(space).set_index("user_id")
        assert aggregate.loc[user_id, "role"] == role
    with pytest.raises(NotFoundError):
        client.orgs.member_spaces(sandbox.org_id, sandbox.demo["former_member_ids"][0])


def test_ordinary_members_cannot_manage_members(other, sandbox):
    with pytest.raises(PermissionDeniedError):
        other.orgs.update_member(sandbox.org_id, sandbox.demo["owner_id"], role="read")
    with pytest.raises(PermissionDeniedError):
        other.orgs.remove_member(sandbox.org_id, sandbox.demo["owner_id"])


# -- invite links ---------------------------------------------------------------------------------


def test_invite_links_list_the_organization_links(client, sandbox):
    links = client.orgs.invite_links(sandbox.org_id)
    assert_schema(links, "invite_links")
    ids = sandbox.demo["invite_ids"]
    assert set(links["id"]) == {ids["admin"], ids["read"]}
    assert links.set_index("id").loc[ids["admin"], "role"] == "admin"
    assert (links["kind"] == "organization").all()


def test_invite_link_reads_links_to_content_by_id(client, sandbox):
    ids = sandbox.demo["invite_ids"]
    space_link = client.orgs.invite_link(sandbox.org_id, ids["space"])
    assert isinstance(space_link, InviteLink) and space_link.kind == "space"
    assert space_link.target_id in set(sandbox.demo["space_ids"])
    collection_link = client.orgs.invite_link(sandbox.org_id, ids["collection"])
    assert collection_link.kind == "collection"
    assert collection_link.target_id in set(sandbox.demo["collection_ids"])
    with pytest.raises(NotFoundError):
        client.orgs.invite_link(sandbox.org_id, "no_such_invite")


def test_create_update_delete_invite_links(client, sandbox):
    org_id = sandbox.org_id
    space_id = sandbox.demo["space_ids"][0]
    collection_id = sandbox.demo["collections"]["partners"]
    made = [
        client.orgs.create_invite_link(org_id, role="comment"),
        client.orgs.create_invite_link(org_id, role="read", space_id=space_id),
        client.orgs.create_invite_link(org_id, role=None, collection_id=collection_id),
    ]
    kinds = [(link.kind, link.target_id) for link in made]
    assert kinds == [("organization", None), ("space", space_id), ("collection", collection_id)]
    assert made[0].id in set(client.orgs.invite_links(org_id)["id"])
    for link, role in zip(made, ["admin", "edit", "create"], strict=True):
        assert client.orgs.update_invite_link(org_id, link.id, role=role).role == role
        assert client.orgs.invite_link(org_id, link.id).role == role
        assert client.orgs.delete_invite_link(org_id, link.id) is True
        with pytest.raises(NotFoundError):
            client.orgs.invite_link(org_id, link.id)
        assert client.orgs.delete_invite_link(org_id, link.id) is False


def test_an_invite_link_to_unknown_content_is_404(client, sandbox):
    with pytest.raises(NotFoundError):
        client.orgs.create_invite_link(sandbox.org_id, role="read", space_id="no_such_space")
    with pytest.raises(NotFoundError):
        client.orgs.update_invite_link(sandbox.org_id, "no_such_invite", role="read")


def test_an_invite_link_goes_to_one_place(client, sandbox):
    before = sandbox.request_count
    with pytest.raises(ValidationError, match="space_id, collection_id"):
        client.orgs.create_invite_link(
            sandbox.org_id, role="read", space_id="s1", collection_id="c1"
        )
    assert sandbox.request_count == before


def test_ordinary_members_cannot_see_invite_links(other, sandbox):
    with pytest.raises(PermissionDeniedError):
        other.orgs.invite_links(sandbox.org_id)


# -- teams ----------------------------------------------------------------------------------------


def test_create_rename_fill_and_delete_a_team(client, sandbox):
    org_id = sandbox.org_id
    first, second = sandbox.demo["other_user_id"], sandbox.demo["guest_ids"][0]
    team = client.orgs.create_team(org_id, title="Reviewers", members=[first])
    assert isinstance(team, Team) and team.title == "Reviewers"
    assert client.orgs.team_members(org_id, team.id)["user_id"].tolist() == [first]

    assert client.orgs.update_team(org_id, team.id, title="Editors").title == "Editors"
    assert client.orgs.team(org_id, team.id).title == "Editors"

    assert client.orgs.add_team_member(org_id, team.id, second, role="owner") is None
    client.orgs.add_team_member(org_id, team.id, first)  # keeps their role
    roles = client.orgs.team_members(org_id, team.id).set_index("user_id")["role"]
    assert roles.to_dict() == {first: "member", second: "owner"}

    assert client.orgs.remove_team_member(org_id, team.id, first) is True
    assert client.orgs.remove_team_member(org_id, team.id, first) is False
    assert client.orgs.team_members(org_id, team.id)["user_id"].tolist() == [second]

    assert client.orgs.delete_team(org_id, team.id) is True
    with pytest.raises(NotFoundError):
        client.orgs.team(org_id, team.id)
    assert client.orgs.delete_team(org_id, team.id) is False


def test_deleting_a_team_takes_its_grants_away(client, sandbox):
    space_id = sandbox.demo["multi_team_user"]["space_id"]
    for team in sandbox.demo["multi_team_user"]["team_roles"]:
        assert team in set(client.permissions.teams(space_id)["team_id"])
        assert client.orgs.delete_team(sandbox.org_id, team) is True
        assert team not in set(client.permissions.teams(space_id)["team_id"])


def test_unknown_teams_are_404(client, sandbox):
    with pytest.raises(NotFoundError):
        client.orgs.update_team(sandbox.org_id, "no_such_team", title="T")
    with pytest.raises(NotFoundError):
        client.orgs.remove_team_member(sandbox.org_id, "no_such_team", sandbox.demo["owner_id"])
    with pytest.raises(NotFoundError):
        client.orgs.add_team_member(sandbox.org_id, "no_such_team", sandbox.demo["owner_id"])


@pytest.mark.parametrize(("status", "removed"), [(202, True), (205, True), (204, False)])
def test_remove_member_reads_each_status_the_api_describes(status, removed):
    # The sandbox removes at once (205/204); the API may also accept a removal for later (202).
    with ScriptedServer([Reply(status, b"")]) as srv:
        client = DocsClient(token="gb_api_scripted", base_url=srv.url + "/v1")
        assert client.orgs.remove_member("org1", "u1") is removed
    assert (srv.seen[0].method, srv.seen[0].path) == ("DELETE", "/v1/orgs/org1/members/u1")


def test_team_members_must_be_organization_members(client, sandbox):
    former = sandbox.demo["former_member_ids"][0]
    with pytest.raises(NotFoundError):
        client.orgs.create_team(sandbox.org_id, title="Ghosts", members=[former])
    with pytest.raises(NotFoundError):
        client.orgs.add_team_member(sandbox.org_id, sandbox.demo["admin_team_id"], former)


def test_ordinary_members_cannot_manage_teams(other, sandbox):
    with pytest.raises(PermissionDeniedError):
        other.orgs.create_team(sandbox.org_id, title="Mine")
    with pytest.raises(PermissionDeniedError):
        other.orgs.delete_team(sandbox.org_id, sandbox.demo["admin_team_id"])


# -- the audit log --------------------------------------------------------------------------------


def test_audit_events_frame_newest_first_with_every_change(client, sandbox):
    seeded = client.orgs.audit_events(sandbox.org_id)
    assert_schema(seeded, "audit_events")
    assert len(seeded) > 0 and seeded["id"].is_unique
    user_id = sandbox.demo["other_user_id"]
    for role in ["edit", "read"] * 3:
        client.orgs.update_member(sandbox.org_id, user_id, role=role)
    events = client.orgs.audit_events(sandbox.org_id)
    assert len(events) == len(seeded) + 6
    assert events["occurred_at"].is_monotonic_decreasing
    newest = events.iloc[0]
    assert (newest["action"], newest["target_id"]) == ("organization.member.updated", user_id)
    assert newest["actor_id"] == sandbox.demo["owner_id"]


def test_audit_events_filters(client, sandbox):
    events = client.orgs.audit_events(sandbox.org_id)
    middle = events["occurred_at"].iloc[len(events) // 2].to_pydatetime()
    since = client.orgs.audit_events(sandbox.org_id, since=middle)
    assert (since["occurred_at"] >= middle).all()
    assert set(since["id"]) == set(events.loc[events["occurred_at"] >= middle, "id"])
    as_text = client.orgs.audit_events(sandbox.org_id, until=middle.isoformat())
    assert set(as_text["id"]) == set(events.loc[events["occurred_at"] <= middle, "id"])
    action = events["action"].iloc[0]
    only = client.orgs.audit_events(sandbox.org_id, action=action)
    assert set(only["action"]) == {action}
    target = events["target_id"].iloc[0]
    assert set(client.orgs.audit_events(sandbox.org_id, target_id=target)["target_id"]) == {target}
    actor = events["actor_id"].iloc[0]
    assert set(client.orgs.audit_events(sandbox.org_id, actor_id=actor)["actor_id"]) == {actor}


def test_audit_events_after_now_is_an_empty_typed_frame(client, sandbox):
    tomorrow = datetime.now(UTC) + timedelta(days=3650)
    events = client.orgs.audit_events(sandbox.org_id, since=tomorrow)
    assert events.empty
    assert_schema(events, "audit_events")


def test_audit_events_refuse_moments_without_a_time_zone(client, sandbox):
    before = sandbox.request_count
    with pytest.raises(ValidationError, match="since: has no time zone"):
        client.orgs.audit_events(sandbox.org_id, since=datetime(2025, 1, 1))
    with pytest.raises(ValidationError, match="until: has no time zone"):
        client.orgs.audit_events(sandbox.org_id, until="2025-01-01T00:00:00")
    with pytest.raises(ValidationError, match="since must not be after until"):
        client.orgs.audit_events(
            sandbox.org_id, since="2025-02-01T00:00:00Z", until="2025-01-01T00:00:00+00:00"
        )
    assert sandbox.request_count == before


def test_ordinary_members_cannot_read_the_audit_log(other, sandbox):
    with pytest.raises(PermissionDeniedError):
        other.orgs.audit_events(sandbox.org_id)


@pytest.fixture(scope="module")
def big_org():
    from docsapi.sandbox import Sandbox

    with Sandbox(seed=3, spaces=2000) as sandbox:
        yield sandbox


@pytest.mark.timeout(60)
@pytest.mark.full
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
