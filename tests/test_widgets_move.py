"""MoveSpaceForm against the sandbox: collections, positions, and the 409 of a no-op move."""

from __future__ import annotations

import pytest

import docsapi
from docsapi.errors import ConflictError, PermissionDeniedError
from docsapi.widgets import MoveSpaceForm
from docsapi.widgets._base import clean


@pytest.fixture
def spaces(client, sandbox):
    return client.spaces.list(org_id=sandbox.org_id)


@pytest.fixture
def top_level(spaces) -> list[str]:
    """Ids of the spaces at the top level, in listing order."""
    return [row.id for row in spaces.itertuples() if clean(row.parent) is None]


def test_form_shows_where_the_space_is(sandbox, client, top_level):
    form = MoveSpaceForm(client, top_level[0])
    form.load()

    assert form.parent_dropdown.value == ""
    offered = {value for _label, value in form.parent_dropdown.options} - {""}
    assert offered == set(sandbox.demo["collection_ids"])
    assert "at the top level" in form.current_html.value
    siblings = {value for _label, value in form.sibling_dropdown.options}
    assert siblings == set(top_level[1:])
    # Without a sibling, the move is "to the end of the chosen parent".
    assert form.value == {"parent": None}


def test_move_into_a_collection_then_again_is_a_friendly_409(sandbox, client, top_level):
    collection = sandbox.demo["collection_ids"][0]
    form = MoveSpaceForm(client, top_level[0])
    form.load()
    form.parent_dropdown.value = collection
    assert form.value == {"parent": collection}
    form.save_button.click()

    assert form.status == f"Moved into collection {collection} at the end."
    assert sandbox.client().spaces.get(top_level[0]).parent == collection
    assert form.parent_dropdown.value == collection  # the form shows the new place

    again = MoveSpaceForm(client, top_level[0])
    again.load()
    assert again.value == {"parent": collection}
    assert again.save() is None
    assert sandbox.request_log[-1][2] == 409
    assert isinstance(again.error, ConflictError)
    assert again.status.startswith("Nothing moved (409): the space is already there")
    with pytest.raises(ConflictError):
        again.save(raise_errors=True)


def test_place_after_a_sibling_sends_only_the_position(sandbox, client, top_level):
    space_id, sibling = top_level[0], top_level[3]
    form = MoveSpaceForm(client, space_id)
    form.load()
    form.place_toggle.value = "after"
    form.sibling_dropdown.value = sibling
    assert form.value == {"position": {"after": sibling}}
    moved = form.save()

    assert moved is not None and moved.parent is None
    assert form.status.startswith("Moved after ")
    # The space really is after that sibling now: asking for the same place changes nothing.
    with pytest.raises(ConflictError):
        sandbox.client().spaces.move(space_id, position={"after": sibling})


def test_move_out_of_a_collection_to_the_top_level(sandbox, client, spaces):
    space_id = next(row.id for row in spaces.itertuples() if clean(row.parent) is not None)
    form = MoveSpaceForm(client, space_id)
    form.load()
    form.parent_dropdown.value = ""
    form.save_button.click()

    assert form.status == "Moved to the top level at the end."
    assert sandbox.client().spaces.get(space_id).parent is None


def test_position_without_a_sibling_is_marked_and_not_sent(sandbox, client, top_level):
    form = MoveSpaceForm(client, top_level[0])
    form.load()
    form.place_toggle.value = "before"
    form.sibling_dropdown.value = None

    assert "pick a space to go before" in form.sibling_error.value
    assert form.save_button.disabled
    count = sandbox.request_count
    form.save_button.click()
    assert sandbox.request_count == count


def test_refused_move_is_shown_in_the_form(sandbox, top_level):
    readonly = docsapi.DocsClient(base_url=sandbox.url, token=sandbox.tokens["oauth:space:read"])
    form = MoveSpaceForm(readonly, top_level[0])
    form.load()
    form.parent_dropdown.value = sandbox.demo["collection_ids"][0]
    form.save_button.click()

    assert isinstance(form.error, PermissionDeniedError)
    assert form.status.startswith("Saving failed: 403")
    assert sandbox.client().spaces.get(top_level[0]).parent is None
