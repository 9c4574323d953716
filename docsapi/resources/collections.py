"""Collections: folders of spaces with their own default level and permissions."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from docsapi.core.checks import (
    check_bool,
    check_default_level,
    check_entity_id,
    check_name,
    check_text,
)
from docsapi.errors import ValidationError
from docsapi.models import Collection
from docsapi.resources._base import NOT_GIVEN, NotGiven, api_path, move_body, was_removed
from docsapi.resources._grants import COLLECTION, GrantMethods

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Collections"]

#: Longest collection title and description (``CollectionTitle``, ``CollectionDescription``).
MAX_TITLE = 50
MAX_DESCRIPTION = 100


def _title(value: Any) -> str:
    return check_name(value, "title", max_length=MAX_TITLE)


class Collections(GrantMethods):
    """Collections of an organization, their spaces and permissions: ``client.collections``.

    A collection holds spaces and other collections (``parent``). Its ``default_level``
    (a role, ``"inherit"``, or ``None``: private) and the user and team permissions on it
    reach every space inside it, at any depth (``docs/access-model.md``).
    """

    _name = "collections"
    _target = COLLECTION

    # -- the collections ----------------------------------------------------------------------

    def list(self, org_id: str, *, nested: bool = True) -> pd.DataFrame:
        """List the collections of an organization the token can see (all pages are fetched).

        Parameters
        ----------
        org_id : str
            The organization's id.
        nested : bool
            False keeps the top-level collections only.

        Returns
        -------
        pandas.DataFrame
            id, title, description, organization, parent, default_level, url_app,
            url_location.

        Raises
        ------
        NotFoundError
            No such organization.

        Examples
        --------
        >>> collections = client.collections.list(org_id)
        >>> top_level = collections[collections.parent.isna()]
        >>> collection_id in set(top_level.id)
        True
        """
        from docsapi.data import frames

        check_entity_id(org_id, "org_id")
        params = {"nested": "true" if check_bool(nested, "nested") else "false"}
        return frames.collections(self._items(api_path("orgs", org_id, "collections"), params))

    def get(self, collection_id: str) -> Collection:
        """Return a collection.

        Parameters
        ----------
        collection_id : str
            The collection's id.

        Returns
        -------
        Collection

        Raises
        ------
        NotFoundError
            No such collection, or the token cannot see it.

        Examples
        --------
        >>> collection = client.collections.get(collection_id)
        >>> collection.title, collection.default_level
        ('Product documentation', 'inherit')
        """
        check_entity_id(collection_id, "collection_id")
        return Collection.from_api(self._get(api_path("collections", collection_id)))

    def spaces(self, collection_id: str) -> pd.DataFrame:
        """List the spaces directly inside a collection that the token can see.

        Spaces inside the collections it holds are listed by those collections.

        Parameters
        ----------
        collection_id : str
            The collection's id.

        Returns
        -------
        pandas.DataFrame
            The columns of :meth:`Spaces.list <docsapi.resources.spaces.Spaces.list>`.

        Raises
        ------
        NotFoundError
            No such collection.

        Examples
        --------
        >>> spaces = client.collections.spaces(collection_id)
        >>> list(spaces.columns)[:4]
        ['id', 'title', 'emoji', 'visibility']
        """
        from docsapi.data import frames

        check_entity_id(collection_id, "collection_id")
        return frames.spaces(self._items(api_path("collections", collection_id, "spaces")))

    def create(self, org_id: str, *, title: str, parent: str | None = None) -> Collection:
        """Create a collection; the token's user becomes its admin.

        Parameters
        ----------
        org_id : str
            The organization's id.
        title : str
            At most 50 characters.
        parent : str, optional
            The id of the collection to create it in; by default, the top level.

        Returns
        -------
        Collection
            The new collection (default level ``"inherit"``).

        Raises
        ------
        BadRequestError
            ``parent`` is not a collection of the organization.
        PermissionDeniedError
            The token may not create content in the organization.

        Examples
        --------
        >>> runbooks = client.collections.create(org_id, title="Runbooks", parent=collection_id)
        >>> runbooks.parent == collection_id, runbooks.default_level
        (True, 'inherit')
        """
        check_entity_id(org_id, "org_id")
        body = {"title": _title(title)}
        if parent is not None:
            body["parent"] = check_entity_id(parent, "parent")
        path = api_path("orgs", org_id, "collections")
        return Collection.from_api(self._object("POST", path, json=body))

    def update(
        self,
        collection_id: str,
        *,
        title: str | NotGiven = NOT_GIVEN,
        description: str | NotGiven = NOT_GIVEN,
        default_level: str | NotGiven | None = NOT_GIVEN,
    ) -> Collection:
        """Change a collection's title, description or default level; only what is given is sent.

        Parameters
        ----------
        collection_id : str
            The collection's id.
        title : str, optional
            At most 50 characters.
        description : str, optional
            At most 100 characters.
        default_level : str or None, optional
            What organization members get on everything inside: a member role,
            ``"inherit"`` (from the parent collection, up to their organization role), or
            ``None`` (nothing: private to those granted explicitly).

        Returns
        -------
        Collection
            The updated collection.

        Raises
        ------
        ValidationError
            Nothing to change, or a value breaking its rule.
        NotFoundError
            No such collection.
        PermissionDeniedError
            The token is not an admin of the collection.

        Examples
        --------
        >>> drafts = client.collections.create(org_id, title="Drafts")
        >>> private = client.collections.update(drafts.id, default_level=None)
        >>> private.default_level is None
        True
        """
        check_entity_id(collection_id, "collection_id")
        body: dict[str, Any] = {}
        if title is not NOT_GIVEN:
            body["title"] = _title(title)
        if description is not NOT_GIVEN:
            body["description"] = check_text(
                description, "description", max_length=MAX_DESCRIPTION, multiline=True
            )
        if default_level is not NOT_GIVEN:
            body["defaultLevel"] = check_default_level(default_level)
        if not body:
            raise ValidationError(
                "update", "give at least one of title, description, default_level"
            )
        path = api_path("collections", collection_id)
        return Collection.from_api(self._object("PATCH", path, json=body))

    def delete(self, collection_id: str) -> bool:
        """Delete a collection with the collections inside it; its spaces go to the trash.

        Parameters
        ----------
        collection_id : str
            The collection's id.

        Returns
        -------
        bool
            True if it was deleted now (205), False if it did not exist (204).

        Raises
        ------
        PermissionDeniedError
            The token is not an admin of the collection.

        Examples
        --------
        >>> drafts = client.collections.create(org_id, title="Drafts")
        >>> client.collections.delete(drafts.id)
        True
        """
        check_entity_id(collection_id, "collection_id")
        response = self._transport.request("DELETE", api_path("collections", collection_id))
        return was_removed(response)

    def move(
        self,
        collection_id: str,
        *,
        parent: str | NotGiven | None = NOT_GIVEN,
        position: Mapping[str, Any] | NotGiven = NOT_GIVEN,
    ) -> Collection:
        """Move a collection into another one and/or next to a space or collection.

        Parameters
        ----------
        collection_id : str
            The collection to move.
        parent : str or None, optional
            The id of the collection to move into; ``None`` moves it to the top level.
        position : dict, optional
            Where among its siblings: ``{"before": space_id}``, ``{"after": space_id}``, or
            ``{"after": {"collection": collection_id}}`` to point at a collection. Without
            it, the end. Give ``parent``, ``position`` or both.

        Returns
        -------
        Collection
            The moved collection.

        Raises
        ------
        ValidationError
            Neither argument given, or a malformed position.
        BadRequestError
            A parent inside the collection itself, or an invalid position.
        NotFoundError
            No such collection.
        ConflictError
            The move would change nothing.

        Examples
        --------
        >>> drafts = client.collections.create(org_id, title="Drafts", parent=collection_id)
        >>> client.collections.move(drafts.id, parent=None).parent is None  # to the top level
        True
        """
        check_entity_id(collection_id, "collection_id")
        body = move_body(parent, position)
        path = api_path("collections", collection_id, "move")
        return Collection.from_api(self._object("POST", path, json=body))

    # -- who can access it --------------------------------------------------------------------

    def users(self, collection_id: str) -> pd.DataFrame:
        """List the users holding a permission on a collection (all pages are fetched).

        Their role reaches every space inside it, at any depth.

        Parameters
        ----------
        collection_id : str
            The collection's id.

        Returns
        -------
        pandas.DataFrame
            collection_id, user_id, display_name, email, role.

        Raises
        ------
        NotFoundError
            No such collection.
        PermissionDeniedError
            The token may not read permissions.

        Examples
        --------
        >>> users = client.collections.users(collection_id)
        >>> list(users.columns)
        ['collection_id', 'user_id', 'display_name', 'email', 'role']
        """
        return self._grant_frame("users", (collection_id,))

    def teams(self, collection_id: str) -> pd.DataFrame:
        """List the teams holding a permission on a collection (all pages are fetched).

        Parameters
        ----------
        collection_id : str
            The collection's id.

        Returns
        -------
        pandas.DataFrame
            collection_id, team_id, title, members, role.

        Raises
        ------
        NotFoundError
            No such collection.

        Examples
        --------
        >>> teams = client.collections.teams(collection_id)
        >>> list(teams.columns)
        ['collection_id', 'team_id', 'title', 'members', 'role']
        """
        return self._grant_frame("teams", (collection_id,))

    def aggregate(self, collection_id: str, *, role: str | None = None) -> pd.DataFrame:
        """List everyone who can access a collection, with their effective role, as the
        platform computes it (all pages are fetched).

        Parameters
        ----------
        collection_id : str
            The collection's id.
        role : str, optional
            Keep only the users whose effective role is exactly this member role.

        Returns
        -------
        pandas.DataFrame
            collection_id, user_id, display_name, email, role.

        Raises
        ------
        ValidationError
            ``role`` is not a member role.
        NotFoundError
            No such collection.

        Examples
        --------
        >>> editors = client.collections.aggregate(collection_id, role="edit")
        >>> set(editors.role)
        {'edit'}
        """
        return self._aggregate_frame((collection_id,), role)

    def invite(
        self,
        collection_id: str,
        *,
        role: str | None,
        users: Iterable[str] = (),
        teams: Iterable[str] = (),
    ) -> None:
        """Give users and/or teams a role on a collection (and so on everything inside it).

        Parameters
        ----------
        collection_id : str
            The collection's id.
        role : str or None
            The role to give; ``None`` (guest) takes their permissions away.
        users, teams : iterable of str, optional
            User ids and team ids. Give at least one.

        Raises
        ------
        ValidationError
            No user and no team, or an unknown role.
        NotFoundError
            An unknown user or team, or no such collection.

        Examples
        --------
        >>> client.collections.invite(collection_id, role="edit", teams=[team_id])
        >>> client.collections.teams(collection_id).set_index("team_id").role[team_id]
        'edit'
        """
        self._invite((collection_id,), role, users, teams)

    def set_user_role(self, collection_id: str, user_id: str, role: str | None) -> None:
        """Set a user's role on a collection (``None`` takes it away).

        Parameters
        ----------
        collection_id, user_id : str
            The collection and the user.
        role : str or None
            A member role, or ``None``.

        Raises
        ------
        ValidationError
            An unknown role.
        NotFoundError
            No such user or collection.

        Examples
        --------
        >>> client.collections.set_user_role(collection_id, user_id, "comment")
        >>> client.collections.users(collection_id).set_index("user_id").role[user_id]
        'comment'
        """
        self._set_grant_role("users", (collection_id,), user_id, role)

    def set_team_role(self, collection_id: str, team_id: str, role: str | None) -> None:
        """Set a team's role on a collection (``None`` takes it away).

        Parameters
        ----------
        collection_id, team_id : str
            The collection and the team.
        role : str or None
            A member role, or ``None``.

        Raises
        ------
        ValidationError
            An unknown role.
        NotFoundError
            No such collection, or the team is not in its organization.

        Examples
        --------
        >>> client.collections.set_team_role(collection_id, team_id, "comment")
        >>> client.collections.teams(collection_id).set_index("team_id").role[team_id]
        'comment'
        """
        self._set_grant_role("teams", (collection_id,), team_id, role)

    def remove_user(self, collection_id: str, user_id: str) -> bool:
        """Take a user's permission on a collection away.

        Parameters
        ----------
        collection_id, user_id : str
            The collection and the user.

        Returns
        -------
        bool
            True if it was removed now (205), False if the user held none (204).

        Raises
        ------
        PermissionDeniedError
            The token is not an admin of the collection.

        Examples
        --------
        >>> client.collections.set_user_role(collection_id, user_id, "read")
        >>> client.collections.remove_user(collection_id, user_id)
        True
        """
        return self._remove_grant("users", (collection_id,), user_id)

    def remove_team(self, collection_id: str, team_id: str) -> bool:
        """Take a team's permission on a collection away.

        Parameters
        ----------
        collection_id, team_id : str
            The collection and the team.

        Returns
        -------
        bool
            True if it was removed now (205), False if the team held none (204).

        Raises
        ------
        BadRequestError
            The team is not a team of the collection's organization.

        Examples
        --------
        >>> client.collections.set_team_role(collection_id, team_id, "read")
        >>> client.collections.remove_team(collection_id, team_id)
        True
        """
        return self._remove_grant("teams", (collection_id,), team_id)
