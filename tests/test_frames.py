"""Offline tests of docsapi.frames on hand-written fixtures that follow the API description."""

from __future__ import annotations

import copy
import inspect
import json
import sys
from pathlib import Path

import pandas as pd
import pytest

import docsapi
from docsapi.data import frames
from docsapi.data.fields import mask_query, mask_share_url

FIXTURES = Path(__file__).parent / "fixtures"
DESCRIPTION = Path(__file__).parent / "openapi" / "gitbook-openapi-subset.json"


def load(name: str):
    return json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))


def items(name: str) -> list[dict]:
    return load(name)["items"]


#: schema name -> (the ids the function is called with, before the records)
PARENTS = {
    "spaces": (),
    "permission_users": ("sp_handbook",),
    "permission_teams": ("sp_handbook",),
    "permission_aggregate": ("sp_handbook",),
    "files": ("sp_handbook",),
    "search": ("sp_handbook",),
    "pages": ("sp_handbook",),
    "change_requests": ("sp_handbook",),
    "organizations": (),
    "org_members": ("org_acme",),
    "member_spaces": ("org_acme", "u_ada"),
    "teams": ("org_acme",),
    "team_members": ("org_acme", "tm_writers"),
    "invite_links": ("org_acme",),
    "audit_events": ("org_acme",),
    "collections": (),
    "collection_users": ("col_guides",),
    "collection_teams": ("col_guides",),
    "collection_aggregate": ("col_guides",),
    "sites": ("org_acme",),
    "site_spaces": ("site_docs",),
    "share_links": ("site_partners",),
    "site_users": ("site_docs",),
    "site_teams": ("site_docs",),
}

#: fixture item -> the description's schema it follows (the description wins over the fixture)
ITEM_SCHEMAS = {
    "spaces": "Space",
    "permission_users": "UserContentPermission",
    "permission_aggregate": "UserContentPermission",
    "files": "RevisionFile",
    "search": "SearchPageResult",
    "change_requests": "ChangeRequest",
    "organizations": "Organization",
    "org_members": "OrganizationMember",
    "member_spaces": "MemberContentPermission",
    "teams": "OrganizationTeam",
    "team_members": "OrganizationTeamMember",
    "invite_links": "OrganizationInviteLink",
    "audit_events": "AuditEvent",
    "collections": "Collection",
    "collection_users": "UserContentPermission",
    "sites": "Site",
    "site_spaces": "SiteSpace",
    "share_links": "ShareLink",
    "site_users": "UserSitePermissionOverride",
    "site_teams": "TeamSitePermissionOverride",
}


def records_of(name: str) -> list[dict]:
    if name == "pages":
        return load("pages")["pages"]
    if name == "collection_aggregate":
        return items("permission_aggregate")
    return items(name)


def build(name: str, records=None) -> pd.DataFrame:
    function = getattr(frames, name)
    return function(*PARENTS[name], records_of(name) if records is None else records)


def assert_schema(frame: pd.DataFrame, name: str) -> None:
    schema = frames.SCHEMAS[name]
    assert list(frame.columns) == list(schema)
    assert {column: str(dtype) for column, dtype in frame.dtypes.items()} == schema


# -- the declaration and everything derived from it ------------------------------------------------


def test_every_schema_has_its_function_and_a_fixture():
    functions = set(frames.__all__) - {"SCHEMAS", "convert", "empty"}
    assert set(frames.SCHEMAS) == functions == set(PARENTS)


@pytest.mark.parametrize("name", sorted(PARENTS))
def test_function_arguments_are_the_supplied_columns(name):
    """The ids a function takes are exactly the columns its declaration leaves to the caller."""
    parameters = list(inspect.signature(getattr(frames, name)).parameters)
    listing = frames._LISTINGS[name]
    supplied = [c.name for c in listing.columns if c.supplied and c.given_by == "argument"]
    assert parameters[:-1] == supplied
    assert parameters[-1] in ("records", "tree")


