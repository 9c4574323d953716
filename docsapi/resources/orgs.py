"""Organizations: the ones the token can see, their members, teams, invite links and log."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from docsapi.core.checks import (
    MAX_ID_LENGTH,
    check_bool,
    check_entity_id,
    check_id,
    check_moment,
    check_role,
    check_text,
)
from docsapi.core.safe_text import progress_stream
from docsapi.errors import ValidationError
from docsapi.models import InviteLink, Organization, OrganizationMember
from docsapi.resources._base import api_path, was_removed
from docsapi.resources._org_teams import TeamMethods

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Orgs"]


def _member_path(org_id: Any, user_id: Any, *rest: str) -> str:
    check_entity_id(org_id, "org_id")
    check_id(user_id, "user_id")
    return api_path("orgs", org_id, "members", user_id, *rest)


def _invite_path(org_id: Any, invite_id: Any) -> str:
    check_entity_id(org_id, "org_id")
    check_entity_id(invite_id, "invite_id")
    return api_path("orgs", org_id, "link-invites", invite_id)


def _instant(value: Any, argument: str) -> str:
    """A moment for a query: an aware datetime or an ISO 8601 string with its offset, in UTC.

    Examples
    --------
    >>> _instant("2025-01-31T13:00:00+01:00", "since")
    '2025-01-31T12:00:00Z'
    """
    return check_moment(value, argument).replace(tzinfo=None).isoformat() + "Z"


def _target(value: Any) -> str:
    """An audit log target: an id, or ids joined by ``/`` (a permission names its content and
    its holder: ``<space id>/user/<user id>``), each part an id.

    Examples
    --------
    >>> _target("s1/user/u1")
    's1/user/u1'
    """
    text = check_text(value, "target_id", min_length=1, max_length=3 * MAX_ID_LENGTH)
    for part in text.split("/"):
        check_id(part, "target_id")
    return text


class Orgs(TeamMethods):
    """Organizations, members, teams, invite links and the audit log: ``client.orgs``."""

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
        >>> orgs = client.orgs.list()
        >>> orgs.loc[orgs.id == org_id, "title"].item()
        'Stark Devices'
        """
        from docsapi.data import frames

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
        >>> client.orgs.get(org_id).title
        'Stark Devices'
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
        >>> members = client.orgs.members(org_id)
        >>> list(members.columns)[:5]
        ['org_id', 'user_id', 'display_name', 'email', 'role']
        >>> "admin" in set(members.role)
        True
        """
        from docsapi.data import frames

        check_entity_id(org_id, "org_id")
        return frames.org_members(org_id, self._items(api_path("orgs", org_id, "members")))

    def member(self, org_id: str, user_id: str) -> OrganizationMember:
        """Return one member of an organization: their role, state and last visit.

        Parameters
        ----------
        org_id, user_id : str
            The organization and the user.

        Returns
        -------
        OrganizationMember

        Raises
        ------
        NotFoundError
            No such organization, or the user is not (or no longer) a member.

        Examples
        --------
        >>> member = client.orgs.member(org_id, user_id)
        >>> member.role, type(member.last_seen_at).__name__
        ('read', 'datetime')
        """
        return OrganizationMember.from_api(self._get(_member_path(org_id, user_id)))

    def update_member(self, org_id: str, user_id: str, *, role: str | None) -> OrganizationMember:
        """Change a member's organization role.

        Parameters
        ----------
        org_id, user_id : str
            The organization and the member.
        role : str or None
            A member role, or ``None`` to make them a guest (no access by default levels).

        Returns
        -------
        OrganizationMember
            The member with their new role.

        Raises
        ------
        ValidationError
            An unknown role.
        NotFoundError
            The user is not a member.
        PermissionDeniedError
            The token is not an organization admin.

        Examples
        --------
        >>> client.orgs.update_member(org_id, user_id, role="comment").role
        'comment'
        >>> client.orgs.update_member(org_id, user_id, role="read").role  # as it was
        'read'
        """
        path = _member_path(org_id, user_id)
        body = {"role": check_role(role)}
        return OrganizationMember.from_api(self._object("PATCH", path, json=body))

    def remove_member(self, org_id: str, user_id: str) -> bool:
        """Remove a member from an organization (and from its teams).

        Their permissions on spaces and collections stay on record, and still reach
        content: remove those too (an audit lists them as former members).

        Parameters
        ----------
        org_id, user_id : str
            The organization and the member.

        Returns
        -------
        bool
            True if they were removed now (205) or the removal was accepted (202), False
            if they were not a member (204).

        Raises
        ------
        PermissionDeniedError
            The token is not an organization admin.

        Examples
        --------
        >>> disabled = demo["disabled_member_ids"][0]
        >>> client.orgs.remove_member(org_id, disabled)
        True
        >>> client.orgs.remove_member(org_id, disabled)  # no longer a member
        False
        """
        response = self._transport.request("DELETE", _member_path(org_id, user_id))
        return response.status == 202 or was_removed(response)

    def member_spaces(self, org_id: str, user_id: str) -> pd.DataFrame:
        """List the spaces a member can reach, with their effective role (all pages fetched).

        Parameters
        ----------
        org_id, user_id : str
            The organization and the member.

        Returns
        -------
        pandas.DataFrame
            org_id, user_id, space_id, space_title, visibility, parent, role.

        Raises
        ------
        NotFoundError
            The user is not a member.

        Examples
        --------
        >>> spaces = client.orgs.member_spaces(org_id, admin_id)
        >>> space_id in set(spaces.space_id), set(spaces.role)  # an admin reaches every space
        (True, {'admin'})
        """
        from docsapi.data import frames

        items = self._items(_member_path(org_id, user_id, "spaces"), key=("space", "id"))
        return frames.member_spaces(org_id, user_id, items)

    # -- invite links ---------------------------------------------------------------------------

    def invite_links(self, org_id: str) -> pd.DataFrame:
        """List the organization's invite links (all pages are fetched).

        The API lists the links to the organization only; a link to a space or a
        collection is read by id with :meth:`invite_link`.

        Parameters
        ----------
        org_id : str
            The organization's id.

        Returns
        -------
        pandas.DataFrame
            org_id, id, kind, role, target_id, target_title, redundant.

        Raises
        ------
        PermissionDeniedError
            The token is not an organization admin.

        Examples
        --------
        >>> links = client.orgs.invite_links(org_id)
        >>> risky = links[links.role.isin(["admin", "create"])]  # anyone holding it gets in high
        >>> list(risky.role.unique())
        ['admin']
        """
        from docsapi.data import frames

        check_entity_id(org_id, "org_id")
        return frames.invite_links(org_id, self._items(api_path("orgs", org_id, "link-invites")))

    def invite_link(self, org_id: str, invite_id: str) -> InviteLink:
        """Return one invite link: to the organization, a space or a collection.

        Parameters
        ----------
        org_id, invite_id : str
            The organization and the link.

        Returns
        -------
        InviteLink
            ``kind`` says what it invites to, ``role`` what it grants there.

        Raises
        ------
        NotFoundError
            No such link.

        Examples
        --------
        >>> client.orgs.invite_link(org_id, invite_id).kind
        'organization'
        """
        return InviteLink.from_api(self._get(_invite_path(org_id, invite_id)))

    def create_invite_link(
        self,
        org_id: str,
        *,
        role: str | None,
        space_id: str | None = None,
        collection_id: str | None = None,
    ) -> InviteLink:
        """Create an invite link: whoever holds it joins with ``role``.

        Parameters
        ----------
        org_id : str
            The organization's id.
        role : str or None
            The organization role it grants, or with ``space_id`` / ``collection_id`` the
            level on that content; ``None`` for guest.
        space_id, collection_id : str, optional
            Invite to this space or collection instead of the organization (not both).

        Returns
        -------
        InviteLink
            The new link.

        Raises
        ------
        ValidationError
            Both a space and a collection, or an unknown role.
        NotFoundError
            No such space or collection in the organization.

        Examples
        --------
        >>> link = client.orgs.create_invite_link(org_id, role="read", space_id=space_id)
        >>> link.kind, link.role
        ('space', 'read')
        """
        check_entity_id(org_id, "org_id")
        level = check_role(role)
        if space_id is not None and collection_id is not None:
            raise ValidationError(
                "space_id, collection_id", "give one of them (or neither, for the organization)"
            )
        body: dict[str, Any] = {"role": level}
        if space_id is not None:
            body = {"level": level, "space": check_entity_id(space_id, "space_id")}
        elif collection_id is not None:
            body = {"level": level, "collection": check_entity_id(collection_id, "collection_id")}
        path = api_path("orgs", org_id, "link-invites")
        return InviteLink.from_api(self._object("POST", path, json=body))

    def update_invite_link(self, org_id: str, invite_id: str, *, role: str | None) -> InviteLink:
        """Change what an invite link grants (its organization role, or its level).

        The link is read first, to send ``role`` or ``level`` as its kind needs.

        Parameters
        ----------
        org_id, invite_id : str
            The organization and the link.
        role : str or None
            The role or level it grants from now on; ``None`` for guest.

        Returns
        -------
        InviteLink
            The updated link.

        Raises
        ------
        ValidationError
            An unknown role.
        NotFoundError
            No such link.

        Examples
        --------
        >>> client.orgs.update_invite_link(org_id, invite_id, role="comment").role
        'comment'
        """
        path = _invite_path(org_id, invite_id)
        level = check_role(role)
        key = "role" if self.invite_link(org_id, invite_id).kind == "organization" else "level"
        return InviteLink.from_api(self._object("PATCH", path, json={key: level}))

    def delete_invite_link(self, org_id: str, invite_id: str) -> bool:
        """Delete an invite link: it no longer lets anyone join.

        Parameters
        ----------
        org_id, invite_id : str
            The organization and the link.

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
        >>> link = client.orgs.create_invite_link(org_id, role="read")
        >>> client.orgs.delete_invite_link(org_id, link.id)
        True
        """
        return was_removed(self._transport.request("DELETE", _invite_path(org_id, invite_id)))

    # -- the audit log --------------------------------------------------------------------------

    def audit_events(
        self,
        org_id: str,
        *,
        since: datetime | str | None = None,
        until: datetime | str | None = None,
        action: str | None = None,
        actor_id: str | None = None,
        target_id: str | None = None,
        progress: bool = False,
    ) -> pd.DataFrame:
        """List the organization's audit log, newest first (all pages are fetched).

        Parameters
        ----------
        org_id : str
            The organization's id.
        since, until : datetime or str, optional
            Keep the events from / up to this moment (both included): a datetime with a
            time zone, or an ISO 8601 string with its offset (``"2025-01-31T12:00:00Z"``).
            A moment without a time zone is refused: it would mean another moment on
            another machine.
        action : str, optional
            Keep one action, e.g. ``"organization.member.updated"``.
        actor_id, target_id : str, optional
            Keep the events of one actor (a user id) or about one target (its stable id, as
            the log writes it: a space's id, or ``<space id>/user/<user id>`` for a
            permission in the sandbox).
        progress : bool
            Show a progress bar ("Reading the audit log") counting the events read: the
            log is read 100 events a page, the API's largest.

        Returns
        -------
        pandas.DataFrame
            org_id, id, occurred_at, action, source, actor_type, actor_id, actor_label,
            target_type, target_id, target_label, url_location.

        Raises
        ------
        ValidationError
            A moment without a time zone or not a date-time, ``since`` after ``until``.
        PermissionDeniedError
            The token is not an organization admin.

        Examples
        --------
        >>> from datetime import UTC, datetime, timedelta
        >>> quarter = datetime.now(UTC) - timedelta(days=90)
        >>> events = client.orgs.audit_events(org_id, since=quarter)
        >>> bool((events.occurred_at >= quarter).all())
        True
        >>> "site.share-link.created" in set(events.action)  # the recent share link
        True
        """
        from docsapi.data import frames

        check_entity_id(org_id, "org_id")
        params: dict[str, Any] = {}
        if since is not None:
            params["from"] = _instant(since, "since")
        if until is not None:
            params["to"] = _instant(until, "until")
        if (
            since is not None
            and until is not None
            and check_moment(since, "since") > check_moment(until, "until")
        ):
            raise ValidationError("since, until", "since must not be after until")
        if action is not None:
            params["action"] = check_text(action, "action", min_length=1, max_length=MAX_ID_LENGTH)
        if actor_id is not None:
            params["actor"] = check_id(actor_id, "actor_id")
        if target_id is not None:
            params["target"] = _target(target_id)
        check_bool(progress, "progress")
        path = api_path("orgs", org_id, "audit-events")
        from tqdm.auto import tqdm  # type: ignore[import-untyped]

        bar = tqdm(
            desc="Reading the audit log", unit="event", disable=not progress, file=progress_stream()
        )
        with bar:
            items = self._items(path, params, counted=bar.update)
        return frames.audit_events(org_id, items)
