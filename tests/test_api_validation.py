"""client.api checks arguments against the description before anything is sent.

Each refusal is a docsapi.ValidationError naming the argument as the caller wrote it and the
rule it broke; the recording session proves no request left.
"""

from __future__ import annotations

import json
import warnings
from datetime import UTC, datetime

import pytest
from api_recording import BASE_URL, TOKEN, RecordingSession, canned, validate_request

import docsapi
from docsapi.api import NOT_GIVEN, StreamingNotSupportedError


@pytest.fixture
def session() -> RecordingSession:
    return RecordingSession()


@pytest.fixture
def api(session):
    return docsapi.DocsClient(token=TOKEN, base_url=BASE_URL, session=session).api


def _refused(session, call, argument: str, rule: str) -> docsapi.ValidationError:
    with pytest.raises(docsapi.ValidationError) as caught:
        call()
    assert caught.value.argument == argument
    assert rule in str(caught.value)
    assert session.sent == []
    return caught.value


def test_required_parameters(api, session):
    _refused(session, lambda: api.sites.list_sites(), "organization_id", "is required")
    _refused(
        session,
        lambda: api.organization_members.get_member_in_organization_by_id("org1"),
        "user_id",
        "is required (path parameter 'userId')",
    )


def test_types_enums_lengths_and_patterns(api, session):
    _refused(session, lambda: api.sites.list_sites("org1", limit="ten"), "limit", "(type)")
    _refused(session, lambda: api.sites.list_sites("org1", published="yes"), "published", "type")
    _refused(
        session,
        lambda: api.sites.list_sites("org1", type=["basic", "gold"]),
        "type[1]",
        "must be one of 'basic'",
    )
    _refused(
        session,
        lambda: api.spaces.update_space_by_id("sp1", title="x" * 51),
        "title",
        "at most 50 characters long, got 51 (maxLength)",
    )
    _refused(
        session,
        lambda: api.spaces.update_space_by_id("sp1", edit_mode="frozen"),
        "edit_mode",
        "(enum)",
    )
    _refused(session, lambda: api.spaces.get_space_by_id("sp.1"), "space_id", "(pattern)")


def test_body_schema_is_checked_with_the_callers_names(api, session):
    _refused(
        session,
        lambda: api.spaces.update_space_by_id("sp1", body={"title": 5}),
        "body.title",
        "must be of type string",
    )
    _refused(
        session,
        lambda: api.organization_members.update_member_in_organization_by_id(
            "org1", "u1", body={"role": "owner"}
        ),
        "body.role",
        "",
    )
    _refused(
        session,
        lambda: api.site_insights.aggregate_site_events("org1", "site1", limit=10),
        "range",
        "is required (required)",
    )
    _refused(
        session,
        lambda: api.site_insights.aggregate_site_events(
            "org1", "site1", range={"from": "2024-05-01T00:00:00Z"}
        ),
        "range.to",
        "is required (required)",
    )
    _refused(
        session,
        lambda: api.site_insights.aggregate_site_events("org1", "site1", range=7),
        "range",
        "matches none of the shapes the API accepts, got 7 (oneOf)",
    )
    _refused(
        session,
        lambda: api.spaces.update_space_by_id("sp1", title="A", body={"title": "B"}),
        "title",
        "given twice",
    )


def test_errors_inside_alternatives_point_at_the_field(api, session):
    _refused(
        session,
        lambda: api.site_insights.aggregate_site_events(
            "org1", "site1", range="last7Days", group_by=[{"column": "country"}]
        ),
        "group_by[0].column",
        "must be one of 'datetime', 'dayOfWeek'",
    )
    event = {
        "type": "page_post_feedback",
        "feedback": {"rating": "great"},
        "session": {
            "visitorId": "v1",
            "sessionId": "s1",
            "cookies": {},
            "userAgent": "Mozilla/5.0",
            "language": "en",
            "referrer": None,
        },
        "location": {
            "url": "https://docs.example.com/a",
            **dict.fromkeys(("siteSection", "siteSpace", "siteShareKey", "page", "space")),
            "revision": None,
        },
    }
    _refused(
        session,
        lambda: api.site_insights.track_events_in_site_by_id("org1", "site1", events=[event]),
        "events[0].feedback.rating",
        "must be one of 'bad', 'ok', 'good', got 'great' (enum)",
    )


def test_unknown_arguments_suggest_the_right_name(api, session):
    error = _refused(
        session, lambda: api.sites.list_sites(org_id="org1"), "org_id", "is not a parameter"
    )
    assert "organization_id" in str(error)
    with pytest.raises(TypeError, match="positional"):
        api.sites.list_sites("org1", "extra")


