"""UserProfileForm against the sandbox: the current user by default, edits, validation, refusals."""

from __future__ import annotations

import pytest

import docsapi
from docsapi.errors import PermissionDeniedError, ValidationError
from docsapi.widgets import UserProfileForm


def test_form_defaults_to_the_current_user(sandbox, client):
    me = client.users.me()
    form = UserProfileForm(client)
    form.load()

    assert form.user_id == me.id == sandbox.demo["owner_id"]
    assert form.display_name_text.value == me.display_name
    assert form.photo_url_text.value == (me.photo_url or "")
    assert form.value == {}
    assert form.save_button.disabled


def test_save_sends_only_the_changed_name(sandbox, client):
    form = UserProfileForm(client)
    form.load()
    photo = "https://example.com/concurrent.png"
    sandbox.client().users.update(form.user_id, photo_url=photo)

    form.display_name_text.value = "Frances L."
    assert form.value == {"display_name": "Frances L."}
    form.save_button.click()

    assert form.status == "Saved display_name."
    fresh = sandbox.client().users.me()
    assert fresh.display_name == "Frances L."
    assert fresh.photo_url == photo  # not overwritten with the value the form had loaded
    assert form.photo_url_text.value == photo


def test_photo_url_is_saved(sandbox, client):
    form = UserProfileForm(client, user_id=sandbox.demo["owner_id"])
    form.load()
    form.photo_url_text.value = "https://example.com/me.png"
    user = form.save()

    assert user.photo_url == "https://example.com/me.png"
    assert sandbox.client().users.get(form.user_id).photo_url == "https://example.com/me.png"
    assert "me.png" in form.photo_html.value


@pytest.mark.parametrize(
    ("name", "problem"),
    [("", "must not be empty"), ("x" * 65, "at most 64 characters"), ("   ", "whitespace")],
)
def test_bad_display_name_is_marked_and_nothing_is_sent(sandbox, client, name, problem):
    form = UserProfileForm(client)
    form.load()
    form.display_name_text.value = name

    assert problem in form.display_name_error.value
    assert form.save_button.disabled
    count = sandbox.request_count
    form.save_button.click()
    assert sandbox.request_count == count
    with pytest.raises(ValidationError, match="display_name"):
        form.save(raise_errors=True)


def test_bad_photo_url_is_marked(sandbox, client):
    form = UserProfileForm(client)
    form.load()
    form.photo_url_text.value = "ftp://example.com/me.png"

    assert "http" in form.photo_url_error.value
    assert form.save_button.disabled
    count = sandbox.request_count
    assert form.save() is None
    assert sandbox.request_count == count


def test_editing_someone_else_is_refused_in_the_form(sandbox):
    other = docsapi.DocsClient(base_url=sandbox.url, token=sandbox.tokens["other-user"])
    owner_id = sandbox.demo["owner_id"]
    form = UserProfileForm(other, user_id=owner_id)
    form.load()
    before = form.display_name_text.value
    form.display_name_text.value = "Hijacked"
    form.save_button.click()

    assert isinstance(form.error, PermissionDeniedError)
    assert form.status.startswith("Saving failed: 403")
    assert sandbox.client().users.get(owner_id).display_name == before


def test_token_without_user_scope_cannot_load(sandbox):
    readonly = docsapi.DocsClient(base_url=sandbox.url, token=sandbox.tokens["oauth:space:read"])
    form = UserProfileForm(readonly)
    form.load()

    assert form.status.startswith("Loading failed: 403")
    assert form.save_button.disabled
