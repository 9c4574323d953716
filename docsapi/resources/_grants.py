"""User and team permissions on content: one implementation for spaces, collections and sites.

The three keep their permissions the same way (``…/permissions/users``, ``…/teams``, one
user or team under each, an ``aggregate`` list for spaces and collections); only where
they live and whether a role may be guest differ. A :class:`GrantTarget` states those
differences; :class:`GrantMethods` does the rest, once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from docsapi.core.checks import (
    MEMBER_ROLES,
    check_choice,
    check_entity_id,
    check_id,
    check_id_list,
    check_role,
)
from docsapi.errors import ValidationError
from docsapi.resources._base import ResourceGroup, api_path, was_removed

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["COLLECTION", "SITE", "SPACE", "GrantMethods", "GrantTarget", "Principal"]

Principal = Literal["users", "teams"]

#: Per kind of principal: the argument naming one, its id check, and the item key of its id.
_PRINCIPALS: dict[str, tuple[str, Callable[[Any, str], str], str]] = {
    "users": ("user_id", check_id, "user"),
    "teams": ("team_id", check_entity_id, "team"),
}


@dataclass(frozen=True)
class GrantTarget:
    """Where one kind of content keeps its permissions, and what roles it takes.

    Attributes
    ----------
    noun : str
        ``"space"``, ``"collection"`` or ``"site"``, for messages.
    ids : tuple of (str, callable)
        The arguments naming one target, in order, each with its check.
    segments : callable
        The checked ids → the path segments that ``permissions`` follows.
    frames : tuple of str
        The :mod:`docsapi.frames` functions of its user permissions, team permissions
        and aggregate (``""`` where the API computes none).
    guest : bool
        Whether a role may be ``None`` (guest): true for content, false for sites.
    """

    noun: str
    ids: tuple[tuple[str, Callable[[Any, str], str]], ...]
    segments: Callable[..., tuple[str, ...]]
    frames: tuple[str, str, str]
    guest: bool = True

    def check(self, ids: tuple[Any, ...]) -> tuple[str, ...]:
        """Check the ids naming one target (a ValidationError names the bad argument)."""
        return tuple(check(value, name) for (name, check), value in zip(self.ids, ids, strict=True))

    def path(self, ids: tuple[str, ...], *rest: str) -> str:
        """The path of the target's permissions, then ``rest``."""
        return api_path(*self.segments(*ids), "permissions", *rest)

    def role(self, value: Any) -> str | None:
        """Check a role to give on this target."""
        if value is None and not self.guest:
            raise ValidationError(
                "role",
                f"a {self.noun} has no guest role: pass one of {', '.join(MEMBER_ROLES)} (to "
                "take a role away, use remove_user or remove_team)",
            )
        return check_role(value)


SPACE = GrantTarget(
    "space",
    (("space_id", check_entity_id),),
    lambda space_id: ("spaces", space_id),
    ("permission_users", "permission_teams", "permission_aggregate"),
)
COLLECTION = GrantTarget(
    "collection",
    (("collection_id", check_entity_id),),
    lambda collection_id: ("collections", collection_id),
    ("collection_users", "collection_teams", "collection_aggregate"),
)
SITE = GrantTarget(
    "site",
    (("org_id", check_entity_id), ("site_id", check_id)),
    lambda org_id, site_id: ("orgs", org_id, "sites", site_id),
    ("site_users", "site_teams", ""),
    guest=False,
)


class GrantMethods(ResourceGroup):
    """The permission operations of a resource group whose content is :attr:`_target`.

    ``ids`` is the tuple of arguments naming one target, e.g. ``(space_id,)`` or
    ``(org_id, site_id)``; each operation checks them before sending anything.
    """

    _target: ClassVar[GrantTarget]

    def _grant_records(self, kind: Principal, ids: tuple[Any, ...]) -> list[dict[str, Any]]:
        """The raw ``{permission, user}`` or ``{permission, team}`` items, every page fetched."""
        checked = self._target.check(ids)
        return self._items(self._target.path(checked, kind), key=(_PRINCIPALS[kind][2], "id"))

    def _grant_frame(self, kind: Principal, ids: tuple[Any, ...]) -> pd.DataFrame:
        from docsapi.data import frames

        records = self._grant_records(kind, ids)
        build = getattr(frames, self._target.frames[0 if kind == "users" else 1])
        return build(ids[-1], records)

    def _aggregate_frame(self, ids: tuple[Any, ...], role: str | None) -> pd.DataFrame:
        from docsapi.data import frames

        checked = self._target.check(ids)
        params = None if role is None else {"role": check_choice(role, MEMBER_ROLES, "role")}
        path = self._target.path(checked, "aggregate")
        records = self._items(path, params, key=("user", "id"))
        return getattr(frames, self._target.frames[2])(checked[-1], records)

    def _invite(
        self, ids: tuple[Any, ...], role: Any, users: Iterable[str], teams: Iterable[str]
    ) -> None:
        checked = self._target.check(ids)
        body: dict[str, object] = {"role": self._target.role(role)}
        user_ids = check_id_list(users, "users")
        team_ids = check_id_list(teams, "teams")
        if not user_ids and not team_ids:
            raise ValidationError("users, teams", "give at least one user id or team id")
        if user_ids:
            body["users"] = user_ids
        if team_ids:
            body["teams"] = team_ids
        self._transport.request("POST", self._target.path(checked), json=body)

    def _principal_path(self, kind: Principal, ids: tuple[Any, ...], principal_id: Any) -> str:
        argument, check, _ = _PRINCIPALS[kind]
        checked = self._target.check(ids)
        return self._target.path(checked, kind, check(principal_id, argument))

    def _set_grant_role(
        self, kind: Principal, ids: tuple[Any, ...], principal_id: Any, role: Any
    ) -> None:
        path = self._principal_path(kind, ids, principal_id)
        self._transport.request("PATCH", path, json={"role": self._target.role(role)})

    def _remove_grant(self, kind: Principal, ids: tuple[Any, ...], principal_id: Any) -> bool:
        path = self._principal_path(kind, ids, principal_id)
        return was_removed(self._transport.request("DELETE", path))