@pytest.mark.parametrize("name", sorted(PARENTS))
def test_docstring_returns_lists_every_column_with_its_dtype(name):
    doc = inspect.getdoc(getattr(frames, name))
    returns = doc.split("Returns\n-------\n", 1)[1].split("Examples\n", 1)[0]
    table = [line.strip() for line in returns.splitlines() if line.strip().startswith("|")]
    assert [cell.strip() for cell in table[0].strip("|").split("|")][:2] == ["column", "dtype"]
    rows = [[cell.strip() for cell in line.strip("|").split("|")][:2] for line in table[2:]]
    assert [tuple(row) for row in rows] == list(frames.SCHEMAS[name].items())
    assert "Parameters\n----------\n" in doc


@pytest.mark.parametrize("name", sorted(PARENTS))
def test_fixture_frames_follow_their_schema(name):
    frame = build(name)
    assert_schema(frame, name)
    assert len(frame) > 0


@pytest.mark.parametrize("name", sorted(PARENTS))
def test_empty_lists_keep_columns_and_dtypes(name):
    frame = build(name, [])
    assert frame.empty
    assert_schema(frame, name)
    assert_schema(frames.empty(name), name)


@pytest.mark.parametrize("name", sorted(ITEM_SCHEMAS))
def test_fixtures_follow_the_api_description(name):
    jsonschema = pytest.importorskip("jsonschema")
    description = json.loads(DESCRIPTION.read_text(encoding="utf-8"))
    schemas = description["components"]["schemas"]
    if ITEM_SCHEMAS[name] not in schemas:
        pytest.skip(f"{ITEM_SCHEMAS[name]} is not in the vendored description")
    root = {
        "$ref": f"#/components/schemas/{ITEM_SCHEMAS[name]}",
        "components": {"schemas": schemas},
    }
    validator = jsonschema.Draft202012Validator(root, format_checker=jsonschema.FormatChecker())
    for item in records_of(name):
        assert not [error.message for error in validator.iter_errors(item)], item.get("id")


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
        "permission_aggregate": "space_id user_id display_name email role",
        "collection_aggregate": "collection_id user_id display_name email role",
        "collection_users": "collection_id user_id display_name email role",
        "collection_teams": "collection_id team_id title members role",
        "sites": "id title type visibility default_level hostname basename url_published url_app",
        "site_spaces": "site_id id space_id space_title path draft hidden url_published",
        "share_links": "site_id id name active created_at url_published",
        "invite_links": "id kind role target_id target_title redundant",
        "audit_events": "id action actor_id actor_label target_type target_id occurred_at",
    }
    for name, columns in minimum.items():
        assert set(columns.split()) <= set(frames.SCHEMAS[name]), name


def test_dtypes_follow_the_conventions():
    """Ids and text string, timestamps UTC, flags boolean, counts Int64: never anything else."""
    allowed = {"string", "datetime64[ns, UTC]", "boolean", "Int64", "object"}
    for name, schema in frames.SCHEMAS.items():
        assert set(schema.values()) <= allowed, name
        for column, dtype in schema.items():
            if column == "id" or column.endswith("_id"):
                assert dtype == "string", (name, column)
            if column.endswith("_at"):
                assert dtype == "datetime64[ns, UTC]", (name, column)


# -- the lists of the first round ------------------------------------------------------------------


def test_spaces_flattens_urls_and_converts_timestamps_to_utc():
    frame = frames.spaces(items("spaces")).set_index("id")
    assert (
        frame.loc["sp_handbook", "url_app"] == "https://app.gitbook.com/o/org_acme/s/sp_handbook/"
    )
    assert frame.loc["sp_api", "url_location"] == "https://api.gitbook.com/v1/spaces/sp_api"
    assert frame.loc["sp_handbook", "url_published"] == "https://docs.acme.example/handbook"
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


def test_counts_that_are_not_whole_numbers_are_rounded_or_missing():
    records = [{"id": "a", "size": 2.6}, {"id": "b", "size": "big"}, {"id": "c", "size": None}]
    assert frames.files("s", records)["size"].tolist() == [3, pd.NA, pd.NA]


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
    assert frame.loc["u_ada", "spaces"] == 10


def test_org_members_fall_back_to_the_member_id():
    frame = frames.org_members("o", [{"id": "u_bare", "role": "read"}])
    assert frame.loc[0, "user_id"] == "u_bare"


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
    assert orgs["default_role"].tolist()[0] == "read"
    crs = frames.change_requests("sp_handbook", items("change_requests"))
    assert crs["number"].tolist() == [7, 8]
    assert crs["status"].tolist() == ["open", "draft"]
    assert crs["outdated"].tolist() == [False, True]
    assert crs.loc[0, "url_app"].endswith("/changes/7/")


