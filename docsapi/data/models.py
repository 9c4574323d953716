"""Model objects for single resources of the documentation-platform API.

Each model is a keyword-only dataclass with snake_case attributes, built from the API's
JSON by :meth:`Model.from_api`. A model shares its fields with its list's frame where they
coincide: ``Space`` inherits the ``spaces`` columns from :class:`docsapi.data.fields.SpaceFields`
and adds what only one object carries (its permissions, its Git sync state). Fields a newer
API adds are ignored (they remain in ``.raw``); fields the answer lacks become ``None``;
timestamps become timezone-aware :class:`~datetime.datetime` objects. ``.raw`` is the
decoded JSON object itself, shared rather than copied: read it, do not change it. Secrets
(a temporary token, a share link's key) are masked in ``repr`` and the notebook table.

Examples
--------
>>> user = User.from_api({"object": "user", "id": "u1", "displayName": "Ada", "shoe": 42})
>>> user.display_name, user.email, user.raw["shoe"]
('Ada', None, 42)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import MISSING, dataclass, field, fields, replace
from datetime import UTC, datetime
from types import MappingProxyType
from typing import Any, ClassVar, NamedTuple, Self, TypeVar, dataclass_transform

from docsapi.core.reprs import field_table_html, safe_display
from docsapi.data import fields as f
from docsapi.data.columns import TIMESTAMP, columns, flag, reader, text, timestamp, value

__all__ = [
    "APITemporaryToken",
    "ApiInformation",
    "AuditEvent",
    "ChangeRequest",
    "Collection",
    "ComputedRevision",
    "Document",
    "Embed",
    "GitSyncState",
    "InviteLink",
    "Model",
    "Organization",
    "OrganizationMember",
    "ReusableContent",
    "Revision",
    "RevisionFile",
    "RevisionPage",
    "RevisionPageMetaLinks",
    "ShareLink",
    "Site",
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


_NOTHING: Mapping[str, Any] = MappingProxyType({})


class _Plan(NamedTuple):
    """How a model class reads the JSON, worked out once per class."""

    #: ``(attribute, key)``: read with ``data.get(key)``.
    keys: tuple[tuple[str, str], ...]
    #: ``(key, ((attribute, subkey), ...))``: one level down, e.g. the ``urls`` object.
    nested: tuple[tuple[str, tuple[tuple[str, str], ...]], ...]
    #: ``(attribute, read)``: deeper paths and derived values.
    readers: tuple[tuple[str, Callable[[Any], Any]], ...]
    #: ``(attribute, read)``: the other paths of a field, read where the first had nothing.
    fallbacks: tuple[tuple[str, Callable[[Any], Any]], ...]
    #: ``(attribute, convert)``: applied to values that are present (timestamps, nested models).
    converts: tuple[tuple[str, Callable[[Any], Any]], ...]
    #: Attributes that are not read from the JSON, with their defaults.
    defaults: dict[str, Any]
    #: Attribute → function masking its secret in ``repr``.
    masks: dict[str, Callable[[Any], Any]]


def _plan(model: type[Model]) -> _Plan:
    declared = {column.name: column for column in columns(model)}
    keys: list[tuple[str, str]] = []
    nested: dict[str, list[tuple[str, str]]] = {}
    readers, fallbacks, converts, defaults = [], [], [], {}
    for spec in fields(model):
        column = declared.get(spec.name)
        if column is None or (not column.paths and column.derive is None):
            if spec.default is not MISSING:
                defaults[spec.name] = spec.default
            continue
        steps = column.paths[0].split(".") if column.derive is None else []
        if len(steps) == 1:
            keys.append((spec.name, steps[0]))
        elif len(steps) == 2:
            nested.setdefault(steps[0], []).append((spec.name, steps[1]))
        else:
            readers.append((spec.name, reader(replace(column, paths=column.paths[:1]))))
        if len(steps) and len(column.paths) > 1:
            fallbacks.append((spec.name, reader(replace(column, paths=column.paths[1:]))))
        convert = column.parse or (parse_timestamp if column.dtype == TIMESTAMP else None)
        if convert is not None:
            converts.append((spec.name, convert))
    masks = {name: c.mask for name, c in declared.items() if c.mask is not None}
    return _Plan(
        tuple(keys),
        tuple((key, tuple(pairs)) for key, pairs in nested.items()),
        tuple(readers),
        tuple(fallbacks),
        tuple(converts),
        defaults,
        masks,
    )


def _nested(model: type[Model]) -> Callable[[Any], Any]:
    def parse(value: Any) -> Any:
        return model.from_api(value) if isinstance(value, dict | Mapping) else None

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
            The model; ``.raw`` is ``data`` itself (not a copy: do not change it).

        Raises
        ------
        TypeError
            If ``data`` is not a JSON object.
        """
        if data.__class__ is not dict and not isinstance(data, Mapping):
            kind = type(data).__name__
            raise TypeError(f"{cls.__name__}.from_api expects a JSON object, got {kind}")
        plan: _Plan = cls.__dict__.get("_json_plan") or cls._compile()
        get = data.get
        values = {name: get(key) for name, key in plan.keys}
        for key, pairs in plan.nested:
            inner = get(key)
            if inner.__class__ is not dict and (inner is None or not isinstance(inner, Mapping)):
                inner = _NOTHING
            for name, subkey in pairs:
                values[name] = inner.get(subkey)
        for name, read in plan.readers:
            values[name] = read(data)
        for name, read in plan.fallbacks:
            if values[name] is None:
                values[name] = read(data)
        for name, convert in plan.converts:
            if values[name] is not None:
                values[name] = convert(values[name])
        values.update(plan.defaults)
        values["raw"] = data if type(data) is dict else dict(data)
        # Every field is set here, as __init__ would set it (no field has a post-init step).
        model = cls.__new__(cls)
        model.__dict__ = values
        return model

    @classmethod
    def _compile(cls) -> _Plan:
        plan = _plan(cls)
        type.__setattr__(cls, "_json_plan", plan)
        return plan

    def _summary_items(self) -> list[tuple[str, Any]]:
        plan: _Plan = type(self).__dict__.get("_json_plan") or self._compile()
        items = []
        for name in self._summary:
            shown = getattr(self, name)
            if shown is not None and name in plan.masks:
                shown = plan.masks[name](shown)
            items.append((name, shown))
        return items

    @safe_display
    def __repr__(self) -> str:
        shown = ", ".join(
            f"{name}={value!r}" for name, value in self._summary_items() if value is not None
        )
        return f"{type(self).__name__}({shown})"

    @safe_display
    def _repr_html_(self) -> str:
        return field_table_html(type(self).__name__, self._summary_items())


