"""The seeded demo organization: users, teams, collections, spaces and their permissions.

The permissions hold one deliberate instance of each problem a permission audit looks for,
at places recorded in the returned facts, and no other instance (see :func:`build_demo`).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from docsapi.sandbox import _names as names
from docsapi.sandbox._clock import iso
from docsapi.sandbox._ids import new_id
from docsapi.sandbox._state import State

#: Demo timestamps are drawn before this instant, so they never depend on the real clock.
EPOCH = datetime(2025, 1, 6, 9, 0, tzinfo=UTC)
DEFAULT_SPACES, DEFAULT_USERS, DEFAULT_TEAMS = 30, 60, 8
MIN_SPACES, MIN_USERS, MIN_TEAMS = 12, 30, 6
_DIRECT_ROLES = ["read"] * 30 + ["comment"] * 20 + ["edit"] * 30 + ["review"] * 10 + ["create"] * 10
_TEAM_ROLES = ["read"] * 3 + ["comment"] * 2 + ["edit"] * 3 + ["review"]
_ORG_ROLES = (
    ["edit"] * 35
    + ["comment"] * 15
    + ["review"] * 10
    + ["read"] * 25
    + ["create"] * 10
    + ["admin"] * 5
)


@dataclass(frozen=True)
class DemoSize:
    """How big a demo organization to build."""

    spaces: int = DEFAULT_SPACES
    users: int = DEFAULT_USERS
    teams: int = DEFAULT_TEAMS
    grants_per_space: int | None = None

    def check(self) -> None:
        """Raise ValueError when the organization would be too small to hold every case."""
        for label, value, minimum in (
            ("spaces", self.spaces, MIN_SPACES),
            ("users", self.users, MIN_USERS),
            ("teams", self.teams, MIN_TEAMS),
        ):
            if not isinstance(value, int) or value < minimum:
                raise ValueError(f"{label} must be an integer of at least {minimum}, got {value!r}")
        if self.grants_per_space is not None and (
            not isinstance(self.grants_per_space, int) or self.grants_per_space < 0
        ):
            raise ValueError(
                f"grants_per_space must be a non-negative integer, got {self.grants_per_space!r}"
            )

    @property
    def big(self) -> bool:
        """True for organizations far above the demo size (content is then kept small)."""
        return self.spaces > 100 or self.users > 500


def _moment(rng: random.Random, days_back: int) -> datetime:
    return EPOCH - timedelta(days=rng.uniform(1, days_back), seconds=rng.randint(0, 86_399))


class _Builder:
    """Builds the State step by step; each step draws from the same seeded Random."""

    def __init__(self, seed: int, size: DemoSize) -> None:
        self.rng = random.Random(seed)
        self.size = size
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
            "createdAt": iso(_moment(rng, 1500)),
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
        self.former = ids[-1]
        guest_count = max(3, self.size.users // 15)
        self.guests = ids[-1 - guest_count : -1]
        members = self.state.members[self.org_id]
        for user_id in ids:
            if user_id == self.former:
                continue
            if user_id in self.guests:
                role = None
            elif user_id == self.owner:
                role = "admin"
            elif user_id == self.other_user:
                role = "read"
            elif user_id in (self.sprawler, *self.pool):
                role = "create"
            else:
                role = rng.choice(_ORG_ROLES)
            joined = _moment(rng, 1400)
            members[user_id] = {
                "role": role,
                "joinedAt": iso(joined),
                "disabled": False,
                "lastSeenAt": iso(joined + (EPOCH - joined) * rng.random()),
            }
        self.facts.update(
            owner_id=self.owner,
            other_user_id=self.other_user,
            guest_ids=list(self.guests),
            former_member_ids=[self.former],
        )

    # -- teams and collections --------------------------------------------------------
    def teams(self) -> None:
        rng = self.rng
        titles = list(names.TEAM_TITLES)
        regular_count = self.size.teams - 2
        titles = [
            titles[i % len(titles)] + ("" if i < len(titles) else f" {i // len(titles) + 1}")
            for i in range(regular_count)
        ]
        special = {
            self.owner,
            self.sprawler,
            self.other_user,
            self.multi,
            self.redundant,
            self.former,
            *self.pool,
            *self.guests,
        }
        eligible = [u for u in self.user_ids if u not in special]
        self.regular_teams: list[str] = []
        for title in titles:
            team_id = new_id(rng)
            self.state.teams[team_id] = {
                "id": team_id,
                "title": title,
                "organization": self.org_id,
                "createdAt": iso(_moment(rng, 900)),
                "members": {},
            }
            self.regular_teams.append(team_id)
        per_team = max(2, len(eligible) * 2 // (3 * regular_count))
        for team_id in self.regular_teams:
            for user_id in rng.sample(eligible, min(per_team, len(eligible))):
                self._join(team_id, user_id)
        t1, t2, t3 = self.regular_teams[:3]
        self._join(t1, self.multi)
        self._join(t2, self.multi)
        self._join(t3, self.redundant)
        self.admin_team = new_id(rng)
        self.state.teams[self.admin_team] = {
            "id": self.admin_team,
            "title": names.ADMIN_TEAM_TITLE,
            "organization": self.org_id,
            "createdAt": iso(_moment(rng, 900)),
            "members": {},
        }
        for user_id in rng.sample(eligible, 4):
            self._join(self.admin_team, user_id)
        self.empty_team = new_id(rng)
        self.state.teams[self.empty_team] = {
            "id": self.empty_team,
            "title": names.EMPTY_TEAM_TITLE,
            "organization": self.org_id,
            "createdAt": iso(_moment(rng, 900)),
            "members": {},
        }
        self.team_members = {tid: set(t["members"]) for tid, t in self.state.teams.items()}
        self.facts.update(team_ids=list(self.state.teams), admin_team_id=self.admin_team)

    def _join(self, team_id: str, user_id: str) -> None:
        members = self.state.teams[team_id]["members"]
        members[user_id] = "owner" if not members else "member"

    def collections(self) -> None:
        rng = self.rng
        count = min(len(names.COLLECTION_TITLES), max(3, self.size.spaces // 8))
        self.collection_ids = []
        root = self.state.children.setdefault((self.org_id, None), [])
        for title in names.COLLECTION_TITLES[:count]:
            collection_id = new_id(rng)
            self.state.collections[collection_id] = {
                "id": collection_id,
                "title": title,
                "organization": self.org_id,
            }
            self.state.children[(self.org_id, collection_id)] = []
            root.append(("collection", collection_id))
            self.collection_ids.append(collection_id)
        self.facts["collection_ids"] = list(self.collection_ids)

    # -- spaces -------------------------------------------------------------------------
    def spaces(self) -> None:
        rng, n = self.rng, self.size.spaces
        self.space_ids: list[str] = []
        self.empty_spaces = {8, n - 3, n - 2}
        git_spaces, titles_seen = [], set()
        for index in range(n):
            base = names.SPACE_TITLES[index % len(names.SPACE_TITLES)]
            title = (
                base
                if index < len(names.SPACE_TITLES)
                else f"{base} {index // len(names.SPACE_TITLES) + 1}"
            )
            titles_seen.add(title)
            space_id = new_id(rng)
            created = _moment(rng, 1000)
            parent = rng.choice(self.collection_ids) if rng.random() < 0.6 else None
            visibility = (
                "in-collection"
                if parent and rng.random() < 0.5
                else rng.choice(["private", "private", "public", "unlisted", "share-link"])
            )
            self.state.spaces[space_id] = {
                "id": space_id,
                "title": title,
                "emoji": rng.choice(names.EMOJIS),
                "icon": None,
                "organization": self.org_id,
                "parent": parent,
                "visibility": visibility,
                "editMode": "locked" if rng.random() < 0.15 else "live",
                "defaultLevel": rng.choice(["inherit"] * 4 + ["read", None]),
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
        authors = [u for u, m in self.state.members[self.org_id].items() if m["role"] is not None]
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
                    "createdBy": rng.choice(authors),
                    "createdAt": iso(opened),
                    "updatedAt": iso(opened),
                    "comments": rng.randint(0, 6),
                }
            )
        self.state.change_requests[space_id] = records

    # -- permissions ------------------------------------------------------------------
    def permissions(self) -> None:
        rng, n, ids = self.rng, self.size.spaces, self.space_ids
        s_many, s_guest, s_former1, s_former2, s_multi, s_redundant, s_empty_team = ids[1:8]
        s_noadmin = ids[n - 1]
        t1, t2, t3 = self.regular_teams[:3]
        forced_teams = {
            s_multi: {t1: "read", t2: "edit"},
            s_redundant: {t3: "edit"},
            s_many: {self.admin_team: "admin"},
            s_empty_team: {self.empty_team: "read"},
        }
        others = self.regular_teams[3:] or self.regular_teams
        direct_pool = [
            u
            for u in self.user_ids
            if u
            not in {
                self.owner,
                self.sprawler,
                self.other_user,
                self.former,
                *self.pool,
                *self.guests,
            }
        ]
        plain_guests = self.guests[1:]
        pool_turn = 0
        for index, space_id in enumerate(ids):
            users: dict[str, str] = {}
            teams: dict[str, str] = dict(forced_teams.get(space_id, {}))
            if space_id not in (s_multi, s_redundant):
                choices = [t for t in others if t not in teams]
                for team_id in rng.sample(choices, min(len(choices), rng.randint(1, 3))):
                    teams[team_id] = rng.choice(_TEAM_ROLES)
            if space_id != s_noadmin:
                if index % 5 < 3:
                    users[self.sprawler] = "admin"
                else:
                    users[self.pool[pool_turn % len(self.pool)]] = "admin"
                    pool_turn += 1
                if space_id == s_many:
                    users[self.pool[0]] = "admin"
                if index % 7 == 3:
                    users[self.owner] = "admin"
            covered = set().union(*(self.team_members[t] for t in teams)) if teams else set()
            wanted = (
                self.size.grants_per_space
                if self.size.grants_per_space is not None
                else rng.randint(2, 6)
            )
            target, attempts = len(users) + wanted, 0
            while len(users) < target and attempts < wanted * 6 and direct_pool:
                attempts += 1
                user_id = rng.choice(direct_pool)
                if user_id in users or user_id in covered:
                    continue
                users[user_id] = rng.choice(_DIRECT_ROLES)
            if plain_guests and rng.random() < 0.3:
                users[rng.choice(plain_guests)] = rng.choice(["read", "comment"])
            self.state.user_grants[space_id] = users
            self.state.team_grants[space_id] = teams
        grants = self.state.user_grants
        grants[s_guest][self.guests[0]] = "edit"
        grants[s_former1][self.former] = "read"
        grants[s_former2][self.former] = "comment"
        grants[s_multi][self.multi] = "comment"
        grants[s_redundant][self.redundant] = "edit"
        for space_id in (ids[0], s_former1):
            grants[space_id][self.other_user] = "read"
        self.facts.update(
            guest_write=[(s_guest, self.guests[0])],
            former_member=[(s_former1, self.former), (s_former2, self.former)],
            admin_sprawl=[self.sprawler],
            no_admin=[s_noadmin],
            too_many_admins=[s_many],
            redundant_grant=[(s_multi, self.multi), (s_redundant, self.redundant)],
            empty_team=[(s_empty_team, self.empty_team)],
            multi_team_user={
                "user_id": self.multi,
                "space_id": s_multi,
                "direct_role": "comment",
                "team_roles": {t1: "read", t2: "edit"},
                "effective": "edit",
            },
        )


def build_demo(seed: int = 0, size: DemoSize | None = None) -> tuple[State, dict[str, Any]]:
    """Build the demo organization for ``seed``.

    Parameters
    ----------
    seed
        Same seed, same ids, names and numbers.
    size
        Counts of spaces, users, teams and direct grants per space (default: the demo size).

    Returns
    -------
    (State, dict)
        The data, and facts about it for tests and demos: ``org_id``, ``owner_id``,
        ``other_user_id``, ``guest_ids``, ``former_member_ids``, ``team_ids``, ``admin_team_id``,
        ``collection_ids``, ``space_ids``, ``empty_space_ids``, ``git_space_ids``,
        ``multi_team_user`` and one list per audit rule: ``guest_write``, ``former_member``,
        ``admin_sprawl``, ``no_admin``, ``too_many_admins``, ``redundant_grant``, ``empty_team``.

    Examples
    --------
    >>> state, facts = build_demo(0)
    >>> len(state.spaces), facts["no_admin"] == build_demo(0)[1]["no_admin"]
    (30, True)
    """
    size = size or DemoSize()
    size.check()
    builder = _Builder(seed, size)
    builder.organization()
    builder.users()
    builder.roles()
    builder.teams()
    builder.collections()
    builder.spaces()
    builder.permissions()
    return builder.state, builder.facts
