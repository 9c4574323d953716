"""Thread-safe access to the sandbox's state, its content and its clock.

One readers-writer lock guards the state: a request that changes it holds the lock alone from
its first read to its last write, so concurrent requests never lose an update, while requests
that only read share it. What is computed from the state (who reaches each space) is kept
until the next write (:meth:`Store.memo`). Writes that touch an index (team memberships,
trash) go through the store's methods, so the indexes never drift from the data.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable, Hashable
from datetime import timedelta
from typing import TypeVar

from docsapi.sandbox.core._clock import Clock, iso
from docsapi.sandbox.core._content import Content
from docsapi.sandbox.core._content_gen import generate_content
from docsapi.sandbox.core._ids import new_id
from docsapi.sandbox.core._rwlock import ReadWriteLock
from docsapi.sandbox.core._state import Record, State

#: How long a deleted space stays restorable.
TRASH_RETENTION = timedelta(days=7)
_Value = TypeVar("_Value")


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
        #: ``with store.lock:`` writes; ``with store.lock.reading():`` reads.
        self.lock = ReadWriteLock()
        self.clock = clock
        self.seed = seed
        self._pristine = state
        self.state = state.snapshot()
        self._generated: dict[str, Content] = {}
        self._generated_lock = threading.Lock()
        self._memo: dict[Hashable, object] = {}
        self._memo_version = -1
        self._memo_lock = threading.Lock()
        #: Whether changes record audit events (see ``Sandbox.unlogged``).
        self.log_events = True
        self._reindex()

    def reset(self) -> None:
        """Back to the seeded state (generated content is kept: it never changes)."""
        with self.lock:
            self.state = self._pristine.snapshot()
            self.log_events = True
            self._reindex()

    def memo(self, key: Hashable, compute: Callable[[], _Value]) -> _Value:
        """``compute()``, kept until the state is next written.

        The value is shared by every reader until then: it must not be changed. While a
        write is under way nothing is kept (the state may still change before it ends).
        """
        version = self.lock.version
        with self._memo_lock:
            if self._memo_version != version:
                self._memo.clear()
                self._memo_version = version
            if key in self._memo:
                return self._memo[key]  # type: ignore[return-value]
        value = compute()
        with self._memo_lock:
            if not self.lock.written and self.lock.version == version == self._memo_version:
                self._memo[key] = value
        return value

    def now_iso(self) -> str:
        """The sandbox time as an API timestamp."""
        return iso(self.clock.now())

    def new_id(self, length: int = 20) -> str:
        """A fresh id for an object created by a request."""
        return new_id(self.state.rng, length)

    # -- content --------------------------------------------------------------------
    def content(self, space_id: str) -> Content:
        """The current content of an active or trashed space."""
        with self._generated_lock:
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
    def trash_space(self, record: Record) -> None:
        """Move an active space to the trash, with its grants and its place among siblings."""
        space_id = record["id"]
        index = self.detach(record)
        del self.state.spaces[space_id]
        self.state.trash[space_id] = {
            "space": record,
            "deletedAt": self.clock.now(),
            "index": index,
            "users": self.state.space_users.detach(space_id),
            "teams": self.state.space_teams.detach(space_id),
        }

    def restore_space(self, space_id: str) -> Record:
        """Bring a trashed space back where it was (at the top level if its collection is gone)."""
        entry = self.state.trash.pop(space_id)
        record = entry["space"]
        if record["parent"] is not None and record["parent"] not in self.state.collections:
            record["parent"] = None
            if record["visibility"] == "in-collection":
                record["visibility"] = "private"
        siblings = self.siblings(record["organization"], record["parent"])
        siblings.insert(min(entry["index"], len(siblings)), ("space", space_id))
        self.state.spaces[space_id] = record
        org_id = record["organization"]
        self.state.space_users.attach(org_id, space_id, entry["users"])
        self.state.space_teams.attach(org_id, space_id, entry["teams"])
        return record

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

    # -- members and teams ------------------------------------------------------------
    def member(self, org_id: str, user_id: str) -> Record | None:
        """The membership record of a user in an organization, or None."""
        return self.state.members.get(org_id, {}).get(user_id)

    def user_teams(self, org_id: str, user_id: str) -> list[str]:
        """Ids of the organization's teams the user belongs to (from the membership index)."""
        return sorted(self._teams_of.get((org_id, user_id), ()))

    def team_count(self, org_id: str, user_id: str) -> int:
        """How many of the organization's teams the user belongs to."""
        return len(self._teams_of.get((org_id, user_id), ()))

    def join_team(self, team_id: str, user_id: str, role: str = "member") -> None:
        """Add a user to a team (or change their team role)."""
        team = self.state.teams[team_id]
        team["members"][user_id] = role
        self._teams_of.setdefault((team["organization"], user_id), set()).add(team_id)

    def leave_team(self, team_id: str, user_id: str) -> bool:
        """Remove a user from a team; False when they were not in it."""
        team = self.state.teams[team_id]
        if team["members"].pop(user_id, None) is None:
            return False
        self._teams_of.get((team["organization"], user_id), set()).discard(team_id)
        return True

    def delete_team(self, team_id: str) -> None:
        """Delete a team with its memberships and every grant it holds."""
        for user_id in list(self.state.teams[team_id]["members"]):
            self.leave_team(team_id, user_id)
        del self.state.teams[team_id]
        for table in (self.state.space_teams, self.state.collection_teams, self.state.site_teams):
            table.drop_principal(team_id)

    def remove_member(self, org_id: str, user_id: str) -> bool:
        """Remove a user from an organization and its teams; their grants stay on record."""
        if self.state.members.get(org_id, {}).pop(user_id, None) is None:
            return False
        for team_id in self.user_teams(org_id, user_id):
            self.leave_team(team_id, user_id)
        return True

    def _reindex(self) -> None:
        self._teams_of: dict[tuple[str, str], set[str]] = {}
        for team_id, team in self.state.teams.items():
            for user_id in team["members"]:
                self._teams_of.setdefault((team["organization"], user_id), set()).add(team_id)

    # -- tree -----------------------------------------------------------------------------
    def spaces_of_org(self, org_id: str, parent: str | None = None) -> list[Record]:
        """The active spaces under a collection (default: the whole organization) in tree
        order: each item in place, collections expanded where they stand."""
        ordered: list[Record] = []
        for kind, item_id in self.state.children.get((org_id, parent), []):
            if kind == "space":
                ordered.append(self.state.spaces[item_id])
            else:
                ordered.extend(self.spaces_of_org(org_id, item_id))
        return ordered

    def collections_of_org(self, org_id: str, parent: str | None = None) -> list[Record]:
        """The collections under a collection (default: the whole organization) in tree order,
        each before the collections it holds."""
        ordered: list[Record] = []
        for kind, item_id in self.state.children.get((org_id, parent), []):
            if kind == "collection":
                ordered.append(self.state.collections[item_id])
                ordered.extend(self.collections_of_org(org_id, item_id))
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
