"""Model objects for single resources of the documentation-platform API.

Each model is a keyword-only dataclass with snake_case attributes, built from the API's
JSON by :meth:`Model.from_api`. The JSON itself stays available, untouched, as ``.raw``.
Fields a newer API adds are ignored (they remain in ``.raw``); fields the answer lacks
become ``None``; timestamps become timezone-aware :class:`~datetime.datetime` objects.

Examples
--------
>>> user = User.from_api({"object": "user", "id": "u1", "displayName": "Ada", "shoe": 42})
>>> user.display_name, user.email, user.raw["shoe"]
('Ada', None, 42)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from typing import Any, ClassVar, Self

from docsapi._repr import field_table_html

__all__ = [
    "APITemporaryToken",
    "ApiInformation",
    "ChangeRequest",
    "ComputedRevision",
    "Document",
    "Embed",
    "GitSyncState",
    "Model",
    "Organization",
    "ReusableContent",
    "Revision",
    "RevisionFile",
    "RevisionPage",
    "RevisionPageMetaLinks",
    "Space",
    "Team",
    "User",
    "parse_timestamp",
]


def parse_timestamp(value: Any) -> datetime | None:
    """Parse an ISO 8601 timestamp into an aware UTC datetime; ``None`` if it is not one.

    Examples
    --------
    >>> parse_timestamp("2024-05-01T12:00:00.000Z")
    datetime.datetime(2024, 5, 1, 12, 0, tzinfo=datetime.timezone.utc)
    """
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:
            return None
    else:
        return None
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def at(path: str, parse: Callable[[Any], Any] | None = None) -> dict[str, Any]:
    """Field metadata: read the value at dotted ``path`` of the JSON, converted by ``parse``."""
    return {"api": path, "parse": parse}


def dig(data: Mapping[str, Any], path: str) -> Any:
    """Return the value at a dotted path of nested objects; ``None`` where a step is missing."""
    value: Any = data
    for key in path.split("."):
        if not isinstance(value, Mapping):
            return None
        value = value.get(key)
    return value


def _nested(model: type[Model]) -> Callable[[Any], Any]:
    def parse(value: Any) -> Any:
        return model.from_api(value) if isinstance(value, Mapping) else None

    return parse


def _nested_list(model: type[Model]) -> Callable[[Any], Any]:
    def parse(value: Any) -> list[Any]:
        if not isinstance(value, list):
            return []
        return [model.from_api(item) for item in value if isinstance(item, Mapping)]

    return parse


@dataclass(kw_only=True, repr=False)
class Model:
    """Base of all models: ``from_api`` builds one, ``.raw`` keeps the JSON."""

    #: Field names shown by ``repr`` and in the notebook table.
    _summary: ClassVar[tuple[str, ...]] = ()

    raw: dict[str, Any] = field(default_factory=dict, compare=False)

    @classmethod
    def from_api(cls, data: Mapping[str, Any]) -> Self:
        """Build the model from the API's JSON object.

        Parameters
        ----------
        data : Mapping
            The decoded JSON object of the resource.

        Returns
        -------
        Model
            The model; ``.raw`` holds ``data`` itself.

        Raises
        ------
        TypeError
            If ``data`` is not a JSON object.
        """
        if not isinstance(data, Mapping):
            kind = type(data).__name__
            raise TypeError(f"{cls.__name__}.from_api expects a JSON object, got {kind}")
        values = {}
        for spec in fields(cls):
            path = spec.metadata.get("api")
            if path is None:
                continue
            value = dig(data, path)
            parse = spec.metadata.get("parse")
            if parse is not None and value is not None:
                value = parse(value)
            values[spec.name] = value
        return cls(raw=dict(data), **values)

    def _summary_items(self) -> list[tuple[str, Any]]:
        return [(name, getattr(self, name)) for name in self._summary]

    def __repr__(self) -> str:
        shown = ", ".join(
            f"{name}={value!r}" for name, value in self._summary_items() if value is not None
        )
        return f"{type(self).__name__}({shown})"

    def _repr_html_(self) -> str:
        return field_table_html(type(self).__name__, self._summary_items())


@dataclass(kw_only=True, repr=False)
class ApiInformation(Model):
    """What ``GET /`` reports: the release version and build date of the running API."""

    _summary = ("version", "build")

    version: str | None = field(default=None, metadata=at("version"))
    build: str | None = field(default=None, metadata=at("build"))


@dataclass(kw_only=True, repr=False)
class APITemporaryToken(Model):
    """A short-lived JWT for the in-app notifications service.

    The token is a credential: it is left out of ``repr`` and the notebook table.
    Read it as ``.token``.
    """

    _summary = ()

    token: str | None = field(default=None, metadata=at("token"))

    def _summary_items(self) -> list[tuple[str, Any]]:
        return [("token", "********" if self.token else None)]


@dataclass(kw_only=True, repr=False)
class User(Model):
    """A user account."""

    _summary = ("id", "display_name", "email")

    id: str | None = field(default=None, metadata=at("id"))
    display_name: str | None = field(default=None, metadata=at("displayName"))
    email: str | None = field(default=None, metadata=at("email"))
    photo_url: str | None = field(default=None, metadata=at("photoURL"))
    url_location: str | None = field(default=None, metadata=at("urls.location"))


@dataclass(kw_only=True, repr=False)
class GitSyncState(Model):
    """The Git synchronisation state of a space."""

    _summary = ("installation_provider", "installation_status", "repo_name", "operation_state")

    installation_id: str | None = field(default=None, metadata=at("installationId"))
    installation_provider: str | None = field(default=None, metadata=at("installationProvider"))
    installation_status: str | None = field(default=None, metadata=at("installationStatus"))
    repo_name: str | None = field(default=None, metadata=at("repoName"))
    url: str | None = field(default=None, metadata=at("url"))
    updated_at: datetime | None = field(default=None, metadata=at("updatedAt", parse_timestamp))
    operation_state: str | None = field(default=None, metadata=at("operation.state"))
    operation_direction: str | None = field(default=None, metadata=at("operation.direction"))
    operation_started_at: datetime | None = field(
        default=None, metadata=at("operation.startedAt", parse_timestamp)
    )
    operation_ended_at: datetime | None = field(
        default=None, metadata=at("operation.endedAt", parse_timestamp)
    )
    operation_error: str | None = field(default=None, metadata=at("operation.error"))


@dataclass(kw_only=True, repr=False)
class Space(Model):
    """A space: a container of content (pages and files).

    ``location`` is not part of the JSON: :meth:`~docsapi.resources.spaces.Spaces.duplicate`
    sets it from the ``Location`` header (the API URL of the new space).
    """

    _summary = ("id", "title", "visibility", "edit_mode", "organization", "parent", "updated_at")

    id: str | None = field(default=None, metadata=at("id"))
    title: str | None = field(default=None, metadata=at("title"))
    emoji: str | None = field(default=None, metadata=at("emoji"))
    visibility: str | None = field(default=None, metadata=at("visibility"))
    edit_mode: str | None = field(default=None, metadata=at("editMode"))
    default_level: str | None = field(default=None, metadata=at("defaultLevel"))
    language: str | None = field(default=None, metadata=at("language"))
    organization: str | None = field(default=None, metadata=at("organization"))
    parent: str | None = field(default=None, metadata=at("parent"))
    revision: str | None = field(default=None, metadata=at("revision"))
    created_at: datetime | None = field(default=None, metadata=at("createdAt", parse_timestamp))
    updated_at: datetime | None = field(default=None, metadata=at("updatedAt", parse_timestamp))
    deleted_at: datetime | None = field(default=None, metadata=at("deletedAt", parse_timestamp))
    url_app: str | None = field(default=None, metadata=at("urls.app"))
    url_location: str | None = field(default=None, metadata=at("urls.location"))
    url_public: str | None = field(default=None, metadata=at("urls.public"))
    url_published: str | None = field(default=None, metadata=at("urls.published"))
    url_icon: str | None = field(default=None, metadata=at("urls.icon"))
    merge_rules: dict[str, Any] | None = field(default=None, metadata=at("mergeRules"))
    permissions: dict[str, bool] | None = field(default=None, metadata=at("permissions"))
    git_sync: GitSyncState | None = field(
        default=None, metadata=at("gitSync", _nested(GitSyncState))
    )
    location: str | None = None


@dataclass(kw_only=True, repr=False)
class Team(Model):
    """A team of an organization."""

    _summary = ("id", "title", "members", "spaces")

    id: str | None = field(default=None, metadata=at("id"))
    title: str | None = field(default=None, metadata=at("title"))
    members: int | None = field(default=None, metadata=at("members"))
    spaces: int | None = field(default=None, metadata=at("spaces"))
    created_at: datetime | None = field(default=None, metadata=at("createdAt", parse_timestamp))
    permissions: dict[str, bool] | None = field(default=None, metadata=at("permissions"))


@dataclass(kw_only=True, repr=False)
class Organization(Model):
    """An organization."""

    _summary = ("id", "title", "type", "default_role", "created_at")

    id: str | None = field(default=None, metadata=at("id"))
    title: str | None = field(default=None, metadata=at("title"))
    type: str | None = field(default=None, metadata=at("type"))
    default_role: str | None = field(default=None, metadata=at("defaultRole"))
    created_at: datetime | None = field(default=None, metadata=at("createdAt", parse_timestamp))
    url_app: str | None = field(default=None, metadata=at("urls.app"))
    url_location: str | None = field(default=None, metadata=at("urls.location"))


@dataclass(kw_only=True, repr=False)
class RevisionFile(Model):
    """A file stored in a revision."""

    _summary = ("id", "name", "content_type", "size")

    id: str | None = field(default=None, metadata=at("id"))
    name: str | None = field(default=None, metadata=at("name"))
    content_type: str | None = field(default=None, metadata=at("contentType"))
    size: int | float | None = field(default=None, metadata=at("size"))
    width: int | float | None = field(default=None, metadata=at("dimensions.width"))
    height: int | float | None = field(default=None, metadata=at("dimensions.height"))
    download_url: str | None = field(default=None, metadata=at("downloadURL"))


@dataclass(kw_only=True, repr=False)
class RevisionPage(Model):
    """A page of a revision: a document, a group of pages, a link, or computed content.

    ``pages`` holds the child pages; ``document`` the document body and ``markdown``
    its Markdown form when the request asked for them.
    """

    _summary = ("id", "title", "type", "path")

    id: str | None = field(default=None, metadata=at("id"))
    title: str | None = field(default=None, metadata=at("title"))
    type: str | None = field(default=None, metadata=at("type"))
    kind: str | None = field(default=None, metadata=at("kind"))
    slug: str | None = field(default=None, metadata=at("slug"))
    path: str | None = field(default=None, metadata=at("path"))
    description: str | None = field(default=None, metadata=at("description"))
    emoji: str | None = field(default=None, metadata=at("emoji"))
    icon: str | None = field(default=None, metadata=at("icon"))
    hidden: bool | None = field(default=None, metadata=at("hidden"))
    href: str | None = field(default=None, metadata=at("href"))
    url_app: str | None = field(default=None, metadata=at("urls.app"))
    created_at: datetime | None = field(default=None, metadata=at("createdAt", parse_timestamp))
    updated_at: datetime | None = field(default=None, metadata=at("updatedAt", parse_timestamp))
    document: dict[str, Any] | None = field(default=None, metadata=at("document"))
    markdown: str | None = field(default=None, metadata=at("markdown"))
    pages: list[RevisionPage] | None = None

    @classmethod
    def from_api(cls, data: Mapping[str, Any]) -> Self:
        page = super().from_api(data)
        page.pages = _nested_list(RevisionPage)(data.get("pages"))
        return page


@dataclass(kw_only=True, repr=False)
class ReusableContent(Model):
    """A block of content reused across pages."""

    _summary = ("id", "title")

    id: str | None = field(default=None, metadata=at("id"))
    title: str | None = field(default=None, metadata=at("title"))
    document: str | None = field(default=None, metadata=at("document"))


@dataclass(kw_only=True, repr=False)
class Revision(Model):
    """A revision of a space's content: its page tree, files and reusable contents."""

    _summary = ("id", "type", "created_at", "page_count", "file_count")

    id: str | None = field(default=None, metadata=at("id"))
    type: str | None = field(default=None, metadata=at("type"))
    parents: list[str] | None = field(default=None, metadata=at("parents"))
    created_at: datetime | None = field(default=None, metadata=at("createdAt", parse_timestamp))
    url_app: str | None = field(default=None, metadata=at("urls.app"))
    pages: list[RevisionPage] | None = field(
        default=None, metadata=at("pages", _nested_list(RevisionPage))
    )
    files: list[RevisionFile] | None = field(
        default=None, metadata=at("files", _nested_list(RevisionFile))
    )
    reusable_contents: list[ReusableContent] | None = field(
        default=None, metadata=at("reusableContents", _nested_list(ReusableContent))
    )

    @property
    def page_count(self) -> int:
        """Number of pages in the tree, at every depth."""

        def count(pages: list[RevisionPage] | None) -> int:
            return sum(1 + count(page.pages) for page in pages or [])

        return count(self.pages)

    @property
    def file_count(self) -> int:
        """Number of files in the revision."""
        return len(self.files or [])


