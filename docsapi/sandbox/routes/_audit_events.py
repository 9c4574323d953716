"""The organization's audit log: ``GET /orgs/{organizationId}/audit-events``, newest first.

Every change the sandbox makes to access (grants, roles, teams, sites, share links, invites,
spaces and collections) is there, dated by the sandbox clock.
"""

from __future__ import annotations

from datetime import UTC, datetime

from docsapi.sandbox.core import _events as events
from docsapi.sandbox.core._auth import security
from docsapi.sandbox.core._errors import bad_request
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


def list_events(ctx: Ctx, org_id: str) -> Reply:
    """GET /orgs/{organizationId}/audit-events -> List of AuditEvent (organization admins).

    Filters: ``from`` / ``to`` (inclusive date-times), exact ``action``, ``actor`` (id) and
    ``target`` (id).
    """
    org_for(ctx, org_id, "admin")
    start, end = _instant(ctx, "from"), _instant(ctx, "to")
    action, actor, target = ctx.query("action"), ctx.query("actor"), ctx.query("target")
    chosen = []
    for event in reversed(ctx.state.events.get(org_id, [])):
        when = datetime.fromisoformat(event["occurredAt"])
        if (
            (start is None or when >= start)
            and (end is None or when <= end)
            and (action is None or event["action"] == action)
            and (actor is None or event["actor"]["id"] == actor)
            and (target is None or event["target"]["id"] == target)
        ):
            chosen.append(event)
    return paginate(
        ctx,
        chosen,
        lambda e: events.render(e, org_id, ctx.api_base),
        limits=EVENT_LIMITS,
        least=EVENT_LEAST_LIMIT,
    )


ROUTES = [
    Route("GET", "/orgs/<org_id>/audit-events", list_events, security("user")),
]
