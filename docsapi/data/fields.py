"""The fields of the API's objects, each declared once: column name, dtype and JSON path.

:mod:`docsapi.frames` puts these groups side by side into one frame per list, and the
models of :mod:`docsapi.models` inherit them as attributes (``Space`` has every column of
the ``spaces`` frame). Adding a column to a list is one line here. Ids and text are
``string``, counts ``Int64``, timestamps tz-aware UTC, flags ``boolean``. Secrets are never
columns as they are: a share link's address carries its key, which is masked.

Examples
--------
>>> from docsapi.data.columns import columns
>>> [(c.name, c.paths) for c in columns(UserPermissionFields)][:2]
[('user_id', ('user.id',)), ('display_name', ('user.displayName',))]
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from docsapi.data.columns import (
    COUNT,
    OBJECT,
    count,
    derived,
    flag,
    group,
    supplied,
    text,
    timestamp,
)

__all__ = [
    "AuditEventFields",
    "ChangeRequestFields",
    "CollectionFields",
    "FileFields",
    "InCollection",
    "InOrganization",
    "InSite",
    "InSpace",
    "InTeam",
    "InviteLinkFields",
    "MemberFields",
    "MemberSpaceFields",
    "OfChangeRequest",
    "OfUser",
    "OrganizationFields",
    "PageRowFields",
    "SearchResultFields",
    "ShareLinkFields",
    "SiteFields",
    "SiteSpaceFields",
    "SpaceFields",
    "TeamFields",
    "TeamMemberFields",
    "TeamPermissionFields",
    "UserPermissionFields",
    "mask_all",
    "mask_query",
    "mask_share_url",
    "share_keys",
]

MASK = "********"


def mask_all(_value: Any) -> str:
    """Mask a secret whole (the model keeps it; reprs and frames show the mask)."""
    return MASK


#: The page ``type`` values that keep their name as ``kind``; any other (computed) is a document.
_PAGE_KINDS = frozenset({"document", "group", "link"})


# -- secrets -------------------------------------------------------------------------------------


def mask_query(url: Any) -> Any:
    """Mask every query value and the fragment of a URL (where keys and tokens travel).

    Examples
    --------
    >>> mask_query("https://docs.example/guide/?share=k3y&lang=en")
    'https://docs.example/guide/?share=********&lang=********'
    >>> mask_query("https://docs.example/guide/")
    'https://docs.example/guide/'
    """
    if not isinstance(url, str) or ("?" not in url and "#" not in url):
        return url
    parts = urlsplit(url)
    query = "&".join(
        f"{pair.partition('=')[0]}={MASK}" if pair else pair for pair in parts.query.split("&")
    )
    return urlunsplit(parts._replace(query=query, fragment=MASK if parts.fragment else ""))


def share_keys(url: Any) -> list[str]:
    """The secret parts of a share link's address: its query values, else its last segment.

    Examples
    --------
    >>> share_keys("https://docs.example/handbook/?share=k3y")
    ['k3y']
    >>> share_keys("https://docs.example/~/share/k3y")
    ['k3y']
    """
    if not isinstance(url, str) or not url:
        return []
    parts = urlsplit(url)
    values = [value for _, value in parse_qsl(parts.query) if value]
    if parts.fragment:
        values.append(parts.fragment)
    if values:
        return values
    last = parts.path.rstrip("/").rpartition("/")[2]
    return [last] if last else []


def mask_share_url(url: Any) -> Any:
    """Mask the key in a share link's address: its query values, else its last path segment.

    Examples
    --------
    >>> mask_share_url("https://docs.example/handbook/?share=k3y")
    'https://docs.example/handbook/?share=********'
    >>> mask_share_url("https://docs.example/~/share/k3y")
    'https://docs.example/~/share/********'
    """
    if not isinstance(url, str):
        return url
    parts = urlsplit(url)
    if parts.query or parts.fragment:
        return mask_query(url)
    head, _, last = parts.path.rstrip("/").rpartition("/")
    if not last:
        return url
    return urlunsplit(parts._replace(path=f"{head}/{MASK}"))


# -- the ids a frame function's caller supplies ---------------------------------------------------


@group
class InSpace:
    space_id: str | None = supplied(doc="the space the records belong to")


@group
class InCollection:
    collection_id: str | None = supplied(doc="the collection the records belong to")


@group
class InOrganization:
    org_id: str | None = supplied(doc="the organization the records belong to")


@group
class InTeam:
    team_id: str | None = supplied(doc="the team the records belong to")


@group
class InSite:
    site_id: str | None = supplied(doc="the site the records belong to")


@group
class OfUser:
    user_id: str | None = supplied(doc="the member the records belong to")


@group
class OfChangeRequest:
    space_id: str | None = supplied("space", doc="the space of the change request")


# -- content -------------------------------------------------------------------------------------


@group
class SpaceFields:
    """A ``Space``."""

    id: str | None = text()
    title: str | None = text()
    emoji: str | None = text()
    visibility: str | None = text()
    edit_mode: str | None = text("editMode")
    default_level: str | None = text("defaultLevel", doc="a role, inherit; missing: guest")
    language: str | None = text()
    organization: str | None = text()
    parent: str | None = text(doc="the parent collection")
    revision: str | None = text()
    created_at: datetime | None = timestamp("createdAt")
    updated_at: datetime | None = timestamp("updatedAt")
    deleted_at: datetime | None = timestamp("deletedAt")
    url_app: str | None = text("urls.app")
    url_location: str | None = text("urls.location")
    url_published: str | None = text("urls.published", mask=mask_query, doc="keys masked")
    url_public: str | None = text("urls.public", mask=mask_query, doc="keys masked")
    url_icon: str | None = text("urls.icon")


@group
class FileFields:
    """A ``RevisionFile``."""

    id: str | None = text()
    name: str | None = text()
    content_type: str | None = text("contentType")
    size: int | float | None = count()
    width: int | float | None = count("dimensions.width", doc="missing without dimensions")
    height: int | float | None = count("dimensions.height", doc="missing without dimensions")
    download_url: str | None = text("downloadURL")


def _ancestor_titles(record: Mapping[str, Any]) -> list[Any]:
    ancestors = record.get("ancestors")
    if not isinstance(ancestors, list):
        return []
    return [a.get("title") for a in ancestors if isinstance(a, Mapping)]


@group
class SearchResultFields:
    """A ``SearchPageResult``."""

    id: str | None = text()
    title: str | None = text()
    path: str | None = text()
    rank: int | None = count()
    result_type: str | None = text("resultType")
    ancestors: list[str] | None = derived(
        _ancestor_titles, OBJECT, doc="titles of the ancestor pages, outermost first"
    )
    url_app: str | None = text("urls.app")


def _page_kind(record: Mapping[str, Any]) -> str:
    kind = record.get("type")
    return kind if kind in _PAGE_KINDS else "document"


@group
class PageRowFields:
    """A ``RevisionPage`` and its place in the tree."""

    id: str | None = text()
    title: str | None = text()
    kind: str | None = derived(_page_kind, doc="document, group or link")
    type: str | None = text(doc="the API's page type, e.g. computed")
    slug: str | None = text()
    path: str | None = supplied(by="tree", doc="the full path; built from the slugs when absent")
    parent_id: str | None = supplied(by="tree", doc="missing at the top level")
    depth: int | None = supplied(dtype=COUNT, by="tree", doc="0 at the top level")
    position: int | None = supplied(dtype=COUNT, by="tree", doc="0-based index among siblings")


@group
class ChangeRequestFields:
    """A ``ChangeRequest``."""

    id: str | None = text()
    number: int | None = count()
    subject: str | None = text()
    status: str | None = text()
    revision: str | None = text()
    revision_initial: str | None = text("revisionInitial")
    comments: int | None = count()
    outdated: bool | None = flag()
    created_at: datetime | None = timestamp("createdAt")
    updated_at: datetime | None = timestamp("updatedAt")
    merged_at: datetime | None = timestamp("mergedAt")
    url_app: str | None = text("urls.app")
    url_location: str | None = text("urls.location")


# -- who has access -------------------------------------------------------------------------------


@group
class UserPermissionFields:
    """A ``UserContentPermission`` (or a site's permission override): a user and a role."""

    user_id: str | None = text("user.id")
    display_name: str | None = text("user.displayName")
    email: str | None = text("user.email")
    role: str | None = text("permission", doc="missing: guest")


@group
class TeamPermissionFields:
    """A team's permission on content: ``{"permission", "team"}``."""

    team_id: str | None = text("team.id")
    title: str | None = text("team.title")
    members: int | None = count("team.members")
    role: str | None = text("permission", doc="missing: guest")


@group
class OrganizationFields:
    """An ``Organization``."""

    id: str | None = text()
    title: str | None = text()
    type: str | None = text()
    default_role: str | None = text("defaultRole")
    created_at: datetime | None = timestamp("createdAt")
    url_app: str | None = text("urls.app")
    url_location: str | None = text("urls.location")


@group
class MemberFields:
    """An ``OrganizationMember``."""

    user_id: str | None = text("user.id", "id")
    display_name: str | None = text("user.displayName")
    email: str | None = text("user.email")
    role: str | None = text(doc="organization role; missing: guest")
    disabled: bool | None = flag()
    joined_at: datetime | None = timestamp("joinedAt")
    last_seen_at: datetime | None = timestamp("lastSeenAt")
    sso: bool | None = flag()
    spaces: int | None = count()
    teams: int | None = count()
    sites: int | None = count()


@group
class TeamFields:
    """An ``OrganizationTeam``."""

    id: str | None = text()
    title: str | None = text()
    members: int | None = count()
    spaces: int | None = count()
    created_at: datetime | None = timestamp("createdAt")


@group
class TeamMemberFields:
    """An ``OrganizationTeamMember``."""

    user_id: str | None = text("organization.user.id", "organization.id")
    display_name: str | None = text("organization.user.displayName")
    email: str | None = text("organization.user.email")
    role: str | None = text("team.role", doc="team role: owner or member")


@group
class MemberSpaceFields:
    """A ``MemberContentPermission``: a space a member can reach, with their role."""

    space_id: str | None = text("space.id")
    space_title: str | None = text("space.title")
    visibility: str | None = text("space.visibility")
    parent: str | None = text("space.parent", doc="the space's parent collection")
    role: str | None = text("permission")


@group
class CollectionFields:
    """A ``Collection``."""

    id: str | None = text()
    title: str | None = text()
    description: str | None = text()
    organization: str | None = text()
    parent: str | None = text(doc="the parent collection")
    default_level: str | None = text("defaultLevel", doc="a role, inherit; missing: guest")
    url_app: str | None = text("urls.app")
    url_location: str | None = text("urls.location")


@group
class SiteFields:
    """A ``Site``."""

    id: str | None = text()
    title: str | None = text()
    type: str | None = text()
    applied_type: str | None = text("appliedType")
    visibility: str | None = text(doc="public, unlisted, share-link or visitor-auth")
    default_level: str | None = text("defaultLevel", doc="a role, inherit; missing: guest")
    published: bool | None = flag()
    hostname: str | None = text()
    basename: str | None = text()
    proxy: str | None = text("proxy.origin", doc="host and path it is served under; missing: none")
    adaptive_content: bool | None = flag("adaptiveContent.enabled")
    styleguide_space_id: str | None = text("styleguide.space", doc="missing: no style guide")
    site_spaces: int | None = count("siteSpaces")
    created_at: datetime | None = timestamp("createdAt")
    last_scan_at: datetime | None = timestamp("lastScanAt")
    url_published: str | None = text(
        "urls.published", mask=mask_query, doc="missing until published; keys masked"
    )
    url_app: str | None = text("urls.app")
    url_preview: str | None = text("urls.preview")
    url_location: str | None = text("urls.location")


@group
class SiteSpaceFields:
    """A ``SiteSpace``: a space as a site publishes it."""

    id: str | None = text()
    space_id: str | None = text("space.id")
    space_title: str | None = text("space.title")
    title: str | None = text()
    path: str | None = text()
    section: str | None = text()
    default: bool | None = flag()
    draft: bool | None = flag()
    hidden: bool | None = flag()
    url_published: str | None = text("urls.published", mask=mask_query, doc="keys masked")


@group
class ShareLinkFields:
    """A ``ShareLink`` of a site (its address carries its secret key: masked)."""

    id: str | None = text()
    name: str | None = text()
    active: bool | None = flag()
    created_at: datetime | None = timestamp("createdAt")
    url_published: str | None = text("urls.published", mask=mask_share_url, doc="key masked")


def _invite_kind(record: Mapping[str, Any]) -> str | None:
    for kind in ("space", "collection"):
        if kind in record:
            return kind
    return "organization" if "role" in record else None


@group
class InviteLinkFields:
    """An ``OrganizationInviteLink``: to the organization, a space or a collection."""

    id: str | None = text()
    kind: str | None = derived(_invite_kind, doc="organization, space or collection")
    role: str | None = text("role", "level", doc="role or level it grants; missing: guest")
    target_id: str | None = text("space.id", "collection.id", doc="missing: organization")
    target_title: str | None = text("space.title", "collection.title")
    redundant: bool | None = flag(doc="the caller already has what it grants")


@group
class AuditEventFields:
    """An ``AuditEvent`` of the organization's log."""

    id: str | None = text()
    occurred_at: datetime | None = timestamp("occurredAt")
    action: str | None = text()
    source: str | None = text(doc="ui, api, integration, etc.")
    actor_type: str | None = text("actor.type")
    actor_id: str | None = text("actor.id")
    actor_label: str | None = text("actor.label")
    target_type: str | None = text("target.type")
    target_id: str | None = text("target.id")
    target_label: str | None = text("target.label")
    url_location: str | None = text("urls.location")