@dataclass(kw_only=True, repr=False)
class RevisionPageMetaLinks(Model):
    """The canonical and alternate links of a page (each a page or URL reference)."""

    _summary = ("canonical", "alternates")

    canonical: dict[str, Any] | None = field(default=None, metadata=at("canonical"))
    alternates: list[dict[str, Any]] | None = field(default=None, metadata=at("alternates"))


@dataclass(kw_only=True, repr=False)
class Embed(Model):
    """An oEmbed-style description of a URL: a link, rich HTML or an integration block."""

    _summary = ("type", "title", "site")

    type: str | None = field(default=None, metadata=at("type"))
    title: str | None = field(default=None, metadata=at("title"))
    site: str | None = field(default=None, metadata=at("site"))
    icon: str | None = field(default=None, metadata=at("icon"))
    html: str | None = field(default=None, metadata=at("html"))
    integration: str | None = field(default=None, metadata=at("integration"))


@dataclass(kw_only=True, repr=False)
class ChangeRequest(Model):
    """A change request: proposed changes to a space's content."""

    _summary = ("id", "number", "subject", "status", "space", "created_at")

    id: str | None = field(default=None, metadata=at("id"))
    number: int | None = field(default=None, metadata=at("number"))
    subject: str | None = field(default=None, metadata=at("subject"))
    status: str | None = field(default=None, metadata=at("status"))
    space: str | None = field(default=None, metadata=at("space"))
    revision: str | None = field(default=None, metadata=at("revision"))
    revision_initial: str | None = field(default=None, metadata=at("revisionInitial"))
    comments: int | None = field(default=None, metadata=at("comments"))
    outdated: bool | None = field(default=None, metadata=at("outdated"))
    created_by: User | None = field(default=None, metadata=at("createdBy", _nested(User)))
    created_at: datetime | None = field(default=None, metadata=at("createdAt", parse_timestamp))
    updated_at: datetime | None = field(default=None, metadata=at("updatedAt", parse_timestamp))
    merged_at: datetime | None = field(default=None, metadata=at("mergedAt", parse_timestamp))
    url_app: str | None = field(default=None, metadata=at("urls.app"))
    url_location: str | None = field(default=None, metadata=at("urls.location"))


