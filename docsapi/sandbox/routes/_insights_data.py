"""Site insights data: each published site's visitor events, seeded, and events tracked later.

An event is a flat record of the values the aggregation columns read (see
:mod:`._insights_query`): ``at`` (datetime), ``eventType``, ``url``, ``urlPath``,
``page`` (``{"page", "space"}`` or None for a 404), ``siteSpace``, ``siteSection``,
``siteShareKey``, ``displayContext``, the visitor's ``visitorGeoCountry``, ``visitorDevice``,
``visitorBrowser``, ``visitorOS``, ``visitorBot``, ``visitorLanguage``, ``referrer``,
``referrerDomain``, ``claims`` and ``visitorAuthenticated``, ``session`` and ``visitor`` ids,
and per type ``eventSearchQuery`` or ``eventPageFeedbackRating``.

The seeded history covers the :data:`HISTORY_DAYS` days before the demo's reference instant
(``EPOCH``), so it never depends on the real clock: the same seed gives the same events. It is
made on a site's first insights request (the sandbox starts no slower) from a generator of its
own, seeded with the sandbox seed and the site id; on a site with sections each event names
the section of its space (``siteSection``).
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

from docsapi.sandbox.core._state import Record
from docsapi.sandbox.core._store import Store
from docsapi.sandbox.demo._plan import EPOCH
from docsapi.sandbox.routes._render_access import site_url

#: Days of seeded history before ``EPOCH``.
HISTORY_DAYS = 90
#: Visitors of a seeded site, by visibility.
VISITORS = {"public": 260, "unlisted": 70, "share-link": 45, "visitor-auth": 110}

_COUNTRIES = (
    ("US", "en-US", 30),
    ("FR", "fr-FR", 12),
    ("DE", "de-DE", 12),
    ("GB", "en-GB", 10),
    ("IN", "en-IN", 9),
    ("BR", "pt-BR", 7),
    ("JP", "ja-JP", 6),
    ("CA", "en-CA", 6),
    ("NL", "nl-NL", 4),
    ("ES", "es-ES", 4),
)
#: (device, browser, os, weight)
_AGENTS = (
    ("desktop", "chrome", "windows", 26),
    ("desktop", "chrome", "macos", 20),
    ("desktop", "safari", "macos", 10),
    ("desktop", "firefox", "linux", 7),
    ("desktop", "edge", "windows", 8),
    ("mobile", "safari", "ios", 14),
    ("mobile", "chrome", "android", 11),
    ("tablet", "safari", "ios", 4),
)
_BOTS = ("googlebot", "bingbot", "chatgpt", "claude", "perplexity")
_REFERRERS = (
    ("", 34),
    ("https://www.google.com/", 30),
    ("https://github.com/", 14),
    ("https://www.bing.com/", 6),
    ("https://news.ycombinator.com/", 5),
    ("https://chatgpt.com/", 7),
    ("https://stackoverflow.com/", 4),
)
_QUERIES = (
    "install",
    "api key",
    "rate limit",
    "webhooks",
    "permissions",
    "sso",
    "pricing",
    "export",
    "getting started",
    "changelog",
)
#: Paths visitors keep asking for that no page answers (the top broken URLs).
_BROKEN = ("/docs/v1/setup", "/guides/old-quickstart", "/api/v0/reference", "/faq.html")
_RATINGS = (("good", 60), ("ok", 25), ("bad", 15))
_CLAIMS = {"plan": ("free", "pro", "enterprise"), "region": ("eu", "us")}
#: Relative odds of 1 to 6 page views in a session.
_VIEWS_PER_SESSION = (30, 25, 18, 12, 9, 6)
_HOURS = [1, 1, 1, 1, 2, 3, 5, 8, 11, 13, 14, 14, 12, 13, 14, 13, 11, 9, 7, 5, 4, 3, 2, 1]


def _weighted(rng: random.Random, options: Any) -> Any:
    *values, weights = zip(*options, strict=True)
    chosen = rng.choices(range(len(weights)), weights=weights)[0]
    return tuple(column[chosen] for column in values) if len(values) > 1 else values[0][chosen]


def iso_ms(moment: datetime) -> str:
    """``2024-11-05T09:30:00.000Z``, the API's form."""
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def _pages(store: Store, site_id: str) -> list[tuple[str, dict[str, Any]]]:
    """(url, page value) of every document page the site publishes."""
    site = store.state.sites[site_id]
    base = site_url(store, site)
    found = []
    for site_space in store.state.site_spaces.get(site_id, []):
        space_id = site_space["space"]
        if space_id not in store.state.spaces:
            continue
        prefix = "" if site_space.get("default") else site_space["path"] + "/"
        for page, _, _ in store.content(space_id).walk():
            if page.kind == "document":
                found.append((f"{base}{prefix}{page.path}", {"page": page.id, "space": space_id}))
    return found


