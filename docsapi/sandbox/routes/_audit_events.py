"""The organization's audit log: ``GET /orgs/{organizationId}/audit-events``, newest first,
and the actions it records: ``GET /orgs/{organizationId}/audit-event-actions``.

Every change the sandbox makes to access (grants, roles, teams, sites, share links, invites,
spaces and collections) is there, dated by the sandbox clock. The log is kept oldest first,
so ``from`` and ``to`` cut it by bisection; the events a query selects are kept until the next
write, so each further page costs what it holds, not the log's size.
"""

from __future__ import annotations

import bisect
from datetime import UTC, datetime, timedelta

from docsapi.sandbox.core import _events as events
from docsapi.sandbox.core._auth import security
from docsapi.sandbox.core._errors import bad_request
from docsapi.sandbox.core._state import Record
from docsapi.sandbox.core._web import Ctx, Reply, Route, paginate
from docsapi.sandbox.routes._access import org_for

#: Default and largest page size of this list (smaller than other lists'), and its smallest
#: (the description's ``limit`` of this operation starts at 1).
EVENT_LIMITS = (20, 100)
EVENT_LEAST_LIMIT = 1


def _instant(ctx: Ctx, name: str) -> datetime | None:
    raw = ctx.query(name)
    if raw is None:
        return None
    try:
        moment = datetime.fromisoformat(raw)
    except ValueError:
        raise bad_request(
            f"Query parameter {name!r} must be a date-time such as 2025-01-31T12:00:00Z; "
            f"got {raw!r}."
        ) from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _stamp(moment: datetime, *, round_up: bool) -> str:
    """``moment`` as the log's timestamps are written (milliseconds), so they compare as text.

    A bound between two milliseconds is rounded inwards: up for ``from``, down for ``to``. A
    bound beyond the years 1-9999 in UTC lies before or after every event.
    """
    try:
        moment = moment.astimezone(UTC)
        if round_up and moment.microsecond % 1000:
            moment += timedelta(microseconds=1000 - moment.microsecond % 1000)
    except OverflowError:
        return "0000" if moment.year < 5000 else "9999-99"
    return (
        f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d}T{moment.hour:02d}:"
        f"{moment.minute:02d}:{moment.second:02d}.{moment.microsecond // 1000:03d}Z"
    )


def list_events(ctx: Ctx, org_id: str) -> Reply:
    """GET /orgs/{organizationId}/audit-events -> List of AuditEvent (organization admins).

    Filters: ``from`` / ``to`` (inclusive date-times), exact ``action``, ``actor`` (id) and
    ``target`` (id).
    """
    org_for(ctx, org_id, "admin")
    start, end = _instant(ctx, "from"), _instant(ctx, "to")
    action, actor, target = ctx.query("action"), ctx.query("actor"), ctx.query("target")
    log = ctx.state.events.get(org_id, [])
    low, high = 0, len(log)
    key = lambda event: event["occurredAt"]  # noqa: E731
    if start is not None:
        low = bisect.bisect_left(log, _stamp(start, round_up=True), key=key)
    if end is not None:
        high = bisect.bisect_right(log, _stamp(end, round_up=False), key=key)

    def newest_first() -> list[Record]:
        chosen = log[low:high] if low < high else []
        if action is not None:
            chosen = [e for e in chosen if e["action"] == action]
        if actor is not None:
            chosen = [e for e in chosen if e["actor"]["id"] == actor]
        if target is not None:
            chosen = [e for e in chosen if e["target"]["id"] == target]
        chosen.reverse()
        return chosen

    # the pages of one query share its list until the next write
    query = ("audit-events", org_id, low, high, action, actor, target)
    chosen = ctx.store.memo(query, newest_first)
    return paginate(
        ctx,
        chosen,
        lambda e: events.render(e, org_id, ctx.api_base),
        limits=EVENT_LIMITS,
        least=EVENT_LEAST_LIMIT,
    )


def list_actions(ctx: Ctx, org_id: str) -> Reply:
    """GET /orgs/{organizationId}/audit-event-actions -> ``{"items": [AuditEventAction]}``
    (organization admins): the one list of ``docsapi.core.audit_actions``, not paginated."""
    org_for(ctx, org_id, "admin")
    return Reply(200, {"items": events.render_actions()})


ROUTES = [
    Route("GET", "/orgs/<org_id>/audit-event-actions", list_actions, security("user")),
    Route("GET", "/orgs/<org_id>/audit-events", list_events, security("user")),
]
