"""A success whose body is not the JSON shape promised is a ResponseFormatError, never a crash.

Every public method returning a model expects a JSON object; every list method a list envelope
``{"items": [objects]}``. A scripted server answers 200 with other shapes and each method
must raise :class:`~docsapi.ResponseFormatError` (not a ``TypeError`` from a model or a frame).
"""

from __future__ import annotations

import inspect

import pytest
from scripted_server import Reply, ScriptedServer

import docsapi
from docsapi import DocsClient, ResponseFormatError, RetryPolicy
from docsapi.adnetwork import AdNetworkClient
from docsapi.client import _resource_groups
from docsapi.core.reprs import method_listing

SOURCE = {"type": "builtin:openapi"}
OBJECT_CALLS = {
    "client.info": lambda c: c.info(),
    "users.me": lambda c: c.users.me(),
    "users.get": lambda c: c.users.get("u1"),
    "users.update": lambda c: c.users.update("u1", display_name="Ada"),
    "users.notifications_token": lambda c: c.users.notifications_token(),
    "spaces.get": lambda c: c.spaces.get("sp1"),
    "spaces.update": lambda c: c.spaces.update("sp1", title="T"),
    "spaces.duplicate": lambda c: c.spaces.duplicate("sp1"),
    "spaces.restore": lambda c: c.spaces.restore("sp1"),
    "spaces.move": lambda c: c.spaces.move("sp1", parent=None),
    "spaces.embed": lambda c: c.spaces.embed("sp1", "https://example.com"),
    "content.revision": lambda c: c.content.revision("sp1"),
    "content.pages": lambda c: c.content.pages("sp1"),
    "content.file": lambda c: c.content.file("sp1", "f1"),
    "content.page": lambda c: c.content.page("sp1", "pg1"),
    "content.page_by_path": lambda c: c.content.page_by_path("sp1", "a/b"),
    "content.meta_links": lambda c: c.content.meta_links("sp1", "pg1"),
    "content.reusable_content": lambda c: c.content.reusable_content("sp1", "rc1"),
    "content.computed_document": lambda c: c.content.computed_document(
        "sp1", source=SOURCE, seed="s"
    ),
    "content.computed_revision": lambda c: c.content.computed_revision(
        "sp1", source=SOURCE, seed="s"
    ),
    "git.info": lambda c: c.git.info("sp1"),
    "change_requests.create": lambda c: c.change_requests.create("sp1"),
    "orgs.get": lambda c: c.orgs.get("org1"),
    "orgs.team": lambda c: c.orgs.team("org1", "tm1"),
    "orgs.member": lambda c: c.orgs.member("org1", "u1"),
    "orgs.update_member": lambda c: c.orgs.update_member("org1", "u1", role="read"),
    "orgs.create_team": lambda c: c.orgs.create_team("org1", title="T"),
    "orgs.update_team": lambda c: c.orgs.update_team("org1", "tm1", title="T"),
    "orgs.invite_link": lambda c: c.orgs.invite_link("org1", "inv1"),
    "orgs.create_invite_link": lambda c: c.orgs.create_invite_link("org1", role="read"),
    "orgs.update_invite_link": lambda c: c.orgs.update_invite_link("org1", "inv1", role="read"),
    "collections.get": lambda c: c.collections.get("col1"),
    "collections.create": lambda c: c.collections.create("org1", title="T"),
    "collections.update": lambda c: c.collections.update("col1", title="T"),
    "collections.move": lambda c: c.collections.move("col1", parent=None),
    "sites.get": lambda c: c.sites.get("org1", "site1"),
    "sites.update": lambda c: c.sites.update("org1", "site1", visibility="unlisted"),
    "sites.publish": lambda c: c.sites.publish("org1", "site1"),
    "sites.unpublish": lambda c: c.sites.unpublish("org1", "site1"),
    "sites.publishing_auth": lambda c: c.sites.publishing_auth("org1", "site1"),
    "sites.create_share_link": lambda c: c.sites.create_share_link("org1", "site1", name="N"),
    "sites.update_share_link": lambda c: c.sites.update_share_link(
        "org1", "site1", "sl1", active=False
    ),
    "sites.deactivate_share_link": lambda c: c.sites.deactivate_share_link("org1", "site1", "sl1"),
}
LIST_CALLS = {
    "spaces.list": lambda c: c.spaces.list(org_id="org1"),
    "spaces.search": lambda c: c.spaces.search("sp1", "install"),
    "permissions.users": lambda c: c.permissions.users("sp1"),
    "permissions.teams": lambda c: c.permissions.teams("sp1"),
    "permissions.user_records": lambda c: c.permissions.user_records("sp1"),
    "permissions.team_records": lambda c: c.permissions.team_records("sp1"),
    "content.files": lambda c: c.content.files("sp1"),
    "change_requests.list": lambda c: c.change_requests.list("sp1"),
    "orgs.list": lambda c: c.orgs.list(),
    "orgs.members": lambda c: c.orgs.members("org1"),
    "orgs.teams": lambda c: c.orgs.teams("org1"),
    "orgs.team_members": lambda c: c.orgs.team_members("org1", "tm1"),
    "orgs.member_spaces": lambda c: c.orgs.member_spaces("org1", "u1"),
    "orgs.invite_links": lambda c: c.orgs.invite_links("org1"),
    "orgs.audit_events": lambda c: c.orgs.audit_events("org1"),
    "permissions.aggregate": lambda c: c.permissions.aggregate("sp1"),
    "collections.list": lambda c: c.collections.list("org1"),
    "collections.spaces": lambda c: c.collections.spaces("col1"),
    "collections.users": lambda c: c.collections.users("col1"),
    "collections.teams": lambda c: c.collections.teams("col1"),
    "collections.aggregate": lambda c: c.collections.aggregate("col1"),
    "sites.list": lambda c: c.sites.list("org1"),
    "sites.spaces": lambda c: c.sites.spaces("org1", "site1"),
    "sites.share_links": lambda c: c.sites.share_links("org1", "site1"),
    "sites.users": lambda c: c.sites.users("org1", "site1"),
    "sites.teams": lambda c: c.sites.teams("org1", "site1"),
}