def _day(rng: random.Random) -> datetime:
    """A day of the history: weekdays busier than weekends, traffic growing over time."""
    while True:
        back = rng.uniform(0, HISTORY_DAYS)
        day = EPOCH - timedelta(days=back)
        weight = (0.45 if day.weekday() >= 5 else 1.0) * (1.6 - back / HISTORY_DAYS)
        if rng.random() * 1.6 < weight:
            hour = rng.choices(range(24), weights=_HOURS)[0]
            start = day.replace(hour=hour, minute=0, second=0, microsecond=0)
            return start + timedelta(seconds=rng.randint(0, 3599))


class _Visitor:
    def __init__(self, rng: random.Random, number: int, visibility: str) -> None:
        self.id = f"visitor-{number:04d}"
        country, language = _weighted(rng, _COUNTRIES)
        self.bot = rng.choice(_BOTS) if rng.random() < 0.05 else None
        device, browser, os = (
            ("unknown", "unknown", "unknown") if self.bot else _weighted(rng, _AGENTS)
        )
        claims = {}
        if visibility == "visitor-auth" and not self.bot:
            claims = {key: rng.choice(values) for key, values in _CLAIMS.items()}
        self.fields = {
            "visitorGeoCountry": None if self.bot else country,
            "visitorLanguage": None if self.bot else language,
            "visitorDevice": device,
            "visitorBrowser": browser,
            "visitorOS": os,
            "visitorBot": self.bot,
            "claims": claims,
            "visitorAuthenticated": bool(claims) if visibility == "visitor-auth" else None,
        }


def _event(base: Record, kind: str, at: datetime, url: str, page: Any) -> Record:
    return {
        **base,
        "eventType": kind,
        "at": at,
        "url": url,
        "urlPath": urlsplit(url).path,
        "page": page,
    }


def _session(
    rng: random.Random,
    visitor: _Visitor,
    number: int,
    pages: list[tuple[str, dict[str, Any]]],
    weights: list[float],
    site_root: str,
) -> list[Record]:
    at = _day(rng)
    referrer = _weighted(rng, _REFERRERS)
    base = {
        **visitor.fields,
        "visitor": visitor.id,
        "session": f"{visitor.id}-s{number}",
        "siteSection": None,
        "siteShareKey": None,
        "displayContext": "site",
        "referrer": referrer,
        "referrerDomain": urlsplit(referrer).hostname or "",
    }
    events = []
    views = 1 if visitor.bot else rng.choices(range(1, 7), _VIEWS_PER_SESSION)[0]
    for _ in range(views):
        if rng.random() < 0.06:
            url, page = site_root.rstrip("/") + rng.choice(_BROKEN), None
        else:
            url, page = rng.choices(pages, weights=weights)[0]
        event = _event(base, "page_view", at, url, page)
        event["siteSpace"] = page["space"] if page else None
        events.append(event)
        at += timedelta(seconds=rng.randint(20, 400))
    if not visitor.bot and rng.random() < 0.18:
        url, page = events[-1]["url"], events[-1]["page"]
        for kind in ("search_open", "search_type_query"):
            event = _event(base, kind, at, url, page)
            event["siteSpace"] = events[-1]["siteSpace"]
            if kind == "search_type_query":
                event["eventSearchQuery"] = rng.choice(_QUERIES)
            events.append(event)
            at += timedelta(seconds=rng.randint(2, 20))
    if not visitor.bot and rng.random() < 0.09 and events[-1]["page"]:
        event = _event(base, "page_post_feedback", at, events[-1]["url"], events[-1]["page"])
        event["siteSpace"] = events[-1]["siteSpace"]
        event["eventPageFeedbackRating"] = _weighted(rng, _RATINGS)
        events.append(event)
    return events


def seed_events(store: Store, site_id: str) -> list[Record]:
    """The seeded history of a site, oldest first (none for an unpublished site)."""
    site = store.state.sites[site_id]
    pages = _pages(store, site_id)
    if not site["published"] or not pages:
        return []
    rng = random.Random(f"insights:{store.seed}:{site_id}")
    weights = [1 / (rank + 1) ** 0.8 for rank in range(len(pages))]
    rng.shuffle(weights)
    root = site_url(store, site)
    events: list[Record] = []
    for number in range(VISITORS.get(site["visibility"], 60)):
        visitor = _Visitor(rng, number, site["visibility"])
        sessions = 1 + min(6, int(rng.expovariate(0.9)))
        for session in range(sessions):
            events.extend(_session(rng, visitor, session, pages, weights, root))
    events.sort(key=lambda event: event["at"])
    _fill_sections(store, site_id, events)
    return events


def _fill_sections(store: Store, site_id: str, events: list[Record]) -> None:
    """Each event's ``siteSection``: the section holding the space it happened in (the first,
    for a space in several sections of the site); None on a site without sections."""
    sections: dict[str, str] = {}
    for item in store.state.site_spaces.get(site_id, []):
        if "section" in item:
            sections.setdefault(item["space"], item["section"])
    if sections:
        for event in events:
            event["siteSection"] = sections.get(event["siteSpace"])


def site_events(store: Store, site_id: str) -> list[Record]:
    """The site's events (seeded on first use, then those tracked), in the store's state."""
    events = store.state.insights.get(site_id)
    if events is None:
        events = store.state.insights[site_id] = seed_events(store, site_id)
    return events
