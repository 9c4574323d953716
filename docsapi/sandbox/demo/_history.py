"""The demo's audit log: about a year of events that made the organization what it is.

The history is drawn from the final access, after every other step, so it stays consistent
whatever the grants become: each explicit permission was given by an organization admin at
some moment of the log (with, for some, an earlier role changed later), except a share of
them that are older than the log and have no event. Guests' permissions always have one (who
invited the guest), and so do the deliberate cases a demo follows (the guest who can edit a
space, the guest editing a whole collection, the admin invite link). Around them: sites
published, share links made and deactivated at their ``createdAt``, organization roles and
default levels changed, team members added, and permissions given for a while and revoked.
Every collection and space has its creation, however old (who created it keeps access to it
when it is set to "No access").

Times are drawn back from the build's ``now`` (the log is always "the last year"); ids come
from a Random of their own, so the history changes nothing else in the demo.
"""

from __future__ import annotations

import random
import uuid
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from docsapi.sandbox.core._clock import iso
from docsapi.sandbox.core._events import append, permission_target, team_member_target
from docsapi.sandbox.core._grants import GrantTable
from docsapi.sandbox.core._roles import rank

if TYPE_CHECKING:
    from docsapi.sandbox.demo._builder import Builder

#: How far back the log reaches, in days before the build's ``now``.
LOG_DAYS = 365
#: The share of explicit permissions older than the log (no event; guests' excepted).
PRE_LOG_SHARE = 0.15
#: The share of the permissions in the log first given with another role, changed later.
CHANGED_SHARE = 0.2
_ROLES = ("read", "comment", "edit", "review", "create", "admin")


class _Log:
    """The events drawn so far, written into the state sorted by time with fresh ids."""

    def __init__(self, b: Builder) -> None:
        self.b = b
        self.rng = random.Random(f"history:{b.seed}")
        self.start = b.now - timedelta(days=LOG_DAYS)
        self.events: list[tuple[datetime, str, tuple[str, str, str], dict[str, str], str]] = []
        users = b.state.users
        self.admins = [
            {"type": "user", "id": admin, "label": users[admin]["displayName"]}
            for admin in b.admins
        ]

    def when(self, after: datetime | None = None) -> datetime:
        """A moment of the log (after ``after`` when given), at least a day before ``now``."""
        low = max(self.start, after or self.start) + timedelta(hours=1)
        high = self.b.now - timedelta(days=1)
        if low >= high:
            return high
        return low + (high - low) * self.rng.random()

    def actor(self) -> dict[str, str]:
        """An organization admin: the owner half of the time."""
        if len(self.admins) == 1 or self.rng.random() < 0.5:
            return self.admins[0]
        return self.rng.choice(self.admins[1:])

    def add(
        self,
        moment: datetime,
        action: str,
        target: tuple[str, str, str],
        actor: dict[str, str] | None = None,
        source: str | None = None,
    ) -> None:
        """Log a change at ``moment`` by ``actor`` (an admin) through ``source`` (the app or,
        a quarter of the time, the API)."""
        source = source or ("api" if self.rng.random() < 0.25 else "ui")
        self.events.append((moment, action, target, actor or self.actor(), source))

    def write(self) -> None:
        log = self.b.state.events.setdefault(self.b.org_id, [])
        for moment, action, (kind, target_id, label), actor, source in sorted(
            self.events, key=lambda event: event[0]
        ):
            append(
                log,
                {
                    "id": str(uuid.UUID(int=self.rng.getrandbits(128), version=4)),
                    "occurredAt": iso(moment),
                    "action": action,
                    "actor": dict(actor),
                    "source": source,
                    "target": {"type": kind, "id": target_id, "label": label},
                },
            )


def _name(b: Builder, principal: str, principal_id: str) -> str:
    if principal == "team":
        return f"team {b.state.teams[principal_id]['title']}"
    return str(b.state.users[principal_id]["displayName"])


def _grant_tables(b: Builder) -> list[tuple[str, str, GrantTable]]:
    state = b.state
    return [
        ("space", "user", state.space_users),
        ("space", "team", state.space_teams),
        ("collection", "user", state.collection_users),
        ("collection", "team", state.collection_teams),
        ("site", "user", state.site_users),
        ("site", "team", state.site_teams),
    ]


def _stories(b: Builder, log: _Log) -> dict[tuple[str, str, str], tuple[datetime, dict]]:
    """Fixed moments and actors of the grants a demo follows (given through the app):
    (kind, target, principal) -> when, who."""
    second = log.admins[1] if len(log.admins) > 1 else log.admins[0]
    return {
        ("space", b.deliberate_spaces["guest"], b.direct_guest): (
            b.now - timedelta(days=75, hours=3, minutes=12),
            second,
        ),
        ("collection", b.collection["partners"], b.partner_guest): (
            b.now - timedelta(days=40, hours=7, minutes=48),
            log.admins[0],
        ),
    }


