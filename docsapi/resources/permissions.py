"""Space permissions: who can access a space, invitations, role changes, removals."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Literal

from docsapi._validate import check_entity_id, check_id, check_id_list, check_role
from docsapi.errors import ValidationError
from docsapi.resources._base import ResourceGroup, api_path, was_removed

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Permissions"]

Principal = Literal["users", "teams"]

#: Per kind of principal: the argument naming it, its id check, and the item key of its id.
_PRINCIPALS: dict[str, tuple[str, Callable[[Any, str], str], str]] = {
    "users": ("user_id", check_id, "user"),
    "teams": ("team_id", check_entity_id, "team"),
}


class Permissions(ResourceGroup):
    """Access to spaces for users and teams: ``client.permissions``.

    Roles are ``"admin"``, ``"create"``, ``"edit"``, ``"review"``, ``"comment"``,
    ``"read"``, and ``None`` for guest.
    """

    _name = "permissions"

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
        >>> client.permissions.users("sp_abc").role.value_counts()  # doctest: +SKIP
        """
        from docsapi import frames

        return frames.permission_users(space_id, self.user_records(space_id))

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
        >>> client.permissions.teams("sp_abc")  # doctest: +SKIP
        """
        from docsapi import frames

        return frames.permission_teams(space_id, self.team_records(space_id))

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
        >>> client.permissions.user_records("sp_abc")[0]["permission"]  # doctest: +SKIP
        'edit'
        """
        return self._records("users", space_id)

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
        >>> client.permissions.team_records("sp_abc")[0]["team"]["title"]  # doctest: +SKIP
        'Design'
        """
        return self._records("teams", space_id)

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
        >>> client.permissions.invite("sp_abc", role="read", users=["u_1", "u_2"])  # doctest: +SKIP
        """
        check_entity_id(space_id, "space_id")
        body: dict[str, object] = {"role": check_role(role)}
        user_ids = check_id_list(users, "users")
        team_ids = check_id_list(teams, "teams")
        if not user_ids and not team_ids:
            raise ValidationError("users, teams", "give at least one user id or team id")
        if user_ids:
            body["users"] = user_ids
        if team_ids:
            body["teams"] = team_ids
        self._transport.request("POST", api_path("spaces", space_id, "permissions"), json=body)

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
        >>> client.permissions.set_user_role("sp_abc", "u_1", "edit")  # doctest: +SKIP
        """
        self._set_role("users", space_id, user_id, role)

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
        >>> client.permissions.set_team_role("sp_abc", "tm_1", "read")  # doctest: +SKIP
        """
        self._set_role("teams", space_id, team_id, role)

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
        >>> client.permissions.remove_user("sp_abc", "u_1")  # doctest: +SKIP
        True
        """
        return self._remove("users", space_id, user_id)

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
        >>> client.permissions.remove_team("sp_abc", "tm_1")  # doctest: +SKIP
        True
        """
        return self._remove("teams", space_id, team_id)

    # -- one implementation for users and teams -------------------------------------------

    def _records(self, kind: Principal, space_id: str) -> list[dict]:
        check_entity_id(space_id, "space_id")
        item_key = _PRINCIPALS[kind][2]
        path = api_path("spaces", space_id, "permissions", kind)
        return self._items(path, key=(item_key, "id"))

    def _principal_path(self, kind: Principal, space_id: str, principal_id: str) -> str:
        argument, check, _ = _PRINCIPALS[kind]
        check_entity_id(space_id, "space_id")
        check(principal_id, argument)
        return api_path("spaces", space_id, "permissions", kind, principal_id)

    def _set_role(self, kind: Principal, space_id: str, principal_id: str, role: Any) -> None:
        path = self._principal_path(kind, space_id, principal_id)
        self._transport.request("PATCH", path, json={"role": check_role(role)})

    def _remove(self, kind: Principal, space_id: str, principal_id: str) -> bool:
        path = self._principal_path(kind, space_id, principal_id)
        return was_removed(self._transport.request("DELETE", path))
