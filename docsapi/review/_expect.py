"""Preconditions: the state each call of a plan expects of its target, and the check before sending.

Every call of a plan records ``expect``, the state of its target as the reviewed audit saw
it: ``{"target": <kind>, "state": <state>}``, where the kind and the state are

==================  ==========================================  ==============================
``target``          what it is                                  ``state``
==================  ==========================================  ==============================
``space-user``      a user's permission on a space              its role, or ``absent``
``space-team``      a team's permission on a space              its role, or ``absent``
``collection-user`` a user's permission on a collection         its role, or ``absent``
``collection-team`` a team's permission on a collection         its role, or ``absent``
``team-member``     a user's membership of a team               ``member``, or ``absent``
``space-level``     a space's default level                     the level, or ``none``
``site-user``       a user's permission on a site               its role, or ``absent``
``site-team``       a team's permission on a site               its role, or ``absent``
``site-level``      a site's default level                      the level, or ``none``
``org-role``        a member's organization role                the role, ``guest``, or
                                                                ``absent`` (not a member)
==================  ==========================================  ==============================

:class:`Expectations` computes them from the audit, call after call (a call that an earlier
call of the same plan changes expects what the earlier one leaves). ``expect`` is part of
the call's id and of the plan's digest, so it is sealed and signed with the plan.

Before sending, :class:`CurrentState` reads the targets as they are now, through the lists
the API has (one permissions list per space or collection, one member list per team and
per organization; a space's default level from the space), each once, and keeps them up to
date with the calls it sends. :meth:`CurrentState.check` compares a target with what its
call expects: ``apply`` sends the call when the target is as the review saw it, records it
done without a request when the target is already as the call leaves it (a run stopped
after sending it, or someone did it by hand), and otherwise does not send it ("changed since
the review: expected edit, found admin; not sent").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pandas as pd

from docsapi.errors import ValidationError

if TYPE_CHECKING:
    from docsapi.audit import PermissionAudit
    from docsapi.client import DocsClient
    from docsapi.review._operations import Target

__all__ = ["TARGETS", "CurrentState", "Expectations", "Precondition", "check_expect"]

ABSENT, MEMBER, NO_LEVEL, GUEST = "absent", "member", "none", "guest"


@dataclass(frozen=True)
class TargetKind:
    """What a kind of call acts on: the ids that name it, and what sending the call leaves."""

    name: str
    ids: tuple[str, ...]
    removes: bool  # True: the call removes it (absent after); False: it sets the call's role

    def key(self, target: Target) -> tuple[str, ...]:
        return (self.name, *(str(target.need(field)) for field in self.ids))

    def after(self, target: Target) -> str:
        """The state the call leaves its target in."""
        if self.removes:
            return ABSENT
        if target.role is not None:
            return target.role
        return NO_LEVEL if self.name in ("space-level", "site-level") else GUEST


def _kinds() -> dict[str, TargetKind]:
    space_user = ("space_id", "user_id")
    space_team = ("space_id", "team_id")
    collection_user = ("collection_id", "user_id")
    collection_team = ("collection_id", "team_id")
    site_user = ("org_id", "site_id", "user_id")
    site_team = ("org_id", "site_id", "team_id")
    return {
        "removeUserFromSpace": TargetKind("space-user", space_user, True),
        "updateUserPermissionInSpace": TargetKind("space-user", space_user, False),
        "removeTeamFromSpace": TargetKind("space-team", space_team, True),
        "updateTeamPermissionInSpace": TargetKind("space-team", space_team, False),
        "removeUserFromCollection": TargetKind("collection-user", collection_user, True),
        "updateUserPermissionInCollection": TargetKind("collection-user", collection_user, False),
        "removeTeamFromCollection": TargetKind("collection-team", collection_team, True),
        "updateTeamPermissionInCollection": TargetKind("collection-team", collection_team, False),
        "deleteMemberFromOrganizationTeamById": TargetKind(
            "team-member", ("org_id", "team_id", "user_id"), True
        ),
        "updateSpaceById": TargetKind("space-level", ("space_id",), False),
        "updateMemberInOrganizationById": TargetKind("org-role", ("org_id", "user_id"), False),
        "removeUserFromSite": TargetKind("site-user", site_user, True),
        "updateUserPermissionInSite": TargetKind("site-user", site_user, False),
        "removeTeamFromSite": TargetKind("site-team", site_team, True),
        "updateTeamPermissionInSite": TargetKind("site-team", site_team, False),
        "updateSiteById": TargetKind("site-level", ("org_id", "site_id"), False),
    }


#: The target of each operation a plan may call, by ``operationId``.
TARGETS: dict[str, TargetKind] = _kinds()


def _text(value: Any) -> str | None:
    return None if value is None or pd.isna(value) else str(value)


def _roles(frame: pd.DataFrame, key: str) -> dict[str, str]:
    """``{id: role}`` of a permissions list (role missing: ``guest``)."""
    ids = frame[key].astype(object).to_numpy()
    roles = frame["role"].astype(object).to_numpy()
    return {str(i): _text(r) or GUEST for i, r in zip(ids, roles, strict=True)}


class _States:
    """Targets' states by key, read on first need by ``read`` and then kept up to date."""

    def __init__(self) -> None:
        self.known: dict[tuple[str, ...], str] = {}

    def state(self, key: tuple[str, ...]) -> str:
        if key not in self.known:
            self.known.update(self.read(key))
            self.known.setdefault(key, ABSENT)
        return self.known[key]

    def read(self, key: tuple[str, ...]) -> dict[tuple[str, ...], str]:
        raise NotImplementedError


