"""SpaceSettingsForm against the sandbox: load, edit, validate, send only changes, show errors."""

from __future__ import annotations

import pytest

import docsapi
from docsapi.errors import PermissionDeniedError, ValidationError
from docsapi.widgets import SpaceSettingsForm


@pytest.fixture
def space_id(sandbox) -> str:
    """A top-level space of the demo organization with an emoji and inherited merge rules."""
    return sandbox.demo["space_ids"][0]


@pytest.fixture
def readonly_client(sandbox):
    return docsapi.DocsClient(base_url=sandbox.url, token=sandbox.tokens["oauth:space:read"])


def _patches(sandbox) -> list[tuple[str, str, int]]:
    return [entry for entry in sandbox.request_log if entry[0] == "PATCH"]


def test_form_shows_the_current_values(client, space_id):
    space = client.spaces.get(space_id)
    form = SpaceSettingsForm(client, space_id)
    form.load()

    assert form.title_text.value == space.title
    assert form.icon_kind_toggle.value == "emoji"
    assert form.icon_text.value == space.emoji
    assert form.edit_mode_toggle.value == space.edit_mode
    assert form.default_level_dropdown.value == (space.default_level or "guest")
    assert form.language_dropdown.value == space.language
    assert form.merge_rules_dropdown.value == space.merge_rules["type"]
    assert form.value == {}
    assert form.save_button.disabled
    assert form.status == "Loaded the current values."


def test_save_sends_only_the_changed_field(sandbox, client, space_id):
    form = SpaceSettingsForm(client, space_id)
    form.load()
    # Another client changes other settings after the form has loaded them.
    concurrent = sandbox.client()
    concurrent.spaces.update(space_id, edit_mode="locked", language="fr")

    form.title_text.value = "Renamed from the form"
    assert form.value == {"title": "Renamed from the form"}
    assert not form.save_button.disabled
    before = len(_patches(sandbox))
    form.save_button.click()

    assert form.status == "Saved title."
    assert form.error is None
    assert len(_patches(sandbox)) == before + 1
    fresh = sandbox.client().spaces.get(space_id)
    assert fresh.title == "Renamed from the form"
    # Had the form sent every field, it would have undone the concurrent changes.
    assert (fresh.edit_mode, fresh.language) == ("locked", "fr")
    # The form now shows what the API returned, concurrent changes included.
    assert form.edit_mode_toggle.value == "locked"
    assert form.value == {}


def test_icon_replaces_emoji_and_none_clears_both(sandbox, client, space_id):
    form = SpaceSettingsForm(client, space_id)
    form.load()
    form.icon_kind_toggle.value = "icon"
    form.icon_text.value = "https://example.com/icon.png"
    assert form.value == {"icon": "https://example.com/icon.png"}

    assert form.save() is not None
    fresh = sandbox.client().spaces.get(space_id)
    assert fresh.url_icon == "https://example.com/icon.png"
    assert not fresh.emoji

    form.icon_kind_toggle.value = "none"
    assert form.value == {"emoji": None, "icon": None}
    form.save_button.click()
    fresh = sandbox.client().spaces.get(space_id)
    assert not fresh.emoji and not fresh.url_icon


def test_guest_default_level_language_and_merge_rules_are_saved(sandbox, client, space_id):
    form = SpaceSettingsForm(client, space_id)
    form.load()
    form.default_level_dropdown.value = "guest"
    form.language_dropdown.value = "pt-br"
    form.merge_rules_dropdown.value = "rules"
    form.merge_rules_select.value = ("require_at_least_one_review",)
    assert form.value == {
        "default_level": None,
        "language": "pt-br",
        "merge_rules": {"type": "rules", "rules": [{"rule": "require_at_least_one_review"}]},
    }

    form.save_button.click()
    fresh = sandbox.client().spaces.get(space_id)
    assert fresh.default_level is None
    assert fresh.language == "pt-br"
    assert fresh.merge_rules == {
        "type": "rules",
        "rules": [{"rule": "require_at_least_one_review"}],
    }
    # Reloaded from the answer: the rules show as chosen, nothing is pending.
    assert form.merge_rules_select.value == ("require_at_least_one_review",)
    assert form.value == {}


def test_too_long_title_is_marked_and_nothing_is_sent(sandbox, client, space_id):
    form = SpaceSettingsForm(client, space_id)
    form.load()
    form.title_text.value = "x" * 51

    assert "at most 50 characters" in form.title_error.value
    assert form.errors == {"title": "must have at most 50 characters, got 51"}
    assert form.save_button.disabled
    count = sandbox.request_count
    form.save_button.click()
    assert sandbox.request_count == count
    assert form.status.startswith("Not saved: fix the marked fields")
    with pytest.raises(ValidationError, match="title"):
        form.save(raise_errors=True)
    assert sandbox.request_count == count

    form.title_text.value = "x" * 50
    assert form.title_error.value == ""
    assert not form.save_button.disabled


def test_bad_icon_url_is_marked(sandbox, client, space_id):
    form = SpaceSettingsForm(client, space_id)
    form.load()
    form.icon_kind_toggle.value = "icon"
    form.icon_text.value = "not a url"

    assert "http" in form.icon_error.value
    assert form.save_button.disabled
    count = sandbox.request_count
    assert form.save() is None
    assert sandbox.request_count == count


def test_refused_save_is_shown_in_the_form(sandbox, readonly_client, space_id):
    form = SpaceSettingsForm(readonly_client, space_id)
    form.load()
    original = form.title_text.value
    form.title_text.value = "Not allowed"
    form.save_button.click()

    assert isinstance(form.error, PermissionDeniedError)
    assert form.status.startswith("Saving failed: 403 PermissionDeniedError")
    shown = form.status_output.outputs[0]["data"]["text/plain"]
    assert "403" in shown
    assert form.value == {"title": "Not allowed"}  # the edit is kept for another try
    assert sandbox.client().spaces.get(space_id).title == original
    with pytest.raises(PermissionDeniedError):
        form.save(raise_errors=True)


def test_unknown_space_is_reported_and_save_stays_off(client):
    form = SpaceSettingsForm(client, "NoSuchSpace0000000000")
    form.load()

    assert form.status.startswith("Loading failed: 404")
    assert form.resource is None
    assert form.save_button.disabled
    assert form.save() is None
