"""Sites: what an organization publishes, to whom, their share links and permissions."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from docsapi.core.checks import (
    check_bool,
    check_choice,
    check_default_level,
    check_entity_id,
    check_id,
    check_name,
    check_text,
)
from docsapi.errors import ValidationError
from docsapi.models import ShareLink, Site
from docsapi.resources._base import NOT_GIVEN, NotGiven, api_path, was_removed
from docsapi.resources._grants import SITE, GrantMethods
from docsapi.resources._site_secrets import SitePublishingAuth, conceal_share_keys

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["SITE_VISIBILITIES", "SitePublishingAuth", "Sites"]

#: Who can read a published site (``SiteVisibility``).
SITE_VISIBILITIES: tuple[str, ...] = ("public", "unlisted", "share-link", "visitor-auth")
#: Bounds of a site's title (``SiteTitle``), basename (``SiteBasename``) and a share link's
#: name (``ShareLinkName``).
TITLE_CHARS = (2, 128)
BASENAME_CHARS = (1, 100)
MAX_SHARE_LINK_NAME = 50
#: A proxy origin (``SiteProxyOrigin``): host labels, a top-level domain, one or more path
#: segments (``\w`` as the description's ECMA pattern reads it: ASCII only).
_PROXY_ORIGIN = re.compile(r"(?:[A-Za-z0-9_-]+\.)*[A-Za-z0-9_-]+\.[A-Za-z]{2,}(?:/[A-Za-z0-9_-]+)+")
MAX_PROXY = 512


def _site_path(org_id: Any, site_id: Any, *rest: str) -> str:
    check_entity_id(org_id, "org_id")
    check_id(site_id, "site_id")
    return api_path("orgs", org_id, "sites", site_id, *rest)


def _link_path(org_id: Any, site_id: Any, share_link_id: Any) -> str:
    path = _site_path(org_id, site_id, "share-links")
    return path + api_path(check_id(share_link_id, "share_link_id"))


def _proxy_origin(value: Any) -> str:
    """A proxy origin (``SiteProxyOrigin``): a host and a path, without a scheme."""
    check_text(value, "proxy", min_length=1, max_length=MAX_PROXY)
    if not _PROXY_ORIGIN.fullmatch(value):
        raise ValidationError(
            "proxy",
            "must be a host and a path without a scheme, such as 'company.com/docs' or "
            f"'www.company.com/developer/docs'; got {value!r}",
        )
    return value


def _share_link_name(value: Any) -> str:
    return check_name(value, "name", max_length=MAX_SHARE_LINK_NAME)


class Sites(GrantMethods):
    """Sites of an organization: ``client.sites``.

    A published site makes its spaces readable outside the organization, to the audience
    its ``visibility`` says: ``public`` (anyone, indexed), ``unlisted`` (anyone with the
    address), ``share-link`` (anyone holding an active share link) or ``visitor-auth``
    (visitors signed in through the site's own identity provider). Share-link keys and the
    visitor-authentication private key are secrets: masked in every repr, frame and log.
    Site permissions administer the site; they give no access to the spaces' content.
    """

    _name = "sites"
    _target = SITE

    # -- the sites ----------------------------------------------------------------------------

    def list(self, org_id: str) -> pd.DataFrame:
        """List the sites of an organization the token can see (all pages are fetched).

        Parameters
        ----------
        org_id : str
            The organization's id.

        Returns
        -------
        pandas.DataFrame
            org_id, id, title, type, applied_type, visibility, default_level, published,
            hostname, basename, proxy, adaptive_content, styleguide_space_id, site_spaces,
            created_at, last_scan_at, url_published (keys masked), url_app, url_preview,
            url_location.

        Raises
        ------
        NotFoundError
            No such organization.

        Examples
        --------
        >>> sites = client.sites.list(org_id)
        >>> sorted(set(sites.visibility))
        ['public', 'share-link', 'unlisted', 'visitor-auth']
        >>> site_id in set(sites[sites.published].id)
        True
        """
        from docsapi.data import frames

        check_entity_id(org_id, "org_id")
        return frames.sites(org_id, self._items(api_path("orgs", org_id, "sites")))

    def get(self, org_id: str, site_id: str) -> Site:
        """Return a site.

        Parameters
        ----------
        org_id, site_id : str
            The organization and the site.

        Returns
        -------
        Site

        Raises
        ------
        NotFoundError
            No such site in the organization, or the token cannot see it.

        Examples
        --------
        >>> client.sites.get(org_id, site_id).visibility
        'share-link'
        """
        return Site.from_api(self._get(_site_path(org_id, site_id)))

    def update(
        self,
        org_id: str,
        site_id: str,
        *,
        visibility: str | NotGiven = NOT_GIVEN,
        title: str | NotGiven = NOT_GIVEN,
        default_level: str | NotGiven | None = NOT_GIVEN,
        basename: str | NotGiven = NOT_GIVEN,
        adaptive_content: bool | NotGiven = NOT_GIVEN,
        default_site_section: str | NotGiven = NOT_GIVEN,
        proxy: str | NotGiven | None = NOT_GIVEN,
        styleguide: str | NotGiven | None = NOT_GIVEN,
    ) -> Site:
        """Change a site's audience or settings; only the arguments given are sent.

        Parameters
        ----------
        org_id, site_id : str
            The organization and the site.
        visibility : {"public", "unlisted", "share-link", "visitor-auth"}, optional
            Who can read the published site. ``"share-link"`` or ``"visitor-auth"`` closes
            a site that was readable by anyone.
        title : str, optional
            2 to 128 characters.
        default_level : str or None, optional
            The role members get on the site (administering it, not the content): a member
            role, ``"inherit"`` (their organization role) or ``None`` (none).
        basename : str, optional
            The path the site is published under (1 to 100 characters).
        adaptive_content : bool, optional
            Turn adaptive content (pages that adapt to each visitor) on or off.
        default_site_section : str, optional
            The id of one of the site's sections, to show first (a site space's ``section``).
        proxy : str or None, optional
            Serve the site under a path of your own domain: host and path without a scheme,
            such as ``"company.com/docs"`` (at most 512 characters); ``None`` removes it.
        styleguide : str or None, optional
            The id of a style guide space of the organization to attach; ``None`` detaches
            the current one.

        Returns
        -------
        Site
            The updated site.

        Raises
        ------
        ValidationError
            Nothing to change, or a value breaking its rule (nothing is sent).
        BadRequestError
            A reference the API refused: no such section of the site, no such style guide
            space in the organization.
        NotFoundError
            No such site.
        PermissionDeniedError
            The token is not an admin of the site.

        Examples
        --------
        >>> public = demo["sites"]["public"]
        >>> client.sites.update(org_id, public, visibility="share-link").visibility  # close it
        'share-link'
        >>> client.sites.update(org_id, public, visibility="public").visibility  # open it again
        'public'
        >>> client.sites.update(org_id, public, proxy="company.com/docs").proxy
        'company.com/docs'
        """
        path = _site_path(org_id, site_id)
        body: dict[str, Any] = {}
        if visibility is not NOT_GIVEN:
            body["visibility"] = check_choice(visibility, SITE_VISIBILITIES, "visibility")
        if title is not NOT_GIVEN:
            low, high = TITLE_CHARS
            body["title"] = check_name(title, "title", min_length=low, max_length=high)
        if default_level is not NOT_GIVEN:
            body["defaultLevel"] = check_default_level(default_level)
        if basename is not NOT_GIVEN:
            low, high = BASENAME_CHARS
            body["basename"] = check_text(basename, "basename", min_length=low, max_length=high)
        if adaptive_content is not NOT_GIVEN:
            body["adaptiveContent"] = {"enabled": check_bool(adaptive_content, "adaptive_content")}
        if default_site_section is not NOT_GIVEN:
            body["defaultSiteSection"] = check_id(default_site_section, "default_site_section")
        if proxy is not NOT_GIVEN:
            body["proxy"] = None if proxy is None else _proxy_origin(proxy)
        if styleguide is not NOT_GIVEN:
            body["styleguide"] = None if styleguide is None else check_id(styleguide, "styleguide")
        if not body:
            raise ValidationError(
                "update",
                "give at least one of visibility, title, default_level, basename, "
                "adaptive_content, default_site_section, proxy, styleguide",
            )
        return Site.from_api(self._object("PATCH", path, json=body))

    def publish(self, org_id: str, site_id: str) -> Site:
        """Publish a site: its spaces become readable by its audience (its ``visibility``).

        Parameters
        ----------
        org_id, site_id : str
            The organization and the site.

        Returns
        -------
        Site
            The site, ``published`` True.

        Raises
        ------
        NotFoundError
            No such site.
        PermissionDeniedError
            The token is not an admin of the site, or may not publish.

        Examples
        --------
        >>> site = client.sites.publish(org_id, demo["sites"]["unpublished"])
        >>> site.published, site.url_published.startswith("https://")
        (True, True)
        """
        return Site.from_api(self._object("POST", _site_path(org_id, site_id, "publish")))

    def unpublish(self, org_id: str, site_id: str) -> Site:
        """Take a site offline: nobody outside the organization reads it any more.

        Parameters
        ----------
        org_id, site_id : str
            The organization and the site.

        Returns
        -------
        Site
            The site, ``published`` False.

        Raises
        ------
        NotFoundError
            No such site.
        PermissionDeniedError
            The token is not an admin of the site, or may not publish.

        Examples
        --------
        >>> client.sites.unpublish(org_id, demo["sites"]["unlisted"]).published
        False
        """
        return Site.from_api(self._object("POST", _site_path(org_id, site_id, "unpublish")))

    def spaces(self, org_id: str, site_id: str) -> pd.DataFrame:
        """List the spaces a site publishes, and where (all pages are fetched).

        Parameters
        ----------
        org_id, site_id : str
            The organization and the site.

        Returns
        -------
        pandas.DataFrame
            site_id, id, space_id, space_title, title, path, section, default, draft,
            hidden, url_published (keys masked).

        Raises
        ------
        NotFoundError
            No such site.

        Examples
        --------
        >>> spaces = client.sites.spaces(org_id, site_id)
        >>> list(spaces.columns)[:6]
        ['site_id', 'id', 'space_id', 'space_title', 'title', 'path']
        """
        from docsapi.data import frames

        path = _site_path(org_id, site_id, "site-spaces")
        return frames.site_spaces(site_id, self._items(path))

    # -- share links ----------------------------------------------------------------------------

    def share_links(self, org_id: str, site_id: str) -> pd.DataFrame:
        """List a site's share links, active or not (all pages are fetched).

        Each link's address carries its key, masked in the frame (``url_published``).

        Parameters
        ----------
        org_id, site_id : str
            The organization and the site.

        Returns
        -------
        pandas.DataFrame
            site_id, id, name, active, created_at, url_published (key masked).

        Raises
        ------
        NotFoundError
            No such site.
        PermissionDeniedError
            The token is not an admin of the site.

        Examples
        --------
        >>> links = client.sites.share_links(org_id, site_id)
        >>> quarter_ago = pd.Timestamp.now("UTC") - pd.Timedelta(days=90)
        >>> old = links[links.active & (links.created_at < quarter_ago)]  # still open, and old
        >>> share_link_id in set(old.id)
        True
        """
        from docsapi.data import frames

        items = self._items(_site_path(org_id, site_id, "share-links"))
        conceal_share_keys(items)
        return frames.share_links(site_id, items)

    def create_share_link(self, org_id: str, site_id: str, *, name: str) -> ShareLink:
        """Create an active share link: whoever holds its address reads the site.

        Parameters
        ----------
        org_id, site_id : str
            The organization and the site.
        name : str
            What the link is for (at most 50 characters).

        Returns
        -------
        ShareLink
            The new link; ``repr`` masks its key, ``.url_published`` holds the address to
            hand out.

        Raises
        ------
        NotFoundError
            No such site.
        PermissionDeniedError
            The token is not an admin of the site.

        Examples
        --------
        >>> link = client.sites.create_share_link(org_id, site_id, name="Auditors")
        >>> link.active, "?share=" in link.url_published  # the address to hand out
        (True, True)
        """
        path = _site_path(org_id, site_id, "share-links")
        body = {"name": _share_link_name(name)}
        return self._share_link("POST", path, body)

    def update_share_link(
        self,
        org_id: str,
        site_id: str,
        share_link_id: str,
        *,
        active: bool | NotGiven = NOT_GIVEN,
        name: str | NotGiven = NOT_GIVEN,
    ) -> ShareLink:
        """Turn a share link on or off, or rename it; only the arguments given are sent.

        Parameters
        ----------
        org_id, site_id, share_link_id : str
            The organization, the site and the link.
        active : bool, optional
            False: the link stops working (its address reads nothing) until set True again.
        name : str, optional
            At most 50 characters.

        Returns
        -------
        ShareLink
            The updated link.

        Raises
        ------
        ValidationError
            Nothing to change, or a value breaking its rule.
        NotFoundError
            No such site or link.

        Examples
        --------
        >>> client.sites.update_share_link(org_id, site_id, share_link_id, name="Q3 audit").name
        'Q3 audit'
        """
        path = _link_path(org_id, site_id, share_link_id)
        body: dict[str, Any] = {}
        if active is not NOT_GIVEN:
            body["active"] = check_bool(active, "active")
        if name is not NOT_GIVEN:
            body["name"] = _share_link_name(name)
        if not body:
            raise ValidationError("update", "give active, name or both")
        return self._share_link("PATCH", path, body)

    def deactivate_share_link(self, org_id: str, site_id: str, share_link_id: str) -> ShareLink:
        """Stop a share link from working (it stays listed, inactive, and can be turned on again).

        Parameters
        ----------
        org_id, site_id, share_link_id : str
            The organization, the site and the link.

        Returns
        -------
        ShareLink
            The link, ``active`` False.

        Raises
        ------
        NotFoundError
            No such site or link.

        Examples
        --------
        >>> stale = demo["share_link_ids"]["stale-2"]
        >>> client.sites.deactivate_share_link(org_id, site_id, stale).active
        False
        """
        return self.update_share_link(org_id, site_id, share_link_id, active=False)

    def delete_share_link(self, org_id: str, site_id: str, share_link_id: str) -> bool:
        """Delete a share link for good.

        Parameters
        ----------
        org_id, site_id, share_link_id : str
            The organization, the site and the link.

        Returns
        -------
        bool
            True if it was deleted now (205), False if it did not exist (204).

        Raises
        ------
        NotFoundError
            No such site.

        Examples
        --------
        >>> link = client.sites.create_share_link(org_id, site_id, name="One-off")
        >>> client.sites.delete_share_link(org_id, site_id, link.id)
        True
        """
        path = _link_path(org_id, site_id, share_link_id)
        return was_removed(self._transport.request("DELETE", path))

    def _share_link(self, method: str, path: str, body: dict[str, Any]) -> ShareLink:
        data = self._object(method, path, json=body)
        conceal_share_keys([data])
        return ShareLink.from_api(data)

    def publishing_auth(self, org_id: str, site_id: str) -> SitePublishingAuth:
        """Return how a ``visitor-auth`` site authenticates its visitors, with its private key.

        Parameters
        ----------
        org_id, site_id : str
            The organization and the site.

        Returns
        -------
        SitePublishingAuth
            ``private_key`` is masked wherever it is shown; ``.reveal_private_key()`` returns it.

        Raises
        ------
        BadRequestError
            The site does not authenticate its visitors (its visibility is not
            ``visitor-auth``).
        PermissionDeniedError
            The token is not an admin of the site.

        Examples
        --------
        >>> auth = client.sites.publishing_auth(org_id, demo["sites"]["visitor-auth"])
        >>> auth.backend, auth.private_key
        ('custom', SiteSecret('********'))
        """
        data = self._get(_site_path(org_id, site_id, "publishing", "auth"))
        return SitePublishingAuth.from_api(data)

    # -- who administers it -------------------------------------------------------------------

    def users(self, org_id: str, site_id: str) -> pd.DataFrame:
        """List the users holding a role on a site (all pages are fetched).

        The role administers the site (publishing, audience, share links); it gives no
        access to the spaces' content.

        Parameters
        ----------
        org_id, site_id : str
            The organization and the site.

        Returns
        -------
        pandas.DataFrame
            site_id, user_id, display_name, email, role.

        Raises
        ------
        NotFoundError
            No such site.

        Examples
        --------
        >>> users = client.sites.users(org_id, demo["sites"]["public"])
        >>> list(users.columns)
        ['site_id', 'user_id', 'display_name', 'email', 'role']
        """
        return self._grant_frame("users", (org_id, site_id))

    def teams(self, org_id: str, site_id: str) -> pd.DataFrame:
        """List the teams holding a role on a site (all pages are fetched).

        Parameters
        ----------
        org_id, site_id : str
            The organization and the site.

        Returns
        -------
        pandas.DataFrame
            site_id, team_id, title, members, role.

        Raises
        ------
        NotFoundError
            No such site.

        Examples
        --------
        >>> teams = client.sites.teams(org_id, demo["sites"]["public"])
        >>> list(teams.columns)
        ['site_id', 'team_id', 'title', 'members', 'role']
        """
        return self._grant_frame("teams", (org_id, site_id))

    def set_user_role(self, org_id: str, site_id: str, user_id: str, role: str) -> None:
        """Give a user a role on a site, or change it.

        Parameters
        ----------
        org_id, site_id, user_id : str
            The organization, the site and the user.
        role : str
            A member role (a site has no guest role: use :meth:`remove_user`).

        Raises
        ------
        ValidationError
            An unknown role, or None.
        NotFoundError
            No such site or user.

        Examples
        --------
        >>> client.sites.set_user_role(org_id, site_id, user_id, "edit")
        >>> client.sites.users(org_id, site_id).set_index("user_id").role[user_id]
        'edit'
        """
        self._set_grant_role("users", (org_id, site_id), user_id, role)

    def set_team_role(self, org_id: str, site_id: str, team_id: str, role: str) -> None:
        """Give a team a role on a site, or change it.

        Parameters
        ----------
        org_id, site_id, team_id : str
            The organization, the site and the team.
        role : str
            A member role (a site has no guest role: use :meth:`remove_team`).

        Raises
        ------
        ValidationError
            An unknown role, or None.
        NotFoundError
            No such site, or the team is not in the organization.

        Examples
        --------
        >>> client.sites.set_team_role(org_id, site_id, team_id, "read")
        >>> client.sites.teams(org_id, site_id).set_index("team_id").role[team_id]
        'read'
        """
        self._set_grant_role("teams", (org_id, site_id), team_id, role)

    def remove_user(self, org_id: str, site_id: str, user_id: str) -> bool:
        """Take a user's role on a site away.

        Parameters
        ----------
        org_id, site_id, user_id : str
            The organization, the site and the user.

        Returns
        -------
        bool
            True if it was removed now (205), False if the user held none (204).

        Raises
        ------
        PermissionDeniedError
            The token is not an admin of the site.

        Examples
        --------
        >>> client.sites.set_user_role(org_id, site_id, user_id, "read")
        >>> client.sites.remove_user(org_id, site_id, user_id)
        True
        """
        return self._remove_grant("users", (org_id, site_id), user_id)

    def remove_team(self, org_id: str, site_id: str, team_id: str) -> bool:
        """Take a team's role on a site away.

        Parameters
        ----------
        org_id, site_id, team_id : str
            The organization, the site and the team.

        Returns
        -------
        bool
            True if it was removed now (205), False if the team held none (204).

        Raises
        ------
        BadRequestError
            The team is not a team of the organization.

        Examples
        --------
        >>> client.sites.set_team_role(org_id, site_id, team_id, "read")
        >>> client.sites.remove_team(org_id, site_id, team_id)
        True
        """
        return self._remove_grant("teams", (org_id, site_id), team_id)
