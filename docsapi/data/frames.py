"""Records in, DataFrame out: one pure function per list of the documentation-platform API.

Each list's columns are declared once, as field groups in :mod:`docsapi.data.fields` (name,
dtype and JSON path per column); a :class:`~docsapi.data.columns.Listing` puts the groups of a
list side by side, and everything here is derived from it: the frame, :data:`SCHEMAS`
(column → dtype, in order), :func:`empty` and the column table of each function's
docstring. An empty list still yields the right columns and dtypes. Ids and text are
``string`` (Python storage), counts ``Int64``, timestamps ``datetime64[ns, UTC]``, flags
``boolean``, lists ``object``. Nested fields are flattened with underscores (``urls.app`` →
``url_app``). Roles are the API's strings, with a guest as missing (``<NA>``). Secrets are
masked (a share link's key).

Examples
--------
>>> frame = spaces([])
>>> list(frame.columns)[:3], str(frame["created_at"].dtype)
(['id', 'title', 'emoji'], 'datetime64[ns, UTC]')
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from docsapi.data import fields as f
from docsapi.data.columns import BOOLEAN, COUNT, FLOAT, OBJECT, STRING, TIMESTAMP, Listing
from docsapi.errors import ValidationError

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "SCHEMAS",
    "audit_events",
    "change_requests",
    "collection_aggregate",
    "collection_teams",
    "collection_users",
    "collections",
    "convert",
    "empty",
    "files",
    "invite_links",
    "member_spaces",
    "org_members",
    "organizations",
    "pages",
    "permission_aggregate",
    "permission_teams",
    "permission_users",
    "search",
    "share_links",
    "site_spaces",
    "site_teams",
    "site_users",
    "sites",
    "spaces",
    "team_members",
    "teams",
]

Record = Mapping[str, Any]
#: One id for every record, or one per record (to build one frame over many parents at once).
Ids = str | Sequence[str] | None

#: Strings are stored as Python objects whatever else is installed (pyarrow would otherwise be
#: chosen, and change the dtypes that counts and groupings of these columns return).
_STR_STORAGE = "string[python]"

#: Every list's listing by name, filled by :func:`_frame` as the functions are defined.
_LISTINGS: dict[str, Listing] = {}

#: The column schema of every frame: name → {column: dtype}, columns in order.
SCHEMAS: dict[str, dict[str, str]] = {}


# -- columns --------------------------------------------------------------------------------------


@functools.cache
def _dtypes() -> dict[str, Any]:
    """The pandas dtype objects (built once: parsing a dtype name costs more than the column)."""
    import pandas as pd

    return {
        STRING: pd.api.types.pandas_dtype(_STR_STORAGE),
        COUNT: pd.Int64Dtype(),
        BOOLEAN: pd.BooleanDtype(),
        TIMESTAMP: pd.DatetimeTZDtype("ns", "UTC"),
    }


def _strings(values: list[Any]) -> Any:
    import pandas as pd

    return pd.array(values, dtype=_dtypes()[STRING])


def _ints(values: list[Any]) -> Any:
    import pandas as pd

    try:
        return pd.array(values, dtype=_dtypes()[COUNT])
    except (TypeError, ValueError, OverflowError):
        return pd.array([_as_int(v) for v in values], dtype=_dtypes()[COUNT])


def _as_int(value: Any) -> int | None:
    if isinstance(value, bool) or value is None:
        return None
    try:
        number = round(float(value))
    except (TypeError, ValueError, OverflowError):
        return None
    return number if -(2**63) <= number < 2**63 else None


def _floats(values: list[Any]) -> Any:
    import numpy as np

    try:
        return np.array([float("nan") if v is None else v for v in values], dtype=np.float64)
    except (TypeError, ValueError):
        return np.array([_as_float(v) for v in values], dtype=np.float64)


def _as_float(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError, OverflowError):
        return float("nan")


def _timestamps(values: list[Any]) -> Any:
    """Parse ISO 8601 strings into UTC; anything else becomes ``NaT``.

    The API's own form (``2024-05-01T12:00:00.000Z``, years 1678-2261, where nanoseconds
    cannot overflow) is parsed by NumPy; a column with any other value (an offset, a
    malformed string) goes through pandas.
    """
    import numpy as np
    import pandas as pd

    dtype = _dtypes()[TIMESTAMP]
    try:
        naive = np.array(
            [
                v[:-1]
                if v.__class__ is str and v[-1:] == "Z" and "1678" < v < "2262"
                else (None if v is None else "invalid")
                for v in values
            ],
            dtype="datetime64[ns]",
        )
    except ValueError:
        return _timestamps_slowly(values)
    return pd.array(naive, dtype=dtype)


def _timestamps_slowly(values: list[Any]) -> Any:
    import pandas as pd

    strings = pd.Series(
        [v if isinstance(v, str) and v[:4].isdigit() else None for v in values], dtype=object
    )
    parsed = pd.to_datetime(strings, utc=True, format="ISO8601", errors="coerce")
    bounds = (pd.Timestamp.min.tz_localize("UTC"), pd.Timestamp.max.tz_localize("UTC"))
    parsed = parsed.where(parsed.between(*bounds))
    return parsed.astype(_dtypes()[TIMESTAMP]).array


def _flags(values: list[Any]) -> Any:
    import pandas as pd

    return pd.array(
        [v if v is True or v is False else None for v in values], dtype=_dtypes()[BOOLEAN]
    )


def _objects(values: list[Any]) -> Any:
    import numpy as np

    return np.fromiter(values, dtype=object, count=len(values))


_CONVERTERS: dict[str, Callable[[list[Any]], Any]] = {
    STRING: _strings,
    COUNT: _ints,
    FLOAT: _floats,
    TIMESTAMP: _timestamps,
    BOOLEAN: _flags,
    OBJECT: _objects,
}


def convert(values: list[Any], dtype: str) -> Any:
    """One column of values as an array of ``dtype`` (one of the dtypes of :data:`SCHEMAS`).

    Values that do not fit become missing: text is kept as text (other values as their
    ``str``), counts are rounded, timestamps that are not ISO 8601 become ``NaT``.

    Examples
    --------
    >>> convert(["2024-05-01T12:00:00Z", None], "datetime64[ns, UTC]")[0]
    Timestamp('2024-05-01 12:00:00+0000', tz='UTC')
    """
    return _CONVERTERS[dtype](values)


_NOTHING: Mapping[str, Any] = {}


def _mappings(values: list[Any]) -> list[Mapping[str, Any]]:
    """Each value if it is an object, else an empty one (so the next step reads ``None``)."""
    return [
        v if v.__class__ is dict or (v is not None and isinstance(v, Mapping)) else _NOTHING
        for v in values
    ]


def _read(path: str, levels: dict[str, list[Any]]) -> list[Any]:
    """The values at a dotted ``path`` of every record; ``levels`` caches nested objects."""
    prefix, _, key = path.rpartition(".")
    return [obj.get(key) for obj in _level(prefix, levels)]


def _level(prefix: str, levels: dict[str, list[Any]]) -> list[Any]:
    if prefix not in levels:
        parent, _, key = prefix.rpartition(".")
        levels[prefix] = _mappings([obj.get(key) for obj in _level(parent, levels)])
    return levels[prefix]


def _first_present(paths: tuple[str, ...], levels: dict[str, list[Any]]) -> list[Any]:
    values = _read(paths[0], levels)
    for path in paths[1:]:
        if None in values:
            others = _read(path, levels)
            values = [a if a is not None else b for a, b in zip(values, others, strict=True)]
    return values


def _given(name: str, value: Any, count: int) -> list[Any]:
    """A supplied column: one value repeated, or one value per record (checked for length)."""
    if value is None or isinstance(value, str | int):
        return [value] * count
    values = list(value)
    if len(values) != count:
        raise ValidationError(
            name, f"got {len(values)} values for {count} records; pass one per record"
        )
    return values


#: The empty frame of each list, built once: an empty list is answered with a copy of it.
_EMPTY: dict[str, pd.DataFrame] = {}


def _build(name: str, records: Sequence[Record], **given: Any) -> pd.DataFrame:
    """The frame of list ``name`` from ``records``, with the supplied columns' values."""
    records = records if isinstance(records, list) else list(records)
    if records:
        return _assemble(name, records, given)
    for column in _LISTINGS[name].columns:
        if column.supplied:
            _given(column.name, given[column.name], 0)  # the same checks as for a full list
    template = _EMPTY.get(name)
    if template is None:
        template = _EMPTY[name] = _assemble(name, records, given)
    return template.copy()


