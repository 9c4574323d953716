"""Thread-safe access to the sandbox's state, its content and its clock.

One re-entrant lock guards everything: a request handler holds it from the first read to the
last write, so concurrent requests never lose an update.
"""

from __future__ import annotations

import random
import threading
from datetime import timedelta

from docsapi.sandbox._clock import Clock, iso
from docsapi.sandbox._content import Content
from docsapi.sandbox._content_gen import generate_content
from docsapi.sandbox._ids import new_id
from docsapi.sandbox._roles import strongest
from docsapi.sandbox._state import Record, State

#: How long a deleted space stays restorable.
TRASH_RETENTION = timedelta(days=7)


class Store:
    """The sandbox's data with its lock, clock and seeded content.

    Parameters
    ----------
    state
        The seeded state; a pristine copy is kept for :meth:`reset`.
    seed
        Seed of the generated page content.
    clock
        The sandbox clock.
    """

    def __init__(self, state: State, seed: int, clock: Clock) -> None:
        self.lock = threading.RLock()
        self.clock = clock
        self.seed = seed
        self._pristine = state
        self.state = state.snapshot()
        self._generated: dict[str, Content] = {}

    def reset(self) -> None:
        """Back to the seeded state (generated content is kept: it never changes)."""
        with self.lock:
            self.state = self._pristine.snapshot()

    def now_iso(self) -> str:
        """The sandbox time as an API timestamp."""
        return iso(self.clock.now())

    def new_id(self, length: int = 20) -> str:
        """A fresh id for an object created by a request."""
        return new_id(self.state.rng, length)

    # -- content --------------------------------------------------------------------
    def content(self, space_id: str) -> Content:
        """The current content of an active or trashed space."""
        with self.lock:
            replaced = self.state.content.get(space_id)
            if replaced is not None:
                return replaced
            cached = self._generated.get(space_id)
            if cached is None:
                space = self.state.spaces.get(space_id) or self.state.trash[space_id]["space"]
                rng = random.Random(f"content:{self.seed}:{space_id}")
                cached = generate_content(
                    rng,
                    space["topic"],
                    empty=space["empty"],
                    small=space["small"],
                    created_at=space["updatedAt"],
                )
                cached = Content(
                    revision=space["revision"],
                    pages=cached.pages,
                    files=cached.files,
                    reusables=cached.reusables,
                    created_at=cached.created_at,
                )
                self._generated[space_id] = cached
            return cached

    def set_content(self, space_id: str, content: Content) -> None:
        """Replace a space's content and point the space at the new revision."""
        with self.lock:
            self.state.content[space_id] = content
            space = self.state.spaces[space_id]
            space["revision"] = content.revision
            space["updatedAt"] = self.now_iso()

    # -- trash ------------------------------------------------------------------------
    def purge_trash(self) -> None:
        """Remove for good the spaces deleted more than the retention period ago.

        Called when the trash is read or written (restore, delete) and when the clock is
        advanced, not before every request.
        """
        with self.lock:
            now = self.clock.now()
            expired = [
                sid
                for sid, entry in self.state.trash.items()
                if now - entry["deletedAt"] >= TRASH_RETENTION
            ]
            for space_id in expired:
                del self.state.trash[space_id]
                self.state.content.pop(space_id, None)
                self.state.change_requests.pop(space_id, None)
                self.state.git.pop(space_id, None)

    # -- lookups --------------------------------------------------------------------
    def member(self, org_id: str, user_id: str) -> Record | None:
        """The membership record of a user in an organization, or None."""
        return self.state.members.get(org_id, {}).get(user_id)

    def user_teams(self, org_id: str, user_id: str) -> list[str]:
        """Ids of the organization's teams the user belongs to."""
        return [
            tid
            for tid, team in self.state.teams.items()
            if team["organization"] == org_id and user_id in team["members"]
        ]

    def team_roles(self, space_id: str, user_id: str) -> dict[str, str]:
        """Team id -> role for each team of the user that has access to the space."""
        grants = self.state.team_grants.get(space_id, {})
        return {
            tid: role for tid, role in grants.items() if user_id in self.state.teams[tid]["members"]
        }

    def effective_role(self, space_id: str, user_id: str) -> str | None:
        """The strongest role a user holds on a space, directly or through teams."""
        direct = self.state.user_grants.get(space_id, {}).get(user_id)
        return strongest([direct, *self.team_roles(space_id, user_id).values()])

    def effective_grants(self, space_id: str) -> dict[str, str]:
        """User id -> effective role for everyone with access to the space."""
        users = dict(self.state.user_grants.get(space_id, {}))
        for team_id, role in self.state.team_grants.get(space_id, {}).items():
            for user_id in self.state.teams[team_id]["members"]:
                users[user_id] = strongest([users.get(user_id), role]) or role
        return users

    def spaces_of_org(self, org_id: str) -> list[Record]:
        """The active spaces of an organization in tree order (root items, collections expanded)."""
        ordered: list[Record] = []
        for kind, item_id in self.state.children.get((org_id, None), []):
            if kind == "space":
                ordered.append(self.state.spaces[item_id])
            else:
                ordered.extend(
                    self.state.spaces[space_id]
                    for _, space_id in self.state.children.get((org_id, item_id), [])
                )
        return ordered

    def siblings(self, org_id: str, parent: str | None) -> list[tuple[str, str]]:
        """The ordered list of items under an organization's root or a collection."""
        return self.state.children.setdefault((org_id, parent), [])

    def detach(self, space: Record) -> int:
        """Remove a space from its sibling list; return the index it had."""
        siblings = self.siblings(space["organization"], space["parent"])
        index = siblings.index(("space", space["id"]))
        del siblings[index]
        return index
