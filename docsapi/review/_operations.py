"""The API operations a review plan uses: their request, how to send them, what they change.

Each :class:`Operation` is one operation of the API description (its ``operationId``,
method and path template), knows the typed client method that sends it, and how it changes
the audit's raw tables (:class:`~docsapi.audit.data.AuditData`): the plan's prediction
(:mod:`docsapi.review._predict`) plays its calls on a copy of them and resolves the
organization as it will be.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from docsapi.audit.data import AuditData
from docsapi.core.checks import check_id
from docsapi.errors import ValidationError

if TYPE_CHECKING:
    from docsapi.client import DocsClient

__all__ = ["OPERATIONS", "TARGET_FIELDS", "Operation", "Target"]

#: The fields of a :class:`Target`, as the plan's columns of the same names.
TARGET_FIELDS: tuple[str, ...] = (
    "org_id",
    "space_id",
    "collection_id",
    "site_id",
    "team_id",
    "user_id",
    "role",
)


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
    site_id: str | None = None

    def need(self, name: str) -> str:
        """The id ``name`` (e.g. ``"space_id"``), which the call cannot do without."""
        value = getattr(self, name)
        if value is None:
            raise ValidationError("plan", f"a row has no {name}; make the plan again.")
        return value


#: Sends one call; answers "removed", "already absent" or "updated".
Sender = Callable[["DocsClient", Target], str]
#: Changes an organization's raw tables as the call would; answers a changed copy (the
#: tables given are never modified).
Change = Callable[[AuditData, Target], AuditData]


@dataclass(frozen=True)
class Operation:
    """One operation of the API description that a plan may call."""

    operation_id: str
    method: str
    template: str
    send: Sender
    change: Change
    body_key: str | None = None  # the body's one key; None: no body

    def path(self, target: Target) -> str:
        values = {
            "organizationId": target.org_id,
            "spaceId": target.space_id,
            "collectionId": target.collection_id,
            "siteId": target.site_id,
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


# -- changes to the raw tables ---------------------------------------------------------------
def _equal(frame: pd.DataFrame, **values: str | None) -> np.ndarray:
    """Rows of ``frame`` whose columns equal ``values`` (categoricals compared by code)."""
    hits = np.ones(len(frame), dtype=bool)
    for column, value in values.items():
        hits &= (frame[column] == value).fillna(False).to_numpy(dtype=bool)
    return hits


def _replaced(data: AuditData, table: str, frame: pd.DataFrame) -> AuditData:
    changed = copy.copy(data)  # the other tables are shared, never modified
    setattr(changed, table, frame)
    return changed


def _drop_rows(table: str, **columns: str) -> Change:
    """Remove the rows of ``table`` whose columns equal the target's fields (``column=field``;
    a field name starting with ``=`` is a constant)."""

    def change(data: AuditData, target: Target) -> AuditData:
        frame = getattr(data, table)
        hits = _equal(frame, **_values(columns, target))
        return _replaced(data, table, frame[~hits].reset_index(drop=True))

    return change


def _set_value(table: str, column: str, **columns: str) -> Change:
    """Set ``column`` (a role or default level) to the target's role on the matching rows."""

    def change(data: AuditData, target: Target) -> AuditData:
        frame = getattr(data, table)
        hits = _equal(frame, **_values(columns, target))
        values = frame[column]
        if isinstance(values.dtype, pd.CategoricalDtype):
            if target.role is not None and target.role not in values.cat.categories:
                values = values.cat.add_categories([target.role])
            updated = values.copy()
            updated[hits] = target.role if target.role is not None else np.nan
        else:
            updated = values.copy()
            updated[hits] = target.role if target.role is not None else pd.NA
        return _replaced(data, table, frame.assign(**{column: updated}))

    return change


def _values(columns: dict[str, str], target: Target) -> dict[str, str | None]:
    return {
        column: field[1:] if field.startswith("=") else getattr(target, field)
        for column, field in columns.items()
    }


def _grant(table: str, kind: str, holder: str) -> dict[str, str]:
    """The columns naming one grant of ``table`` on a target of ``kind``."""
    target = {"space": "space_id", "collection": "collection_id", "site": "site_id"}[kind]
    holder_column = "user_id" if table == "user_permissions" else "team_id"
    return {"target_type": "=" + kind, "target_id": target, holder_column: holder}


def _remove_grant(table: str, kind: str, holder: str) -> Change:
    return _drop_rows(table, **_grant(table, kind, holder))


def _set_grant(table: str, kind: str, holder: str) -> Change:
    return _set_value(table, "role", **_grant(table, kind, holder))


