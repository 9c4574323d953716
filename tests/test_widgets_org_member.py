"""OrgMemberForm against the sandbox: the member shown, role changes, removal after a confirm."""

from __future__ import annotations

import pytest

import docsapi
from docsapi.errors import NotFoundError, PermissionDeniedError, ValidationError
from docsapi.widgets import OrgMemberForm


@pytest.fixture
def org_id(sandbox) -> str:
    return sandbox.demo["org_id"]


@pytest.fixture
def disabled_id(sandbox) -> str:
    """A disabled member who still holds the role read and grants (a finding of the audit)."""
    return sandbox.demo["disabled_member_ids"][0]


def _writes(sandbox) -> list[tuple[str, str, int]]:
    return [entry for entry in sandbox.request_log if entry[0] != "GET"]


def test_the_member_is_shown_with_role_state_and_last_visit(client, org_id, disabled_id):
    member = client.orgs.member(org_id, disabled_id)
    form = OrgMemberForm(client, org_id, disabled_id)
    form.load()

    assert form.status == f"Loaded {member.display_name}."
    shown = form.member_html.value
    for text in (member.display_name, member.email, "disabled", f"{member.last_seen_at:%Y-%m-%d}"):
        assert text in shown
    assert "days ago" in shown
    assert f"{member.spaces} space" in shown and f"{member.teams} team" in shown
    assert form.role_dropdown.value == member.role
    assert form.change_role_button.disabled  # the role picked is the role held
    assert not form.remove_button.disabled


def test_changing_the_role_sends_it_and_shows_the_new_one(sandbox, client, org_id, disabled_id):
    form = OrgMemberForm(client, org_id, disabled_id)
    form.load()
    form.role_dropdown.value = "guest"
    assert not form.change_role_button.disabled
    writes = len(_writes(sandbox))
    form.change_role_button.click()

    assert len(_writes(sandbox)) == writes + 1
    assert sandbox.client().orgs.member(org_id, disabled_id).role is None
    name = form.member.display_name
    assert form.status == f"Role of {name} changed from read to guest."
    assert form.member.role is None
    assert "<td>guest</td>" in form.member_html.value
    assert form.change_role_button.disabled


def test_a_bad_role_is_shown_in_the_form_and_not_sent(sandbox, client, org_id, disabled_id):
    form = OrgMemberForm(client, org_id, disabled_id)
    form.load()
    count = sandbox.request_count

    assert form.change_role("owner") is None
    assert sandbox.request_count == count
    assert form.status.startswith("Role not changed: role: must be one of admin, create")
    assert "owner" in form.role_error.value
    with pytest.raises(ValidationError, match="role"):
        form.change_role("superuser", raise_errors=True)
    # The role held is no change either: nothing is sent.
    assert form.change_role("read") is None
    assert form.status.endswith("already has the role read.")
    assert sandbox.request_count == count
    assert form.change_role("comment").role == "comment"
    assert form.role_error.value == ""


def test_remove_asks_first_and_cancel_keeps_the_member(sandbox, client, org_id, disabled_id):
    form = OrgMemberForm(client, org_id, disabled_id)
    form.load()
    count = sandbox.request_count
    assert form.confirm_button.layout.display == "none"
    form.remove_button.click()

    assert form.armed
    assert form.confirm_button.layout.display == ""
    assert "still reach content" in form.status
    assert sandbox.request_count == count
    form.cancel_button.click()
    assert not form.armed
    assert form.status == "Removal cancelled."
    assert sandbox.request_count == count
    assert sandbox.client().orgs.member(org_id, disabled_id).user_id == disabled_id


def test_confirm_removes_the_member_then_they_were_not_a_member(sandbox, client, org_id):
    user_id = sandbox.demo["inactive_member_ids"][0]
    form = OrgMemberForm(client, org_id, user_id)
    form.load()
    form.remove_button.click()
    form.confirm_button.click()

    name = form.member.display_name
    assert form.status == f"Removed {name} from the organization."
    assert form.removed
    assert form.remove_button.disabled and form.change_role_button.disabled
    with pytest.raises(NotFoundError):
        sandbox.client().orgs.member(org_id, user_id)
    assert user_id not in set(sandbox.client().orgs.members(org_id).user_id)
    assert form.remove() is False
    assert form.status == f"{name} was not a member (already removed?)."


def test_a_token_that_is_not_an_org_admin_is_refused_in_the_form(sandbox, org_id, disabled_id):
    other = docsapi.DocsClient(base_url=sandbox.url, token=sandbox.tokens["other-user"])
    form = OrgMemberForm(other, org_id, disabled_id)
    form.load()
    assert form.loaded, form.status

    assert form.change_role("edit") is None
    assert isinstance(form.error, PermissionDeniedError)
    assert form.status.startswith("Changing the role failed: 403 PermissionDeniedError")
    assert form.remove() is None
    assert form.status.startswith("Removing failed: 403")
    assert sandbox.client().orgs.member(org_id, disabled_id).role == "read"


