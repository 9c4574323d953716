"""TeamMembersEditor against the sandbox: members listed, added by email or id, removed, renamed."""

from __future__ import annotations

import pytest

import docsapi
from docsapi.errors import PermissionDeniedError, ValidationError
from docsapi.widgets import TeamMembersEditor


@pytest.fixture
def org_id(sandbox) -> str:
    return sandbox.demo["org_id"]


@pytest.fixture
def team_id(sandbox) -> str:
    return sandbox.demo["team_ids"][0]


def _team(sandbox, org_id: str, team_id: str) -> dict[str, str]:
    frame = sandbox.client().orgs.team_members(org_id, team_id)
    return dict(zip(frame.user_id, frame.role, strict=True))


def _outsider(client, org_id: str, team_id: str):
    """An organization member with an email who is not in the team."""
    in_team = set(client.orgs.team_members(org_id, team_id).user_id)
    members = client.orgs.members(org_id)
    return next(row for row in members.itertuples() if row.user_id not in in_team and row.email)


def test_members_are_listed_and_outsiders_suggested(client, org_id, team_id):
    members = client.orgs.team_members(org_id, team_id)
    editor = TeamMembersEditor(client, org_id, team_id)
    editor.load()

    title = client.orgs.team(org_id, team_id).title
    assert editor.status == f"Loaded {title}: {len(members)} members."
    assert list(editor.members.user_id) == list(members.user_id)
    assert [value for _label, value in editor.members_select.options] == list(members.user_id)
    assert editor.title_text.value == title
    suggested = set(editor.add_combobox.options)
    assert suggested and not suggested & set(members.email)
    assert editor.add_button.disabled and editor.remove_button.disabled


def test_add_by_email_as_owner(sandbox, client, org_id, team_id):
    outsider = _outsider(client, org_id, team_id)
    editor = TeamMembersEditor(client, org_id, team_id)
    editor.load()
    editor.add_combobox.value = outsider.email.upper()
    editor.add_role_dropdown.value = "owner"
    assert not editor.add_button.disabled
    editor.add_button.click()

    assert _team(sandbox, org_id, team_id)[outsider.user_id] == "owner"
    who = f"{outsider.display_name} <{outsider.email}>"
    assert editor.status == f"Added {who} to the team as owner."
    assert outsider.user_id in set(editor.members.user_id)
    assert outsider.email not in editor.add_combobox.options
    assert editor.add_combobox.value == ""


def test_adding_a_current_member_sets_their_role(sandbox, client, org_id, team_id):
    before = _team(sandbox, org_id, team_id)
    user_id = next(key for key, role in before.items() if role == "member")
    editor = TeamMembersEditor(client, org_id, team_id)
    editor.load()
    editor.add_combobox.value = user_id
    editor.add_role_dropdown.value = "member"
    count = sandbox.request_count

    assert editor.add() is None  # the role they have: nothing sent
    assert sandbox.request_count == count
    editor.add_role_dropdown.value = "owner"
    assert editor.add() == user_id
    assert _team(sandbox, org_id, team_id) == {**before, user_id: "owner"}
    assert editor.status.endswith("is now owner of the team (was member).")


def test_an_entry_naming_no_org_member_is_shown_and_not_sent(sandbox, client, org_id, team_id):
    editor = TeamMembersEditor(client, org_id, team_id)
    editor.load()
    count = sandbox.request_count
    editor.add_combobox.value = "nobody@elsewhere.example"
    editor.add_button.click()

    assert sandbox.request_count == count
    assert "no member of the organization" in editor.add_error.value
    assert editor.status.startswith("Not added: user: no member of the organization")
    editor.add_combobox.value = sandbox.demo["former_member_ids"][0]
    with pytest.raises(ValidationError, match="user"):
        editor.add(raise_errors=True)
    assert sandbox.request_count == count


def test_remove_selected_members(sandbox, client, org_id, team_id):
    before = _team(sandbox, org_id, team_id)
    picked = tuple(list(before)[:2])
    editor = TeamMembersEditor(client, org_id, team_id)
    editor.load()
    editor.members_select.value = picked
    assert not editor.remove_button.disabled
    editor.remove_button.click()

    after = _team(sandbox, org_id, team_id)
    assert after == {key: role for key, role in before.items() if key not in picked}
    assert editor.status == "Removed 2 member(s) from the team."
    assert not set(picked) & set(editor.members.user_id)


def test_remove_with_nobody_picked_sends_nothing(sandbox, client, org_id, team_id):
    editor = TeamMembersEditor(client, org_id, team_id)
    editor.load()
    count = sandbox.request_count

    assert editor.remove_selected() is None
    assert editor.status == "Nobody removed: members: pick at least one member to remove."
    with pytest.raises(ValidationError):
        editor.remove_selected(raise_errors=True)
    assert sandbox.request_count == count


def test_rename_checks_the_title_then_renames(sandbox, client, org_id, team_id):
    editor = TeamMembersEditor(client, org_id, team_id)
    editor.load()
    count = sandbox.request_count
    editor.title_text.value = "x" * 65
    editor.rename_button.click()

    assert sandbox.request_count == count
    assert "at most 64 characters" in editor.title_error.value
    editor.title_text.value = "Reviewers"
    editor.rename_button.click()
    assert editor.title_error.value == ""
    assert editor.status == "Renamed the team from 'Engineering' to 'Reviewers'."
    assert sandbox.client().orgs.team(org_id, team_id).title == "Reviewers"
    assert editor.rename_button.disabled


def test_a_token_that_is_not_an_org_admin_is_refused(sandbox, client, org_id, team_id):
    user_id = next(iter(_team(sandbox, org_id, team_id)))
    other = docsapi.DocsClient(base_url=sandbox.url, token=sandbox.tokens["other-user"])
    editor = TeamMembersEditor(other, org_id, team_id)
    editor.load()
    assert editor.loaded, editor.status
    editor.members_select.value = (user_id,)

    assert editor.remove_selected() is None
    assert isinstance(editor.error, PermissionDeniedError)
    assert editor.status.startswith("Removed 0 of 1 from the team; the others failed: 403")
    assert user_id in _team(sandbox, org_id, team_id)