class Expectations(_States):
    """The state each call of a plan expects, from the audit, one call after the other.

    Parameters
    ----------
    audit : PermissionAudit
        The reviewed audit.
    """

    def __init__(self, audit: PermissionAudit) -> None:
        super().__init__()
        self.data = audit.data

    def read(self, key: tuple[str, ...]) -> dict[tuple[str, ...], str]:
        """The state of ``key`` (and of the targets read with it) as the audit saw it."""
        kind, *ids = key
        data = self.data
        if kind in ("space-user", "space-team", "collection-user", "collection-team"):
            where, principal = kind.split("-")
            table = data.user_permissions if principal == "user" else data.team_permissions
            column = f"{principal}_id"
            mine = table[
                (table["target_type"].astype(object) == where).to_numpy(dtype=bool)
                & (table["target_id"].astype(object) == ids[0]).to_numpy(dtype=bool)
            ]
            return {(kind, ids[0], i): r for i, r in _roles(mine, column).items()}
        if kind in ("site-user", "site-team"):
            table = data.user_permissions if kind == "site-user" else data.team_permissions
            column = "user_id" if kind == "site-user" else "team_id"
            mine = table[
                (table["target_type"].astype(object) == "site").to_numpy(dtype=bool)
                & (table["target_id"].astype(object) == ids[1]).to_numpy(dtype=bool)
            ]
            return {(kind, ids[0], ids[1], i): r for i, r in _roles(mine, column).items()}
        if kind == "site-level":
            sites = data.sites
            levels = sites.loc[(sites["id"].astype(object) == ids[1]).to_numpy(dtype=bool)]
            if not len(levels):
                return {}
            return {key: _text(levels["default_level"].iloc[0]) or NO_LEVEL}
        if kind == "team-member":
            members = data.team_members
            mine = members[(members["team_id"].astype(object) == ids[1]).to_numpy(dtype=bool)]
            users = mine["user_id"].astype(object)
            return {(kind, ids[0], ids[1], str(u)): MEMBER for u in users}
        if kind == "space-level":
            spaces = data.spaces
            levels = spaces.loc[(spaces["id"].astype(object) == ids[0]).to_numpy(dtype=bool)]
            if not len(levels):
                return {}
            return {key: _text(levels["default_level"].iloc[0]) or NO_LEVEL}
        if kind == "org-role":
            return {(kind, ids[0], u): r for u, r in _roles(data.members, "user_id").items()}
        raise ValueError(f"no precondition is known for a target {kind!r}")

    def expect(self, operation: str, target: Target) -> dict[str, str]:
        """What the call ``operation`` on ``target`` expects; the call's effect is then
        taken as done, for the calls after it."""
        kind = TARGETS[operation]
        key = kind.key(target)
        expected = {"target": kind.name, "state": self.state(key)}
        self.known[key] = kind.after(target)
        return expected