def _permissions(b: Builder, log: _Log) -> None:
    """An event (or two) for each explicit permission, but those older than the log."""
    rng, guests = log.rng, set(b.guests)
    stories = _stories(b, log)
    for kind, principal, table in _grant_tables(b):
        for target_id, principal_id, role in list(table):
            grant = (kind, target_id, principal, principal_id)
            story = stories.get((kind, target_id, principal_id))
            if story is not None:
                moment, actor = story
                target = _target(b, grant, role)
                log.add(moment, f"{kind}.permission.added", target, actor, source="ui")
                continue
            if principal_id not in guests and rng.random() < PRE_LOG_SHARE:
                continue  # older than the log
            moment = log.when()
            lower = [r for r in _ROLES if rank(r) < rank(role) and r != "admin"]
            if lower and rng.random() < CHANGED_SHARE:
                first = log.when()
                moment, first = max(moment, first), min(moment, first)
                log.add(first, f"{kind}.permission.added", _target(b, grant, rng.choice(lower)))
                log.add(moment, f"{kind}.permission.updated", _target(b, grant, role))
            else:
                log.add(moment, f"{kind}.permission.added", _target(b, grant, role))


def _target(b: Builder, grant: tuple[str, str, str, str], role: str) -> tuple[str, str, str]:
    """The event target of ``grant`` (kind, target id, principal type, principal id) -> role."""
    kind, target_id, principal, principal_id = grant
    title = _records(b, kind)[target_id]["title"]
    label = f"{title}: {_name(b, principal, principal_id)} -> {role}"
    return permission_target(kind, target_id, principal, principal_id, label)


def _records(b: Builder, kind: str) -> dict[str, Any]:
    state = b.state
    return {"space": state.spaces, "collection": state.collections, "site": state.sites}[kind]


def _passing_grants(b: Builder, log: _Log) -> None:
    """Permissions given for a while, then revoked: a regular member on one space in ten."""
    rng, state = log.rng, b.state
    people = [u for u in b.regular if u not in b.admins]
    for space_id, space in state.spaces.items():
        if rng.random() >= 0.1 or not people:
            continue
        user_id = rng.choice(people)
        if state.space_users.role(space_id, user_id) is not None:
            continue
        name = state.users[user_id]["displayName"]
        given = log.when()
        taken = log.when(after=given)
        label = f"{space['title']}: {name}"
        log.add(
            given,
            "space.permission.added",
            permission_target("space", space_id, "user", user_id, f"{label} -> read"),
        )
        log.add(
            taken,
            "space.permission.removed",
            permission_target("space", space_id, "user", user_id, f"{label} -> no access"),
        )


def _organization(b: Builder, log: _Log) -> None:
    """Organization roles, default levels, team members and invite links."""
    rng, state = log.rng, b.state
    members = state.members[b.org_id]
    for admin in b.admins[1:]:
        name = state.users[admin]["displayName"]
        moment = b.now - timedelta(days=rng.randint(100, 300))
        log.add(
            moment,
            "organization.member.updated",
            ("user", admin, f"{name} -> admin"),
            log.admins[0],
        )
    for user_id in b.regular:
        role = members[user_id]["role"]
        if user_id not in b.admins and rng.random() < 0.1:
            name = state.users[user_id]["displayName"]
            log.add(
                log.when(), "organization.member.updated", ("user", user_id, f"{name} -> {role}")
            )
    for kind, records in (("space", state.spaces), ("collection", state.collections)):
        chosen = [r for r in records.values() if r["defaultLevel"] != "inherit"]
        for record in chosen[::2]:  # the other half were set before the log
            level = record["defaultLevel"] or "no access"
            label = f"{record['title']}: default level -> {level}"
            target = (kind, record["id"], label)
            log.add(log.when(), f"{kind}.default-level.updated", target)
    for team_id, team in state.teams.items():
        for user_id in team["members"]:
            if rng.random() < 0.5:
                label = f"{team['title']}: {state.users[user_id]['displayName']} -> member"
                log.add(
                    log.when(),
                    "organization.team.member-added",
                    team_member_target(team_id, user_id, label),
                )
    admin_link = b.invite["admin"]
    log.add(
        b.now - timedelta(days=120, hours=5),
        "organization.link-invite.created",
        ("invite", admin_link, "Invite link to the organization -> admin"),
    )


def _sites(b: Builder, log: _Log) -> None:
    """Who published each site, who made each share link and who deactivated the old ones."""
    for site_id, site in b.state.sites.items():
        if site["published"]:
            log.add(log.when(), "site.published", ("site", site_id, site["title"]))
        for link in b.state.share_links[site_id].values():
            made = datetime.fromisoformat(link["createdAt"])
            target = ("share-link", link["id"], f"{site['title']}: {link['name']}")
            if made >= log.start:
                log.add(made, "site.share-link.created", target)
            if not link["active"]:
                log.add(log.when(after=made), "site.share-link.updated", target)


def _creations(b: Builder, log: _Log) -> None:
    """Who created each collection and space, at its ``createdAt``: the log keeps creations
    from the organization's start (the audit reads them for creators, who keep access to
    content set to "No access")."""
    users = b.state.users
    for kind, records in (("collection", b.state.collections), ("space", b.state.spaces)):
        for content_id, record in records.items():
            creator = b.state.creators.get(content_id)
            if creator is None:  # made by an integration: no user keeps it
                continue
            actor = {"type": "user", "id": creator, "label": users[creator]["displayName"]}
            target = (kind, content_id, record["title"])
            log.add(
                datetime.fromisoformat(record["createdAt"]), f"{kind}.created", target, actor, "ui"
            )


def history(b: Builder) -> None:
    """Write the demo's audit log (see the module docstring) into the state."""
    log = _Log(b)
    _creations(b, log)
    _permissions(b, log)
    _passing_grants(b, log)
    _organization(b, log)
    _sites(b, log)
    log.write()
    b.facts["log_days"] = LOG_DAYS