def test_a_change_requests_own_space_wins_over_the_argument():
    records = [{"id": "cr_1", "space": "sp_own"}, {"id": "cr_2"}]
    frame = frames.change_requests("sp_given", records)
    assert frame["space_id"].tolist() == ["sp_own", "sp_given"]


# -- the lists of the access model -----------------------------------------------------------------


def test_collections_keep_their_nesting_and_default_levels():
    frame = frames.collections(items("collections")).set_index("id")
    assert frame.loc["col_internal", "parent"] == "col_guides"
    assert pd.isna(frame.loc["col_guides", "parent"])
    assert frame["default_level"].tolist()[0] == "inherit"
    assert pd.isna(frame.loc["col_internal", "default_level"])  # guest: private
    assert frame.loc["col_public", "default_level"] == "read"
    assert frame.loc["col_public", "description"] == ""
    assert pd.isna(frame.loc["col_internal", "description"])
    assert frame.loc["col_guides", "url_app"].endswith("/c/col_guides/")


def test_collection_permissions_and_aggregates_repeat_the_collection():
    users = frames.collection_users("col_guides", items("collection_users"))
    assert users["collection_id"].tolist() == ["col_guides"] * 2
    assert users["role"].tolist() == ["admin", "edit"]
    assert pd.isna(users.loc[1, "email"])
    teams = frames.collection_teams("col_guides", items("collection_teams"))
    assert teams[["team_id", "members", "role"]].values.tolist() == [
        ["tm_writers", 12, "edit"],
        ["tm_empty", 0, "read"],
    ]
    aggregate = frames.collection_aggregate("col_guides", items("permission_aggregate"))
    assert aggregate["role"].tolist() == ["admin", "edit", "read", "comment"]


def test_space_aggregate_lists_every_user_with_the_platforms_role():
    frame = frames.permission_aggregate("sp_handbook", items("permission_aggregate"))
    assert frame.set_index("user_id")["role"].to_dict() == {
        "u_ada": "admin",
        "u_alan": "edit",
        "u_grace": "read",
        "u_guest": "comment",
    }
    assert (frame["space_id"] == "sp_handbook").all()


def test_sites_audience_publication_and_addresses():
    frame = frames.sites("org_acme", items("sites")).set_index("id")
    assert frame["visibility"].to_dict() == {
        "site_docs": "public",
        "site_partners": "share-link",
        "site_staff": "visitor-auth",
    }
    assert frame["published"].tolist() == [True, True, False]
    assert frame.loc["site_docs", "url_published"] == "https://docs.acme.example/handbook/"
    assert pd.isna(frame.loc["site_staff", "url_published"])  # not published
    assert frame.loc["site_docs", "hostname"] == "docs.acme.example"
    assert pd.isna(frame.loc["site_partners", "hostname"])
    assert pd.isna(frame.loc["site_partners", "default_level"])
    assert frame["site_spaces"].tolist() == [2, 1, 0]
    assert frame.loc["site_docs", "last_scan_at"] == pd.Timestamp("2024-05-02T03:00:00Z")
    assert pd.isna(frame.loc["site_staff", "last_scan_at"])
    assert (frame["org_id"] == "org_acme").all()


def test_site_spaces_name_the_space_and_mask_keys_in_addresses():
    frame = frames.site_spaces("site_docs", items("site_spaces")).set_index("id")
    assert frame["space_id"].tolist() == ["sp_handbook", "sp_api"]
    assert frame["space_title"].tolist() == ["Handbook", "API reference"]
    assert frame["draft"].tolist() == [False, True]
    assert frame.loc["ss_api", "hidden"] is True or bool(frame.loc["ss_api", "hidden"])
    assert pd.isna(frame.loc["ss_handbook", "hidden"])
    assert bool(frame.loc["ss_handbook", "default"]) is True
    assert frame.loc["ss_handbook", "url_published"] == "https://docs.acme.example/handbook/"
    assert frame.loc["ss_api", "url_published"].endswith("/api/?share=********")
    assert "9f8e7d6c5b4a" not in frame.to_csv()


