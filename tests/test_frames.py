"""Offline tests of docsapi.frames on hand-written fixtures that follow the reference schemas."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pandas as pd
import pytest

from docsapi import frames

FIXTURES = Path(__file__).parent / "fixtures"


def load(name: str):
    return json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))


def items(name: str) -> list[dict]:
    return load(name)["items"]


#: schema name -> a function building that frame from its fixture
BUILDERS = {
    "spaces": lambda: frames.spaces(items("spaces")),
    "permission_users": lambda: frames.permission_users("sp_handbook", items("permission_users")),
    "permission_teams": lambda: frames.permission_teams("sp_handbook", items("permission_teams")),
    "files": lambda: frames.files("sp_handbook", items("files")),
    "search": lambda: frames.search("sp_handbook", items("search")),
    "pages": lambda: frames.pages("sp_handbook", load("pages")["pages"]),
    "org_members": lambda: frames.org_members("org_acme", items("org_members")),
    "teams": lambda: frames.teams("org_acme", items("teams")),
    "team_members": lambda: frames.team_members("org_acme", "tm_writers", items("team_members")),
    "organizations": lambda: frames.organizations(items("organizations")),
    "change_requests": lambda: frames.change_requests("sp_handbook", items("change_requests")),
}

EMPTY_BUILDERS = {
    "spaces": lambda: frames.spaces([]),
    "permission_users": lambda: frames.permission_users("sp", []),
    "permission_teams": lambda: frames.permission_teams("sp", []),
    "files": lambda: frames.files("sp", []),
    "search": lambda: frames.search("sp", []),
    "pages": lambda: frames.pages("sp", []),
    "org_members": lambda: frames.org_members("org", []),
    "teams": lambda: frames.teams("org", []),
    "team_members": lambda: frames.team_members("org", "tm", []),
    "organizations": lambda: frames.organizations([]),
    "change_requests": lambda: frames.change_requests("sp", []),
}


def assert_schema(frame: pd.DataFrame, name: str) -> None:
    schema = frames.SCHEMAS[name]
    assert list(frame.columns) == list(schema)
    assert {column: str(dtype) for column, dtype in frame.dtypes.items()} == schema


def test_every_schema_has_a_builder():
    assert set(BUILDERS) == set(frames.SCHEMAS) == set(EMPTY_BUILDERS)


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_fixture_frames_follow_their_schema(name):
    frame = BUILDERS[name]()
    assert_schema(frame, name)
    assert len(frame) > 0


@pytest.mark.parametrize("name", sorted(EMPTY_BUILDERS))
def test_empty_lists_keep_columns_and_dtypes(name):
    frame = EMPTY_BUILDERS[name]()
    assert frame.empty
    assert_schema(frame, name)
    assert_schema(frames.empty(name), name)


def test_schema_columns_cover_the_design_minimum():
    minimum = {
        "spaces": "id title emoji visibility edit_mode language organization parent "
        "created_at updated_at url_app",
        "permission_users": "space_id user_id display_name email role",
        "permission_teams": "space_id team_id title members role",
        "files": "space_id id name content_type size width height download_url",
        "search": "space_id id title path rank result_type ancestors url_app",
        "pages": "space_id id title kind slug path parent_id depth",
        "org_members": "org_id user_id display_name email role",
    }
    for name, columns in minimum.items():
        assert set(columns.split()) <= set(frames.SCHEMAS[name]), name


def test_spaces_flattens_urls_and_converts_timestamps_to_utc():
    frame = frames.spaces(items("spaces")).set_index("id")
    assert (
        frame.loc["sp_handbook", "url_app"] == "https://app.gitbook.com/o/org_acme/s/sp_handbook/"
    )
    assert frame.loc["sp_api", "url_location"] == "https://api.gitbook.com/v1/spaces/sp_api"
    # +02:00 is converted, not dropped
    assert frame.loc["sp_api", "created_at"] == pd.Timestamp("2023-05-31T22:00:00Z")
    assert frame.loc["sp_handbook", "created_at"] == pd.Timestamp("2023-03-14T09:26:53.589Z")
    assert str(frame["created_at"].dt.tz) == "UTC"


def test_spaces_missing_values_are_na():
    frame = frames.spaces(items("spaces")).set_index("id")
    assert pd.isna(frame.loc["sp_api", "default_level"])  # guest default level
    assert pd.isna(frame.loc["sp_api", "language"])  # field absent
    assert pd.isna(frame.loc["sp_api", "parent"])
    assert pd.isna(frame.loc["sp_handbook", "deleted_at"])
    assert frame.loc["sp_old", "deleted_at"] == pd.Timestamp("2024-05-03T10:00:00Z")
    assert frame.loc["sp_api", "emoji"] == ""


def test_permission_users_repeat_the_space_and_keep_roles():
    frame = frames.permission_users("sp_handbook", items("permission_users"))
    assert frame["space_id"].tolist() == ["sp_handbook"] * 3
    assert frame["user_id"].tolist() == ["u_ada", "u_alan", "u_grace"]
    assert frame["role"].tolist() == ["admin", "edit", "read"]
    assert pd.isna(frame.loc[1, "email"])


def test_permission_teams_count_members():
    frame = frames.permission_teams("sp_handbook", items("permission_teams"))
    assert frame["team_id"].tolist() == ["tm_writers", "tm_empty"]
    assert frame["members"].tolist() == [12, 0]
    assert frame["role"].tolist() == ["edit", "admin"]


def test_files_flatten_dimensions_and_make_whole_numbers_ints():
    frame = frames.files("sp_handbook", items("files")).set_index("id")
    assert frame.loc["f_logo", "width"] == 512 and frame.loc["f_logo", "height"] == 256
    assert pd.isna(frame.loc["f_spec", "width"]) and pd.isna(frame.loc["f_spec", "height"])
    assert frame.loc["f_spec", "size"] == 3210
    assert frame.loc["f_photo", "width"] == 1600
    assert frame.loc["f_photo", "download_url"] == "https://files.acme.example/team.jpg"


def test_search_ancestors_are_lists_of_titles():
    frame = frames.search("sp_handbook", items("search"))
    assert frame["ancestors"].tolist() == [["Guides"], ["Reference", "Authentication"], []]
    assert frame["rank"].tolist() == [1, 2, 3]
    assert frame["result_type"].tolist()[:2] == ["page", "page"]
    assert pd.isna(frame.loc[2, "result_type"])
    assert frame.loc[1, "url_app"].endswith("/reference/auth/tokens")


def test_pages_tree_is_flattened_parents_first():
    frame = frames.pages("sp_handbook", load("pages")["pages"])
    assert frame["id"].tolist() == [
        "pg_home",
        "pg_guides",
        "pg_install",
        "pg_linux",
        "pg_mac",
        "pg_status",
        "pg_openapi",
    ]
    by_id = frame.set_index("id")
    assert by_id["depth"].to_dict() == {
        "pg_home": 0,
        "pg_guides": 0,
        "pg_install": 1,
        "pg_linux": 2,
        "pg_mac": 2,
        "pg_status": 1,
        "pg_openapi": 0,
    }
    assert by_id["position"].to_dict() == {
        "pg_home": 0,
        "pg_guides": 1,
        "pg_install": 0,
        "pg_linux": 0,
        "pg_mac": 1,
        "pg_status": 1,
        "pg_openapi": 2,
    }
    assert pd.isna(by_id.loc["pg_home", "parent_id"])
    assert by_id.loc["pg_install", "parent_id"] == "pg_guides"
    assert by_id.loc["pg_linux", "parent_id"] == "pg_install"


def test_pages_paths_kinds_and_types():
    by_id = frames.pages("sp_handbook", load("pages")["pages"]).set_index("id")
    assert by_id.loc["pg_linux", "path"] == "guides/install/linux"
    # the API omitted this path: it is built from the parent's path and the slug
    assert by_id.loc["pg_mac", "path"] == "guides/install/macos"
    assert by_id.loc["pg_home", "path"] == ""
    assert pd.isna(by_id.loc["pg_status", "path"])
    assert by_id["kind"].to_dict() == {
        "pg_home": "document",
        "pg_guides": "group",
        "pg_install": "document",
        "pg_linux": "document",
        "pg_mac": "document",
        "pg_status": "link",
        "pg_openapi": "document",
    }
    assert by_id.loc["pg_openapi", "type"] == "computed"
    assert (by_id["space_id"] == "sp_handbook").all()


def test_org_members_guest_role_is_na_and_flags_are_boolean():
    frame = frames.org_members("org_acme", items("org_members")).set_index("user_id")
    assert frame.loc["u_ada", "role"] == "admin"
    assert pd.isna(frame.loc["u_guest", "role"])
    assert bool(frame.loc["u_guest", "disabled"]) is True
    assert pd.isna(frame.loc["u_guest", "last_seen_at"])
    assert frame.loc["u_ada", "last_seen_at"] == pd.Timestamp("2024-05-01T08:30:00Z")
    assert pd.isna(frame.loc["u_guest", "email"])


def test_teams_and_team_members():
    teams = frames.teams("org_acme", items("teams"))
    assert teams["members"].tolist() == [12, 0]
    assert teams["org_id"].unique().tolist() == ["org_acme"]
    members = frames.team_members("org_acme", "tm_writers", items("team_members"))
    assert members["user_id"].tolist() == ["u_ada", "u_alan"]
    assert members["role"].tolist() == ["owner", "member"]
    assert members["display_name"].tolist() == ["Ada Lovelace", "Alan Turing"]
    assert (members["team_id"] == "tm_writers").all()


def test_organizations_and_change_requests():
    orgs = frames.organizations(items("organizations"))
    assert orgs["type"].tolist() == ["business", "community"]
    assert orgs.loc[0, "created_at"] == pd.Timestamp("2020-05-05T05:05:05.500Z")
    crs = frames.change_requests("sp_handbook", items("change_requests"))
    assert crs["number"].tolist() == [7, 8]
    assert crs["status"].tolist() == ["open", "draft"]
    assert crs.loc[0, "url_app"].endswith("/changes/7/")


def test_frames_do_not_change_their_input():
    records = items("spaces")
    before = copy.deepcopy(records)
    frames.spaces(records)
    tree = load("pages")["pages"]
    tree_before = copy.deepcopy(tree)
    frames.pages("sp", tree)
    assert records == before and tree == tree_before


def test_unexpected_value_types_are_coerced_not_fatal():
    records = [
        {"id": 123, "title": "Numbered", "createdAt": "not a date", "urls": None},
        {"id": "ok", "title": None, "createdAt": None},
    ]
    frame = frames.spaces(records)
    assert_schema(frame, "spaces")
    assert frame["id"].tolist() == ["123", "ok"]
    assert frame["created_at"].isna().all()
    assert frame["url_app"].isna().all()


def test_timestamp_precision_is_nanoseconds_utc():
    frame = frames.teams("o", [{"id": "t", "createdAt": "2024-01-01T00:00:00.123456Z"}])
    assert str(frame["created_at"].dtype) == "datetime64[ns, UTC]"
    assert frame.loc[0, "created_at"].microsecond == 123456


def test_unknown_schema_name_raises_key_error():
    with pytest.raises(KeyError):
        frames.empty("nope")


def test_permission_frames_take_one_space_id_per_record():
    records = [
        {"permission": "edit", "user": {"id": "u1"}},
        {"permission": "read", "user": {"id": "u2"}},
    ]
    frame = frames.permission_users(["s1", "s2"], records)
    assert list(frame["space_id"]) == ["s1", "s2"]
    assert list(frame["user_id"]) == ["u1", "u2"]
    with pytest.raises(ValueError, match="one per record"):
        frames.permission_users(["s1"], records)
