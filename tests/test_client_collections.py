"""client.collections over real HTTP against the sandbox: every change is read back."""

from __future__ import annotations

import pandas as pd
import pytest
from client_checks import assert_schema, member_client

from docsapi import DocsClient
from docsapi.errors import (
    BadRequestError,
    ConflictError,
    NotFoundError,
    PermissionDeniedError,
    ValidationError,
)
from docsapi.models import Collection

ROLES = ["read", "comment", "review", "edit", "create", "admin"]


@pytest.fixture
def collections(sandbox):
    return sandbox.demo["collections"]


@pytest.fixture
def other(sandbox):
    return member_client(sandbox)


# -- the collections ------------------------------------------------------------------------------


def test_list_every_collection_and_the_top_level_ones(client, sandbox, collections):
    every = client.collections.list(sandbox.org_id)
    assert_schema(every, "collections")
    assert set(every["id"]) == set(sandbox.demo["collection_ids"])
    by_id = every.set_index("id")
    assert by_id.loc[collections["api"], "parent"] == collections["product"]
    assert by_id.loc[collections["engineering"], "default_level"] == "read"
    assert pd.isna(by_id.loc[collections["internal"], "default_level"])  # private
    top = client.collections.list(sandbox.org_id, nested=False)
    assert set(top["id"]) == set(every.loc[every["parent"].isna(), "id"])
    assert {collections["api"], collections["runbooks"]}.isdisjoint(top["id"])


def test_get_a_collection_and_an_unknown_one(client, collections):
    found = client.collections.get(collections["runbooks"])
    assert isinstance(found, Collection)
    assert (found.id, found.parent) == (collections["runbooks"], collections["engineering"])
    assert found.permissions["admin"] is True
    with pytest.raises(NotFoundError):
        client.collections.get("no_such_collection")


def test_spaces_are_those_directly_inside(client, sandbox, collections):
    collection_id = collections["product"]
    inside = client.collections.spaces(collection_id)
    assert_schema(inside, "spaces")
    listed = client.spaces.list(org_id=sandbox.org_id)
    assert set(inside["id"]) == set(listed.loc[listed["parent"] == collection_id, "id"])
    assert len(inside) > 0


def test_create_update_move_delete_read_back(client, sandbox, collections):
    made = client.collections.create(sandbox.org_id, title="Audits", parent=collections["product"])
    assert isinstance(made, Collection)
    read = client.collections.get(made.id)
    assert (read.title, read.parent, read.default_level) == (
        "Audits",
        collections["product"],
        "inherit",
    )
    assert client.collections.users(made.id)["user_id"].tolist() == [sandbox.demo["owner_id"]]

    client.collections.update(made.id, title="Access reviews", default_level=None)
    read = client.collections.get(made.id)
    assert read.title == "Access reviews" and read.default_level is None

    moved = client.collections.move(made.id, parent=None)
    assert moved.parent is None and client.collections.get(made.id).parent is None
    with pytest.raises(ConflictError):
        client.collections.move(made.id, parent=None)
    client.collections.move(made.id, position={"before": {"collection": collections["product"]}})
    with pytest.raises(BadRequestError):
        client.collections.move(collections["product"], parent=collections["api"])  # into itself

    assert client.collections.delete(made.id) is True
    with pytest.raises(NotFoundError):
        client.collections.get(made.id)
    assert client.collections.delete(made.id) is False


def test_a_new_top_level_collection_has_empty_typed_frames(client, sandbox):
    made = client.collections.create(sandbox.org_id, title="Empty")
    assert made.parent is None
    for frame, name in [
        (client.collections.spaces(made.id), "spaces"),
        (client.collections.teams(made.id), "collection_teams"),
    ]:
        assert frame.empty
        assert_schema(frame, name)


def test_update_description_reads_back(client, collections):
    client.collections.update(collections["product"], description="Everything customers read")
    assert client.collections.get(collections["product"]).description == (
        "Everything customers read"
    )


def test_deleting_a_collection_trashes_its_spaces(client, sandbox, collections):
    inside = set(client.collections.spaces(collections["runbooks"])["id"])
    assert client.collections.delete(collections["engineering"]) is True
    with pytest.raises(NotFoundError):
        client.collections.get(collections["runbooks"])  # held inside, deleted with it
    assert inside.isdisjoint(client.spaces.list(org_id=sandbox.org_id)["id"])


def test_an_ordinary_member_cannot_change_a_collection(other, collections):
    with pytest.raises(PermissionDeniedError):
        other.collections.update(collections["product"], title="Mine")
    with pytest.raises(PermissionDeniedError):
        other.collections.delete(collections["product"])


# -- permissions ----------------------------------------------------------------------------------


