"""The aggregation query of site insights: filter events, group them, count, order, cut.

A query (the body of ``aggregateSiteEvents``) names a ``range``, ``groupBy`` columns,
``select`` columns, ``where`` filters, an ``order`` and a ``limit``. The answer is columnar:
``{"columns": [{"column": name, "values": [...]}, ...]}``, the grouping columns first, then the
selected ones, one value per group. Dimensions are read from each event; metrics
(``eventsCount``, ``sessionsCount``, ``visitorsCount``, ``pageFeedbackRating``,
``askResponseRating``) are computed per group. A filter on a dimension keeps events; a filter on
a metric keeps groups. A column the sandbox does not hold data for is refused with a 400 that
lists the ones it does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from docsapi.sandbox.core._errors import bad_request
from docsapi.sandbox.routes._insights_data import iso_ms

Record = dict[str, Any]

#: Dimensions read straight from an event.
PLAIN_DIMENSIONS = (
    "url",
    "urlPath",
    "eventType",
    "siteSection",
    "siteSpace",
    "siteShareKey",
    "displayContext",
    "page",
    "visitorGeoCountry",
    "visitorDevice",
    "visitorBrowser",
    "visitorOS",
    "visitorBot",
    "visitorLanguage",
    "visitorAuthenticated",
    "referrer",
    "referrerDomain",
)
#: Dimensions only some events carry: grouping or filtering by them keeps those events.
EVENT_DIMENSIONS = ("eventSearchQuery", "eventPageFeedbackRating")
TIME_DIMENSIONS = ("datetime", "dayOfWeek", "hourOfDay")
METRICS = (
    "eventsCount",
    "sessionsCount",
    "visitorsCount",
    "pageFeedbackRating",
    "askResponseRating",
)
SUPPORTED = (*TIME_DIMENSIONS, *PLAIN_DIMENSIONS, *EVENT_DIMENSIONS, *METRICS)
PRESETS = {
    "last24Hours": timedelta(hours=24),
    "last7Days": timedelta(days=7),
    "last30Days": timedelta(days=30),
    "last3Months": timedelta(days=91),
    "lastYear": timedelta(days=365),
}
DEFAULT_LIMIT = 1000
_COMPARISONS: dict[str, Callable[[Any, Any], bool]] = {
    "greaterThan": lambda a, b: a > b,
    "greaterThanOrEqual": lambda a, b: a >= b,
    "lessThan": lambda a, b: a < b,
    "lessThanOrEqual": lambda a, b: a <= b,
}


def parse_time(value: str, name: str) -> datetime:
    """A date-time of the query, as an aware UTC datetime."""
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise bad_request(f"{name} must be a date-time such as 2025-01-06T00:00:00Z") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def time_range(spec: Any, now: datetime) -> tuple[datetime, datetime]:
    """The ``[from, to]`` instants of a preset (relative to ``now``) or a custom range."""
    if isinstance(spec, str):
        return now - PRESETS[spec], now
    start, end = parse_time(spec["from"], "range.from"), parse_time(spec["to"], "range.to")
    if start > end:
        raise bad_request("range.from must not be after range.to.")
    return start, end


def _bucket(moment: datetime, interval: str) -> datetime:
    if interval == "hour":
        return moment.replace(minute=0, second=0, microsecond=0)
    day = moment.replace(hour=0, minute=0, second=0, microsecond=0)
    if interval == "week":
        return day - timedelta(days=day.weekday())
    if interval == "month":
        return day.replace(day=1)
    return day


def _name(spec: Mapping[str, Any]) -> str:
    column = spec["column"]
    if column not in SUPPORTED:
        raise bad_request(
            f"The sandbox holds no data for the column {column!r}; it answers "
            f"{', '.join(SUPPORTED)}."
        )
    return column


def _dimension(event: Record, spec: Mapping[str, Any]) -> Any:
    column = spec["column"]
    if column == "datetime":
        return iso_ms(_bucket(event["at"], spec.get("interval", "day")))
    if column == "dayOfWeek":
        return event["at"].isoweekday()
    if column == "hourOfDay":
        return event["at"].hour
    return event.get(column)


def _filter_value(event: Record, rule: Mapping[str, Any]) -> Any:
    """What a filter compares: the exact instant for ``datetime``, else the dimension."""
    return event["at"] if rule["column"] == "datetime" else _dimension(event, rule)


def _matches(value: Any, column: str, rule: Mapping[str, Any]) -> bool:
    operator = rule.get("operator", "in")
    values = rule["values"]
    if column == "datetime":
        values = [parse_time(v, "where.values") for v in values]
    if operator == "in":
        return value in values
    if operator == "notIn":
        return value not in values
    if value is None or not values:
        return False
    try:
        return _COMPARISONS[operator](value, values[0])
    except TypeError:
        raise bad_request(f"The operator {operator!r} does not apply to {column!r}.") from None


def _metric(column: str, events: Sequence[Record]) -> Any:
    if column == "eventsCount":
        return len(events)
    if column == "sessionsCount":
        return len({e["session"] for e in events})
    if column == "visitorsCount":
        return len({e["visitor"] for e in events})
    if column == "pageFeedbackRating":
        ratings = [e.get("eventPageFeedbackRating") for e in events]
        return {rating: ratings.count(rating) for rating in ("ok", "good", "bad")}
    return {"positive": 0, "negative": 0}  # askResponseRating: no Ask events in the sandbox


def _key(value: Any) -> tuple[int, Any]:
    """Sort key for mixed values: None first, dicts by their items."""
    if value is None:
        return (0, "")
    if isinstance(value, Mapping):
        return (1, sorted((k, str(v)) for k, v in value.items()))
    return (1, value)


def aggregate(events: Iterable[Record], query: Mapping[str, Any], now: datetime) -> Record:
    """Answer an aggregation ``query`` over ``events``.

    Raises
    ------
    ApiError
        400 for a column without data, a bad range or an order by a column not in the answer.
    """
    start, end = time_range(query["range"], now)
    group_by = list(query.get("groupBy", []))
    select = list(query.get("select", [])) or ([] if group_by else [{"column": "eventsCount"}])
    for spec in (*group_by, *select, *query.get("where", [])):
        _name(spec)
    dims = [s for s in group_by if s["column"] not in METRICS]
    if len(dims) != len(group_by):
        raise bad_request("groupBy takes dimensions; metrics such as eventsCount go in select.")
    dims += [s for s in select if s["column"] not in METRICS and s not in dims]
    metrics = [s["column"] for s in select if s["column"] in METRICS]
    if not metrics:
        metrics = ["eventsCount"] if not select else []
    event_filters = [w for w in query.get("where", []) if w["column"] not in METRICS]
    group_filters = [w for w in query.get("where", []) if w["column"] in METRICS]
    needed = {s["column"] for s in (*dims, *event_filters) if s["column"] in EVENT_DIMENSIONS}

    groups: dict[tuple[str, ...], tuple[list[Any], list[Record]]] = {}
    if not dims:  # a total is one row, even over no events
        groups[()] = ([], [])
    for event in events:
        if not start <= event["at"] <= end or any(c not in event for c in needed):
            continue
        if not all(_matches(_filter_value(event, w), w["column"], w) for w in event_filters):
            continue
        values = [_dimension(event, spec) for spec in dims]
        key = tuple(repr(v) for v in values)
        groups.setdefault(key, (values, []))[1].append(event)

    rows = [
        [*values, *(_metric(m, members) for m in metrics)] for values, members in groups.values()
    ]
    names = [s["column"] for s in dims] + metrics
    for rule in group_filters:
        index = names.index(rule["column"]) if rule["column"] in names else None
        if index is None:
            raise bad_request(f"Filter on {rule['column']!r} needs it in select.")
        rows = [row for row in rows if _matches(row[index], rule["column"], rule)]
    rows.sort(key=lambda row: [_key(v) for v in row[: len(dims)]])
    order = query.get("order")
    if order is not None:
        column = order["by"]["column"]
        if column not in names:
            raise bad_request(f"order.by {column!r} must be one of the answer's columns: {names}.")
        index = names.index(column)
        rows.sort(key=lambda row: _key(row[index]), reverse=order["direction"] == "desc")
    rows = rows[: query.get("limit", DEFAULT_LIMIT)]
    return {
        "columns": [
            {"column": name, "values": [row[i] for row in rows]} for i, name in enumerate(names)
        ]
    }


def segments(events: Iterable[Record]) -> list[Record]:
    """Visitor segments: the visitors with the same claims, most visitors first."""
    found: dict[str, tuple[dict[str, Any], list[Record]]] = {}
    for event in events:
        claims = event.get("claims") or {}
        key = repr(sorted(claims.items()))
        found.setdefault(key, (claims, []))[1].append(event)
    result: list[Record] = []
    for claims, members in found.values():
        title = ", ".join(f"{k}: {v}" for k, v in sorted(claims.items())) or "Anonymous visitors"
        result.append(
            {
                "title": title,
                "claims": dict(claims),
                "events": len(members),
                "visitors": len({e["visitor"] for e in members}),
                "sessions": len({e["session"] for e in members}),
            }
        )
    result.sort(key=lambda s: (-s["visitors"], s["title"]))
    return result