def test_share_links_never_show_their_key():
    records = items("share_links")
    keys = [r["urls"]["published"].split("share=")[1] for r in records]
    frame = frames.share_links("site_partners", records)
    rendered = frame.to_csv() + frame.to_html() + repr(frame)
    assert not [key for key in keys if key in rendered]
    assert (
        frame["url_published"].tolist() == ["https://acme.gitbook.io/partners/?share=********"] * 3
    )
    assert frame["active"].tolist() == [True, False, True]
    assert pd.isna(frame.loc[2, "name"])
    # +02:00 offsets are converted to UTC
    assert frame.loc[2, "created_at"] == pd.Timestamp("2024-05-01T06:00:00Z")


def test_site_permissions_keep_guests_as_missing():
    users = frames.site_users("site_docs", items("site_users"))
    assert users["role"].tolist()[0] == "admin"
    assert pd.isna(users.loc[1, "role"])
    teams = frames.site_teams("site_docs", items("site_teams"))
    assert teams[["site_id", "team_id", "role"]].values.tolist() == [
        ["site_docs", "tm_writers", "edit"]
    ]


def test_invite_links_say_what_they_grant_and_on_what():
    frame = frames.invite_links("org_acme", items("invite_links")).set_index("id")
    assert frame["kind"].to_dict() == {
        "inv_org_admin": "organization",
        "inv_org_guest": "organization",
        "inv_space": "space",
        "inv_collection": "collection",
    }
    assert frame.loc["inv_org_admin", "role"] == "admin"
    assert pd.isna(frame.loc["inv_org_guest", "role"])
    assert frame.loc["inv_space", "role"] == "edit"  # the API's "level"
    assert frame.loc["inv_space", "target_id"] == "sp_handbook"
    assert frame.loc["inv_collection", "target_title"] == "Internal"
    assert pd.isna(frame.loc["inv_org_admin", "target_id"])
    assert frame["redundant"].tolist() == [False, True, False, False]


def test_member_spaces_and_audit_events():
    spaces = frames.member_spaces("org_acme", "u_ada", items("member_spaces"))
    assert spaces[["user_id", "space_id", "space_title", "role"]].values.tolist() == [
        ["u_ada", "sp_handbook", "Handbook", "admin"],
        ["u_ada", "sp_api", "API reference", "read"],
    ]
    events = frames.audit_events("org_acme", items("audit_events"))
    assert events["action"].tolist()[0] == "space.permission.user.updated"
    assert events["actor_label"].tolist()[0] == "Ada Lovelace"
    assert pd.isna(events.loc[1, "actor_label"]) and pd.isna(events.loc[1, "target_label"])
    assert events.loc[1, "actor_type"] == "integration"
    assert events.loc[0, "occurred_at"] == pd.Timestamp("2024-05-03T10:15:00Z")


# -- conversions and arguments ---------------------------------------------------------------------


def test_frames_do_not_change_their_input():
    records = items("spaces")
    before = copy.deepcopy(records)
    frames.spaces(records)
    tree = load("pages")["pages"]
    tree_before = copy.deepcopy(tree)
    frames.pages("sp", tree)
    links = items("share_links")
    links_before = copy.deepcopy(links)
    frames.share_links("site", links)
    assert records == before and tree == tree_before and links == links_before


def test_unexpected_value_types_are_coerced_not_fatal():
    records = [
        {"id": 123, "title": "Numbered", "createdAt": "not a date", "urls": None},
        {"id": "ok", "title": None, "createdAt": None, "urls": "oops"},
    ]
    frame = frames.spaces(records)
    assert_schema(frame, "spaces")
    assert frame["id"].tolist() == ["123", "ok"]
    assert frame["created_at"].isna().all()
    assert frame["url_app"].isna().all()


