"""Offline tests of docsapi.models on hand-written fixtures that follow the reference schemas."""

from __future__ import annotations

import dataclasses
import json
import types
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pandas as pd
import pytest

from docsapi.data import models

FIXTURES = Path(__file__).parent / "fixtures"


def load(name: str):
    return json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))


MISC = load("misc")
SPACES = load("spaces")["items"]


def test_space_attributes_are_snake_case_and_typed():
    space = models.Space.from_api(SPACES[0])
    assert space.id == "sp_handbook"
    assert space.edit_mode == "live"
    assert space.default_level == "inherit"
    assert space.url_app == "https://app.gitbook.com/o/org_acme/s/sp_handbook/"
    assert space.url_published == "https://docs.acme.example/handbook"
    assert space.created_at == datetime(2023, 3, 14, 9, 26, 53, 589000, tzinfo=UTC)
    assert space.permissions["admin"] is True
    assert space.merge_rules == {"type": "inherit"}
    assert isinstance(space.git_sync, models.GitSyncState)
    assert space.git_sync.operation_state == "success"
    assert space.location is None


def test_timestamps_are_aware_and_utc():
    space = models.Space.from_api(SPACES[1])
    assert space.created_at.tzinfo is not None
    assert space.created_at.utcoffset() == timedelta(0)
    assert space.created_at == datetime(2023, 5, 31, 22, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2024-05-01T12:00:00Z", datetime(2024, 5, 1, 12, tzinfo=UTC)),
        ("2024-05-01T12:00:00", datetime(2024, 5, 1, 12, tzinfo=UTC)),
        ("2024-05-01T14:00:00+02:00", datetime(2024, 5, 1, 12, tzinfo=UTC)),
        ("yesterday", None),
        (1714564800, None),
        (None, None),
    ],
)
def test_parse_timestamp(value, expected):
    assert models.parse_timestamp(value) == expected


def test_unknown_fields_are_ignored_but_kept_in_raw():
    space = models.Space.from_api(SPACES[1])
    assert space.raw["brandNewField"] == {"from": "a newer API"}
    assert not hasattr(space, "brand_new_field")


def test_raw_is_the_untouched_json():
    data = SPACES[0]
    space = models.Space.from_api(data)
    assert space.raw == data
    assert space.raw["urls"]["app"] == space.url_app


def test_missing_optional_fields_become_none():
    user = models.User.from_api(MISC["user_minimal"])
    assert user.email is None and user.photo_url is None
    assert user.display_name == "Min"
    empty = models.Space.from_api({})
    assert all(getattr(empty, f.name) is None for f in dataclasses.fields(empty) if f.name != "raw")


def test_from_api_refuses_non_objects():
    with pytest.raises(TypeError, match="JSON object"):
        models.User.from_api(["not", "an", "object"])


def test_nested_values_of_the_wrong_shape_do_not_break_parsing():
    space = models.Space.from_api({"id": "s", "urls": "oops", "gitSync": 3, "createdAt": 5})
    assert space.url_app is None and space.git_sync is None and space.created_at is None


def test_revision_pages_files_and_counts():
    revision = models.Revision.from_api(load("revision"))
    assert revision.type == "edits"
    assert revision.parents == ["rev_0"]
    assert [p.id for p in revision.pages] == ["pg_home", "pg_guides"]
    assert revision.pages[1].pages[0].path == "guides/install"
    assert revision.page_count == 3
    assert revision.file_count == 1
    assert revision.files[0].width == 512
    assert revision.reusable_contents[0].title == "Support note"


def test_page_with_markdown_body():
    page = models.RevisionPage.from_api(MISC["page_markdown"])
    assert page.markdown.startswith("# Install")
    assert page.type == "document" and page.pages == []


def test_change_request_nested_user_and_deprecated_property():
    data = load("change_requests")["items"][1]
    change = models.ChangeRequest.from_api(data)
    assert change.number == 8
    assert isinstance(change.created_by, models.User)
    assert change.created_by.display_name == "Alan Turing"
    assert change.outdated is True
    assert change.raw["changeRequest"] == {"id": "cr_2"}


