"""What every form shares: nothing sent when built, loading when shown, actions, subclasses."""

from __future__ import annotations

import socket
from collections.abc import Callable
from typing import Any

import ipywidgets as widgets
import pytest
from IPython.core.formatters import DisplayFormatter

import docsapi
from docsapi.core.checks import check_space_title
from docsapi.errors import APIConnectionError, MissingCredentialError, PermissionDeniedError
from docsapi.widgets import (
    CollectionPermissionEditor,
    GitSyncForm,
    MoveSpaceForm,
    OrgMemberForm,
    PermissionEditor,
    ShareLinkPanel,
    SpaceLifecyclePanel,
    SpaceSettingsForm,
    TeamMembersEditor,
    UserProfileForm,
)
from docsapi.widgets._base import NOT_LOADED, EditForm, FormBase

#: One way to build each form, from a client and the sandbox's demo ids.
FORMS: dict[str, Callable[[Any, dict[str, Any]], FormBase]] = {
    "SpaceSettingsForm": lambda client, demo: SpaceSettingsForm(client, demo["space_ids"][0]),
    "UserProfileForm": lambda client, demo: UserProfileForm(client),
    "PermissionEditor": lambda client, demo: PermissionEditor(client, demo["space_ids"][0]),
    "MoveSpaceForm": lambda client, demo: MoveSpaceForm(client, demo["space_ids"][0]),
    "GitSyncForm": lambda client, demo: GitSyncForm(client, demo["git_space_ids"][0]),
    "SpaceLifecyclePanel": lambda client, demo: SpaceLifecyclePanel(client, demo["space_ids"][0]),
    "CollectionPermissionEditor": lambda client, demo: CollectionPermissionEditor(
        client, demo["collections"]["product"]
    ),
    "OrgMemberForm": lambda client, demo: OrgMemberForm(
        client, demo["org_id"], demo["disabled_member_ids"][0]
    ),
    "TeamMembersEditor": lambda client, demo: TeamMembersEditor(
        client, demo["org_id"], demo["team_ids"][0]
    ),
    "ShareLinkPanel": lambda client, demo: ShareLinkPanel(
        client, demo["org_id"], demo["sites"]["share-link"]
    ),
}


def _show(form: FormBase) -> None:
    """Display the form the way IPython does for ``display(form)`` or a cell ending in it."""
    DisplayFormatter().format(form)


@pytest.fixture
def unreachable_client():
    """A client of a port nothing listens on (connection refused), without retries."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return docsapi.DocsClient(
        base_url=f"http://127.0.0.1:{port}/v1", token="gb_api_unreachable", max_retries=0
    )


@pytest.mark.parametrize("make", FORMS.values(), ids=list(FORMS))
def test_building_a_form_sends_nothing_then_load_loads(sandbox, client, make):
    # A request sent while building would wait a second, then stall and be logged.
    sandbox.set_latency(1.0)
    sandbox.inject("stall", count=20)
    form = make(client, sandbox.demo)

    assert sandbox.request_count == 0
    assert sandbox.faults_pending == 20
    assert not form.loaded
    assert form.status == NOT_LOADED

    sandbox.reset()
    form.load()
    assert form.loaded
    assert form.error is None
    assert "Loading…" in form.messages
    assert form.status.startswith(("Loaded", "Ready"))
    assert sandbox.request_count > 0


@pytest.mark.parametrize("make", FORMS.values(), ids=list(FORMS))
def test_an_unreachable_server_is_reported_in_the_form(sandbox, unreachable_client, make):
    form = make(unreachable_client, sandbox.demo)
    _show(form)  # loading on display: the error is shown, not raised

    assert not form.loaded
    assert isinstance(form.error, APIConnectionError)
    assert form.status.startswith("Loading failed: APIConnectionError")
    with pytest.raises(APIConnectionError):
        form.load(raise_errors=True)


def test_displaying_a_form_loads_it_once(sandbox, client):
    space_id = sandbox.demo["space_ids"][0]
    title = client.spaces.get(space_id).title
    form = SpaceSettingsForm(client, space_id)
    count = sandbox.request_count
    _show(form)

    assert form.loaded
    assert form.title_text.value == title
    assert form.messages == [NOT_LOADED, "Loading…", "Loaded the current values."]
    assert sandbox.request_count == count + 1
    _show(form)
    assert sandbox.request_count == count + 1


def test_buttons_are_disabled_while_an_action_runs(sandbox, client):
    panel = SpaceLifecyclePanel(client, sandbox.demo["space_ids"][0])
    panel.load()
    seen: list[tuple[bool, int]] = []
    panel.reload_button.observe(
        lambda change: seen.append((change["new"], sandbox.request_count)), names="disabled"
    )
    count = sandbox.request_count
    panel.duplicate_button.click()

    # Disabled before the request went out, enabled again once its answer was in.
    assert seen == [(True, count), (False, count + 1)]
    assert "Duplicating…" in panel.messages
    assert not panel.duplicate_button.disabled


# -- a new form or panel is a short class over the bases ------------------------------------------
class SpaceTitleForm(EditForm):
    """A space's title: one field, one read, one update."""

    heading = "Space title"

    def __init__(self, client: Any, space_id: str, **kwargs: Any) -> None:
        self.space_id = space_id
        super().__init__(client, **kwargs)

    def _build(self) -> None:
        self.title_text = widgets.Text(description="Title")
        self.title_error = self._field("title", self.title_text, check=check_space_title).error

    def _fetch(self) -> Any:
        return self.client.spaces.get(self.space_id)

    def _values_of(self, space: Any) -> dict[str, Any]:
        return {"title": space.title}

    def _submit(self, changes: dict[str, Any]) -> Any:
        return self.client.spaces.update(self.space_id, **changes)


