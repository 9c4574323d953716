"""The organization's audit log: one event per change the sandbox makes.

Actions are the platform's action IDs, ``<resource>.<sub-resource>.<past-tense verb>``
(``space.permission.added``, ``site.published``, ``organization.team.member-added`` ...), all
from the one list of ``docsapi.core.audit_actions`` (recording any other name is a bug and
raises); the target is the resource changed. A permission and a team
membership have no id of their own in the API, so their target names both ends:
``{"type": "space-permission", "id": "<space id>/user/<user id>"}`` (or ``/team/<team id>``;
likewise ``collection-permission`` and ``site-permission``) and
``{"type": "team-member", "id": "<team id>/<user id>"}``; the label says it in words
(``Payments API: Ada Lovelace -> edit``). A share link's events target the link
(``{"type": "share-link", "id": <link id>}``).

The log is kept oldest first. A store whose ``log_events`` is False records nothing (the
sandbox's ``unlogged()`` control: a change made behind the platform's back).
"""

from __future__ import annotations

import bisect
import uuid
from typing import Any

from docsapi.core.audit_actions import ACTION_LIST, ACTIONS
from docsapi.sandbox.core._auth import Credential
from docsapi.sandbox.core._state import Record
from docsapi.sandbox.core._store import Store

#: Actor of changes made through the sandbox's own controls (demos and tests).
SANDBOX_ACTOR = {"type": "system", "id": "sandbox", "label": "Sandbox controls"}


def actor_of(store: Store, credential: Credential | None) -> dict[str, str]:
    """The AuditEventActor behind a credential (None: the sandbox's own controls)."""
    if credential is None:
        return dict(SANDBOX_ACTOR)
    if credential.user_id is None:
        kind = "installation" if credential.scheme == "integration-installation" else "integration"
        return {"type": kind, "id": f"sandbox-{kind}"}
    user = store.state.users.get(credential.user_id)
    label = user["displayName"] if user else credential.user_id
    return {"type": "user", "id": credential.user_id, "label": label}


def record(
    store: Store,
    org_id: str,
    credential: Credential | None,
    action: str,
    target: tuple[str, str, str],
) -> Record:
    """Append an event to ``org_id``'s audit log.

    Parameters
    ----------
    store
        The sandbox store (its clock dates the event, its seeded random names it).
    org_id
        The organization whose log receives it.
    credential
        Who made the change (None for the sandbox's controls).
    action
        The action ID, such as ``space.permission.updated`` (one of ``ACTIONS``).
    target
        (type, id, label) of what changed.

    Returns
    -------
    dict
        The stored event (empty when the store records no events).

    Raises
    ------
    ValueError
        When ``action`` is not an action ID of the platform's list.
    """
    if action not in ACTIONS:
        raise ValueError(f"{action!r} is not an action ID of docsapi.core.audit_actions")
    kind, target_id, label = target
    if not store.log_events:
        return {}
    event = {
        "id": str(uuid.UUID(int=store.state.rng.getrandbits(128), version=4)),
        "occurredAt": store.now_iso(),
        "action": action,
        "actor": actor_of(store, credential),
        "source": "api" if credential is not None else "script",
        "target": {"type": kind, "id": target_id, "label": label},
    }
    append(store.state.events.setdefault(org_id, []), event)
    return event


def append(log: list[Record], event: Record) -> None:
    """Add ``event`` to a log kept oldest first (after any event of the same instant)."""
    if not log or log[-1]["occurredAt"] <= event["occurredAt"]:
        log.append(event)
    else:
        bisect.insort_right(log, event, key=lambda e: e["occurredAt"])


def permission_target(
    kind: str, target_id: str, principal_type: str, principal_id: str, label: str
) -> tuple[str, str, str]:
    """The target of a change of ``principal_id``'s permission on a space, collection or site.

    Examples
    --------
    >>> permission_target("space", "s1", "team", "t1", "Docs: team Writers -> edit")[:2]
    ('space-permission', 's1/team/t1')
    """
    return f"{kind}-permission", f"{target_id}/{principal_type}/{principal_id}", label


def team_member_target(team_id: str, user_id: str, label: str) -> tuple[str, str, str]:
    """The target of a change of ``user_id``'s membership of a team.

    Examples
    --------
    >>> team_member_target("t1", "u1", "Writers: Ada -> member")[:2]
    ('team-member', 't1/u1')
    """
    return "team-member", f"{team_id}/{user_id}", label


def space_event(
    store: Store,
    credential: Credential | None,
    space: Record,
    action: str,
    label: str | None = None,
) -> Record:
    """Append an event about a space to its organization's log."""
    target = ("space", space["id"], label or space["title"])
    return record(store, space["organization"], credential, action, target)


def principal_label(store: Store, principal_type: str, principal_id: str) -> str:
    """A user's display name or a team's title (the id when it is unknown)."""
    if principal_type == "team":
        team = store.state.teams.get(principal_id)
        return f"team {team['title']}" if team else f"team {principal_id}"
    found = store.state.users.get(principal_id)
    return found["displayName"] if found else principal_id


def render_actions() -> list[dict[str, str]]:
    """The AuditEventAction list: every action ID the sandbox logs, with its label."""
    return [
        {"object": "audit-event-action", "id": action.id, "label": action.label}
        for action in ACTION_LIST
    ]


def render(event: Record, org_id: str, api_base: str) -> dict[str, Any]:
    """An AuditEvent."""
    return {
        "object": "audit-event",
        **event,
        "urls": {"location": f"{api_base}/orgs/{org_id}/audit-events/{event['id']}"},
    }
