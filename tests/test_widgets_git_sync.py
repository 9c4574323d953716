"""GitSyncForm against the sandbox: queue, poll to the end (in this thread or a background one)."""

from __future__ import annotations

import pytest

import docsapi
from docsapi.errors import PermissionDeniedError, ValidationError
from docsapi.widgets import GitSyncForm

REPO = "https://github.com/acme/handbook"


@pytest.fixture
def git_space(sandbox) -> str:
    """A space with a Git provider configured."""
    return sandbox.demo["git_space_ids"][0]


@pytest.fixture
def plain_space(sandbox) -> str:
    """A space without a Git provider."""
    return next(s for s in sandbox.demo["space_ids"] if s not in sandbox.demo["git_space_ids"])


def test_form_shows_the_git_state_and_prefills_the_url(client, git_space):
    state = client.git.info(git_space)
    form = GitSyncForm(client, git_space)
    form.load()

    assert form.state.installation_provider == state.installation_provider
    assert state.installation_provider in form.state_html.value
    assert form.url_text.value == state.url
    assert form.value == {"url": state.url, "ref": "refs/heads/main"}
    assert not form.save_button.disabled


def test_space_without_provider_says_so(client, plain_space):
    form = GitSyncForm(client, plain_space)
    form.load()

    assert form.state is None
    assert "No Git provider is configured" in form.state_html.value
    assert form.url_text.value == ""
    assert form.save_button.disabled  # the URL is still missing


def test_import_waits_for_the_operation_to_end(sandbox, client, plain_space):
    form = GitSyncForm(client, plain_space, interval=0.01)
    form.load()
    form.url_text.value = REPO
    form.standalone_checkbox.value = True
    assert form.value == {"url": REPO, "ref": "refs/heads/main", "standalone": True}
    state = form.save(wait=True)

    assert "Import queued." in form.messages
    assert state.operation_state == "success"
    assert form.status == "The import finished successfully."
    assert (form.progress_bar.value, form.progress_bar.bar_style) == (100, "success")
    fresh = sandbox.client().git.info(plain_space)
    assert (fresh.operation_direction, fresh.operation_state, fresh.url) == (
        "import",
        "success",
        REPO,
    )


def test_start_button_follows_the_export_in_the_background(sandbox, client, git_space):
    form = GitSyncForm(client, git_space, interval=0.01)
    form.load()
    form.direction_toggle.value = "export"
    form.commit_message_text.value = "Sync from the notebook"
    assert form.save_button.description == "Start export"
    form.save_button.click()
    final = form.wait(timeout=30)

    assert not form.running
    assert not form.save_button.disabled  # ready for another operation
    assert final.operation_direction == "export"
    assert final.operation_state == "success"
    assert "Export queued." in form.messages
    assert form.status == "The export finished successfully."
    assert sandbox.client().git.info(git_space).operation_state == "success"


def test_failed_operation_is_reported(client, plain_space):
    form = GitSyncForm(client, plain_space, interval=0.01)
    form.load()
    form.url_text.value = "https://git.example.invalid/acme/docs"
    state = form.save(wait=True)

    assert state.operation_state == "failure"
    assert form.status.startswith("The import ended with failure: Repository")
    assert form.progress_bar.bar_style == "danger"


def test_polling_stops_at_the_timeout(client, git_space):
    form = GitSyncForm(client, git_space, timeout=1e-6, interval=0.01)
    form.load()
    state = form.save(wait=True)

    assert state.operation_state == "running"
    assert form.status.startswith("The import is still running after")
    assert form.progress_bar.bar_style == "warning"


def test_export_needs_a_commit_message_and_nothing_is_sent(sandbox, client, git_space):
    form = GitSyncForm(client, git_space)
    form.load()
    form.direction_toggle.value = "export"

    assert form.errors == {"commit_message": "must not be empty"}
    assert form.save_button.disabled
    count = sandbox.request_count
    form.save_button.click()
    assert sandbox.request_count == count
    assert "must not be empty" in form.commit_message_error.value
    with pytest.raises(ValidationError, match="commit_message"):
        form.save(raise_errors=True)


def test_bad_url_is_marked(sandbox, client, git_space):
    form = GitSyncForm(client, git_space)
    form.load()
    form.url_text.value = "github.com/acme/docs"

    assert "http" in form.url_error.value
    assert form.save_button.disabled
    count = sandbox.request_count
    assert form.save(wait=True) is None
    assert sandbox.request_count == count


def test_refused_import_is_shown_in_the_form(sandbox, git_space):
    readonly = docsapi.DocsClient(base_url=sandbox.url, token=sandbox.tokens["oauth:space:read"])
    form = GitSyncForm(readonly, git_space)
    form.load()
    form.save_button.click()

    assert not form.running
    assert isinstance(form.error, PermissionDeniedError)
    assert form.status.startswith("Starting the import failed: 403")


def test_timeout_must_be_positive(client, git_space):
    with pytest.raises(ValidationError, match="timeout"):
        GitSyncForm(client, git_space, timeout=0)


def test_an_import_hides_only_the_commit_message(client, git_space):
    form = GitSyncForm(client, git_space)

    assert form.commit_message_text.layout.display == "none"
    assert form.commit_message_error.layout.display == "none"
    shown = (form.url_text, form.url_error, form.ref_text, form.ref_error)
    assert all(widget.layout.display != "none" for widget in shown)
    form.direction_toggle.value = "export"
    assert form.commit_message_text.layout.display == ""