@pytest.mark.parametrize(
    ("model", "data", "attribute", "expected"),
    [
        (models.ApiInformation, MISC["api_information"], "version", "10.9.1050"),
        (
            models.Embed,
            MISC["embed_rich"],
            "html",
            "<iframe src='https://video.example/v/1'></iframe>",
        ),
        (models.Embed, MISC["embed_link"], "html", None),
        (models.GitSyncState, MISC["git_info_no_operation"], "operation_state", None),
        (models.GitSyncState, MISC["git_info_no_operation"], "installation_provider", "gitlab"),
        (
            models.RevisionPageMetaLinks,
            MISC["meta_links"],
            "alternates",
            [{"kind": "page", "page": "pg_install", "space": "sp_fr"}],
        ),
        (models.ReusableContent, MISC["reusable_content"], "document", "doc_rc"),
        (models.Document, MISC["document"], "node_count", 2),
        (models.ComputedRevision, MISC["computed_revision"], "page_count", 1),
        (models.Organization, load("organizations")["items"][0], "default_role", "read"),
        (models.Team, load("teams")["items"][0], "members", 12),
        (models.RevisionFile, load("files")["items"][1], "width", None),
    ],
)
def test_models_read_their_fields(model, data, attribute, expected):
    assert getattr(model.from_api(data), attribute) == expected


def test_repr_shows_summary_fields_only():
    space = models.Space.from_api(SPACES[0])
    text = repr(space)
    assert text.startswith("Space(id='sp_handbook', title='Handbook'")
    assert "permissions" not in text and "raw" not in text


def test_repr_html_is_a_small_escaped_table():
    embed = models.Embed.from_api({"type": "rich", "title": "<b>x</b>", "site": "s"})
    html = embed._repr_html_()
    assert html.count("<tr>") == len(models.Embed._summary)
    assert "&lt;b&gt;x&lt;/b&gt;" in html and "<b>x</b>" not in html


def test_temporary_token_never_shows_the_token():
    token = models.APITemporaryToken.from_api(MISC["temporary_token"])
    secret = MISC["temporary_token"]["token"]
    assert token.token == secret
    assert secret not in repr(token)
    assert secret not in token._repr_html_()
    assert "********" in repr(token)


#: every model class of the module
MODELS = [
    getattr(models, name)
    for name in models.__all__
    if isinstance(getattr(models, name), type) and name != "Model"
]


@pytest.mark.parametrize("model", MODELS, ids=lambda model: model.__name__)
def test_every_model_builds_from_an_empty_object_and_renders(model):
    instance = model.from_api({})
    assert instance.raw == {}
    assert repr(instance).startswith(model.__name__ + "(")
    assert "<table>" in instance._repr_html_()


@pytest.mark.parametrize("model", MODELS, ids=lambda model: model.__name__)
def test_from_api_sets_every_field_as_the_constructor_would(model):
    instance = model.from_api({})
    assert set(vars(instance)) == {spec.name for spec in dataclasses.fields(model)}
    assert dataclasses.replace(instance) == instance


def test_models_compare_by_value_not_raw():
    a = models.User.from_api({"id": "u", "displayName": "A", "extra": 1})
    b = models.User.from_api({"id": "u", "displayName": "A"})
    assert a == b


def test_raw_is_the_decoded_object_itself_not_a_copy():
    data = SPACES[0]
    assert models.Space.from_api(data).raw is data
    proxy = types.MappingProxyType({"id": "u1"})
    user = models.User.from_api(proxy)
    assert user.raw == {"id": "u1"} and isinstance(user.raw, dict)


