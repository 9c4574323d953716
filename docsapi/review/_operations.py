"""The API operations a review plan uses: their request, how to send them, what they change.

Each :class:`Operation` is one operation of the API description (its ``operationId``,
method and path template), knows the typed client method that sends it, and how it changes
the audit's ``paths`` table (:func:`simulate`), which is how a plan's blast radius is found
before anything is sent.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from docsapi.audit.data import ROLES
from docsapi.core.checks import check_id
from docsapi.errors import ValidationError

if TYPE_CHECKING:
    from docsapi.client import DocsClient

__all__ = ["OPERATIONS", "Operation", "Target", "simulate"]


@dataclass(frozen=True)
class Target:
    """What one call acts on: ids (missing ones None) and the role it sets (None: remove
    the grant, or for a level or member role: the API's ``null``)."""

    org_id: str | None = None
    space_id: str | None = None
    collection_id: str | None = None
    team_id: str | None = None
    user_id: str | None = None
    role: str | None = None

    def need(self, name: str) -> str:
        """The id ``name`` (e.g. ``"space_id"``), which the call cannot do without."""
        value = getattr(self, name)
        if value is None:
            raise ValidationError("plan", f"a row has no {name}; make the plan again.")
        return value


#: Sends one call; answers "removed", "already absent" or "updated".
Sender = Callable[["DocsClient", Target], str]
#: Changes a paths table (columns space_id, user_id, kind, source, collection_id, team_id
#: and code, the role's position in ROLES) as the call would; answers the new table.
Effect = Callable[[pd.DataFrame, Target], pd.DataFrame]


@dataclass(frozen=True)
class Operation:
    """One operation of the API description that a plan may call."""

    operation_id: str
    method: str
    template: str
    send: Sender
    effect: Effect
    body_key: str | None = None  # the body's one key; None: no body

    def path(self, target: Target) -> str:
        values = {
            "organizationId": target.org_id,
            "spaceId": target.space_id,
            "collectionId": target.collection_id,
            "teamId": target.team_id,
            "userId": target.user_id,
        }
        path = self.template
        for name, value in values.items():
            if "{" + name + "}" in path:
                path = path.replace("{" + name + "}", check_id(value, name))
        return path

    def body(self, target: Target) -> dict[str, Any] | None:
        return None if self.body_key is None else {self.body_key: target.role}


def _removed(answer: bool) -> str:
    return "removed" if answer else "already absent"


def _code(role: str | None) -> int:
    return ROLES.index(role or "guest")


def _rows(paths: pd.DataFrame, **equal: object) -> np.ndarray:
    hits = np.ones(len(paths), dtype=bool)
    for column, value in equal.items():
        hits &= (paths[column].to_numpy(dtype=object) == value).astype(bool)
    return hits


def _drop(**keys: str) -> Effect:
    def effect(paths: pd.DataFrame, target: Target) -> pd.DataFrame:
        equal = {column: getattr(target, attribute) for column, attribute in keys.items()}
        return paths[~_rows(paths, **equal)]

    return effect


def _set(**keys: str) -> Effect:
    def effect(paths: pd.DataFrame, target: Target) -> pd.DataFrame:
        equal = {column: getattr(target, attribute) for column, attribute in keys.items()}
        paths = paths.copy()
        paths.loc[_rows(paths, **equal), "code"] = _code(target.role)
        return paths

    return effect


def _member_role(paths: pd.DataFrame, target: Target) -> pd.DataFrame:
    """A member's organization role changes: no more ``org-admin``; ``default:inherit``
    gives the new role; a guest gets no default access at all."""
    mine = _rows(paths, user_id=target.user_id)
    paths = paths[~(mine & _rows(paths, kind="org-admin"))]
    mine = _rows(paths, user_id=target.user_id)
    defaults = mine & _rows(paths, kind="default")
    if target.role is None:
        return paths[~defaults]
    paths = paths.copy()
    inherit = defaults & _rows(paths, source="default:inherit")
    paths.loc[inherit, "code"] = _code(target.role)
    return paths


def _space_level(paths: pd.DataFrame, target: Target) -> pd.DataFrame:
    """A space's default level: every member's default path to it gives that level."""
    hits = _rows(paths, space_id=target.space_id, kind="default")
    if target.role is None:
        return paths[~hits]
    paths = paths.copy()
    paths.loc[hits, "code"] = _code(target.role)
    return paths


def _operations() -> dict[str, Operation]:
    space_user = "/spaces/{spaceId}/permissions/users/{userId}"
    space_team = "/spaces/{spaceId}/permissions/teams/{teamId}"
    collection_user = "/collections/{collectionId}/permissions/users/{userId}"
    collection_team = "/collections/{collectionId}/permissions/teams/{teamId}"
    found = [
        Operation(
            "removeUserFromSpace",
            "DELETE",
            space_user,
            lambda c, t: _removed(c.permissions.remove_user(t.need("space_id"), t.need("user_id"))),
            _kind_drop("direct", space_id="space_id", user_id="user_id"),
        ),
        Operation(
            "updateUserPermissionInSpace",
            "PATCH",
            space_user,
            lambda c, t: _updated(
                lambda: c.permissions.set_user_role(t.need("space_id"), t.need("user_id"), t.role)
            ),
            _kind_set("direct", space_id="space_id", user_id="user_id"),
            "role",
        ),
        Operation(
            "removeTeamFromSpace",
            "DELETE",
            space_team,
            lambda c, t: _removed(c.permissions.remove_team(t.need("space_id"), t.need("team_id"))),
            _kind_drop("team", space_id="space_id", team_id="team_id"),
        ),
        Operation(
            "updateTeamPermissionInSpace",
            "PATCH",
            space_team,
            lambda c, t: _updated(
                lambda: c.permissions.set_team_role(t.need("space_id"), t.need("team_id"), t.role)
            ),
            _kind_set("team", space_id="space_id", team_id="team_id"),
            "role",
        ),
        Operation(
            "deleteMemberFromOrganizationTeamById",
            "DELETE",
            "/orgs/{organizationId}/teams/{teamId}/members/{userId}",
            lambda c, t: _removed(
                c.orgs.remove_team_member(t.need("org_id"), t.need("team_id"), t.need("user_id"))
            ),
            _drop(team_id="team_id", user_id="user_id"),
        ),
        Operation(
            "removeUserFromCollection",
            "DELETE",
            collection_user,
            lambda c, t: _removed(
                c.collections.remove_user(t.need("collection_id"), t.need("user_id"))
            ),
            _kind_drop("collection", collection_id="collection_id", user_id="user_id"),
        ),
        Operation(
            "updateUserPermissionInCollection",
            "PATCH",
            collection_user,
            lambda c, t: _updated(
                lambda: c.collections.set_user_role(
                    t.need("collection_id"), t.need("user_id"), t.role
                )
            ),
            _kind_set("collection", collection_id="collection_id", user_id="user_id"),
            "role",
        ),
        Operation(
            "removeTeamFromCollection",
            "DELETE",
            collection_team,
            lambda c, t: _removed(
                c.collections.remove_team(t.need("collection_id"), t.need("team_id"))
            ),
            _kind_drop("collection-team", collection_id="collection_id", team_id="team_id"),
        ),
        Operation(
            "updateTeamPermissionInCollection",
            "PATCH",
            collection_team,
            lambda c, t: _updated(
                lambda: c.collections.set_team_role(
                    t.need("collection_id"), t.need("team_id"), t.role
                )
            ),
            _kind_set("collection-team", collection_id="collection_id", team_id="team_id"),
            "role",
        ),
        Operation(
            "updateSpaceById",
            "PATCH",
            "/spaces/{spaceId}",
            lambda c, t: _updated(
                lambda: c.spaces.update(t.need("space_id"), default_level=t.role)
            ),
            _space_level,
            "defaultLevel",
        ),
        Operation(
            "updateMemberInOrganizationById",
            "PATCH",
            "/orgs/{organizationId}/members/{userId}",
            lambda c, t: _updated(
                lambda: c.orgs.update_member(t.need("org_id"), t.need("user_id"), role=t.role)
            ),
            _member_role,
            "role",
        ),
    ]
    return {operation.operation_id: operation for operation in found}


def _updated(call: Callable[[], object]) -> str:
    call()
    return "updated"


def _kind_drop(kind: str, **keys: str) -> Effect:
    drop = _drop(**keys)

    def effect(paths: pd.DataFrame, target: Target) -> pd.DataFrame:
        mine = paths["kind"].to_numpy(dtype=object) == kind
        return pd.concat([paths[~mine], drop(paths[mine], target)])

    return effect


def _kind_set(kind: str, **keys: str) -> Effect:
    change = _set(**keys)

    def effect(paths: pd.DataFrame, target: Target) -> pd.DataFrame:
        mine = paths["kind"].to_numpy(dtype=object) == kind
        return pd.concat([paths[~mine], change(paths[mine], target)])

    return effect


#: The operations a plan uses, by ``operationId``.
OPERATIONS: dict[str, Operation] = _operations()


def simulate(paths: pd.DataFrame, operation: str, target: Target) -> pd.DataFrame:
    """``paths`` as they would be after the call."""
    return OPERATIONS[operation].effect(paths, target)
