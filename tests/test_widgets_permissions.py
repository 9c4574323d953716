"""PermissionEditor against the sandbox: rows, role changes, removals, invitations, refusals."""

from __future__ import annotations

import pytest

import docsapi
from docsapi.errors import PermissionDeniedError, ValidationError
from docsapi.widgets import PermissionEditor
from docsapi.widgets._base import clean


@pytest.fixture
def space_id(sandbox) -> str:
    return sandbox.demo["space_ids"][0]


def _roles(frame, key: str) -> dict[str, str | None]:
    return {getattr(row, key): clean(row.role) for row in frame.itertuples()}


def _patches(sandbox) -> list[tuple[str, str, int]]:
    return [entry for entry in sandbox.request_log if entry[0] == "PATCH"]


def test_rows_show_the_space_users_and_teams(client, space_id):
    users = _roles(client.permissions.users(space_id), "user_id")
    teams = _roles(client.permissions.teams(space_id), "team_id")
    editor = PermissionEditor(client, space_id)
    editor.load()

    assert {key: row.role for key, row in editor.user_rows.items()} == users
    assert {key: row.role for key, row in editor.team_rows.items()} == teams
    for key, row in editor.user_rows.items():
        assert row.role_dropdown.value == (users[key] or "guest")
    invitable = {value for _label, value in editor.invite_users_select.options}
    assert invitable and not invitable & set(users)
    assert editor.value == {}
    assert editor.save_button.disabled


def test_role_change_sends_only_the_changed_row(sandbox, client, space_id):
    editor = PermissionEditor(client, space_id)
    editor.load()
    user_id, row = next((k, r) for k, r in editor.user_rows.items() if r.role != "comment")
    before = _roles(client.permissions.users(space_id), "user_id")

    row.role_dropdown.value = "comment"
    assert editor.value == {"users": {user_id: "comment"}}
    assert not editor.save_button.disabled
    patches = len(_patches(sandbox))
    assert editor.save_button.click() is None

    assert len(_patches(sandbox)) == patches + 1
    assert row.status == "role set to comment"
    after = _roles(sandbox.client().permissions.users(space_id), "user_id")
    assert after == {**before, user_id: "comment"}
    assert editor.value == {}


def test_guest_is_shown_as_guest_and_sent_as_none(sandbox, client, space_id):
    editor = PermissionEditor(client, space_id)
    editor.load()
    team_id, row = next(iter(editor.team_rows.items()))
    row.role_dropdown.value = "guest"

    assert editor.value == {"teams": {team_id: None}}
    assert editor.save() == {"teams": {team_id: None}}
    teams = _roles(sandbox.client().permissions.teams(space_id), "team_id")
    # The team is now a guest: listed without a role, or not listed at all.
    assert teams.get(team_id) is None
    assert editor.team_rows[team_id].status == "role set to guest"


def test_remove_says_removed_then_was_not_in_the_space(sandbox, client, space_id):
    editor = PermissionEditor(client, space_id)
    editor.load()
    user_id, row = next(iter(editor.user_rows.items()))
    row.remove_button.click()

    assert row.status == "removed"
    assert row.remove_button.disabled
    assert user_id not in set(sandbox.client().permissions.users(space_id).user_id)
    assert editor.remove("users", user_id) is False
    assert row.status == "was not in the space"


def test_invite_users_and_teams(sandbox, client, space_id):
    editor = PermissionEditor(client, space_id)
    editor.load()
    user_id = editor.invite_users_select.options[0][1]
    team_id = editor.invite_teams_select.options[0][1]
    editor.invite_users_select.value = (user_id,)
    editor.invite_teams_select.value = (team_id,)
    editor.invite_role_dropdown.value = "edit"
    assert not editor.invite_button.disabled
    editor.invite_button.click()

    assert editor.status == "Invited 1 user, 1 team as edit."
    fresh = sandbox.client()
    assert _roles(fresh.permissions.users(space_id), "user_id")[user_id] == "edit"
    assert _roles(fresh.permissions.teams(space_id), "team_id")[team_id] == "edit"
    # The lists were read again: the new user has a row and is no longer offered.
    assert editor.user_rows[user_id].role == "edit"
    assert user_id not in {value for _label, value in editor.invite_users_select.options}


def test_invite_without_anyone_is_marked_and_not_sent(sandbox, client, space_id):
    editor = PermissionEditor(client, space_id)
    editor.load()
    assert editor.invite_button.disabled
    count = sandbox.request_count
    editor.invite_button.click()

    assert sandbox.request_count == count
    assert "pick at least one user or team" in editor.invite_error.value
    with pytest.raises(ValidationError):
        editor.invite(raise_errors=True)


def test_refused_role_change_is_shown_on_the_row(sandbox, space_id):
    other = docsapi.DocsClient(base_url=sandbox.url, token=sandbox.tokens["other-user"])
    editor = PermissionEditor(other, space_id)
    editor.load()
    user_id, row = next((k, r) for k, r in editor.user_rows.items() if r.role != "read")
    row.role_dropdown.value = "read"

    assert editor.save() is None
    assert isinstance(editor.error, PermissionDeniedError)
    assert row.status.startswith("not changed: 403")
    assert "1 failed" in editor.status
    roles = _roles(sandbox.client().permissions.users(space_id), "user_id")
    assert roles[user_id] != "read"
    with pytest.raises(PermissionDeniedError):
        editor.save(raise_errors=True)


def test_token_without_permission_scope_cannot_load(sandbox, space_id):
    readonly = docsapi.DocsClient(base_url=sandbox.url, token=sandbox.tokens["oauth:space:read"])
    editor = PermissionEditor(readonly, space_id)
    editor.load()

    assert editor.status.startswith("Loading failed: 403")
    assert editor.user_rows == {}