def test_path_parameters_are_single_segments(api, session):
    for bad in (".", ".."):
        _refused(
            session,
            lambda bad=bad: api.space_content.get_page_by_path("sp1", bad),
            "page_path",
            "dot segment",
        )
    _refused(
        session, lambda: api.space_content.get_page_by_path("sp1", ""), "page_path", "name a page"
    )
    api.space_content.get_page_by_path("sp1", "guides/getting started")
    (sent,) = session.sent
    assert sent.path_url.startswith("/v1/spaces/sp1/content/path/guides%2Fgetting%20started")


def test_header_values_and_empty_queries(api, session):
    _refused(
        session,
        lambda: api.site_sections.update_site_section_by_id(
            "org1", "site1", "sec1", prefer="return=minimal\r\nX-Evil: 1"
        ),
        "prefer",
        "(enum)",
    )
    _refused(
        session,
        lambda: api.site_ads.ads_list_sites(x_git_book_partner_key="k\n"),
        "x_git_book_partner_key",
        "printable ASCII",
    )
    _refused(
        session,
        lambda: api.space_embeds.get_embed_by_url_in_space("sp1", url=""),
        "url",
        "must not be empty",
    )
    _refused(
        session,
        lambda: api.sites.list_sites("org1", title="a\x00b"),
        "title",
        "control characters",
    )


def test_query_values_are_serialised_as_the_description_expects(api, session):
    session.responder = lambda request: canned(200, {"items": []})
    api.sites.list_sites("org1", published=True, type=["basic", "premium"], limit=5.0)
    (sent,) = session.sent
    assert "published=true" in sent.url
    assert "type=basic&type=premium" in sent.url
    assert "limit=5&" in sent.url or sent.url.endswith("limit=5")
    validate_request(sent)


def test_python_values_become_json(api, session):
    session.responder = lambda request: canned(200, {"columns": []})
    api.site_insights.aggregate_site_events(
        "org1",
        "site1",
        range={"from": datetime(2024, 5, 1, tzinfo=UTC), "to": datetime(2024, 5, 2)},
    )
    (sent,) = session.sent
    body = json.loads(sent.body)
    assert body["range"] == {"from": "2024-05-01T00:00:00Z", "to": "2024-05-02T00:00:00Z"}
    validate_request(sent)


def test_plain_objects_take_any_values(api, session):
    session.responder = lambda request: canned(204)
    event = {
        "type": "page_view",
        "session": {
            "visitorId": "v1",
            "sessionId": "s1",
            "cookies": {},
            "userAgent": "Mozilla/5.0",
            "language": "en",
            "referrer": None,
            "visitorAuthClaims": {"plan": "pro", "seats": 3, "beta": True},
        },
        "location": {
            "url": "https://docs.example.com/a",
            **dict.fromkeys(("siteSection", "siteSpace", "siteShareKey", "page", "space")),
            "revision": None,
        },
    }
    api.site_insights.track_events_in_site_by_id("org1", "site1", events=[event])
    (sent,) = session.sent
    validate_request(sent)


def test_optional_arguments_default_to_not_given(api, session):
    session.responder = lambda request: canned(200, {"items": []})
    assert repr(NOT_GIVEN) == "NOT_GIVEN"
    api.sites.list_sites("org1", title=None, space=NOT_GIVEN)
    (sent,) = session.sent
    assert "title" not in sent.url and "space" not in sent.url


def test_deprecated_operations_warn_once(api, session):
    session.responder = lambda request: canned(200, {})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(3):
            api.urls.get_published_content_by_url(url="https://docs.example.com/a")
    deprecations = [w for w in caught if issubclass(w.category, DeprecationWarning)]
    assert len(deprecations) == 1
    assert "get_published_content_by_url" in str(deprecations[0].message)
    assert deprecations[0].filename == __file__
    assert len(session.sent) == 3


def test_streaming_operations_are_refused_before_sending(api, session):
    with pytest.raises(StreamingNotSupportedError, match="server-sent events") as caught:
        api.site_ask.stream_ask_in_site("org1", "site1", question="hello")
    assert isinstance(caught.value, docsapi.DocsAPIError)
    assert session.sent == []


def test_token_never_appears_in_a_validation_error(canary_token):
    session = RecordingSession()
    client = docsapi.DocsClient(token=canary_token, base_url=BASE_URL, session=session)
    with pytest.raises(docsapi.ValidationError) as caught:
        client.api.spaces.update_space_by_id("sp1", title=canary_token * 3)
    assert canary_token not in str(caught.value)
    assert canary_token not in repr(client.api) + client.api._repr_html_()