@dataclass(kw_only=True, repr=False)
class Document(Model):
    """A JSON document (the body of a page): ``nodes`` are its top-level blocks."""

    _summary = ("object", "node_count")

    object: str | None = field(default=None, metadata=at("object"))
    data: dict[str, Any] | None = field(default=None, metadata=at("data"))
    nodes: list[dict[str, Any]] | None = field(default=None, metadata=at("nodes"))

    @property
    def node_count(self) -> int:
        """Number of top-level blocks."""
        return len(self.nodes or [])


@dataclass(kw_only=True, repr=False)
class ComputedRevision(Model):
    """Pages, files and reusable contents computed from a revision source."""

    _summary = ("page_count", "file_count")

    pages: list[RevisionPage] | None = field(
        default=None, metadata=at("pages", _nested_list(RevisionPage))
    )
    files: list[RevisionFile] | None = field(
        default=None, metadata=at("files", _nested_list(RevisionFile))
    )
    reusable_contents: list[ReusableContent] | None = field(
        default=None, metadata=at("reusableContents", _nested_list(ReusableContent))
    )

    @property
    def page_count(self) -> int:
        """Number of top-level pages."""
        return len(self.pages or [])

    @property
    def file_count(self) -> int:
        """Number of files."""
        return len(self.files or [])