class RestorePanel(FormBase):
    """One action: bring a space back from the trash."""

    heading = "Restore"

    def __init__(self, client: Any, space_id: str, **kwargs: Any) -> None:
        self.space_id = space_id
        super().__init__(client, **kwargs)

    def _build(self) -> None:
        self.restore_button = widgets.Button(description="Restore")

    def _wire(self) -> None:
        self.restore_button.on_click(lambda _button: self.restore())

    def _rows(self) -> tuple[widgets.Widget, ...]:
        return (self.restore_button,)

    def restore(self) -> Any:
        ok, space = self._run(lambda: self.client.spaces.restore(self.space_id), doing="Restoring")
        if ok:
            self._report(f"Restored {space.title}.", "success")
        return space


def test_a_short_edit_form_validates_saves_and_reports(sandbox, client):
    space_id = sandbox.demo["space_ids"][0]
    form = SpaceTitleForm(client, space_id)
    form.load()

    form.title_text.value = "x" * 51
    assert "at most 50 characters" in form.title_error.value
    assert form.save_button.disabled
    form.title_text.value = "Short form"
    assert form.value == {"title": "Short form"}
    form.save_button.click()

    assert form.status == "Saved title."
    assert sandbox.client().spaces.get(space_id).title == "Short form"
    assert form.value == {}


def test_a_short_panel_runs_its_action_and_shows_errors(sandbox, client):
    space_id = sandbox.demo["space_ids"][0]
    title = client.spaces.get(space_id).title
    client.spaces.delete(space_id)
    readonly = docsapi.DocsClient(base_url=sandbox.url, token=sandbox.tokens["oauth:space:read"])

    refused = RestorePanel(readonly, space_id)
    refused.restore_button.click()
    assert isinstance(refused.error, PermissionDeniedError)
    assert refused.status.startswith("Restoring failed: 403")

    panel = RestorePanel(client, space_id)
    panel.restore_button.click()
    assert panel.status == f"Restored {title}."
    assert sandbox.client().spaces.get(space_id).title == title


@pytest.mark.parametrize("make", FORMS.values(), ids=list(FORMS))
def test_a_client_without_token_is_reported_in_plain_words(sandbox, monkeypatch, make):
    monkeypatch.delenv("GITBOOK_API_TOKEN", raising=False)
    tokenless = docsapi.DocsClient(base_url=sandbox.url)
    form = make(tokenless, sandbox.demo)
    form.load()

    assert isinstance(form.error, MissingCredentialError)
    assert form.status == f"Loading failed: {form.error}"
    assert form.status.startswith("Loading failed: No API token found")
    assert "None" not in form.status
    assert "MissingCredentialError" not in form.status
    assert sandbox.request_count == 0
