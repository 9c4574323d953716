"""client.spaces over real HTTP against the sandbox: lifecycle, moves, embeds, search."""

from __future__ import annotations

import pandas as pd
import pytest

from docsapi import DocsClient, frames
from docsapi.errors import (
    BadRequestError,
    ConflictError,
    NotFoundError,
    PermissionDeniedError,
)
from docsapi.models import Embed, Space


@pytest.fixture
def space_id(sandbox):
    return sandbox.demo["space_ids"][0]


@pytest.fixture
def read_only(sandbox):
    return DocsClient(token=sandbox.tokens["oauth:space:read"], base_url=sandbox.url)


def root_spaces(client, sandbox) -> list[str]:
    frame = client.spaces.list(org_id=sandbox.org_id)
    return frame.loc[frame["parent"].isna(), "id"].tolist()


def test_get_space(client, space_id, sandbox):
    space = client.spaces.get(space_id)
    assert isinstance(space, Space)
    assert space.id == space_id
    assert space.organization == sandbox.org_id
    assert space.created_at.tzinfo is not None
    assert space.url_location.endswith(f"/spaces/{space_id}")


def test_get_unknown_space_is_404(client):
    with pytest.raises(NotFoundError):
        client.spaces.get("no_such_space")


def test_list_org_spaces_has_the_schema_and_every_space(client, sandbox):
    frame = client.spaces.list(org_id=sandbox.org_id)
    assert list(frame.columns) == list(frames.SCHEMAS["spaces"])
    assert set(frame["id"]) == set(sandbox.demo["space_ids"])
    assert frame["id"].is_unique
    assert (frame["organization"] == sandbox.org_id).all()
    assert str(frame["updated_at"].dtype) == "datetime64[ns, UTC]"


def test_list_user_spaces(client, sandbox):
    frame = client.spaces.list(user_id=sandbox.demo["owner_id"])
    assert 0 < len(frame) <= len(sandbox.demo["space_ids"])
    assert list(frame.columns) == list(frames.SCHEMAS["spaces"])


def test_list_unknown_org_is_404(client):
    with pytest.raises(NotFoundError):
        client.spaces.list(org_id="no_such_org")


def test_update_changes_only_the_fields_given(client, space_id):
    before = client.spaces.get(space_id)
    updated = client.spaces.update(space_id, title="Renamed", edit_mode="locked")
    assert updated.title == "Renamed" and updated.edit_mode == "locked"
    assert updated.language == before.language
    assert updated.default_level == before.default_level
    assert updated.emoji == before.emoji


def test_update_default_level_guest_language_and_merge_rules(client, space_id):
    updated = client.spaces.update(
        space_id, default_level=None, language="pt-br", merge_rules={"type": "none"}
    )
    assert updated.default_level is None
    assert updated.language == "pt-br"
    assert updated.merge_rules == {"type": "none"}


def test_emoji_icon_and_clearing(client, space_id):
    with_icon = client.spaces.update(space_id, icon="https://icons.example/rocket.png")
    assert with_icon.url_icon == "https://icons.example/rocket.png"
    with_emoji = client.spaces.update(space_id, emoji="1f680")
    assert with_emoji.emoji == "1f680" and with_emoji.url_icon is None
    cleared = client.spaces.update(space_id, emoji=None)
    assert not cleared.emoji and cleared.url_icon is None


def test_update_unknown_space_is_404(client):
    with pytest.raises(NotFoundError):
        client.spaces.update("no_such_space", title="x")


def test_read_only_token_cannot_change_spaces(read_only, space_id, sandbox):
    assert read_only.spaces.get(space_id).id == space_id
    with pytest.raises(PermissionDeniedError):
        read_only.spaces.update(space_id, title="Nope")
    with pytest.raises(PermissionDeniedError):
        read_only.spaces.delete(space_id)
    with pytest.raises(PermissionDeniedError):
        read_only.spaces.duplicate(space_id)


def test_delete_answers_true_then_false(client, space_id):
    assert client.spaces.delete(space_id) is True
    assert client.spaces.delete(space_id) is False
    assert client.spaces.delete("never_existed") is False
    with pytest.raises(NotFoundError):
        client.spaces.get(space_id)


