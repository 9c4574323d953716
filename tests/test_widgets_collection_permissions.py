"""CollectionPermissionEditor against the sandbox: rows, role changes, removals, invitations."""

from __future__ import annotations

import pytest

import docsapi
from docsapi.errors import PermissionDeniedError, ValidationError
from docsapi.widgets import CollectionPermissionEditor
from docsapi.widgets._base import clean


@pytest.fixture
def collection_id(sandbox) -> str:
    return sandbox.demo["collections"]["product"]


def _roles(frame, key: str) -> dict[str, str | None]:
    return {getattr(row, key): clean(row.role) for row in frame.itertuples()}


def _writes(sandbox) -> list[tuple[str, str, int]]:
    return [entry for entry in sandbox.request_log if entry[0] != "GET"]


def test_rows_show_the_collection_users_and_teams(client, collection_id):
    users = _roles(client.collections.users(collection_id), "user_id")
    teams = _roles(client.collections.teams(collection_id), "team_id")
    editor = CollectionPermissionEditor(client, collection_id)
    editor.load()

    assert editor.status == f"Loaded {len(users)} users and {len(teams)} teams."
    assert {key: row.role for key, row in editor.user_rows.items()} == users
    assert {key: row.role for key, row in editor.team_rows.items()} == teams
    assert editor.org_id == client.collections.get(collection_id).organization
    invitable = {value for _label, value in editor.invite_users_select.options}
    assert invitable and not invitable & set(users)
    offered_teams = {value for _label, value in editor.invite_teams_select.options}
    assert offered_teams and not offered_teams & set(teams)
    assert editor.value == {}


def test_lowering_a_guest_write_grant_reaches_the_spaces_inside(sandbox, client):
    collection_id, guest_id = sandbox.demo["guest_collection_write"][0]
    space_id = client.collections.spaces(collection_id).id.iloc[0]
    assert _roles(client.permissions.aggregate(space_id), "user_id")[guest_id] == "edit"
    editor = CollectionPermissionEditor(client, collection_id)
    editor.load()

    editor.user_rows[guest_id].role_dropdown.value = "read"
    assert editor.value == {"users": {guest_id: "read"}}
    writes = len(_writes(sandbox))
    editor.save_button.click()

    assert len(_writes(sandbox)) == writes + 1
    assert editor.user_rows[guest_id].status == "role set to read"
    assert editor.status == "1 role change(s) applied."
    fresh = sandbox.client()
    assert _roles(fresh.collections.users(collection_id), "user_id")[guest_id] == "read"
    assert _roles(fresh.permissions.aggregate(space_id), "user_id")[guest_id] == "read"


def test_remove_a_team_then_it_was_not_in_the_collection(sandbox, client, collection_id):
    editor = CollectionPermissionEditor(client, collection_id)
    editor.load()
    team_id, row = next(iter(editor.team_rows.items()))
    row.remove_button.click()

    assert row.status == "removed"
    assert team_id not in set(sandbox.client().collections.teams(collection_id).team_id)
    assert editor.remove("teams", team_id) is False
    assert row.status == "was not in the collection"


def test_invite_a_user_and_a_team(sandbox, client, collection_id):
    editor = CollectionPermissionEditor(client, collection_id)
    editor.load()
    user_id = editor.invite_users_select.options[0][1]
    team_id = editor.invite_teams_select.options[0][1]
    editor.invite_users_select.value = (user_id,)
    editor.invite_teams_select.value = (team_id,)
    editor.invite_role_dropdown.value = "comment"
    editor.invite_button.click()

    assert editor.status == "Invited 1 user, 1 team as comment."
    fresh = sandbox.client()
    assert _roles(fresh.collections.users(collection_id), "user_id")[user_id] == "comment"
    assert _roles(fresh.collections.teams(collection_id), "team_id")[team_id] == "comment"
    assert editor.user_rows[user_id].role == "comment"


def test_invite_without_anyone_and_a_bad_kind_send_nothing(sandbox, client, collection_id):
    editor = CollectionPermissionEditor(client, collection_id)
    editor.load()
    count = sandbox.request_count
    editor.invite_button.click()
    with pytest.raises(ValidationError, match="kind"):
        editor.remove("groups", "x")

    assert sandbox.request_count == count
    assert "pick at least one user or team" in editor.invite_error.value
    assert editor.status == "Not invited: pick at least one user or team to invite."


def test_a_bad_collection_id_is_refused_before_anything_is_sent(sandbox, client):
    with pytest.raises(ValidationError, match="collection_id"):
        CollectionPermissionEditor(client, "")
    assert sandbox.request_count == 0


def test_refused_role_change_is_shown_on_the_row(sandbox, collection_id):
    other = docsapi.DocsClient(base_url=sandbox.url, token=sandbox.tokens["other-user"])
    editor = CollectionPermissionEditor(other, collection_id)
    editor.load()
    assert editor.loaded, editor.status
    user_id, row = next(iter(editor.user_rows.items()))
    row.role_dropdown.value = "read" if row.role != "read" else "comment"

    assert editor.save() is None
    assert isinstance(editor.error, PermissionDeniedError)
    assert row.status.startswith("not changed: 403")
    roles = _roles(sandbox.client().collections.users(collection_id), "user_id")
    assert roles[user_id] == row.role