def test_users_and_teams_frames(client, sandbox, collections):
    collection_id = collections["partners"]
    users = client.collections.users(collection_id)
    assert_schema(users, "collection_users")
    assert (users["collection_id"] == collection_id).all()
    guest_writer = sandbox.demo["guest_collection_write"][0][1]
    assert users.set_index("user_id").loc[guest_writer, "role"] in {"edit", "create", "admin"}
    teams = client.collections.teams(collections["product"])
    assert_schema(teams, "collection_teams")
    assert set(teams["team_id"]) <= set(sandbox.demo["team_ids"])


def test_invite_set_and_remove_read_back(client, sandbox, collections):
    collection_id = collections["internal"]
    held = set(client.collections.users(collection_id)["user_id"])
    user = next(u for u in client.orgs.members(sandbox.org_id)["user_id"] if u not in held)
    taken = set(client.collections.teams(collection_id)["team_id"])
    team = next(t for t in sandbox.demo["team_ids"] if t not in taken)

    assert (
        client.collections.invite(collection_id, role="comment", users=[user], teams=[team]) is None
    )
    assert (
        client.collections.users(collection_id).set_index("user_id").loc[user, "role"] == "comment"
    )
    assert (
        client.collections.teams(collection_id).set_index("team_id").loc[team, "role"] == "comment"
    )

    client.collections.set_user_role(collection_id, user, "edit")
    client.collections.set_team_role(collection_id, team, "read")
    assert client.collections.users(collection_id).set_index("user_id").loc[user, "role"] == "edit"
    assert client.collections.teams(collection_id).set_index("team_id").loc[team, "role"] == "read"

    assert client.collections.remove_user(collection_id, user) is True
    assert user not in set(client.collections.users(collection_id)["user_id"])
    assert client.collections.remove_user(collection_id, user) is False
    assert client.collections.remove_team(collection_id, team) is True
    assert client.collections.remove_team(collection_id, team) is False


def test_a_collection_grant_reaches_the_spaces_inside(client, sandbox, collections):
    collection_id = collections["internal"]
    space_id = client.collections.spaces(collection_id)["id"].iloc[0]
    guest = sandbox.demo["guest_ids"][-1]
    before = client.permissions.aggregate(space_id)
    assert guest not in set(before["user_id"])
    client.collections.invite(collection_id, role="review", users=[guest])
    for frame in (
        client.collections.aggregate(collection_id),
        client.permissions.aggregate(space_id),
    ):
        assert frame.set_index("user_id").loc[guest, "role"] == "review"


def test_aggregate_filters_by_role_and_is_typed_when_empty(client, collections):
    collection_id = collections["partners"]
    every = client.collections.aggregate(collection_id)
    assert_schema(every, "collection_aggregate")
    assert every["user_id"].is_unique and set(every["role"]) <= set(ROLES)
    for role in ROLES:
        only = client.collections.aggregate(collection_id, role=role)
        assert_schema(only, "collection_aggregate")
        assert set(only["user_id"]) == set(every.loc[every["role"] == role, "user_id"])
    missing = [role for role in ROLES if role not in set(every["role"])]
    assert missing, "the fixture should leave a role nobody holds here"
    assert client.collections.aggregate(collection_id, role=missing[0]).empty


def test_unknown_principals_and_collections(client, collections):
    collection_id = collections["product"]
    for read in (
        client.collections.spaces,
        client.collections.users,
        client.collections.teams,
        client.collections.aggregate,
    ):
        with pytest.raises(NotFoundError):
            read("no_such_collection")
    with pytest.raises(NotFoundError):
        client.collections.update("no_such_collection", title="T")
    with pytest.raises(NotFoundError):
        client.collections.move("no_such_collection", parent=None)
    with pytest.raises(NotFoundError):
        client.collections.invite(collection_id, role="read", users=["no_such_user"])
    with pytest.raises(NotFoundError):
        client.collections.set_user_role(collection_id, "no_such_user", "read")
    with pytest.raises(NotFoundError):
        client.collections.set_team_role(collection_id, "no_such_team", "read")
    with pytest.raises(BadRequestError):
        client.collections.remove_team(collection_id, "no_such_team")


def test_permission_reads_and_writes_need_their_scope_and_role(sandbox, other, collections):
    read_only = DocsClient(token=sandbox.tokens["oauth:space:read"], base_url=sandbox.url)
    with pytest.raises(PermissionDeniedError):
        read_only.collections.users(collections["product"])
    with pytest.raises(PermissionDeniedError):
        other.collections.invite(
            collections["product"], role="admin", users=[sandbox.demo["other_user_id"]]
        )


def test_invite_needs_someone(client, sandbox, collections):
    before = sandbox.request_count
    with pytest.raises(ValidationError, match="users, teams"):
        client.collections.invite(collections["product"], role="read")
    assert sandbox.request_count == before
