"""How client.api shapes answers: frames from item schemas, ApiObject for objects, pagination."""

from __future__ import annotations

from datetime import UTC, datetime

import pandas as pd
import pytest
from api_recording import BASE_URL, TOKEN, RecordingSession, canned

import docsapi
from docsapi.api import ApiObject
from docsapi.api._results import frame, item_columns, list_shape

SITE_ITEM = {"$ref": "#/components/schemas/Site"}


def test_columns_follow_the_item_schema():
    columns = {c.name: c for c in item_columns(SITE_ITEM)}
    assert columns["id"].dtype == "string[python]"
    assert columns["visibility"].dtype == "string[python]"  # an enum
    assert columns["created_at"].dtype == "datetime64[us, UTC]"
    assert columns["published"].dtype == "boolean"
    assert columns["urls_app"].keys == ("urls", "app")  # one level flattened
    assert "urls" not in columns


def test_a_frame_keeps_values_and_declared_dtypes():
    schema = {
        "type": "object",
        "properties": {
            "id": {"type": "string"},
            "count": {"type": "integer"},
            "ratio": {"type": "number"},
            "on": {"type": "boolean"},
            "at": {"type": "string", "format": "date-time"},
            "meta": {"type": "object", "properties": {"deepField": {"type": "object"}}},
            "tags": {"type": "array", "items": {"type": "string"}},
        },
    }
    columns = item_columns(schema)
    records = [
        {"id": "a", "count": 2**40, "ratio": 1, "on": True, "at": "2024-05-01T10:00:00+02:00"},
        {"id": "b", "meta": {"deepField": {"x": 1}}, "tags": ["t"]},
    ]
    result = frame(records, columns)
    assert list(result.columns) == ["id", "count", "ratio", "on", "at", "meta_deep_field", "tags"]
    assert str(result["count"].dtype) == "Int64" and result["count"][0] == 2**40
    assert str(result["ratio"].dtype) == "Float64" and result["ratio"][0] == 1.0
    assert result["at"][0] == pd.Timestamp("2024-05-01T08:00:00Z")
    assert pd.isna(result["at"][1]) and pd.isna(result["on"][1])
    assert result["meta_deep_field"][1] == {"x": 1}
    assert result["tags"][1] == ["t"]


def test_values_the_schema_did_not_promise_are_kept():
    columns = item_columns({"type": "object", "properties": {"n": {"type": "integer"}}})
    result = frame([{"n": 1}, {"n": "many"}], columns)
    assert result["n"].tolist() == [1, "many"]


def test_list_shapes():
    assert list_shape({"type": "object", "properties": {"id": {"type": "string"}}}) is None
    shape = list_shape(
        {
            "allOf": [
                {"$ref": "#/components/schemas/List"},
                {"type": "object", "properties": {"items": {"type": "array", "items": SITE_ITEM}}},
            ]
        }
    )
    assert shape.kind == "pages" and shape.item_schema == SITE_ITEM


def test_api_object_reads_snake_case_and_keeps_the_raw_json():
    raw = {
        "id": "sp1",
        "editMode": "live",
        "createdAt": "2024-01-02T03:04:05.000Z",
        "urls": {"app": "https://app/x"},
    }
    space = ApiObject(raw, schema={"$ref": "#/components/schemas/Space"})
    assert space.kind == "Space"
    assert space.edit_mode == "live"
    assert space.created_at == datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC)
    assert space.urls.app == "https://app/x"
    assert space.raw is raw and space["editMode"] == "live"
    assert space.emoji is None  # declared by Space, absent from this answer
    assert "edit_mode" in dir(space)
    with pytest.raises(AttributeError, match="did you mean 'edit_mode'"):
        space.edit_mod  # noqa: B018
    assert repr(space).startswith("Space(id='sp1', edit_mode='live'")
    assert "<table" in space._repr_html_() and "edit_mode" in space._repr_html_()
    assert space == ApiObject(dict(raw))


def test_api_object_reads_the_alternative_its_values_fit():
    answer = {
        "columns": [
            {"column": "datetime", "values": ["2024-10-07T00:00:00.000Z"]},
            {"column": "urlPath", "values": ["2024-10-07T00:00:00.000Z"]},
        ]
    }
    result = ApiObject(
        answer, schema={"$ref": "#/components/schemas/SiteInsightsQueryEventsAggregationResult"}
    )
    dates, paths = (column.values for column in result.columns)
    assert dates == [datetime(2024, 10, 7, tzinfo=UTC)]  # the datetime alternative: date-times
    assert paths == ["2024-10-07T00:00:00.000Z"]  # the urlPath alternative: plain strings


@pytest.fixture
def session():
    return RecordingSession()


@pytest.fixture
def api(session):
    return docsapi.DocsClient(token=TOKEN, base_url=BASE_URL, session=session).api


def _site(number: int) -> dict:
    return {"object": "site", "id": f"site{number}", "title": f"Site {number}", "urls": {}}


def test_every_page_is_followed(api, session):
    pages = {
        None: {"items": [_site(1), _site(2)], "next": {"page": "p2"}},
        "p2": {"items": [_site(3)]},
    }
    session.responder = lambda request: canned(
        200, pages["p2" if "page=p2" in request.url else None]
    )
    sites = api.sites.list_sites("org1")
    assert sites["id"].tolist() == ["site1", "site2", "site3"]
    assert len(session.sent) == 2
    assert all("limit=100" in request.url for request in session.sent)


def test_a_repeated_cursor_stops_with_pagination_error(api, session):
    session.responder = lambda request: canned(200, {"items": [_site(1)], "next": {"page": "p"}})
    with pytest.raises(docsapi.PaginationError, match="twice"):
        api.sites.list_sites("org1")
    assert len(session.sent) == 2


def test_an_empty_list_has_the_declared_columns(api, session):
    session.responder = lambda request: canned(200, {"items": []})
    sites = api.sites.list_sites("org1")
    assert sites.empty
    assert list(sites.columns) == [c.name for c in item_columns(SITE_ITEM)]


def test_no_content_is_none_and_errors_use_the_error_tree(api, session):
    session.responder = lambda request: canned(205)
    assert api.spaces.delete_space_by_id("sp1") is None
    session.responder = lambda request: canned(
        404, {"error": {"code": 404, "message": "No such space"}}
    )
    with pytest.raises(docsapi.NotFoundError, match="No such space"):
        api.spaces.get_space_by_id("sp1")


def test_generated_methods_share_the_transport_and_its_retries(session):
    answers = iter([canned(503, {"error": {"code": 503, "message": "busy"}}), canned(200, {})])
    session.responder = lambda request: next(answers)
    client = docsapi.DocsClient(
        token=TOKEN,
        base_url=BASE_URL,
        session=session,
        retry=docsapi.RetryPolicy(max_retries=1, backoff=0.0, jitter=False),
    )
    client.api.spaces.get_space_by_id("sp1")
    assert len(session.sent) == 2
    assert [record.outcome for record in client.transport.history] == ["ServerError", "ok"]