@pytest.mark.parametrize(
    ("stamps", "expected"),
    [
        (["2024-05-01T12:00:00.000Z", None], ["2024-05-01T12:00:00Z", None]),
        (["2024-05-01T14:00:00+02:00", "2024-05-01T12:00:00Z"], ["2024-05-01T12:00:00Z"] * 2),
        (["2024-05-01T12:00:00.123456789Z"], ["2024-05-01T12:00:00.123456789Z"]),
        (["3000-01-01T00:00:00Z", "2024-05-01T12:00:00Z"], [None, "2024-05-01T12:00:00Z"]),
        (["2262-05-01T00:00:00Z", "1677-01-01T00:00:00Z"], [None, None]),
        (
            ["2261-12-31T23:59:59Z", "1678-01-01T00:00:00Z"],
            ["2261-12-31T23:59:59Z", "1678-01-01T00:00:00Z"],
        ),
        (["today", 1714564800, "2024-13-45T00:00:00Z"], [None, None, None]),
        (["2024-05-01T12:00:00"], ["2024-05-01T12:00:00Z"]),
    ],
)
def test_timestamps_are_utc_and_bad_ones_missing(stamps, expected):
    records = [{"id": str(n), "createdAt": stamp} for n, stamp in enumerate(stamps)]
    parsed = frames.teams("o", records)["created_at"]
    assert str(parsed.dtype) == "datetime64[ns, UTC]"
    assert [None if pd.isna(v) else v for v in parsed] == [
        None if e is None else pd.Timestamp(e) for e in expected
    ]


def test_timestamp_precision_is_nanoseconds_utc():
    frame = frames.teams("o", [{"id": "t", "createdAt": "2024-01-01T00:00:00.123456Z"}])
    assert str(frame["created_at"].dtype) == "datetime64[ns, UTC]"
    assert frame.loc[0, "created_at"].microsecond == 123456


def test_unknown_schema_name_raises_key_error():
    with pytest.raises(KeyError):
        frames.empty("nope")


def test_frames_take_one_parent_id_per_record():
    records = [
        {"permission": "edit", "user": {"id": "u1"}},
        {"permission": "read", "user": {"id": "u2"}},
    ]
    frame = frames.permission_users(["s1", "s2"], records)
    assert list(frame["space_id"]) == ["s1", "s2"]
    assert list(frame["user_id"]) == ["u1", "u2"]
    with pytest.raises(docsapi.ValidationError, match=r"space_id.*one per record"):
        frames.permission_users(["s1"], records)
    members = frames.member_spaces("org", ["u1", "u2"], items("member_spaces"))
    assert list(members["user_id"]) == ["u1", "u2"]


def test_frames_accept_any_iterable_of_records():
    frame = frames.permission_users("s", iter([{"permission": "edit", "user": {"id": "u1"}}]))
    assert frame["user_id"].tolist() == ["u1"]


# -- secrets ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "masked"),
    [
        ("https://d.example/a/?share=k&x=1", "https://d.example/a/?share=********&x=********"),
        ("https://d.example/a/#token", "https://d.example/a/#********"),
        ("https://d.example/a/", "https://d.example/a/"),
        (None, None),
    ],
)
def test_mask_query(url, masked):
    assert mask_query(url) == masked


@pytest.mark.parametrize(
    ("url", "masked"),
    [
        ("https://d.example/a/?share=k", "https://d.example/a/?share=********"),
        ("https://d.example/~/share/k3y/", "https://d.example/~/share/********"),
        ("https://d.example/", "https://d.example/"),
    ],
)
def test_mask_share_url(url, masked):
    assert mask_share_url(url) == masked


def test_the_api_reference_shows_the_generated_column_tables():
    """The site's reference reads docstrings from source; its extension adds the tables."""
    griffe = pytest.importorskip("griffe")
    root = Path(__file__).resolve().parent.parent
    sys.path.insert(0, str(root / "docs"))
    try:
        from runtime_docstrings import RuntimeDocstrings
    finally:
        sys.path.remove(str(root / "docs"))
    package = griffe.load(
        "docsapi",
        search_paths=[str(root)],
        extensions=griffe.load_extensions(RuntimeDocstrings()),
        docstring_parser="numpy",
    )
    for name in PARENTS:
        sections = package[f"data.frames.{name}"].docstring.parsed
        returns = next(s for s in sections if s.kind.value == "returns")
        assert all(
            f"| {column} " in returns.value[0].description for column in frames.SCHEMAS[name]
        )
    assert ":func:`share_links`" in package["data.frames"].docstring.value