NOT_AN_OBJECT = {
    "array": [],
    "array-of-objects": [{"id": "x"}],
    "string": Reply(200, b'"text"'),
    "number": Reply(200, b"1"),
    "null": Reply(200, b"null"),
    "empty": Reply(200, b""),
}
NOT_A_LIST = {
    "array": [],
    "object-without-items": {},
    "items-object": {"items": {}},
    "items-string": {"items": "abc"},
    "items-of-numbers": {"items": [1, 2]},
    "items-of-arrays": {"items": [["a"]]},
    "items-null": {"items": [None]},
    "empty": Reply(200, b""),
}


def _reply(body) -> Reply:
    return body if isinstance(body, Reply) else Reply(200, body)


def _run(call, body):
    with ScriptedServer([_reply(body)]) as srv:
        client = DocsClient(
            token="gb_api_format", base_url=srv.url + "/v1", retry=RetryPolicy(max_retries=0)
        )
        with pytest.raises(ResponseFormatError) as info:
            call(client)
    return info.value


def _public_methods():
    client = DocsClient(token="gb_api_format", base_url="http://127.0.0.1:9/v1")
    for group, _ in _resource_groups(DocsClient):
        for name, _, _ in method_listing(getattr(client, group)):
            function = getattr(type(getattr(client, group)), name)
            yield f"{group}.{name}", inspect.signature(function).return_annotation


def test_every_method_returning_a_model_or_a_list_is_covered():
    models = {k for k, r in _public_methods() if r not in ("None", "bool", "pd.DataFrame")}
    models -= {k for k, r in _public_methods() if r == "list[dict]"}
    lists = {k for k, r in _public_methods() if r in ("pd.DataFrame", "list[dict]")}
    assert models - {"content.pages"} <= set(OBJECT_CALLS)
    assert lists - {"content.pages"} <= set(LIST_CALLS)


@pytest.mark.parametrize("body", sorted(NOT_AN_OBJECT))
@pytest.mark.parametrize("name", sorted(OBJECT_CALLS))
def test_a_model_method_refuses_a_body_that_is_not_an_object(name, body):
    error = _run(OBJECT_CALLS[name], NOT_AN_OBJECT[body])
    assert "expected a JSON object" in str(error) or "'pages'" in str(error)
    assert error.status == 200 or "'pages'" in str(error)


@pytest.mark.parametrize("body", sorted(NOT_A_LIST))
@pytest.mark.parametrize("name", sorted(LIST_CALLS))
def test_a_list_method_refuses_a_body_that_is_not_a_list_of_objects(name, body):
    error = _run(LIST_CALLS[name], NOT_A_LIST[body])
    assert "list" in str(error) or "object" in str(error)


@pytest.mark.parametrize("pages", [[], {"pages": {}}, {"pages": None}, {"pages": [1]}], ids=repr)
def test_the_page_tree_must_be_a_list_of_objects(pages):
    error = _run(lambda c: c.content.pages("sp1"), pages)
    assert "pages" in str(error) or "object" in str(error)


@pytest.mark.parametrize("body", ["array", "object-without-items", "items-string", "empty"])
def test_the_escape_hatch_paginate_refuses_a_body_that_is_not_a_list_envelope(body):
    _run(lambda c: list(c.paginate("/orgs")), NOT_A_LIST[body])


def test_the_escape_hatch_request_returns_any_json():
    with ScriptedServer([Reply(200, [1, 2])]) as srv:
        client = DocsClient(token="gb_api_format", base_url=srv.url + "/v1")
        assert client.request("GET", "/anything") == [1, 2]


def test_a_response_format_error_is_public():
    assert "ResponseFormatError" in docsapi.__all__
    assert issubclass(docsapi.ResponseFormatError, docsapi.DocsAPIError)


@pytest.mark.parametrize(
    "data",
    [{"rowset": [1, 2], "totalPages": 1}, {"rowset": {}, "totalPages": 1}, [], "x"],
    ids=repr,
)
def test_adnetwork_lists_refuse_rows_that_are_not_objects(data):
    reply = Reply(200, {"code": 0, "message": "Success", "data": data})
    with ScriptedServer([reply]) as srv:
        client = AdNetworkClient(
            f"127.0.0.1:{srv.port}", api_key="an_format", scheme="http", max_retries=0
        )
        with pytest.raises(ResponseFormatError):
            client.affiliates()


@pytest.mark.parametrize("body", [b"[]", b'"text"', b"1"], ids=repr)
def test_adnetwork_answers_without_the_envelope_are_refused(body):
    with ScriptedServer([Reply(200, body)]) as srv:
        client = AdNetworkClient(
            f"127.0.0.1:{srv.port}", api_key="an_format", scheme="http", max_retries=0
        )
        with pytest.raises(ResponseFormatError, match="expected"):
            client.get("affiliate", 1)
