"""Organizations: the ones the token can see, their members and teams."""

from __future__ import annotations

from typing import TYPE_CHECKING

from docsapi._validate import check_entity_id
from docsapi.models import Organization, Team
from docsapi.resources._base import ResourceGroup, api_path

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Orgs"]


class Orgs(ResourceGroup):
    """Organizations, members and teams: ``client.orgs``."""

    _name = "orgs"

    def list(self) -> pd.DataFrame:
        """List the organizations the authenticated user belongs to.

        Returns
        -------
        pandas.DataFrame
            id, title, type, created_at, url_app.

        Raises
        ------
        AuthenticationError
            The token is missing or invalid.

        Examples
        --------
        >>> client.orgs.list()[["id", "title"]]  # doctest: +SKIP
        """
        from docsapi import frames

        return frames.organizations(self._items("/orgs"))

    def get(self, org_id: str) -> Organization:
        """Return an organization.

        Parameters
        ----------
        org_id : str
            The organization's id.

        Returns
        -------
        Organization

        Raises
        ------
        NotFoundError
            No such organization.

        Examples
        --------
        >>> client.orgs.get("org_1").title  # doctest: +SKIP
        """
        check_entity_id(org_id, "org_id")
        return Organization.from_api(self._get(api_path("orgs", org_id)))

    def members(self, org_id: str) -> pd.DataFrame:
        """List the current members of an organization (all pages are fetched).

        Parameters
        ----------
        org_id : str
            The organization's id.

        Returns
        -------
        pandas.DataFrame
            org_id, user_id, display_name, email, role (missing for a guest), disabled,
            joined_at, last_seen_at.

        Raises
        ------
        NotFoundError
            No such organization.

        Examples
        --------
        >>> client.orgs.members("org_1").role.value_counts(dropna=False)  # doctest: +SKIP
        """
        from docsapi import frames

        check_entity_id(org_id, "org_id")
        return frames.org_members(org_id, self._items(api_path("orgs", org_id, "members")))

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
        >>> client.orgs.teams("org_1").sort_values("members")  # doctest: +SKIP
        """
        from docsapi import frames

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
        >>> client.orgs.team("org_1", "tm_1").members  # doctest: +SKIP
        """
        check_entity_id(org_id, "org_id")
        check_entity_id(team_id, "team_id")
        return Team.from_api(self._get(api_path("orgs", org_id, "teams", team_id)))

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
        >>> client.orgs.team_members("org_1", "tm_1")  # doctest: +SKIP
        """
        from docsapi import frames

        check_entity_id(org_id, "org_id")
        check_entity_id(team_id, "team_id")
        path = api_path("orgs", org_id, "teams", team_id, "members")
        items = self._items(path, key=("organization", "id"))
        return frames.team_members(org_id, team_id, items)
