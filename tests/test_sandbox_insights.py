"""Site insights in the sandbox: a seeded, deterministic history; tracking; aggregation; segments.

Every answer is validated against the reference description (``ApiSession``).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from contract import ApiSession

from docsapi.sandbox import Sandbox

HISTORY = {"from": "2024-10-01T00:00:00Z", "to": "2025-01-07T00:00:00Z"}


@pytest.fixture
def api(sandbox):
    session = ApiSession(sandbox.url, sandbox.token)
    yield session
    session.close()


def _insights(sandbox, kind: str = "public") -> str:
    return f"/orgs/{sandbox.org_id}/sites/{sandbox.demo['sites'][kind]}/insights"


def _query(api, sandbox, kind: str = "public", **query) -> dict[str, list]:
    response = api.post(f"{_insights(sandbox, kind)}/events/aggregate", json=query)
    assert response.status_code == 200, response.text
    return {column["column"]: column["values"] for column in response.json()["columns"]}


def _event(kind: str = "page_view", **extra) -> dict:
    return {
        "type": kind,
        "session": {
            "visitorId": "reader-1",
            "sessionId": "reader-1-a",
            "cookies": {},
            "userAgent": "Mozilla/5.0 (Windows NT 10.0) Chrome/131.0 Safari/537.36",
            "language": "fr-FR",
            "referrer": None,
            "visitorAuthClaims": {"plan": "pro"},
        },
        "location": {
            "url": "https://docs.example.com/guides/install",
            "siteSection": None,
            "siteSpace": None,
            "siteShareKey": None,
            "page": None,
            "space": None,
            "revision": None,
        },
        **extra,
    }


def test_the_seeded_history_is_the_same_for_the_same_seed(api, sandbox):
    by_type = _query(api, sandbox, range=HISTORY, groupBy=[{"column": "eventType"}])
    assert set(by_type["eventType"]) >= {"page_view", "search_type_query", "page_post_feedback"}
    with Sandbox(seed=0) as again:
        other = ApiSession(again.url, again.token)
        assert _query(other, again, range=HISTORY, groupBy=[{"column": "eventType"}]) == by_type
    with Sandbox(seed=1) as different:
        other = ApiSession(different.url, different.token)
        assert _query(other, different, range=HISTORY, groupBy=[{"column": "eventType"}]) != by_type


def test_counts_are_consistent(api, sandbox):
    total = _query(
        api,
        sandbox,
        range=HISTORY,
        select=[
            {"column": "eventsCount"},
            {"column": "sessionsCount"},
            {"column": "visitorsCount"},
        ],
    )
    events, sessions, visitors = (total[k][0] for k in total)
    assert events > sessions > visitors > 100
    by_type = _query(api, sandbox, range=HISTORY, groupBy=[{"column": "eventType"}])
    assert sum(by_type["eventsCount"]) == events
    page_views = _query(
        api, sandbox, range=HISTORY, where=[{"column": "eventType", "values": ["page_view"]}]
    )
    others = _query(
        api,
        sandbox,
        range=HISTORY,
        where=[{"column": "eventType", "values": ["page_view"], "operator": "notIn"}],
    )
    assert page_views["eventsCount"][0] + others["eventsCount"][0] == events
    assert page_views["eventsCount"][0] == dict(zip(*by_type.values(), strict=True))["page_view"]


def test_time_columns_and_ranges(api, sandbox):
    weeks = _query(
        api, sandbox, range=HISTORY, groupBy=[{"column": "datetime", "interval": "week"}]
    )
    starts = [datetime.fromisoformat(v.replace("Z", "+00:00")) for v in weeks["datetime"]]
    assert starts == sorted(starts) and all(s.weekday() == 0 and s.hour == 0 for s in starts)
    assert 12 <= len(starts) <= 15  # about 90 days
    days = _query(api, sandbox, range=HISTORY, groupBy=[{"column": "dayOfWeek"}])
    assert days["dayOfWeek"] == [1, 2, 3, 4, 5, 6, 7]
    weekday, weekend = sum(days["eventsCount"][:5]) / 5, sum(days["eventsCount"][5:]) / 2
    assert weekday > weekend  # documentation is read at work
    hours = _query(api, sandbox, range=HISTORY, groupBy=[{"column": "hourOfDay"}])
    assert set(hours["hourOfDay"]) <= set(range(24))
    december = {"from": "2024-12-01T00:00:00Z", "to": "2024-12-31T23:59:59Z"}
    inside = _query(api, sandbox, range=december, groupBy=[{"column": "datetime"}])
    assert all(v.startswith("2024-12-") for v in inside["datetime"])
    recent = _query(api, sandbox, range="last7Days")
    assert recent["eventsCount"] == [0]  # the seeded history ends at the demo's date
    backwards = api.post(
        f"{_insights(sandbox)}/events/aggregate",
        json={"range": {"from": HISTORY["to"], "to": HISTORY["from"]}},
    )
    assert backwards.status_code == 400


def test_order_limit_and_broken_urls(api, sandbox):
    top = _query(
        api,
        sandbox,
        range=HISTORY,
        groupBy=[{"column": "urlPath"}],
        where=[
            {"column": "eventType", "values": ["page_view"]},
            {"column": "page", "values": [None]},
        ],
        order={"by": {"column": "eventsCount"}, "direction": "desc"},
        limit=3,
    )
    assert len(top["urlPath"]) == 3
    assert top["eventsCount"] == sorted(top["eventsCount"], reverse=True)
    assert all(
        path.endswith(("setup", "quickstart", "reference", ".html")) for path in top["urlPath"]
    )
    busy = _query(
        api,
        sandbox,
        range=HISTORY,
        groupBy=[{"column": "page"}],
        where=[{"column": "eventsCount", "values": [20], "operator": "greaterThan"}],
    )
    assert busy["eventsCount"] and min(busy["eventsCount"]) > 20


def test_feedback_and_search_columns(api, sandbox):
    ratings = _query(
        api,
        sandbox,
        range=HISTORY,
        groupBy=[{"column": "eventPageFeedbackRating"}],
        select=[{"column": "eventsCount"}, {"column": "pageFeedbackRating"}],
    )
    assert ratings["eventPageFeedbackRating"] == ["bad", "good", "ok"]
    assert [
        r[k] for r, k in zip(ratings["pageFeedbackRating"], ["bad", "good", "ok"], strict=True)
    ] == ratings["eventsCount"]
    searches = _query(api, sandbox, range=HISTORY, groupBy=[{"column": "eventSearchQuery"}])
    assert "install" in searches["eventSearchQuery"]


def test_unsupported_columns_and_orders_are_refused(api, sandbox):
    path = f"{_insights(sandbox)}/events/aggregate"
    unknown = api.post(path, json={"range": HISTORY, "groupBy": [{"column": "utmSource"}]})
    assert unknown.status_code == 400 and "no data for the column 'utmSource'" in unknown.text
    order = {"by": {"column": "visitorsCount"}, "direction": "asc"}
    assert api.post(path, json={"range": HISTORY, "order": order}).status_code == 400
    missing = api.post(
        f"/orgs/{sandbox.org_id}/sites/ghost/insights/events/aggregate", json={"range": HISTORY}
    )
    assert missing.status_code == 404


def test_tracked_events_join_the_history_until_reset(api, sandbox):
    path = _insights(sandbox)
    search = _event("search_type_query", query="offline install")
    assert api.post(f"{path}/events", json={"events": [_event(), search]}).status_code == 204
    recent = _query(
        api,
        sandbox,
        range="last24Hours",
        groupBy=[{"column": "eventType"}, {"column": "visitorBrowser"}, {"column": "visitorOS"}],
    )
    assert recent == {
        "eventType": ["page_view", "search_type_query"],
        "visitorBrowser": ["chrome", "chrome"],
        "visitorOS": ["windows", "windows"],
        "eventsCount": [1, 1],
    }
    queries = _query(api, sandbox, range="last24Hours", groupBy=[{"column": "eventSearchQuery"}])
    assert queries["eventSearchQuery"] == ["offline install"]
    sandbox.reset()
    assert _query(api, sandbox, range="last24Hours")["eventsCount"] == [0]


@pytest.mark.parametrize("referrer", ["", "https://search.example.com/?q=install"])
def test_referrers_told_apart_by_format_are_accepted(api, sandbox, referrer):
    event = _event()
    event["session"]["referrer"] = referrer
    response = api.post(f"{_insights(sandbox)}/events", json={"events": [event]})
    assert response.status_code == 204, response.text


def test_tracking_refuses_old_events_and_unpublished_sites(api, sandbox):
    path = _insights(sandbox)
    old = (datetime.now(UTC) - timedelta(hours=1)).isoformat()
    assert api.post(f"{path}/events", json={"events": [_event(timestamp=old)]}).status_code == 400
    unpublished = _insights(sandbox, "unpublished")
    assert api.post(f"{unpublished}/events", json={"events": [_event()]}).status_code == 400
    assert _query(api, sandbox, "unpublished", range=HISTORY)["eventsCount"] == [0]


def test_visitor_segments_follow_the_claims(api, sandbox):
    path = _insights(sandbox, "visitor-auth")
    segments = api.get(f"{path}/visitor-segments").json()["items"]
    claims = [s["claims"] for s in segments if s["claims"]]
    assert {c["plan"] for c in claims} == {"free", "pro", "enterprise"}
    visitors = _query(
        api, sandbox, "visitor-auth", range=HISTORY, select=[{"column": "visitorsCount"}]
    )
    assert sum(s["visitors"] for s in segments) == visitors["visitorsCount"][0]
    assert [s["visitors"] for s in segments] == sorted(
        (s["visitors"] for s in segments), reverse=True
    )
    public = api.get(f"{_insights(sandbox)}/visitor-segments").json()["items"]
    assert [s["title"] for s in public] == ["Anonymous visitors"]
