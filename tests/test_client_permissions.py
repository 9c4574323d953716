"""client.permissions over real HTTP against the sandbox."""

from __future__ import annotations

import pytest
from client_checks import assert_schema

from docsapi import DocsClient, frames
from docsapi.errors import BadRequestError, NotFoundError, PermissionDeniedError


@pytest.fixture
def space_id(sandbox):
    return sandbox.demo["space_ids"][0]


def outsider(client, sandbox, space_id) -> str:
    """An organization member with no direct grant on the space."""
    granted = set(client.permissions.users(space_id)["user_id"])
    members = client.orgs.members(sandbox.org_id)
    return next(u for u in members["user_id"] if u not in granted)


def test_users_frame(client, space_id):
    frame = client.permissions.users(space_id)
    assert list(frame.columns) == list(frames.SCHEMAS["permission_users"])
    assert len(frame) > 0
    assert (frame["space_id"] == space_id).all()
    assert set(frame["role"].dropna()) <= {"admin", "create", "edit", "review", "comment", "read"}
    assert frame["user_id"].is_unique


def test_teams_frame(client, space_id, sandbox):
    frame = client.permissions.teams(space_id)
    assert list(frame.columns) == list(frames.SCHEMAS["permission_teams"])
    assert set(frame["team_id"]) <= set(sandbox.demo["team_ids"])
    assert (frame["members"] >= 0).all()


def test_unknown_space_is_404(client):
    with pytest.raises(NotFoundError):
        client.permissions.users("no_such_space")
    with pytest.raises(NotFoundError):
        client.permissions.teams("no_such_space")


def test_invite_users_and_teams(client, sandbox, space_id):
    user = outsider(client, sandbox, space_id)
    granted_teams = set(client.permissions.teams(space_id)["team_id"])
    team = next(t for t in sandbox.demo["team_ids"] if t not in granted_teams)
    assert client.permissions.invite(space_id, role="comment", users=[user], teams=(team,)) is None
    users = client.permissions.users(space_id).set_index("user_id")
    assert users.loc[user, "role"] == "comment"
    teams = client.permissions.teams(space_id).set_index("team_id")
    assert teams.loc[team, "role"] == "comment"


def test_invite_unknown_user_is_404(client, space_id):
    with pytest.raises(NotFoundError):
        client.permissions.invite(space_id, role="read", users=["no_such_user"])


def test_set_user_and_team_roles(client, sandbox, space_id):
    user = client.permissions.users(space_id)["user_id"].iloc[0]
    assert client.permissions.set_user_role(space_id, user, "review") is None
    assert client.permissions.users(space_id).set_index("user_id").loc[user, "role"] == "review"
    team = client.permissions.teams(space_id)["team_id"].iloc[0]
    client.permissions.set_team_role(space_id, team, "edit")
    assert client.permissions.teams(space_id).set_index("team_id").loc[team, "role"] == "edit"


def test_set_role_for_unknown_user_or_team_is_404(client, space_id):
    with pytest.raises(NotFoundError):
        client.permissions.set_user_role(space_id, "no_such_user", "read")
    with pytest.raises(NotFoundError):
        client.permissions.set_team_role(space_id, "no_such_team", "read")


def test_remove_user_answers_true_then_false(client, space_id):
    user = client.permissions.users(space_id)["user_id"].iloc[-1]
    assert client.permissions.remove_user(space_id, user) is True
    assert user not in set(client.permissions.users(space_id)["user_id"])
    assert client.permissions.remove_user(space_id, user) is False


def test_remove_team_answers_true_then_false(client, space_id):
    team = client.permissions.teams(space_id)["team_id"].iloc[0]
    assert client.permissions.remove_team(space_id, team) is True
    assert client.permissions.remove_team(space_id, team) is False


def test_remove_a_team_without_access_is_400(client, space_id):
    with pytest.raises(BadRequestError):
        client.permissions.remove_team(space_id, "no_such_team")