@dataclass(frozen=True)
class Precondition:
    """A call's target as the review saw it, as it is now, and as the call leaves it."""

    expected: str
    found: str
    after: str

    @property
    def held(self) -> bool:
        """The target is as the review saw it: the call is sent."""
        return self.found == self.expected

    @property
    def already(self) -> bool:
        """The target changed, but is already as the call leaves it: nothing to send."""
        return not self.held and self.found == self.after

    def __str__(self) -> str:
        return f"expected {self.expected}, found {self.found}"


class CurrentState(_States):
    """The targets of a plan as they are now, read through the API's lists on first need.

    Parameters
    ----------
    client : DocsClient
        The client the plan is sent with.
    """

    def __init__(self, client: DocsClient) -> None:
        super().__init__()
        self.client = client

    def read(self, key: tuple[str, ...]) -> dict[tuple[str, ...], str]:
        """The state of ``key`` (and of the targets read with it) now."""
        kind, *ids = key
        client = self.client
        readers = {
            "space-user": lambda: _roles(client.permissions.users(ids[0]), "user_id"),
            "space-team": lambda: _roles(client.permissions.teams(ids[0]), "team_id"),
            "collection-user": lambda: _roles(client.collections.users(ids[0]), "user_id"),
            "collection-team": lambda: _roles(client.collections.teams(ids[0]), "team_id"),
            "team-member": lambda: {
                str(u): MEMBER
                for u in client.orgs.team_members(ids[0], ids[1])["user_id"].astype(object)
            },
            "org-role": lambda: _roles(client.orgs.members(ids[0]), "user_id"),
            "site-user": lambda: _roles(client.sites.users(ids[0], ids[1]), "user_id"),
            "site-team": lambda: _roles(client.sites.teams(ids[0], ids[1]), "team_id"),
        }
        if kind == "space-level":
            return {key: _text(client.spaces.get(ids[0]).default_level) or NO_LEVEL}
        if kind == "site-level":
            return {key: _text(client.sites.get(ids[0], ids[1]).default_level) or NO_LEVEL}
        if kind in ("team-member", "site-user", "site-team"):
            return {(kind, ids[0], ids[1], u): state for u, state in readers[kind]().items()}
        return {(kind, ids[0], i): state for i, state in readers[kind]().items()}

    def check(self, operation: str, target: Target, expect: Any) -> Precondition:
        """The call's target now, against what the call expects."""
        kind = TARGETS[operation]
        found = self.state(kind.key(target))
        return Precondition(expect["state"], found, kind.after(target))

    def sent(self, operation: str, target: Target) -> None:
        """Take a call as done: its target is now in the state the call leaves."""
        kind = TARGETS[operation]
        self.known[kind.key(target)] = kind.after(target)


def check_expect(operation: str, expect: Any, where: str) -> None:
    """``expect`` is a precondition the call ``operation`` can have.

    Raises
    ------
    ValidationError
        When it is missing or is not one (the plan was made by an older docsapi, or edited).
    """
    kind = TARGETS[operation]
    if (
        not isinstance(expect, dict)
        or set(expect) != {"target", "state"}
        or expect["target"] != kind.name
        or not isinstance(expect["state"], str)
    ):
        raise ValidationError(
            "plan",
            f"{where} has no precondition of a {kind.name} target (expect {expect!r:.80}): "
            "the plan was made by an older docsapi or edited; make it again",
        )