def _assemble(name: str, records: list[Record], given: Mapping[str, Any]) -> pd.DataFrame:
    import pandas as pd

    count = len(records)
    levels: dict[str, list[Any]] = {"": records}
    data = {}
    for column in _LISTINGS[name].columns:
        if column.derive is not None:
            values = [column.derive(record) for record in records]
        elif not column.supplied:
            values = _first_present(column.paths, levels)
        else:
            values = _given(column.name, given[column.name], count)
            if column.paths:
                own = _first_present(column.paths, levels)
                values = [o if o is not None else v for o, v in zip(own, values, strict=True)]
        if column.mask is not None:
            values = [v if v is None else column.mask(v) for v in values]
        data[column.name] = _CONVERTERS[column.dtype](values)
    # The columns are arrays of one length and their dtypes already: the frame is put
    # together without DataFrame()'s inference over a dict (most of a short list's cost).
    return pd.DataFrame._from_arrays(  # type: ignore[attr-defined]
        list(data.values()), columns=_columns(name), index=pd.RangeIndex(count)
    )


@functools.cache
def _columns(name: str) -> pd.Index:
    """The column index of list ``name`` (the one ``DataFrame()`` makes of its names)."""
    import pandas as pd

    return pd.Index([column.name for column in _LISTINGS[name].columns])