#: model -> (its list's schema, the fixture the list is built from, the frame's extra arguments)
SHARED = {
    models.Space: ("spaces", "spaces", ()),
    models.Team: ("teams", "teams", ("org_acme",)),
    models.Organization: ("organizations", "organizations", ()),
    models.OrganizationMember: ("org_members", "org_members", ("org_acme",)),
    models.RevisionFile: ("files", "files", ("sp_handbook",)),
    models.ChangeRequest: ("change_requests", "change_requests", ("sp_handbook",)),
    models.Collection: ("collections", "collections", ()),
    models.Site: ("sites", "sites", ("org_acme",)),
    models.ShareLink: ("share_links", "share_links", ("site_partners",)),
    models.InviteLink: ("invite_links", "invite_links", ("org_acme",)),
    models.AuditEvent: ("audit_events", "audit_events", ("org_acme",)),
}


@pytest.mark.parametrize("model", list(SHARED), ids=lambda model: model.__name__)
def test_models_and_frames_agree_on_every_column_they_share(model):
    """One declaration: a model's attributes and its list's columns hold the same values."""
    from docsapi.data import frames

    name, fixture, parents = SHARED[model]
    records = load(fixture)["items"]
    frame = getattr(frames, name)(*parents, records)
    attributes = {spec.name for spec in dataclasses.fields(model)}
    shared = [column for column in frames.SCHEMAS[name] if column in attributes]
    supplied = {column for column in frames.SCHEMAS[name] if column.endswith("_id")}
    assert set(frames.SCHEMAS[name]) - attributes <= supplied  # only the ids given as arguments
    for row, record in zip(frame.to_dict("records"), records, strict=True):
        instance = model.from_api(record)
        for column in shared:
            value, cell = getattr(instance, column), row[column]
            if column in instance._json_plan.masks:
                value = instance._json_plan.masks[column](value)
            if value is None:
                assert pd.isna(cell), (column, cell)
            else:
                assert cell == value, column


def test_space_has_every_column_of_the_spaces_frame():
    from docsapi.data import frames

    attributes = {spec.name for spec in dataclasses.fields(models.Space)}
    assert set(frames.SCHEMAS["spaces"]) <= attributes


def test_collection_and_site_models():
    collection = models.Collection.from_api(load("collections")["items"][1])
    assert collection.parent == "col_guides" and collection.default_level is None
    assert collection.permissions["admin"] is True
    site = models.Site.from_api(load("sites")["items"][0])
    assert site.visibility == "public" and site.published is True
    assert site.created_at == datetime(2023, 6, 1, 10, tzinfo=UTC)
    assert "public" in repr(site)


def test_share_link_masks_its_key_in_reprs_but_keeps_it():
    data = load("share_links")["items"][0]
    key = data["urls"]["published"].split("share=")[1]
    link = models.ShareLink.from_api(data)
    assert link.url_published == data["urls"]["published"]  # to hand the link out
    assert key not in repr(link) and key not in link._repr_html_()
    assert "share=********" in repr(link)
    assert link.active is True and link.name == "Launch partners"


def test_invite_link_kinds_and_targets():
    links = [models.InviteLink.from_api(item) for item in load("invite_links")["items"]]
    assert [(link.kind, link.role, link.target_id) for link in links] == [
        ("organization", "admin", None),
        ("organization", None, None),
        ("space", "edit", "sp_handbook"),
        ("collection", "read", "col_internal"),
    ]


def test_organization_member_and_audit_event():
    member = models.OrganizationMember.from_api(load("org_members")["items"][0])
    assert member.user_id == "u_ada" and member.role == "admin" and member.disabled is False
    assert member.last_seen_at == datetime(2024, 5, 1, 8, 30, tzinfo=UTC)
    assert isinstance(member.user, models.User) and member.user.email == "ada@acme.example"
    assert models.OrganizationMember.from_api({"id": "u_bare"}).user_id == "u_bare"
    event = models.AuditEvent.from_api(load("audit_events")["items"][0])
    assert (event.action, event.actor_id, event.target_id) == (
        "space.permission.user.updated",
        "u_ada",
        "sp_handbook",
    )
    assert event.occurred_at == datetime(2024, 5, 3, 10, 15, tzinfo=UTC)
