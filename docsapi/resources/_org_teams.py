"""The teams of an organization: list, read, create, rename, delete, and their members.

:class:`~docsapi.resources.orgs.Orgs` offers these methods (``client.orgs.teams`` …);
they live here to keep each module short.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from docsapi.core.checks import (
    check_choice,
    check_entity_id,
    check_id,
    check_id_list,
    check_name,
)
from docsapi.models import Team
from docsapi.resources._base import ResourceGroup, api_path, was_removed

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["TEAM_MEMBER_ROLES", "TeamMethods"]

#: A member's role in a team (``TeamMemberRole``).
TEAM_MEMBER_ROLES: tuple[str, ...] = ("owner", "member")
#: Longest team title (``OrganizationTeamTitle``).
MAX_TEAM_TITLE = 64


def _team_path(org_id: Any, team_id: Any, *rest: str) -> str:
    check_entity_id(org_id, "org_id")
    check_entity_id(team_id, "team_id")
    return api_path("orgs", org_id, "teams", team_id, *rest)


def _team_title(value: Any) -> str:
    return check_name(value, "title", max_length=MAX_TEAM_TITLE)


class TeamMethods(ResourceGroup):
    """Teams and their members (part of ``client.orgs``)."""

    def teams(self, org_id: str) -> pd.DataFrame:
        """List the teams of an organization (all pages are fetched).

        Parameters
        ----------
        org_id : str
            The organization's id.

        Returns
        -------
        pandas.DataFrame
            org_id, id, title, members, spaces, created_at.

        Raises
        ------
        NotFoundError
            No such organization.

        Examples
        --------
        >>> teams = client.orgs.teams(org_id).sort_values("members")
        >>> int(teams.members.iloc[0])  # an empty team: no one gets its permissions
        0
        """
        from docsapi.data import frames

        check_entity_id(org_id, "org_id")
        return frames.teams(org_id, self._items(api_path("orgs", org_id, "teams")))

    def team(self, org_id: str, team_id: str) -> Team:
        """Return one team of an organization.

        Parameters
        ----------
        org_id, team_id : str
            The organization and the team.

        Returns
        -------
        Team

        Raises
        ------
        NotFoundError
            No such organization or team.

        Examples
        --------
        >>> team = client.orgs.team(org_id, team_id)
        >>> team.title, team.members > 0
        ('Design', True)
        """
        return Team.from_api(self._get(_team_path(org_id, team_id)))

    def team_members(self, org_id: str, team_id: str) -> pd.DataFrame:
        """List the members of a team (all pages are fetched).

        Parameters
        ----------
        org_id, team_id : str
            The organization and the team.

        Returns
        -------
        pandas.DataFrame
            org_id, team_id, user_id, display_name, email, role (``owner`` or ``member``).

        Raises
        ------
        NotFoundError
            No such organization or team.

        Examples
        --------
        >>> members = client.orgs.team_members(org_id, team_id)
        >>> list(members.columns)
        ['org_id', 'team_id', 'user_id', 'display_name', 'email', 'role']
        """
        from docsapi.data import frames

        path = _team_path(org_id, team_id, "members")
        items = self._items(path, key=("organization", "id"))
        return frames.team_members(org_id, team_id, items)

    def create_team(self, org_id: str, *, title: str, members: Iterable[str] = ()) -> Team:
        """Create a team, with members of the organization if given.

        Parameters
        ----------
        org_id : str
            The organization's id.
        title : str
            1 to 64 characters.
        members : iterable of str, optional
            User ids of organization members to add (as ``member``).

        Returns
        -------
        Team
            The new team.

        Raises
        ------
        NotFoundError
            A user who is not a member of the organization.
        PermissionDeniedError
            The token is not an organization admin.

        Examples
        --------
        >>> team = client.orgs.create_team(org_id, title="Reviewers", members=[user_id])
        >>> team.title, team.members
        ('Reviewers', 1)
        """
        check_entity_id(org_id, "org_id")
        body: dict[str, Any] = {"title": _team_title(title)}
        user_ids = check_id_list(members, "members")
        if user_ids:
            body["members"] = user_ids
        return Team.from_api(self._object("PUT", api_path("orgs", org_id, "teams"), json=body))

    def update_team(self, org_id: str, team_id: str, *, title: str) -> Team:
        """Rename a team.

        Parameters
        ----------
        org_id, team_id : str
            The organization and the team.
        title : str
            1 to 64 characters.

        Returns
        -------
        Team
            The renamed team.

        Raises
        ------
        NotFoundError
            No such team.

        Examples
        --------
        >>> team = client.orgs.create_team(org_id, title="Reviewers")
        >>> client.orgs.update_team(org_id, team.id, title="Editors").title
        'Editors'
        """
        path = _team_path(org_id, team_id)
        return Team.from_api(self._object("PATCH", path, json={"title": _team_title(title)}))

    def delete_team(self, org_id: str, team_id: str) -> bool:
        """Delete a team; every permission it held goes with it.

        Parameters
        ----------
        org_id, team_id : str
            The organization and the team.

        Returns
        -------
        bool
            True if it was deleted now (205), False if it did not exist (204).

        Raises
        ------
        PermissionDeniedError
            The token is not an organization admin.

        Examples
        --------
        >>> team = client.orgs.create_team(org_id, title="Reviewers")
        >>> client.orgs.delete_team(org_id, team.id)
        True
        """
        return was_removed(self._transport.request("DELETE", _team_path(org_id, team_id)))

    def add_team_member(
        self, org_id: str, team_id: str, user_id: str, *, role: str | None = None
    ) -> None:
        """Add an organization member to a team, or change their role in it.

        Parameters
        ----------
        org_id, team_id, user_id : str
            The organization, the team and the member.
        role : {"member", "owner"}, optional
            Their role in the team. Without it, a new member joins as ``member`` and a
            current one keeps their role.

        Raises
        ------
        NotFoundError
            No such team, or the user is not a member of the organization.

        Examples
        --------
        >>> client.orgs.add_team_member(org_id, team_id, user_id, role="owner")
        >>> client.orgs.team_members(org_id, team_id).set_index("user_id").role[user_id]
        'owner'
        """
        path = _team_path(org_id, team_id, "members") + api_path(check_id(user_id, "user_id"))
        body = None if role is None else {"role": check_choice(role, TEAM_MEMBER_ROLES, "role")}
        self._transport.request("PUT", path, json=body)

    def remove_team_member(self, org_id: str, team_id: str, user_id: str) -> bool:
        """Take a member out of a team (they lose what the team's permissions gave them).

        Parameters
        ----------
        org_id, team_id, user_id : str
            The organization, the team and the member.

        Returns
        -------
        bool
            True if they were removed now (205), False if they were not in the team (204).

        Raises
        ------
        NotFoundError
            No such team.

        Examples
        --------
        >>> client.orgs.add_team_member(org_id, team_id, user_id)
        >>> client.orgs.remove_team_member(org_id, team_id, user_id)
        True
        """
        path = _team_path(org_id, team_id, "members") + api_path(check_id(user_id, "user_id"))
        return was_removed(self._transport.request("DELETE", path))
