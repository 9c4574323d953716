"""The demo's builder: the cast, then the organization, its people, teams, collections and spaces.

Each step draws from one seeded Random; :mod:`._grants` and :mod:`._sites` add the access on
top, and :func:`~docsapi.sandbox.demo._build.build_demo` runs them all in order.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any

from docsapi.sandbox.core._clock import iso
from docsapi.sandbox.core._ids import new_id
from docsapi.sandbox.core._state import State
from docsapi.sandbox.demo import _names as names
from docsapi.sandbox.demo._plan import EPOCH, PLACES, days_before, moment
from docsapi.sandbox.demo._size import DemoSize

_ORG_ROLES = ["edit"] * 35 + ["comment"] * 15 + ["review"] * 10 + ["read"] * 30 + ["create"] * 10


class Builder:
    """Builds the State step by step; each step draws from the same seeded Random.

    Attributes hold the cast: who plays which part, which collection and space is which.
    """

    # set by the steps of _grants and _sites
    collection_user: dict[str, str]
    collection_team: dict[str, str]
    deliberate_spaces: dict[str, Any]
    site: dict[str, str]
    stale_links: list[str]
    private_creator: str
    invite: dict[str, str]

    def __init__(self, seed: int, size: DemoSize, now: datetime) -> None:
        self.rng = random.Random(seed)
        self.seed = seed
        self.size = size
        self.now = now
        self.state = State(rng=random.Random(f"requests:{seed}"))
        self.facts: dict[str, Any] = {}

    # -- organization, users, members -------------------------------------------------
    def organization(self) -> None:
        rng = self.rng
        title = rng.choice(names.ORG_TITLES)
        self.org_id = new_id(rng)
        self.domain = title.lower().replace(" ", "-") + ".example"
        self.state.orgs[self.org_id] = {
            "id": self.org_id,
            "title": title,
            "type": "business",
            "plan": "pro",
            "createdAt": iso(moment(rng, 1500)),
            "inviteLinks": True,
            "emailDomains": [self.domain],
            "defaultRole": "read",
            "mergeRules": {"type": "none"},
            "hostname": title.split()[0].lower(),
        }
        self.state.members[self.org_id] = {}
        self.facts["org_id"] = self.org_id

    def users(self) -> None:
        rng = self.rng
        seen: set[str] = set()
        self.user_ids: list[str] = []
        for number in range(self.size.users):
            first, last = rng.choice(names.FIRST_NAMES), rng.choice(names.LAST_NAMES)
            name = f"{first} {last}"
            if name in seen:
                name = f"{first} {last} {number}"
            seen.add(name)
            user_id = new_id(rng, 28)
            local = name.lower().replace(" ", ".").replace("-", "")
            user = {"id": user_id, "displayName": name, "email": f"{local}@{self.domain}"}
            if rng.random() < 0.6:
                user["photoURL"] = f"https://avatars.example.com/{user_id}.png"
            self.state.users[user_id] = user
            self.user_ids.append(user_id)

    def roles(self) -> None:
        """Assign organization roles and pick the users that play a part in the audit cases."""
        rng, ids = self.rng, self.user_ids
        self.owner, self.sprawler, self.other_user = ids[0], ids[1], ids[2]
        self.multi, self.redundant = ids[3], ids[4]
        self.pool = ids[5:8]  # per-space admins, in no team
        self.disabled, self.inactive = ids[8], ids[9]
        self.dormant = ids[10:12]  # not seen for months, read-only
        self.former = ids[-1]
        guest_count = max(5, self.size.users // 15)
        self.guests = ids[-1 - guest_count : -1]
        self.direct_guest, self.partner_guest, self.reading_guest = self.guests[:3]
        self.site_guest = self.guests[3]  # reaches the public site's spaces through the site
        self.plain_guests = self.guests[4:]
        special = {*ids[:12], *self.guests, self.former}
        self.regular = [u for u in ids if u not in special]
        self.admins = [self.owner, *self.regular[: 1 + self.size.users // 1000]]
        fixed = {
            self.owner: "admin",
            self.sprawler: "create",
            self.other_user: "read",
            **dict.fromkeys(self.pool, "create"),
            self.disabled: "read",
            self.inactive: "comment",
            **dict.fromkeys(self.dormant, "read"),
            **dict.fromkeys(self.admins, "admin"),
            **dict.fromkeys(self.guests, None),
        }
        members = self.state.members[self.org_id]
        for user_id in ids:
            if user_id == self.former:
                continue
            role = fixed[user_id] if user_id in fixed else rng.choice(_ORG_ROLES)
            joined = moment(rng, 1400)
            if user_id in (self.inactive, *self.dormant):
                last_seen = days_before(rng, 400, self.now - timedelta(days=150))
            elif user_id == self.disabled:
                last_seen = days_before(rng, 300, self.now - timedelta(days=200))
            else:
                last_seen = days_before(rng, 30, self.now)
            members[user_id] = {
                "role": role,
                "joinedAt": iso(joined),
                "disabled": user_id == self.disabled,
                "lastSeenAt": iso(last_seen),
            }
        self.facts.update(
            owner_id=self.owner,
            other_user_id=self.other_user,
            org_admin_ids=list(self.admins),
            guest_ids=list(self.guests),
            former_member_ids=[self.former],
            disabled_member_ids=[self.disabled],
            inactive_member_ids=[self.inactive, *self.dormant],
        )

    # -- teams ----------------------------------------------------------------------------
    def teams(self) -> None:
        rng = self.rng
        titles = list(names.TEAM_TITLES)
        regular_count = self.size.teams - 2
        titles = [
            titles[i % len(titles)] + ("" if i < len(titles) else f" {i // len(titles) + 1}")
            for i in range(regular_count)
        ]
        eligible = [u for u in self.regular if u not in self.admins]
        self.regular_teams = [self._team(title) for title in titles]
        per_team = max(2, len(eligible) * 2 // (3 * regular_count))
        for team_id in self.regular_teams:
            for user_id in rng.sample(eligible, min(per_team, len(eligible))):
                self._join(team_id, user_id)
        t1, t2, t3 = self.regular_teams[:3]
        self._join(t1, self.multi)
        self._join(t2, self.multi)
        self._join(t3, self.redundant)
        self.admin_team = self._team(names.ADMIN_TEAM_TITLE)
        for user_id in rng.sample(eligible, 4):
            self._join(self.admin_team, user_id)
        self.empty_team = self._team(names.EMPTY_TEAM_TITLE)
        self.team_members = {tid: set(t["members"]) for tid, t in self.state.teams.items()}
        self.facts.update(team_ids=list(self.state.teams), admin_team_id=self.admin_team)

    def _team(self, title: str) -> str:
        team_id = new_id(self.rng)
        self.state.teams[team_id] = {
            "id": team_id,
            "title": title,
            "organization": self.org_id,
            "createdAt": iso(moment(self.rng, 900)),
            "members": {},
        }
        return team_id

    def _join(self, team_id: str, user_id: str) -> None:
        members = self.state.teams[team_id]["members"]
        members[user_id] = "owner" if not members else "member"

    # -- collections ------------------------------------------------------------------
    def collections(self) -> None:
        rng = self.rng
        self.collection: dict[str, str] = {}
        for key, title, parent_key, level in names.COLLECTION_TREE:
            parent = self.collection[parent_key] if parent_key else None
            self.collection[key] = self._collection(title, parent, level)
        extra_top = max(0, self.size.spaces // 20 - 3)
        self.extra_collections: list[str] = []
        for number in range(extra_top):
            base = names.MORE_COLLECTION_TITLES[number % len(names.MORE_COLLECTION_TITLES)]
            title = base if number < len(names.MORE_COLLECTION_TITLES) else f"{base} {number}"
            level = rng.choice([None] * 18 + ["read", "inherit"]) if self.size.big else "inherit"
            top = self._collection(title, None, level)
            self.extra_collections.append(top)
            if number % 2 == 0:
                sub_level = rng.choice(["inherit", "inherit", None])
                self.extra_collections.append(self._collection(f"{title} team", top, sub_level))
        self.facts.update(
            collection_ids=list(self.state.collections),
            collections=dict(self.collection),
        )

    def _collection(self, title: str, parent: str | None, level: str | None) -> str:
        collection_id = new_id(self.rng)
        self.state.collections[collection_id] = {
            "id": collection_id,
            "title": title,
            "organization": self.org_id,
            "parent": parent,
            "defaultLevel": level,
            "createdAt": iso(moment(self.rng, 1200)),
        }
        self.state.creators[collection_id] = self.owner
        self.state.children[(self.org_id, collection_id)] = []
        self.state.children.setdefault((self.org_id, parent), []).append(
            ("collection", collection_id)
        )
        return collection_id

    # -- spaces -------------------------------------------------------------------------
    def spaces(self) -> None:
        rng, n = self.rng, self.size.spaces
        self.space_ids: list[str] = []
        self.empty_spaces = {8, n - 3, n - 2}
        free_parents = [
            c for c in self.state.collections if c != self.collection["partners"]
        ]  # the partner guest's collection keeps exactly its fixed spaces
        git_spaces = []
        for index in range(n):
            base = names.SPACE_TITLES[index % len(names.SPACE_TITLES)]
            title = (
                base
                if index < len(names.SPACE_TITLES)
                else f"{base} {index // len(names.SPACE_TITLES) + 1}"
            )
            space_id = new_id(rng)
            created = moment(rng, 1000)
            if index in PLACES and index != n - 1:
                key, level, visibility = PLACES[index]
                parent = self.collection[key] if key else None
            elif index == n - 1:
                parent, level, visibility = None, None, "private"
            else:
                parent, level, visibility = self._free_place(free_parents)
            self.state.spaces[space_id] = {
                "id": space_id,
                "title": title,
                "emoji": rng.choice(names.EMOJIS),
                "icon": None,
                "organization": self.org_id,
                "parent": parent,
                "visibility": visibility,
                "editMode": "locked" if rng.random() < 0.15 else "live",
                "defaultLevel": level,
                "language": rng.choice(["en"] * 6 + ["fr", "de", "es"]),
                "mergeRules": {"type": "inherit"},
                "createdAt": iso(created),
                "updatedAt": iso(created + (EPOCH - created) * rng.random()),
                "comments": rng.randint(0, 40),
                "revision": new_id(rng),
                "topic": title,
                "empty": index in self.empty_spaces,
                "small": self.size.big,
            }
            self.state.children[(self.org_id, parent)].append(("space", space_id))
            self.state.creators[space_id] = self.owner
            self.space_ids.append(space_id)
            if rng.random() < 0.3 and index not in self.empty_spaces:
                git_spaces.append(space_id)
                self._git(space_id, created)
            self._change_requests(space_id, created)
        self.facts.update(
            space_ids=list(self.space_ids),
            empty_space_ids=[self.space_ids[i] for i in sorted(self.empty_spaces)],
            git_space_ids=git_spaces,
        )

    def _free_place(self, parents: list[str]) -> tuple[str | None, str | None, str]:
        """Parent, default level and visibility of a space without a fixed part.

        A space published on its own (public, unlisted, share-link) is one that members can
        read anyway, so that no such space is a deliberate problem.
        """
        rng = self.rng
        parent = rng.choice(parents) if rng.random() < 0.6 else None
        if rng.random() < self.size.share_inheriting:
            level: str | None = "inherit"
        else:
            level = None if self.size.big else rng.choice([None, None, None, None, "read"])
        visibility = "in-collection" if parent else "private"
        if parent is None and level is not None and rng.random() < 0.15:
            visibility = rng.choice(["public", "unlisted", "share-link"])
        return parent, level, visibility

    def _git(self, space_id: str, created: datetime) -> None:
        rng = self.rng
        provider = rng.choice(["github", "github", "gitlab"])
        slug = self.state.spaces[space_id]["title"].lower().replace(" ", "-")
        host = "gitlab.com" if provider == "gitlab" else "github.com"
        org_slug = self.state.orgs[self.org_id]["hostname"]
        started = created + (EPOCH - created) * rng.random()
        self.state.git[space_id] = {
            "installationId": new_id(rng),
            "installationProvider": provider,
            "installationStatus": "active",
            "url": f"https://{host}/{org_slug}/{slug}.git",
            "repoName": f"{org_slug}/{slug}",
            "updatedAt": iso(started),
            "operation": {
                "state": "success",
                "direction": rng.choice(["import", "export"]),
                "startedAt": iso(started),
                "endedAt": iso(started + timedelta(seconds=rng.randint(3, 90))),
            },
        }

    def _change_requests(self, space_id: str, created: datetime) -> None:
        rng = self.rng
        records = []
        for number in range(1, rng.choice([0, 0, 1, 2, 3, 4]) + 1):
            opened = created + (EPOCH - created) * rng.random()
            records.append(
                {
                    "id": new_id(rng),
                    "number": number,
                    "status": rng.choice(["open", "open", "draft", "merged", "archived"]),
                    "subject": rng.choice(
                        [
                            "Fix typos",
                            "Document new endpoint",
                            "Update screenshots",
                            "Restructure guides",
                            "Add FAQ entries",
                            "",
                        ]
                    ),
                    "createdBy": rng.choice(self.regular),
                    "createdAt": iso(opened),
                    "updatedAt": iso(opened),
                    "comments": rng.randint(0, 6),
                }
            )
        self.state.change_requests[space_id] = records
