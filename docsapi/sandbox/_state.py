"""The sandbox's data: plain dicts keyed by id, copied wholesale to reset.

Page content is not in here: it lives in immutable :class:`~docsapi.sandbox._content.Content`
values (generated on demand), and ``content`` only holds those that a request replaced.
"""

from __future__ import annotations

import copy
import random
from dataclasses import dataclass, field
from typing import Any

Record = dict[str, Any]


@dataclass
class State:
    """Everything the API can read or change.

    Attributes
    ----------
    orgs
        Organization id -> record (title, type, createdAt, ...).
    users
        User id -> {"id", "displayName", "email", "photoURL"?}.
    members
        Organization id -> {user id -> {"role", "joinedAt", "lastSeenAt", "disabled"}}.
    teams
        Team id -> {"id", "title", "organization", "createdAt", "members": {user id: team role}}.
    collections
        Collection id -> {"id", "title", "organization"}.
    spaces
        Active space id -> record (title, emoji, organization, parent, ...).
    trash
        Deleted space id -> {"space", "deletedAt" (datetime), "users", "teams"}.
    children
        (organization id, collection id or None) -> ordered [("space"|"collection", id)].
    user_grants / team_grants
        Space id -> {user or team id -> role}.
    change_requests
        Space id -> list of change request records.
    git
        Space id -> Git sync record (only for spaces with a provider configured).
    content
        Space id -> Content replacing the generated one (imports, templates, copies).
    rng
        Source of ids for objects created by requests.
    """

    orgs: dict[str, Record] = field(default_factory=dict)
    users: dict[str, Record] = field(default_factory=dict)
    members: dict[str, dict[str, Record]] = field(default_factory=dict)
    teams: dict[str, Record] = field(default_factory=dict)
    collections: dict[str, Record] = field(default_factory=dict)
    spaces: dict[str, Record] = field(default_factory=dict)
    trash: dict[str, Record] = field(default_factory=dict)
    children: dict[tuple[str, str | None], list[tuple[str, str]]] = field(default_factory=dict)
    user_grants: dict[str, dict[str, str]] = field(default_factory=dict)
    team_grants: dict[str, dict[str, str]] = field(default_factory=dict)
    change_requests: dict[str, list[Record]] = field(default_factory=dict)
    git: dict[str, Record] = field(default_factory=dict)
    content: dict[str, Any] = field(default_factory=dict)
    rng: random.Random = field(default_factory=random.Random)

    def snapshot(self) -> State:
        """An independent copy (content values are immutable and shared)."""
        content = self.content
        self.content = {}
        try:
            clone = copy.deepcopy(self)
        finally:
            self.content = content
        clone.content = dict(content)
        return clone