# -- declaring the public functions ---------------------------------------------------------------

_Function = TypeVar("_Function", bound=Callable[..., Any])


def _frame(listing: Listing, **parameters: str) -> Callable[[_Function], _Function]:
    """Register ``listing`` and write its function's Parameters and Returns sections.

    The docstring keeps its summary and Examples; ``parameters`` describes the arguments
    that are not supplied columns (the records).
    """

    def document(function: _Function) -> _Function:
        _LISTINGS[listing.name] = listing
        SCHEMAS[listing.name] = listing.dtypes
        docs = {c.name: c.doc for c in listing.columns if c.supplied}
        lines = ["Parameters", "----------"]
        for name in inspect.signature(function).parameters:
            if name in docs:
                lines += [f"{name} : str, sequence of str, or None"]
                lines += [f"    Id of {docs[name]}: one for every row, or one per record."]
            else:
                lines += [f"{name} : sequence of dict", f"    {parameters[name]}"]
        lines += ["", "Returns", "-------", "pandas.DataFrame"]
        lines += [f"    One row per record; the columns of ``SCHEMAS[{listing.name!r}]``:", ""]
        lines += ["    " + line for line in listing.table().splitlines()]
        summary, _, examples = inspect.cleandoc(function.__doc__ or "").partition("Examples\n")
        sections = [summary.rstrip(), "\n".join(lines)]
        if examples:
            sections.append("Examples\n" + examples)
        function.__doc__ = "\n\n".join(sections) + "\n"
        return function

    return document


def empty(name: str) -> pd.DataFrame:
    """An empty frame with the columns and dtypes of schema ``name``.

    Examples
    --------
    >>> empty("teams").dtypes["members"]
    Int64Dtype()
    """
    return _build(name, [], **dict.fromkeys(_LISTINGS[name].supplied))


# -- content --------------------------------------------------------------------------------------


@_frame(Listing("spaces", f.SpaceFields), records="``Space`` objects.")
def spaces(records: Sequence[Record]) -> pd.DataFrame:
    """Spaces, e.g. the items of ``GET /orgs/{organizationId}/spaces``.

    Examples
    --------
    >>> spaces([{"id": "s1", "title": "Docs", "urls": {"app": "https://x/s1"}}]).loc[0, "url_app"]
    'https://x/s1'
    """
    return _build("spaces", records)


@_frame(Listing("files", f.InSpace, f.FileFields), records="``RevisionFile`` objects.")
def files(space_id: Ids, records: Sequence[Record]) -> pd.DataFrame:
    """Files of a space's revision."""
    return _build("files", records, space_id=space_id)


@_frame(Listing("search", f.InSpace, f.SearchResultFields), records="``SearchPageResult`` objects.")
def search(space_id: Ids, records: Sequence[Record]) -> pd.DataFrame:
    """Search results of a space."""
    return _build("search", records, space_id=space_id)


