"""Site insights: visitors' events on a published site, tracked and aggregated.

``POST .../insights/events`` records events (each within 5 minutes of now, as the API asks);
``POST .../insights/events/aggregate`` answers an aggregation query over the site's events;
``GET .../insights/visitor-segments`` lists the visitors grouped by their claims. A published
site comes with a seeded history (see :mod:`docsapi.sandbox.routes._insights_data`); reading needs
membership of the organization, tracking a published site.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

from docsapi.sandbox.core._auth import DEFAULT_SECURITY, security
from docsapi.sandbox.core._errors import bad_request
from docsapi.sandbox.core._web import Ctx, Reply, Route, no_content, paginate
from docsapi.sandbox.routes._access import site_for
from docsapi.sandbox.routes._insights_data import site_events
from docsapi.sandbox.routes._insights_query import aggregate, parse_time, segments

#: How far a tracked event's timestamp may be from now.
TRACK_WINDOW = timedelta(minutes=5)
_SITE = "/orgs/<org_id>/sites/<site_id>/insights"
#: (substring of a user agent, value), first match wins.
_BROWSERS = (
    ("Edg/", "edge"),
    ("Firefox/", "firefox"),
    ("Chrome/", "chrome"),
    ("Safari/", "safari"),
)
_SYSTEMS = (
    ("Android", "android"),
    ("iPhone", "ios"),
    ("iPad", "ios"),
    ("Windows", "windows"),
    ("Mac OS", "macos"),
    ("Linux", "linux"),
)


def _first(agent: str, table: tuple[tuple[str, str], ...]) -> str:
    return next((value for needle, value in table if needle in agent), "unknown")


def _tracked(ctx: Ctx, raw: dict[str, Any]) -> dict[str, Any]:
    """An event of the request body as the sandbox keeps it."""
    now = ctx.store.clock.now()
    at = now
    if "timestamp" in raw:
        at = parse_time(raw["timestamp"], "timestamp")
        if abs(at - now) > TRACK_WINDOW:
            raise bad_request("An event's timestamp must be within 5 minutes of the current time.")
    session, location = raw["session"], raw["location"]
    agent = session.get("userAgent", "")
    referrer = session.get("referrer") or ""
    claims = session.get("visitorAuthClaims") or {}
    page = {"page": location["page"], "space": location["space"]} if location["page"] else None
    event = {
        "eventType": raw["type"],
        "at": at,
        "url": location["url"],
        "urlPath": urlsplit(location["url"]).path,
        "page": page,
        "siteSpace": location["siteSpace"],
        "siteSection": location["siteSection"],
        "siteShareKey": location["siteShareKey"],
        "displayContext": location.get("displayContext", "site"),
        "visitor": session["visitorId"],
        "session": session["sessionId"],
        "visitorGeoCountry": None,
        "visitorLanguage": session.get("language"),
        "visitorDevice": "mobile" if "Mobile" in agent else "desktop" if agent else "unknown",
        "visitorBrowser": _first(agent, _BROWSERS),
        "visitorOS": _first(agent, _SYSTEMS),
        "visitorBot": None,
        "claims": claims,
        "visitorAuthenticated": bool(claims) or None,
        "referrer": referrer,
        "referrerDomain": urlsplit(referrer).hostname or "",
    }
    if raw["type"] == "search_type_query":
        event["eventSearchQuery"] = raw["query"]
    if raw["type"] == "page_post_feedback":
        event["eventPageFeedbackRating"] = raw["feedback"]["rating"]
    return event


def track_events(ctx: Ctx, org_id: str, site_id: str) -> Reply:
    """POST .../insights/events -> 204; the events join the site's history."""
    site = site_for(ctx, org_id, site_id)
    if not site["published"]:
        raise bad_request(f"Site {site_id!r} is not published: only published sites track events.")
    events = [_tracked(ctx, raw) for raw in ctx.object_body()["events"]]
    site_events(ctx.store, site_id).extend(events)
    return no_content()


def aggregate_events(ctx: Ctx, org_id: str, site_id: str) -> Reply:
    """POST .../insights/events/aggregate -> SiteInsightsQueryEventsAggregationResult."""
    site_for(ctx, org_id, site_id)
    query = ctx.object_body()
    return Reply(200, aggregate(site_events(ctx.store, site_id), query, ctx.store.clock.now()))


def list_segments(ctx: Ctx, org_id: str, site_id: str) -> Reply:
    """GET .../insights/visitor-segments -> List of SiteInsightsVisitorSegment."""
    site_for(ctx, org_id, site_id)
    return paginate(ctx, segments(site_events(ctx.store, site_id)))


ROUTES = [
    Route("POST", f"{_SITE}/events", track_events, DEFAULT_SECURITY),
    Route(
        "POST",
        f"{_SITE}/events/aggregate",
        aggregate_events,
        security("user", "oauth:site:insights:read"),
    ),
    # the site's events are seeded on its first insights request
    Route("GET", f"{_SITE}/visitor-segments", list_segments, DEFAULT_SECURITY, True),
]