def test_a_former_member_cannot_be_loaded(sandbox, client, org_id):
    form = OrgMemberForm(client, org_id, sandbox.demo["former_member_ids"][0])
    form.load()

    assert not form.loaded
    assert form.status.startswith("Loading failed: 404 NotFoundError")
    assert form.role_dropdown.disabled and form.remove_button.disabled


def test_bad_ids_are_refused_before_anything_is_sent(sandbox, client, org_id):
    with pytest.raises(ValidationError, match="org_id"):
        OrgMemberForm(client, "", "u_1")
    with pytest.raises(ValidationError, match="user_id"):
        OrgMemberForm(client, org_id, None)
    assert sandbox.request_count == 0


# -- the organization's admins ----------------------------------------------------------------
@pytest.fixture
def admins(sandbox) -> tuple[str, str]:
    """(the token's own user, the other admin) of the demo organization."""
    owner = sandbox.demo["owner_id"]
    return owner, next(u for u in sandbox.demo["org_admin_ids"] if u != owner)


def test_demoting_yourself_shows_a_warning_and_waits_for_confirm(sandbox, client, org_id, admins):
    owner, _ = admins
    form = OrgMemberForm(client, org_id, owner)
    form.load()
    form.role_dropdown.value = "read"
    writes = len(_writes(sandbox))
    form.change_role_button.click()

    assert len(_writes(sandbox)) == writes  # nothing sent yet
    assert form.confirm_role_button.layout.display == ""
    assert "Careful: this takes the admin role" in form.status and "401 or 403" in form.status
    assert form.change_role_button.disabled and form.role_dropdown.disabled
    form.confirm_role_button.click()

    assert len(_writes(sandbox)) == writes + 1
    assert sandbox.client().orgs.member(org_id, owner).role == "read"
    assert form.status == f"Role of {form.name} changed from admin to read."
    assert form.confirm_role_button.layout.display == "none"


def test_cancel_keeps_your_admin_role(sandbox, client, org_id, admins):
    owner, _ = admins
    form = OrgMemberForm(client, org_id, owner)
    form.load()
    assert form.change_role(None) is None
    form.cancel_role_button.click()

    assert form.status == "Role change cancelled."
    assert not form.role_dropdown.disabled and form.confirm_role_button.layout.display == "none"
    assert _writes(sandbox) == []
    assert sandbox.client().orgs.member(org_id, owner).role == "admin"
    # from code, confirmed=True sends at once
    assert form.change_role("edit", confirmed=True).role == "edit"


def test_demoting_another_admin_needs_no_confirm(sandbox, client, org_id, admins):
    _, other = admins
    form = OrgMemberForm(client, org_id, other)
    form.load()
    assert form.change_role("create").role == "create"
    assert form.confirm_role_button.layout.display == "none"


def test_the_last_admin_is_not_demoted_nor_removed(sandbox, client, org_id, admins):
    owner, other = admins
    client.orgs.update_member(org_id, other, role="edit")
    form = OrgMemberForm(client, org_id, owner)
    form.load()
    writes = len(_writes(sandbox))

    assert form.change_role("read") is None
    assert form.status.startswith("Role not changed: role: this would leave organization")
    assert "make another member an admin first" in form.status
    assert "without an enabled admin" in form.role_error.value
    with pytest.raises(ValidationError, match="without an enabled admin"):
        form.change_role("read", raise_errors=True)
    form.remove_button.click()
    assert not form.armed and form.status.startswith("Not removed: ")
    assert form.remove() is None and form.status.startswith("Not removed: ")
    assert len(_writes(sandbox)) == writes
    assert sandbox.client().orgs.member(org_id, owner).role == "admin"


def test_removing_yourself_warns_before_the_confirm(sandbox, client, org_id, admins):
    owner, other = admins
    form = OrgMemberForm(client, org_id, owner)
    form.load()
    assert form.remove() is None  # from code too: your own removal waits for a confirm
    assert form.armed and "Careful: this takes the admin role" in form.status
    assert _writes(sandbox) == []
    form.confirm_button.click()
    assert form.removed
    sandbox.add_token("sbx_other_admin", user_id=other)
    other_admin = docsapi.DocsClient(base_url=sandbox.url, token="sbx_other_admin")
    assert owner not in set(other_admin.orgs.members(org_id).user_id)


def test_a_member_who_is_no_admin_is_changed_without_reading_the_admins(
    sandbox, client, org_id, disabled_id
):
    form = OrgMemberForm(client, org_id, disabled_id)
    form.load()
    before = len(sandbox.request_log)
    form.change_role("edit")
    assert [method for method, _, _ in sandbox.request_log[before:]] == ["PATCH"]
