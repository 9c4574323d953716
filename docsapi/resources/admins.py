"""Changes to organization roles checked against the organization's admins, before sending.

An organization needs an enabled admin: the API refuses to demote or remove the last one, and
a change that leaves none is refused here first (a :class:`~docsapi.errors.ValidationError`,
nothing sent). An admin may demote or remove themselves while other admins remain, but their
token then answers 401 or 403 wherever an admin is needed, so such a change comes with a
warning (:attr:`AdminCheck.warning`) that forms show in a confirm step and ``review apply``
asks a flag for. Forms and reviews call :func:`check_admin_changes`; it is the one place
these rules live.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pandas as pd

from docsapi.core.checks import check_entity_id, check_id, check_role
from docsapi.errors import ValidationError

if TYPE_CHECKING:
    from docsapi.client import DocsClient

__all__ = ["AdminCheck", "check_admin_changes"]


@dataclass(frozen=True)
class AdminCheck:
    """What changes to members' organization roles do to the organization's admins.

    Attributes
    ----------
    org_id : str
        The organization.
    demoted : tuple of str
        Ids of the admins who lose the admin role (demoted or removed).
    admins_left : tuple of str
        Ids of the enabled admins once the changes are made (never empty).
    caller_id : str or None
        The user the client's token belongs to (looked up only when an admin is demoted).
    names : Mapping[str, str]
        Display names of the members, by id.
    """

    org_id: str
    demoted: tuple[str, ...]
    admins_left: tuple[str, ...]
    caller_id: str | None
    names: Mapping[str, str]

    @property
    def demotes_caller(self) -> bool:
        """Whether the changes take the admin role away from the token's own user."""
        return self.caller_id is not None and self.caller_id in self.demoted

    @property
    def warning(self) -> str | None:
        """What taking the admin role from the token's own user means; None if it is not."""
        if not self.demotes_caller or self.caller_id is None:
            return None
        others = ", ".join(self._name(u) for u in self.admins_left)
        return (
            f"this takes the admin role of organization {self.org_id} away from you "
            f"({self._name(self.caller_id)}, the user of this token): afterwards this token "
            "cannot manage the organization's members, teams or permissions (the API answers "
            f"401 or 403), and only another admin ({others}) can give the role back"
        )

    def _name(self, user_id: str) -> str:
        return self.names.get(user_id) or user_id


def check_admin_changes(
    client: DocsClient,
    org_id: str,
    roles: Mapping[str, str | None] | None = None,
    *,
    removed: Iterable[str] = (),
    argument: str = "role",
) -> AdminCheck:
    """Check organization role changes and removals against the organization's admins.

    The members are read (``client.orgs.members``); the token's user (``client.users.me``)
    only when an admin loses the role. Nothing is changed.

    Parameters
    ----------
    client : DocsClient
        The client that would send the changes.
    org_id : str
        The organization.
    roles : Mapping[str, str or None], optional
        Member id -> the organization role they would get (``None``: guest).
    removed : iterable of str
        Ids of members who would be removed from the organization.
    argument : str
        The argument a refusal names (``"role"``, ``"plan"``...).

    Returns
    -------
    AdminCheck
        Who loses the admin role, who stays admin, and a warning when the token's own user
        loses it.

    Raises
    ------
    ValidationError
        When the changes would leave the organization without an enabled admin (the message
        says what to do), or for a role that is not one.

    Examples
    --------
    >>> check = check_admin_changes(client, org_id, {admin_id: "read"})  # demoting yourself
    >>> check.demotes_caller, len(check.admins_left) > 0
    (True, True)
    >>> print(check.warning)  # doctest: +ELLIPSIS
    this takes the admin role of organization ... away from you (...
    >>> everyone = {admin: "read" for admin in demo["org_admin_ids"]}
    >>> check_admin_changes(client, org_id, everyone)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    docsapi.errors.ValidationError: role: this would leave organization ... without an ...
    """
    check_entity_id(org_id, "org_id")
    wanted = {check_id(u, "user_id"): check_role(r) for u, r in (roles or {}).items()}
    gone = {check_id(u, "user_id") for u in removed}
    members = client.orgs.members(org_id)
    current = _column(members, "role")
    disabled = {u: bool(d) for u, d in _column(members, "disabled").items() if d is not None}
    names = {u: str(n) for u, n in _column(members, "display_name").items() if n is not None}
    demoted = tuple(
        dict.fromkeys(
            u
            for u in (*wanted, *gone)
            if current.get(u) == "admin" and (u in gone or wanted[u] != "admin")
        )
    )
    after = {u: wanted.get(u, role) for u, role in current.items() if u not in gone}
    left = tuple(u for u, role in after.items() if role == "admin" and not disabled.get(u))
    if not demoted:
        return AdminCheck(org_id, (), left, None, names)
    if not left:
        who = ", ".join(names.get(u) or u for u in demoted)
        raise ValidationError(
            argument,
            f"this would leave organization {org_id} without an enabled admin ({who} would "
            "lose the role) and nobody could manage it: make another member an admin first "
            "(client.orgs.update_member(org_id, user_id, role='admin')), or keep one of them "
            "an admin",
        )
    caller = client.users.me().id
    return AdminCheck(org_id, demoted, left, caller, names)


def _column(members: pd.DataFrame, column: str) -> dict[str, Any]:
    """Member id -> the value of ``column`` (None where missing)."""
    values = members[column].astype(object).where(members[column].notna(), None)
    return dict(zip(members["user_id"].astype(str), values, strict=True))
