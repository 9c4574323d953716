"""Space permissions: who can access a space, invitations, role changes, removals."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from docsapi.resources._grants import SPACE, GrantMethods

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Permissions"]


class Permissions(GrantMethods):
    """Access to spaces for users and teams: ``client.permissions``.

    Roles are ``"admin"``, ``"create"``, ``"edit"``, ``"review"``, ``"comment"``,
    ``"read"``, and ``None`` for guest.
    """

    _name = "permissions"
    _target = SPACE

    def users(self, space_id: str) -> pd.DataFrame:
        """List the users with direct access to a space (all pages are fetched).

        Parameters
        ----------
        space_id : str
            The space's id.

        Returns
        -------
        pandas.DataFrame
            space_id, user_id, display_name, email, role.

        Raises
        ------
        NotFoundError
            No such space.
        PermissionDeniedError
            The token may not read permissions.

        Examples
        --------
        >>> grants = client.permissions.users(space_id)
        >>> grants.set_index("user_id").role[guest_id]  # a guest who can edit
        'edit'
        """
        return self._grant_frame("users", (space_id,))

    def teams(self, space_id: str) -> pd.DataFrame:
        """List the teams with access to a space (all pages are fetched).

        Parameters
        ----------
        space_id : str
            The space's id.

        Returns
        -------
        pandas.DataFrame
            space_id, team_id, title, members, role.

        Raises
        ------
        NotFoundError
            No such space.

        Examples
        --------
        >>> teams = client.permissions.teams(space_id)
        >>> list(teams.columns)
        ['space_id', 'team_id', 'title', 'members', 'role']
        """
        return self._grant_frame("teams", (space_id,))

    def aggregate(self, space_id: str, *, role: str | None = None) -> pd.DataFrame:
        """List everyone who can access a space, with their effective role, as the platform
        computes it (all pages are fetched).

        Unlike :meth:`users`, this counts every path: the organization role and default
        levels, team grants, grants on the collections above the space. Disabled members
        are never listed; users who left but still hold a grant are. See the access model
        (``docs/access-model.md``).

        Parameters
        ----------
        space_id : str
            The space's id.
        role : str, optional
            Keep only the users whose effective role is exactly this member role.

        Returns
        -------
        pandas.DataFrame
            space_id, user_id, display_name, email, role.

        Raises
        ------
        ValidationError
            ``role`` is not a member role.
        NotFoundError
            No such space (a space in the trash is not content anyone reaches).
        PermissionDeniedError
            The token may not read permissions.

        Examples
        --------
        >>> everyone = client.permissions.aggregate(space_id)
        >>> everyone.set_index("user_id").role[guest_id]
        'edit'
        >>> admins = client.permissions.aggregate(space_id, role="admin")
        >>> admin_id in set(admins.user_id)  # an organization admin reaches every space
        True
        """
        return self._aggregate_frame((space_id,), role)

    def user_records(self, space_id: str) -> list[dict]:
        """The raw ``UserContentPermission`` items of a space, every page fetched.

        :meth:`users` builds its DataFrame from these; bulk work over many spaces (such as
        an audit) collects them and builds one frame at the end with
        :func:`docsapi.frames.permission_users`.

        Parameters
        ----------
        space_id : str
            The space's id.

        Returns
        -------
        list of dict
            ``{"permission": role, "user": User}`` objects as the API sends them.

        Raises
        ------
        NotFoundError
            No such space.

        Examples
        --------
        >>> records = client.permissions.user_records(space_id)  # as the API sends them
        >>> sorted(records[0])
        ['permission', 'user']
        """
        return self._grant_records("users", (space_id,))

    def team_records(self, space_id: str) -> list[dict]:
        """The raw ``{permission, team}`` items of a space, every page fetched.

        Parameters
        ----------
        space_id : str
            The space's id.

        Returns
        -------
        list of dict
            ``{"permission": role, "team": OrganizationTeam}`` objects.

        Raises
        ------
        NotFoundError
            No such space.

        Examples
        --------
        >>> records = client.permissions.team_records(space_id)
        >>> sorted(records[0])
        ['permission', 'team']
        """
        return self._grant_records("teams", (space_id,))

    def invite(
        self,
        space_id: str,
        *,
        role: str | None,
        users: Iterable[str] = (),
        teams: Iterable[str] = (),
    ) -> None:
        """Give users and/or teams a role on a space.

        Parameters
        ----------
        space_id : str
            The space's id.
        role : str or None
            The role to give; ``None`` for guest.
        users : iterable of str, optional
            User ids.
        teams : iterable of str, optional
            Team ids. Give at least one user or team.

        Raises
        ------
        ValidationError
            No user and no team, or an unknown role.
        NotFoundError
            An unknown user or team, or no such space.

        Examples
        --------
        >>> client.permissions.invite(space_id, role="read", users=[user_id], teams=[team_id])
        >>> client.permissions.users(space_id).set_index("user_id").role[user_id]
        'read'
        """
        self._invite((space_id,), role, users, teams)

    def set_user_role(self, space_id: str, user_id: str, role: str | None) -> None:
        """Change a user's role on a space.

        Parameters
        ----------
        space_id, user_id : str
            The space and the user.
        role : str or None
            The new role; ``None`` for guest.

        Raises
        ------
        ValidationError
            An unknown role.
        NotFoundError
            The user has no access to the space, or no such space.

        Examples
        --------
        >>> client.permissions.set_user_role(space_id, user_id, "comment")
        >>> client.permissions.users(space_id).set_index("user_id").role[user_id]
        'comment'
        """
        self._set_grant_role("users", (space_id,), user_id, role)

    def set_team_role(self, space_id: str, team_id: str, role: str | None) -> None:
        """Change a team's role on a space.

        Parameters
        ----------
        space_id, team_id : str
            The space and the team.
        role : str or None
            The new role; ``None`` for guest.

        Raises
        ------
        ValidationError
            An unknown role.
        NotFoundError
            The team has no access to the space, or no such space.

        Examples
        --------
        >>> client.permissions.set_team_role(space_id, team_id, "comment")
        >>> client.permissions.teams(space_id).set_index("team_id").role[team_id]
        'comment'
        """
        self._set_grant_role("teams", (space_id,), team_id, role)

    def remove_user(self, space_id: str, user_id: str) -> bool:
        """Take a user's direct access to a space away.

        Parameters
        ----------
        space_id, user_id : str
            The space and the user.

        Returns
        -------
        bool
            True if the user was removed now (205), False if they had no access (204).

        Raises
        ------
        PermissionDeniedError
            The token may not change permissions.

        Examples
        --------
        >>> client.permissions.set_user_role(space_id, user_id, "read")
        >>> client.permissions.remove_user(space_id, user_id)
        True
        """
        return self._remove_grant("users", (space_id,), user_id)

    def remove_team(self, space_id: str, team_id: str) -> bool:
        """Take a team's access to a space away.

        Parameters
        ----------
        space_id, team_id : str
            The space and the team.

        Returns
        -------
        bool
            True if the team was removed now (205), False if it was not in the space (204).

        Raises
        ------
        BadRequestError
            The team has no access to the space.

        Examples
        --------
        >>> client.permissions.set_team_role(space_id, team_id, "read")
        >>> client.permissions.remove_team(space_id, team_id)
        True
        """
        return self._remove_grant("teams", (space_id,), team_id)
