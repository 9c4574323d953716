"""Small organizations built inside a running sandbox, through its state and controls.

Auditing the whole demo organization takes seconds; the rule-set tests build many small
organizations instead. :class:`SmallOrg` adds one to a sandbox's state: its records are
copies of the demo's (so they render like any other), its members are demo users, the
sandbox's owner is an organization admin (so ``sandbox.client()`` audits it), grants go
through the sandbox's ``grant`` control and every space and collection has a create event
in the organization's audit log naming its creator.
"""

from __future__ import annotations

import copy
from typing import Any

from docsapi.sandbox.core import _events as events
from docsapi.sandbox.core._auth import Credential


class SmallOrg:
    """An organization added to ``sandbox``'s state (gone at the sandbox's next reset)."""

    def __init__(self, sandbox: Any, title: str = "Rule sets") -> None:
        self.sandbox = sandbox
        self.store = sandbox._store
        demo = sandbox.demo
        self.owner = demo["owner_id"]
        self.users = [u for u in demo["org_admin_ids"] + _members(sandbox) if u != self.owner]
        with self.store.lock:
            state = self.store.state
            self.org_id = self.store.new_id()
            record = copy.deepcopy(state.orgs[demo["org_id"]])
            record.update(id=self.org_id, title=title, hostname=f"rules{self.org_id[:6].lower()}")
            state.orgs[self.org_id] = record
            state.members[self.org_id] = {}
            state.invites[self.org_id] = {}
            state.events[self.org_id] = []
        self.member(self.owner, "admin")
        self._space_model = demo["space_ids"][0]
        self._site_model = demo["site_ids"][0]

    # -- people ---------------------------------------------------------------------------
    def member(self, user_id: str, role: str | None, *, disabled: bool = False) -> str:
        with self.store.lock:
            self.store.state.members[self.org_id][user_id] = {
                "role": role,
                "joinedAt": "2025-01-01T00:00:00.000Z",
                "lastSeenAt": self.store.now_iso(),
                "disabled": disabled,
            }
        return user_id

    def team(self, *members: str) -> str:
        with self.store.lock:
            team_id = self.store.new_id()
            self.store.state.teams[team_id] = {
                "id": team_id,
                "title": f"Team {len(self.store.state.teams)}",
                "organization": self.org_id,
                "createdAt": "2025-01-01T00:00:00.000Z",
                "members": {},
            }
            for user_id in members:
                self.store.join_team(team_id, user_id)
        return team_id

    # -- content --------------------------------------------------------------------------
    def collection(
        self, parent: str | None = None, level: str | None = "inherit", by: str | None = None
    ) -> str:
        with self.store.lock:
            collection_id = self.store.new_id()
            self.store.state.collections[collection_id] = {
                "id": collection_id,
                "title": f"Collection {collection_id[:4]}",
                "organization": self.org_id,
                "parent": parent,
                "defaultLevel": level,
                "createdAt": "2025-01-01T00:00:00.000Z",
            }
            self.store.siblings(self.org_id, collection_id)
            self.store.siblings(self.org_id, parent).append(("collection", collection_id))
            self._created("collection", collection_id, by)
        return collection_id

    def space(
        self, parent: str | None = None, level: str | None = "inherit", by: str | None = None
    ) -> str:
        with self.store.lock:
            state = self.store.state
            space_id = self.store.new_id()
            record = copy.deepcopy(state.spaces[self._space_model])
            record.update(
                id=space_id,
                title=f"Space {space_id[:4]}",
                organization=self.org_id,
                parent=parent,
                defaultLevel=level,
                visibility="in-collection" if parent else "private",
            )
            state.spaces[space_id] = record
            state.change_requests[space_id] = []
            self.store.siblings(self.org_id, parent).append(("space", space_id))
            self._created("space", space_id, by)
        return space_id

    def site(self, *spaces: str, level: str | None = "inherit") -> str:
        with self.store.lock:
            state = self.store.state
            site_id = "site_" + self.store.new_id(16)
            record = copy.deepcopy(state.sites[self._site_model])
            record.update(
                id=site_id,
                title=f"Site {site_id[5:9]}",
                organization=self.org_id,
                defaultLevel=level,
                basename=site_id.lower(),
            )
            state.sites[site_id] = record
            state.share_links[site_id] = {}
            state.site_spaces[site_id] = [
                {
                    "id": "sitesp_" + self.store.new_id(16),
                    "space": space_id,
                    "path": space_id.lower(),
                    "title": state.spaces[space_id]["title"],
                    "draft": False,
                    "default": position == 0,
                }
                for position, space_id in enumerate(spaces)
            ]
        return site_id

    def grant(self, target: str, principal: str, role: str) -> SmallOrg:
        self.sandbox.grant(target, principal, role)
        return self

    def _created(self, kind: str, content_id: str, by: str | None) -> None:
        """The content's creator (None: an integration) and its create event."""
        state = self.store.state
        state.creators[content_id] = by
        credential = None if by is None else Credential("user", frozenset(), by)
        record = state.spaces[content_id] if kind == "space" else state.collections[content_id]
        events.record(
            self.store,
            self.org_id,
            credential,
            f"{kind}.created",
            (kind, content_id, record["title"]),
        )


def _members(sandbox: Any) -> list[str]:
    """Demo users who are members (not former members), in a fixed order."""
    former = set(sandbox.demo["former_member_ids"])
    with sandbox._store.lock:
        members = sandbox._store.state.members[sandbox.demo["org_id"]]
        return [u for u in sorted(members) if u not in former]