def _operations() -> dict[str, Operation]:
    space_user = "/spaces/{spaceId}/permissions/users/{userId}"
    space_team = "/spaces/{spaceId}/permissions/teams/{teamId}"
    collection_user = "/collections/{collectionId}/permissions/users/{userId}"
    collection_team = "/collections/{collectionId}/permissions/teams/{teamId}"
    site = "/orgs/{organizationId}/sites/{siteId}"
    users, teams = "user_permissions", "team_permissions"
    found = [
        Operation(
            "removeUserFromSpace",
            "DELETE",
            space_user,
            lambda c, t: _removed(c.permissions.remove_user(t.need("space_id"), t.need("user_id"))),
            _remove_grant(users, "space", "user_id"),
        ),
        Operation(
            "updateUserPermissionInSpace",
            "PATCH",
            space_user,
            lambda c, t: _updated(
                lambda: c.permissions.set_user_role(t.need("space_id"), t.need("user_id"), t.role)
            ),
            _set_grant(users, "space", "user_id"),
            "role",
        ),
        Operation(
            "removeTeamFromSpace",
            "DELETE",
            space_team,
            lambda c, t: _removed(c.permissions.remove_team(t.need("space_id"), t.need("team_id"))),
            _remove_grant(teams, "space", "team_id"),
        ),
        Operation(
            "updateTeamPermissionInSpace",
            "PATCH",
            space_team,
            lambda c, t: _updated(
                lambda: c.permissions.set_team_role(t.need("space_id"), t.need("team_id"), t.role)
            ),
            _set_grant(teams, "space", "team_id"),
            "role",
        ),
        Operation(
            "deleteMemberFromOrganizationTeamById",
            "DELETE",
            "/orgs/{organizationId}/teams/{teamId}/members/{userId}",
            lambda c, t: _removed(
                c.orgs.remove_team_member(t.need("org_id"), t.need("team_id"), t.need("user_id"))
            ),
            _drop_rows("team_members", team_id="team_id", user_id="user_id"),
        ),
        Operation(
            "removeUserFromCollection",
            "DELETE",
            collection_user,
            lambda c, t: _removed(
                c.collections.remove_user(t.need("collection_id"), t.need("user_id"))
            ),
            _remove_grant(users, "collection", "user_id"),
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
            _set_grant(users, "collection", "user_id"),
            "role",
        ),
        Operation(
            "removeTeamFromCollection",
            "DELETE",
            collection_team,
            lambda c, t: _removed(
                c.collections.remove_team(t.need("collection_id"), t.need("team_id"))
            ),
            _remove_grant(teams, "collection", "team_id"),
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
            _set_grant(teams, "collection", "team_id"),
            "role",
        ),
        Operation(
            "removeUserFromSite",
            "DELETE",
            site + "/permissions/users/{userId}",
            lambda c, t: _removed(
                c.sites.remove_user(t.need("org_id"), t.need("site_id"), t.need("user_id"))
            ),
            _remove_grant(users, "site", "user_id"),
        ),
        Operation(
            "updateUserPermissionInSite",
            "PATCH",
            site + "/permissions/users/{userId}",
            lambda c, t: _updated(
                lambda: c.sites.set_user_role(
                    t.need("org_id"), t.need("site_id"), t.need("user_id"), t.need("role")
                )
            ),
            _set_grant(users, "site", "user_id"),
            "role",
        ),
        Operation(
            "removeTeamFromSite",
            "DELETE",
            site + "/permissions/teams/{teamId}",
            lambda c, t: _removed(
                c.sites.remove_team(t.need("org_id"), t.need("site_id"), t.need("team_id"))
            ),
            _remove_grant(teams, "site", "team_id"),
        ),
        Operation(
            "updateTeamPermissionInSite",
            "PATCH",
            site + "/permissions/teams/{teamId}",
            lambda c, t: _updated(
                lambda: c.sites.set_team_role(
                    t.need("org_id"), t.need("site_id"), t.need("team_id"), t.need("role")
                )
            ),
            _set_grant(teams, "site", "team_id"),
            "role",
        ),
        Operation(
            "updateSiteById",
            "PATCH",
            site,
            lambda c, t: _updated(
                lambda: c.sites.update(t.need("org_id"), t.need("site_id"), default_level=t.role)
            ),
            _set_value("sites", "default_level", id="site_id"),
            "defaultLevel",
        ),
        Operation(
            "updateSpaceById",
            "PATCH",
            "/spaces/{spaceId}",
            lambda c, t: _updated(
                lambda: c.spaces.update(t.need("space_id"), default_level=t.role)
            ),
            _set_value("spaces", "default_level", id="space_id"),
            "defaultLevel",
        ),
        Operation(
            "updateMemberInOrganizationById",
            "PATCH",
            "/orgs/{organizationId}/members/{userId}",
            lambda c, t: _updated(
                lambda: c.orgs.update_member(t.need("org_id"), t.need("user_id"), role=t.role)
            ),
            _set_value("members", "role", user_id="user_id"),
            "role",
        ),
    ]
    return {operation.operation_id: operation for operation in found}


def _updated(call: Callable[[], object]) -> str:
    call()
    return "updated"


#: The operations a plan uses, by ``operationId``.
OPERATIONS: dict[str, Operation] = _operations()