def test_deleted_space_can_be_restored_within_seven_days(client, sandbox, space_id):
    assert client.spaces.delete(space_id)
    assert space_id not in set(client.spaces.list(org_id=sandbox.org_id)["id"])
    sandbox.advance_clock(days=6)
    restored = client.spaces.restore(space_id)
    assert restored.id == space_id
    assert client.spaces.get(space_id).id == space_id
    assert space_id in set(client.spaces.list(org_id=sandbox.org_id)["id"])


def test_deleted_space_expires_after_seven_days(client, sandbox, space_id):
    assert client.spaces.delete(space_id)
    sandbox.advance_clock(days=8)
    with pytest.raises(NotFoundError, match="7 days"):
        client.spaces.restore(space_id)


def test_duplicate_returns_the_copy_with_its_location(client, sandbox, space_id):
    copy = client.spaces.duplicate(space_id)
    assert copy.id != space_id
    assert copy.location == f"{sandbox.url}/spaces/{copy.id}"
    assert copy.organization == sandbox.org_id
    assert client.spaces.get(copy.id).title == copy.title
    assert copy.id in set(client.spaces.list(org_id=sandbox.org_id)["id"])


def test_duplicate_unknown_space_is_404(client):
    with pytest.raises(NotFoundError):
        client.spaces.duplicate("no_such_space")


def test_move_into_a_collection_and_back(client, sandbox):
    space = root_spaces(client, sandbox)[0]
    collection = sandbox.demo["collection_ids"][0]
    moved = client.spaces.move(space, parent=collection)
    assert moved.parent == collection
    back = client.spaces.move(space, parent=None)
    assert back.parent is None


def test_move_that_changes_nothing_is_409(client, sandbox):
    space = root_spaces(client, sandbox)[0]
    collection = sandbox.demo["collection_ids"][0]
    client.spaces.move(space, parent=collection)  # now last in the collection
    with pytest.raises(ConflictError):
        client.spaces.move(space, parent=collection)


def test_move_before_and_after_siblings(client, sandbox):
    first, second = root_spaces(client, sandbox)[:2]
    collection = sandbox.demo["collection_ids"][1]
    client.spaces.move(first, parent=collection)
    client.spaces.move(second, parent=collection)
    placed = client.spaces.move(second, position={"before": first})
    assert placed.parent == collection
    with pytest.raises(ConflictError):
        client.spaces.move(second, position={"before": first})
    after_collection = client.spaces.move(
        first, parent=None, position={"after": {"collection": collection}}
    )
    assert after_collection.parent is None


def test_move_to_an_unknown_collection_or_position_is_400(client, sandbox):
    space = root_spaces(client, sandbox)[0]
    with pytest.raises(BadRequestError, match="collection"):
        client.spaces.move(space, parent="no_such_collection")
    with pytest.raises(BadRequestError, match="position"):
        client.spaces.move(space, position={"after": "no_such_space"})


def test_move_unknown_space_is_404(client, sandbox):
    with pytest.raises(NotFoundError):
        client.spaces.move("no_such_space", parent=sandbox.demo["collection_ids"][0])


@pytest.mark.parametrize(
    ("url", "kind"),
    [("https://www.youtube.com/watch?v=abc", "rich"), ("https://example.com/guides/setup", "link")],
)
def test_embed(client, space_id, url, kind):
    embed = client.spaces.embed(space_id, url)
    assert isinstance(embed, Embed)
    assert embed.type == kind
    assert embed.site
    assert (embed.html is not None) == (kind == "rich")


def test_search_finds_pages_by_title(client, space_id):
    pages = client.content.pages(space_id)
    title = pages.loc[pages["kind"] == "document", "title"].iloc[0]
    results = client.spaces.search(space_id, title)
    assert list(results.columns) == list(frames.SCHEMAS["search"])
    assert title in results["title"].tolist()
    assert results["rank"].tolist() == list(range(1, len(results) + 1))
    assert all(isinstance(a, list) for a in results["ancestors"])


def test_search_limit_caps_the_rows(client, space_id):
    everything = client.spaces.search(space_id, "the")
    assert len(everything) > 2
    limited = client.spaces.search(space_id, "the", limit=2)
    assert limited["id"].tolist() == everything["id"].tolist()[:2]


def test_search_with_no_match_is_an_empty_typed_frame(client, space_id):
    results = client.spaces.search(space_id, "zzqxjv-nothing-matches")
    assert results.empty
    assert list(results.columns) == list(frames.SCHEMAS["search"])
    assert isinstance(results, pd.DataFrame)
