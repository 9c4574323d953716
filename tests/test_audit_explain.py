"""``PermissionAudit.explain``: every path that gives a user a space, against the sandbox."""

from __future__ import annotations

import dataclasses

import pandas as pd
import pytest

from docsapi import audit_permissions, load_audit
from docsapi.audit import EXPLAIN_COLUMNS, ROLE_DTYPE, analyze
from docsapi.errors import ValidationError


@pytest.fixture(scope="module")
def demo_audit(sandbox_server):
    """One audit of the seeded demo organization, shared by the read-only tests below."""
    sandbox_server.reset()
    return audit_permissions(sandbox_server.client(), sandbox_server.org_id, progress=False)


def test_every_path_example_of_the_demo_is_explained_with_its_role(demo_audit, sandbox):
    for name, example in sandbox.demo["path_examples"].items():
        paths = demo_audit.explain(example["space_id"], example["user_id"])
        given = dict(zip(paths["source"], paths["role"].astype(str), strict=True))
        assert given.get(example["source"]) == example["role"], name


@pytest.mark.full  # several seconds: `pytest --full` (and CI)
def test_the_paths_of_each_access_make_up_its_effective_row(demo_audit):
    effective = demo_audit.effective.astype({"role": object, "sources": str})
    for row in effective.itertuples():
        paths = demo_audit.explain(row.space_id, row.user_id)
        counted = paths[paths["status"] != "overridden"]
        assert counted["role"].max() == row.role, (row.space_title, row.display_name)
        assert set(counted["source"]) == set(row.sources.split("; "))
        assert paths["status"].iloc[0] == "decides"  # the paths that decide come first
        assert (paths["space_title"] == row.space_title).all()
        assert (paths["display_name"] == row.display_name).all()


def test_a_guest_editing_through_a_collection_is_shown_the_collection_by_name(
    demo_audit, sandbox, client
):
    space_id, user_id = sandbox.demo["guest_write_via_collection"][0]
    paths = demo_audit.explain(space_id, user_id)

    assert list(paths.columns) == EXPLAIN_COLUMNS
    assert paths["role"].dtype == ROLE_DTYPE
    assert list(paths["kind"]) == ["collection"]
    row = paths.iloc[0]
    assert row["member_role"] == "guest" and row["role"] >= "edit"
    assert row["collection_title"] == client.collections.get(row["collection_id"]).title
    collection_users = client.collections.users(row["collection_id"])
    granted = collection_users.set_index("user_id")["role"].astype(str)
    assert granted[user_id] == row["role"]


def test_team_paths_name_the_team(demo_audit, sandbox, client):
    example = sandbox.demo["path_examples"]["collection-team"]
    paths = demo_audit.explain(example["space_id"], example["user_id"])
    teams = client.orgs.teams(sandbox.org_id).set_index("id")["title"]
    with_team = paths[paths["team_id"].notna()]

    assert not with_team.empty
    for row in with_team.itertuples():
        assert row.team_title == teams[row.team_id]
    collection_team = paths[paths["kind"] == "collection-team"].iloc[0]
    assert collection_team["collection_title"] in collection_team["source_name"]
    assert collection_team["team_title"] in collection_team["source_name"]


def test_names_and_email_find_the_same_paths_as_ids(demo_audit, sandbox):
    example = sandbox.demo["path_examples"]["collection"]
    by_id = demo_audit.explain(example["space_id"], example["user_id"])
    title, name = by_id.loc[0, "space_title"], by_id.loc[0, "display_name"]
    email = demo_audit.data.members.set_index("user_id").loc[example["user_id"], "email"]

    pd.testing.assert_frame_equal(demo_audit.explain(title, name), by_id)
    pd.testing.assert_frame_equal(demo_audit.explain(title, email), by_id)


def test_a_non_member_is_explained_by_their_remaining_grant(demo_audit, sandbox):
    example = sandbox.demo["path_examples"]["non-member"]
    paths = demo_audit.explain(example["space_id"], example["user_id"])

    assert list(paths["member_role"]) == ["non-member"]
    assert list(paths["source"]) == ["direct"]


def test_a_known_user_without_access_gets_an_empty_frame(demo_audit, sandbox):
    space_id = sandbox.demo["space_ids"][0]
    reaching = set(
        demo_audit.effective.loc[demo_audit.effective["space_id"] == space_id, "user_id"]
    )
    outsider = next(user for user in sandbox.demo["guest_ids"] if user not in reaching)
    paths = demo_audit.explain(space_id, outsider)

    assert paths.empty and list(paths.columns) == EXPLAIN_COLUMNS


def test_a_disabled_member_reaches_nothing_though_their_grants_remain(demo_audit, sandbox):
    user_id = sandbox.demo["disabled_member_ids"][0]
    grants = demo_audit.grants[demo_audit.grants["principal_id"] == user_id]
    spaces = grants.loc[grants["target_type"] == "space", "target_id"]

    assert not spaces.empty
    for space_id in spaces:
        assert demo_audit.explain(space_id, user_id).empty


@pytest.mark.parametrize(
    ("space", "user", "argument"),
    [
        ("No such space", None, "space"),
        (None, "Nobody Atall", "user"),
        ("", None, "space"),
        (None, 42, "user"),
    ],
)
def test_unknown_or_malformed_names_are_refused(demo_audit, sandbox, space, user, argument):
    example = sandbox.demo["path_examples"]["direct"]
    space = example["space_id"] if space is None else space
    user = example["user_id"] if user is None else user
    with pytest.raises(ValidationError) as caught:
        demo_audit.explain(space, user)
    assert caught.value.argument == argument
    assert "pass a" in str(caught.value)


def test_a_title_shared_by_two_spaces_asks_for_the_id(demo_audit, sandbox):
    first, second = sandbox.demo["space_ids"][:2]
    spaces = demo_audit.data.spaces.copy()
    title = spaces.loc[spaces["id"] == first, "title"].iloc[0]
    spaces.loc[spaces["id"] == second, "title"] = title
    twin = analyze(dataclasses.replace(demo_audit.data, spaces=spaces))
    user_id = twin.effective.loc[twin.effective["space_id"] == first, "user_id"].iloc[0]

    with pytest.raises(ValidationError, match=f"{first}.*{second}|{second}.*{first}"):
        twin.explain(title, user_id)
    assert not twin.explain(first, user_id).empty


def test_a_trashed_space_is_refused(sandbox, client):
    example = sandbox.demo["path_examples"]["direct"]
    client.spaces.delete(example["space_id"])
    audit = audit_permissions(client, sandbox.org_id, progress=False)

    with pytest.raises(ValidationError, match="names no active space"):
        audit.explain(example["space_id"], example["user_id"])


def test_removing_the_collection_grant_removes_the_path(sandbox, client):
    space_id, user_id = sandbox.demo["guest_write_via_collection"][0]
    before = audit_permissions(client, sandbox.org_id, progress=False)
    collection_id = before.explain(space_id, user_id)["collection_id"].iloc[0]

    assert client.collections.remove_user(collection_id, user_id) is True
    after = audit_permissions(client, sandbox.org_id, progress=False)

    assert after.explain(space_id, user_id).empty


def test_a_loaded_snapshot_explains_like_the_audit(demo_audit, sandbox, tmp_path):
    example = sandbox.demo["path_examples"]["collection-team"]
    loaded = load_audit(demo_audit.save(tmp_path / "audit"))

    pd.testing.assert_frame_equal(
        loaded.explain(example["space_id"], example["user_id"]),
        demo_audit.explain(example["space_id"], example["user_id"]),
    )
