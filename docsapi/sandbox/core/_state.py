"""The sandbox's data: plain dicts keyed by id, copied wholesale to reset.

Page content is not in here: it lives in immutable :class:`~docsapi.sandbox.core._content.Content`
values (generated on demand), and ``content`` only holds those that a request replaced.
"""

from __future__ import annotations

import copy
import random
from dataclasses import dataclass, field
from typing import Any

from docsapi.sandbox.core._grants import GrantTable

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
        Collection id -> {"id", "title", "organization", "parent", "defaultLevel", "createdAt"}.
    spaces
        Active space id -> record (title, emoji, organization, parent, defaultLevel, ...;
        "type" is "styleguide" for a style guide space).
    trash
        Deleted space id -> {"space", "deletedAt" (datetime), "index", "users", "teams"}: the
        record, when, its place among its siblings and its grants (restored with it).
    children
        (organization id, collection id or None) -> ordered [("space"|"collection", id)].
    space_users / space_teams
        User and team grants on spaces.
    collection_users / collection_teams
        User and team grants on collections.
    sites
        Site id -> {"id", "title", "organization", "visibility", "published", "defaultLevel",
        "type", "basename", "createdAt"}, and once set "adaptiveContent" (bool), "proxy" (the
        origin) and "styleguide" (a style guide space's id).
    site_spaces
        Site id -> ordered site-space records {"id", "space", "path", "title", "draft", "default"}
        and, on a site with sections, "section" (its section's id; "default" is then the
        section's default site space).
    site_sections
        Site id -> ordered sections {"id", "title", "path", "default"} (absent: no sections).
    share_links
        Site id -> {share link id -> {"id", "name", "key", "active", "createdAt"}}.
    site_auth
        Site id -> visitor authentication settings {"backend", "privateKey", "fallbackURL"}.
    site_users / site_teams
        User and team grants on sites: they administer the site and reach the spaces it
        links that inherit their permissions (see ``_permission_model``).
    invites
        Organization id -> {invite id -> {"id", "role"} or {"id", "level", "space"|"collection"}}.
    events
        Organization id -> audit events, oldest first.
    insights
        Site id -> visitor events (site insights), oldest first; filled on a site's first
        insights request (see ``routes._insights_data``).
    change_requests
        Space id -> list of change request records.
    git
        Space id -> Git sync record (only for spaces with a provider configured).
    content
        Space id -> Content replacing the generated one (imports, templates, copies).
    creators
        Space or collection id -> the id of the user who created it (None when an integration
        did): they keep access to it while it is "No access" (default level null).
    rule_set
        How the access model combines levels: ``"precedence"`` (the platform's current
        documentation) or ``"highest"`` (its earlier one); see ``_permission_model``.
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
    space_users: GrantTable = field(default_factory=GrantTable)
    space_teams: GrantTable = field(default_factory=GrantTable)
    collection_users: GrantTable = field(default_factory=GrantTable)
    collection_teams: GrantTable = field(default_factory=GrantTable)
    sites: dict[str, Record] = field(default_factory=dict)
    site_spaces: dict[str, list[Record]] = field(default_factory=dict)
    site_sections: dict[str, list[Record]] = field(default_factory=dict)
    share_links: dict[str, dict[str, Record]] = field(default_factory=dict)
    site_auth: dict[str, Record] = field(default_factory=dict)
    site_users: GrantTable = field(default_factory=GrantTable)
    site_teams: GrantTable = field(default_factory=GrantTable)
    invites: dict[str, dict[str, Record]] = field(default_factory=dict)
    events: dict[str, list[Record]] = field(default_factory=dict)
    insights: dict[str, list[Record]] = field(default_factory=dict)
    change_requests: dict[str, list[Record]] = field(default_factory=dict)
    git: dict[str, Record] = field(default_factory=dict)
    content: dict[str, Any] = field(default_factory=dict)
    creators: dict[str, str | None] = field(default_factory=dict)
    rule_set: str = "precedence"
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