@_frame(
    Listing("pages", f.InSpace, f.PageRowFields),
    tree="The top-level ``RevisionPage`` objects; children are under each page's ``pages``.",
)
def pages(space_id: Ids, tree: Sequence[Record]) -> pd.DataFrame:
    """Flatten a revision's page tree: one row per page, parents before their children.

    Examples
    --------
    >>> tree = [{"id": "a", "title": "A", "type": "group", "slug": "a", "path": "a",
    ...          "pages": [{"id": "b", "title": "B", "type": "document", "slug": "b"}]}]
    >>> pages("s1", tree)[["id", "path", "parent_id", "depth"]].values.tolist()
    [['a', 'a', <NA>, 0], ['b', 'a/b', 'a', 1]]
    """
    rows: list[Record] = []
    place: dict[str, list[Any]] = {"path": [], "parent_id": [], "depth": [], "position": []}

    def walk(siblings: Sequence[Any], parent_id: Any, parent_path: Any, depth: int) -> None:
        for position, page in enumerate(siblings):
            if not isinstance(page, Mapping):
                continue
            slug, path = page.get("slug"), page.get("path")
            if path is None and slug is not None:
                path = f"{parent_path}/{slug}" if parent_path else slug
            rows.append(page)
            for name, value in zip(place, (path, parent_id, depth, position), strict=True):
                place[name].append(value)
            walk(page.get("pages") or [], page.get("id"), path, depth + 1)

    walk(tree, None, None, 0)
    return _build("pages", rows, space_id=space_id, **place)


@_frame(
    Listing("change_requests", f.OfChangeRequest, f.ChangeRequestFields),
    records="``ChangeRequest`` objects.",
)
def change_requests(space_id: Ids, records: Sequence[Record]) -> pd.DataFrame:
    """Change requests of a space (a request's own ``space`` wins over ``space_id``)."""
    return _build("change_requests", records, space_id=space_id)


# -- organizations, members and teams -------------------------------------------------------------


@_frame(Listing("organizations", f.OrganizationFields), records="``Organization`` objects.")
def organizations(records: Sequence[Record]) -> pd.DataFrame:
    """Organizations, the items of ``GET /orgs``."""
    return _build("organizations", records)


@_frame(
    Listing("org_members", f.InOrganization, f.MemberFields),
    records="``OrganizationMember`` objects.",
)
def org_members(org_id: Ids, records: Sequence[Record]) -> pd.DataFrame:
    """Members of an organization."""
    return _build("org_members", records, org_id=org_id)


@_frame(
    Listing("member_spaces", f.InOrganization, f.OfUser, f.MemberSpaceFields),
    records="``MemberContentPermission`` objects (``{permission, space}``).",
)
def member_spaces(org_id: Ids, user_id: Ids, records: Sequence[Record]) -> pd.DataFrame:
    """Spaces a member can reach, with their role (``GET …/members/{userId}/spaces``)."""
    return _build("member_spaces", records, org_id=org_id, user_id=user_id)


@_frame(Listing("teams", f.InOrganization, f.TeamFields), records="``OrganizationTeam`` objects.")
def teams(org_id: Ids, records: Sequence[Record]) -> pd.DataFrame:
    """Teams of an organization."""
    return _build("teams", records, org_id=org_id)


@_frame(
    Listing("team_members", f.InOrganization, f.InTeam, f.TeamMemberFields),
    records="``OrganizationTeamMember`` objects.",
)
def team_members(org_id: Ids, team_id: Ids, records: Sequence[Record]) -> pd.DataFrame:
    """Members of a team, with their team role."""
    return _build("team_members", records, org_id=org_id, team_id=team_id)


@_frame(
    Listing("invite_links", f.InOrganization, f.InviteLinkFields),
    records="``OrganizationInviteLink`` objects (to the organization, a space or a collection).",
)
def invite_links(org_id: Ids, records: Sequence[Record]) -> pd.DataFrame:
    """Invite links of an organization: what each one grants, and on what."""
    return _build("invite_links", records, org_id=org_id)


@_frame(
    Listing("audit_events", f.InOrganization, f.AuditEventFields), records="``AuditEvent`` objects."
)
def audit_events(org_id: Ids, records: Sequence[Record]) -> pd.DataFrame:
    """The organization's audit log: who changed what, and when."""
    return _build("audit_events", records, org_id=org_id)


# -- permissions ----------------------------------------------------------------------------------

_USERS = "``UserContentPermission`` objects (``{permission, user}``)."
_TEAMS = "``{permission, team}`` objects."


