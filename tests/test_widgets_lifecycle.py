"""SpaceLifecyclePanel against the sandbox: duplicate, delete with a confirm step, restore."""

from __future__ import annotations

import pytest

import docsapi
from docsapi.errors import NotFoundError, PermissionDeniedError
from docsapi.widgets import SpaceLifecyclePanel


@pytest.fixture
def space_id(sandbox) -> str:
    return sandbox.demo["space_ids"][0]


def test_panel_explains_the_restore_window(client, space_id):
    panel = SpaceLifecyclePanel(client, space_id)
    panel.load()

    assert "restored within 7 days" in panel.info_html.value
    assert "is active" in panel.state_html.value
    assert panel.restore_button.disabled
    assert panel.confirm_button.layout.display == "none"


def test_duplicate_shows_the_copy(sandbox, client, space_id):
    before = len(client.spaces.list(org_id=sandbox.org_id))
    panel = SpaceLifecyclePanel(client, space_id)
    panel.load()
    panel.duplicate_button.click()

    copy_id = panel.status.removeprefix("Duplicated: the copy is ").split(" ")[0]
    copy = sandbox.client().spaces.get(copy_id)
    assert copy.id != space_id
    assert len(sandbox.client().spaces.list(org_id=sandbox.org_id)) == before + 1
    assert len(panel.status_output.outputs) == 2  # the status line, then the copy itself


def test_delete_asks_for_confirmation_first(sandbox, client, space_id):
    panel = SpaceLifecyclePanel(client, space_id)
    panel.load()
    count = sandbox.request_count
    panel.delete_button.click()

    assert panel.armed
    assert panel.confirm_button.layout.display == ""
    assert "Press Confirm delete" in panel.status
    assert sandbox.request_count == count  # arming sends nothing
    panel.cancel_button.click()
    assert not panel.armed
    assert panel.confirm_button.layout.display == "none"
    assert sandbox.request_count == count

    panel.delete_button.click()
    panel.confirm_button.click()
    assert panel.status.startswith("Deleted: the space is in the trash; restore it before")
    assert "can be restored until" in panel.state_html.value
    assert not panel.restore_button.disabled and panel.delete_button.disabled
    with pytest.raises(NotFoundError):
        sandbox.client().spaces.get(space_id)

    panel.restore_button.click()
    assert panel.status.startswith("Restored")
    assert sandbox.client().spaces.get(space_id).id == space_id
    assert panel.restore_button.disabled


def test_restore_after_seven_days_fails_in_the_panel(sandbox, client, space_id):
    panel = SpaceLifecyclePanel(client, space_id)
    panel.load()
    assert panel.delete() is True
    sandbox.advance_clock(days=8)
    panel.restore_button.click()

    assert isinstance(panel.error, NotFoundError)
    assert panel.status.startswith("Restoring failed: 404")


def test_panel_for_a_trashed_space_offers_restore(sandbox, client, space_id):
    sandbox.client().spaces.delete(space_id)
    panel = SpaceLifecyclePanel(client, space_id)
    panel.load()

    assert panel.space is None
    assert "in the trash" in panel.status
    assert panel.delete_button.disabled and not panel.restore_button.disabled
    assert panel.restore() is not None
    assert "is active" in panel.state_html.value


def test_deleting_a_space_already_gone_says_so(sandbox, client, space_id):
    panel = SpaceLifecyclePanel(client, space_id)
    panel.load()
    sandbox.client().spaces.delete(space_id)

    assert panel.delete() is False
    assert panel.status == "Nothing deleted: the space did not exist (already deleted?)."


def test_refused_delete_is_shown_in_the_panel(sandbox, space_id):
    readonly = docsapi.DocsClient(base_url=sandbox.url, token=sandbox.tokens["oauth:space:read"])
    panel = SpaceLifecyclePanel(readonly, space_id)
    panel.load()
    panel.delete_button.click()
    panel.confirm_button.click()

    assert isinstance(panel.error, PermissionDeniedError)
    assert panel.status.startswith("Deleting failed: 403")
    assert not panel.delete_button.disabled  # still active: another try is possible
    assert sandbox.client().spaces.get(space_id).id == space_id
    with pytest.raises(PermissionDeniedError):
        panel.delete(raise_errors=True)