_Model = TypeVar("_Model")


@dataclass_transform(kw_only_default=True)
def _model(cls: type[_Model]) -> type[_Model]:
    """Make a model class: a keyword-only dataclass with the models' own ``repr``."""
    return dataclass(kw_only=True, repr=False)(cls)


@_model
class ApiInformation(Model):
    """What ``GET /`` reports: the release version and build date of the running API."""

    _summary = ("version", "build")

    version: str | None = text()
    build: str | None = text()


@_model
class APITemporaryToken(Model):
    """A short-lived JWT for the in-app notifications service.

    The token is a credential: ``repr`` and the notebook table show it masked.
    Read it as ``.token``.
    """

    _summary = ("token",)

    token: str | None = text(mask=f.mask_all)


@_model
class User(Model):
    """A user account."""

    _summary = ("id", "display_name", "email")

    id: str | None = text()
    display_name: str | None = text("displayName")
    email: str | None = text()
    photo_url: str | None = text("photoURL")
    url_location: str | None = text("urls.location")


@_model
class GitSyncState(Model):
    """The Git synchronisation state of a space."""

    _summary = ("installation_provider", "installation_status", "repo_name", "operation_state")

    installation_id: str | None = text("installationId")
    installation_provider: str | None = text("installationProvider")
    installation_status: str | None = text("installationStatus")
    repo_name: str | None = text("repoName")
    url: str | None = text()
    updated_at: datetime | None = timestamp("updatedAt")
    operation_state: str | None = text("operation.state")
    operation_direction: str | None = text("operation.direction")
    operation_started_at: datetime | None = timestamp("operation.startedAt")
    operation_ended_at: datetime | None = timestamp("operation.endedAt")
    operation_error: str | None = text("operation.error")


@_model
class Space(Model, f.SpaceFields):
    """A space: a container of content (pages and files).

    ``location`` is not part of the JSON: :meth:`~docsapi.resources.spaces.Spaces.duplicate`
    sets it from the ``Location`` header (the API URL of the new space).
    """

    _summary = ("id", "title", "visibility", "edit_mode", "organization", "parent", "updated_at")

    merge_rules: dict[str, Any] | None = value("mergeRules")
    permissions: dict[str, bool] | None = value()
    git_sync: GitSyncState | None = value("gitSync", parse=_nested(GitSyncState))
    location: str | None = None


@_model
class Team(Model, f.TeamFields):
    """A team of an organization."""

    _summary = ("id", "title", "members", "spaces")

    permissions: dict[str, bool] | None = value()


@_model
class Organization(Model, f.OrganizationFields):
    """An organization."""

    _summary = ("id", "title", "type", "default_role", "created_at")


@_model
class OrganizationMember(Model, f.MemberFields):
    """A member of an organization: their organization role, state and last activity."""

    _summary = ("user_id", "display_name", "role", "disabled", "last_seen_at")

    user: User | None = value(parse=_nested(User))


@_model
class Collection(Model, f.CollectionFields):
    """A collection: a folder of spaces and collections, with its own default level."""

    _summary = ("id", "title", "parent", "default_level")

    permissions: dict[str, bool] | None = value()