@_frame(Listing("permission_users", f.InSpace, f.UserPermissionFields), records=_USERS)
def permission_users(space_id: Ids, records: Sequence[Record]) -> pd.DataFrame:
    """User permissions of a space.

    Examples
    --------
    >>> permission_users("s1", [{"permission": "edit", "user": {"id": "u1"}}]).loc[0, "role"]
    'edit'
    """
    return _build("permission_users", records, space_id=space_id)


@_frame(Listing("permission_teams", f.InSpace, f.TeamPermissionFields), records=_TEAMS)
def permission_teams(space_id: Ids, records: Sequence[Record]) -> pd.DataFrame:
    """Team permissions of a space."""
    return _build("permission_teams", records, space_id=space_id)


@_frame(Listing("permission_aggregate", f.InSpace, f.UserPermissionFields), records=_USERS)
def permission_aggregate(space_id: Ids, records: Sequence[Record]) -> pd.DataFrame:
    """Everyone who can access a space and their effective role, as the platform computes it."""
    return _build("permission_aggregate", records, space_id=space_id)


@_frame(Listing("collection_users", f.InCollection, f.UserPermissionFields), records=_USERS)
def collection_users(collection_id: Ids, records: Sequence[Record]) -> pd.DataFrame:
    """User permissions of a collection."""
    return _build("collection_users", records, collection_id=collection_id)


@_frame(Listing("collection_teams", f.InCollection, f.TeamPermissionFields), records=_TEAMS)
def collection_teams(collection_id: Ids, records: Sequence[Record]) -> pd.DataFrame:
    """Team permissions of a collection."""
    return _build("collection_teams", records, collection_id=collection_id)


@_frame(Listing("collection_aggregate", f.InCollection, f.UserPermissionFields), records=_USERS)
def collection_aggregate(collection_id: Ids, records: Sequence[Record]) -> pd.DataFrame:
    """Everyone who can access a collection and their effective role (the platform's view)."""
    return _build("collection_aggregate", records, collection_id=collection_id)


# -- collections and sites ------------------------------------------------------------------------


@_frame(Listing("collections", f.CollectionFields), records="``Collection`` objects.")
def collections(records: Sequence[Record]) -> pd.DataFrame:
    """Collections, e.g. the items of ``GET /orgs/{organizationId}/collections``."""
    return _build("collections", records)


@_frame(Listing("sites", f.InOrganization, f.SiteFields), records="``Site`` objects.")
def sites(org_id: Ids, records: Sequence[Record]) -> pd.DataFrame:
    """Sites of an organization: what each publishes to whom."""
    return _build("sites", records, org_id=org_id)


@_frame(Listing("site_spaces", f.InSite, f.SiteSpaceFields), records="``SiteSpace`` objects.")
def site_spaces(site_id: Ids, records: Sequence[Record]) -> pd.DataFrame:
    """Spaces a site publishes, and where."""
    return _build("site_spaces", records, site_id=site_id)


@_frame(Listing("share_links", f.InSite, f.ShareLinkFields), records="``ShareLink`` objects.")
def share_links(site_id: Ids, records: Sequence[Record]) -> pd.DataFrame:
    """Share links of a site; the key in each link's address is masked.

    Examples
    --------
    >>> link = {"id": "sl1", "active": True, "urls": {"published": "https://d.example/?share=k"}}
    >>> share_links("site1", [link]).loc[0, "url_published"]
    'https://d.example/?share=********'
    """
    return _build("share_links", records, site_id=site_id)


@_frame(
    Listing("site_users", f.InSite, f.UserPermissionFields),
    records="``UserSitePermissionOverride`` objects (``{permission, user}``).",
)
def site_users(site_id: Ids, records: Sequence[Record]) -> pd.DataFrame:
    """User permissions of a site (they administer the site, not the content)."""
    return _build("site_users", records, site_id=site_id)


@_frame(
    Listing("site_teams", f.InSite, f.TeamPermissionFields),
    records="``TeamSitePermissionOverride`` objects (``{permission, team}``).",
)
def site_teams(site_id: Ids, records: Sequence[Record]) -> pd.DataFrame:
    """Team permissions of a site."""
    return _build("site_teams", records, site_id=site_id)


def _lists_section() -> str:
    """The module docstring's list of lists: each function and its columns."""
    lines = ["Lists", "-----"]
    for name, listing in _LISTINGS.items():
        lines += [f":func:`{name}`", "    " + ", ".join(c.name for c in listing.columns)]
    return "\n".join(lines)


__doc__ = f"{__doc__}\n{_lists_section()}\n"