def test_read_only_token_cannot_read_or_change_permissions(sandbox, space_id):
    read_only = DocsClient(token=sandbox.tokens["oauth:space:read"], base_url=sandbox.url)
    with pytest.raises(PermissionDeniedError):
        read_only.permissions.users(space_id)
    with pytest.raises(PermissionDeniedError):
        read_only.permissions.invite(space_id, role="read", users=[sandbox.demo["owner_id"]])
    with pytest.raises(PermissionDeniedError):
        read_only.permissions.remove_user(space_id, sandbox.demo["owner_id"])


def test_all_scopes_oauth_token_can_read_permissions(sandbox, space_id):
    oauth = DocsClient(token=sandbox.tokens["oauth:all"], base_url=sandbox.url)
    assert len(oauth.permissions.users(space_id)) > 0


def test_raw_records_match_the_frames(client, sandbox):
    space_id = sandbox.demo["space_ids"][0]
    users = client.permissions.user_records(space_id)
    teams = client.permissions.team_records(space_id)
    assert [u["user"]["id"] for u in users] == list(client.permissions.users(space_id)["user_id"])
    assert [t["team"]["id"] for t in teams] == list(client.permissions.teams(space_id)["team_id"])
    assert all(
        u["permission"] in {"admin", "create", "edit", "review", "comment", "read"} for u in users
    )


# -- the platform's aggregate ---------------------------------------------------------------------

ROLES = ["read", "comment", "review", "edit", "create", "admin"]


def test_aggregate_counts_every_path(client, sandbox):
    demo = sandbox.demo
    multi = demo["multi_team_user"]
    frame = client.permissions.aggregate(multi["space_id"])
    assert_schema(frame, "permission_aggregate")
    assert frame["user_id"].is_unique and (frame["space_id"] == multi["space_id"]).all()
    by_user = frame.set_index("user_id")["role"]
    assert by_user[multi["user_id"]] == multi["effective"]  # two teams beat a direct comment
    direct = client.permissions.users(multi["space_id"]).set_index("user_id")
    assert direct.loc[multi["user_id"], "role"] == "comment"


def test_aggregate_lists_former_members_and_never_disabled_ones(client, sandbox):
    demo = sandbox.demo
    for space_id, user_id in demo["former_member"]:
        assert user_id in set(client.permissions.aggregate(space_id)["user_id"])
    disabled = demo["disabled_member_ids"][0]
    for space_id in {space for space, user in demo["inactive_writer"] if user == disabled}:
        assert disabled in set(client.permissions.users(space_id)["user_id"])  # on record
        assert disabled not in set(client.permissions.aggregate(space_id)["user_id"])


def test_aggregate_follows_a_new_grant(client, sandbox, space_id):
    user = outsider(client, sandbox, space_id)
    before = client.permissions.aggregate(space_id).set_index("user_id")["role"]
    client.permissions.invite(space_id, role="admin", users=[user])
    after = client.permissions.aggregate(space_id).set_index("user_id")["role"]
    assert after[user] == "admin" and before.get(user) != "admin"


def test_aggregate_role_filter(client, space_id):
    every = client.permissions.aggregate(space_id)
    for role in ROLES:
        only = client.permissions.aggregate(space_id, role=role)
        assert_schema(only, "permission_aggregate")
        assert set(only["user_id"]) == set(every.loc[every["role"] == role, "user_id"])


def test_aggregate_of_a_missing_or_trashed_space_is_404(client, sandbox):
    with pytest.raises(NotFoundError):
        client.permissions.aggregate("no_such_space")
    trashed = sandbox.demo["space_ids"][1]
    assert client.spaces.delete(trashed) is True
    with pytest.raises(NotFoundError):
        client.permissions.aggregate(trashed)


def test_aggregate_needs_the_permissions_scope(sandbox, space_id):
    read_only = DocsClient(token=sandbox.tokens["oauth:space:read"], base_url=sandbox.url)
    with pytest.raises(PermissionDeniedError):
        read_only.permissions.aggregate(space_id)