@_model
class Site(Model, f.SiteFields):
    """A site: spaces published to an audience (its ``visibility``)."""

    _summary = ("id", "title", "visibility", "published", "url_published")

    permissions: dict[str, bool] | None = value()


@_model
class ShareLink(Model, f.ShareLinkFields):
    """A share link of a site.

    Its address carries a secret key: ``repr`` and the notebook table mask it;
    ``.url_published`` holds it whole, to hand the link out.
    """

    _summary = ("id", "name", "active", "created_at", "url_published")


@_model
class InviteLink(Model, f.InviteLinkFields):
    """An invite link: to join the organization, a space or a collection.

    ``role`` is the organization role it grants, or the level on its target (the API's
    ``level``); ``kind`` says which, ``target_id`` and ``target_title`` name the target.
    """

    _summary = ("id", "kind", "role", "target_id", "target_title")


@_model
class AuditEvent(Model, f.AuditEventFields):
    """One entry of an organization's audit log."""

    _summary = ("occurred_at", "action", "actor_label", "target_type", "target_label")


@_model
class RevisionFile(Model, f.FileFields):
    """A file stored in a revision."""

    _summary = ("id", "name", "content_type", "size")


@_model
class RevisionPage(Model):
    """A page of a revision: a document, a group of pages, a link, or computed content.

    ``pages`` holds the child pages; ``document`` the document body and ``markdown``
    its Markdown form when the request asked for them.
    """

    _summary = ("id", "title", "type", "path")

    id: str | None = text()
    title: str | None = text()
    type: str | None = text()
    kind: str | None = text()
    slug: str | None = text()
    path: str | None = text()
    description: str | None = text()
    emoji: str | None = text()
    icon: str | None = text()
    hidden: bool | None = flag()
    href: str | None = text()
    url_app: str | None = text("urls.app")
    created_at: datetime | None = timestamp("createdAt")
    updated_at: datetime | None = timestamp("updatedAt")
    document: dict[str, Any] | None = value()
    markdown: str | None = text()
    pages: list[RevisionPage] | None = None

    @classmethod
    def from_api(cls, data: Mapping[str, Any]) -> Self:
        page = super().from_api(data)
        page.pages = _nested_list(RevisionPage)(data.get("pages"))
        return page


@_model
class ReusableContent(Model):
    """A block of content reused across pages."""

    _summary = ("id", "title")

    id: str | None = text()
    title: str | None = text()
    document: str | None = text()


@_model
class Revision(Model):
    """A revision of a space's content: its page tree, files and reusable contents."""

    _summary = ("id", "type", "created_at", "page_count", "file_count")

    id: str | None = text()
    type: str | None = text()
    parents: list[str] | None = value()
    created_at: datetime | None = timestamp("createdAt")
    url_app: str | None = text("urls.app")
    pages: list[RevisionPage] | None = value(parse=_nested_list(RevisionPage))
    files: list[RevisionFile] | None = value(parse=_nested_list(RevisionFile))
    reusable_contents: list[ReusableContent] | None = value(
        "reusableContents", parse=_nested_list(ReusableContent)
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


@_model
class RevisionPageMetaLinks(Model):
    """The canonical and alternate links of a page (each a page or URL reference)."""

    _summary = ("canonical", "alternates")

    canonical: dict[str, Any] | None = value()
    alternates: list[dict[str, Any]] | None = value()


@_model
class Embed(Model):
    """An oEmbed-style description of a URL: a link, rich HTML or an integration block."""

    _summary = ("type", "title", "site")

    type: str | None = text()
    title: str | None = text()
    site: str | None = text()
    icon: str | None = text()
    html: str | None = text()
    integration: str | None = text()


@_model
class ChangeRequest(Model, f.ChangeRequestFields):
    """A change request: proposed changes to a space's content."""

    _summary = ("id", "number", "subject", "status", "space", "created_at")

    space: str | None = text()
    created_by: User | None = value("createdBy", parse=_nested(User))


@_model
class Document(Model):
    """A JSON document (the body of a page): ``nodes`` are its top-level blocks."""

    _summary = ("object", "node_count")

    object: str | None = text()
    data: dict[str, Any] | None = value()
    nodes: list[dict[str, Any]] | None = value()

    @property
    def node_count(self) -> int:
        """Number of top-level blocks."""
        return len(self.nodes or [])


@_model
class ComputedRevision(Model):
    """Pages, files and reusable contents computed from a revision source."""

    _summary = ("page_count", "file_count")

    pages: list[RevisionPage] | None = value(parse=_nested_list(RevisionPage))
    files: list[RevisionFile] | None = value(parse=_nested_list(RevisionFile))
    reusable_contents: list[ReusableContent] | None = value(
        "reusableContents", parse=_nested_list(ReusableContent)
    )

    @property
    def page_count(self) -> int:
        """Number of top-level pages."""
        return len(self.pages or [])

    @property
    def file_count(self) -> int:
        """Number of files."""
        return len(self.files or [])
