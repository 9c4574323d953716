"""Records in, DataFrame out: one pure function per list of the documentation-platform API.

Every function builds its frame column by column against a declared schema
(:data:`SCHEMAS`: column → dtype, in order), so an empty list still yields the right
columns and dtypes. Ids and text are ``string``, counts ``Int64`` (nullable),
timestamps ``datetime64[ns, UTC]``, flags ``boolean``, lists ``object``. Nested fields
are flattened with underscores (``urls.app`` → ``url_app``). Roles are the API's
strings, with a guest as missing (``<NA>``).

Examples
--------
>>> frame = spaces([])
>>> list(frame.columns)[:3], str(frame["created_at"].dtype)
(['id', 'title', 'emoji'], 'datetime64[ns, UTC]')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "SCHEMAS",
    "change_requests",
    "empty",
    "files",
    "org_members",
    "organizations",
    "pages",
    "permission_teams",
    "permission_users",
    "search",
    "spaces",
    "team_members",
    "teams",
]

Record = Mapping[str, Any]

_STR = "string"
#: Strings are stored as Python objects whatever else is installed (pyarrow would otherwise be
#: chosen, and change the dtypes that counts and groupings of these columns return).
_STR_STORAGE = "string[python]"
_INT = "Int64"
_TIME = "datetime64[ns, UTC]"
_BOOL = "boolean"
_LIST = "object"

#: The column schema of every frame: name → {column: dtype}, columns in order.
SCHEMAS: dict[str, dict[str, str]] = {
    "spaces": {
        "id": _STR,
        "title": _STR,
        "emoji": _STR,
        "visibility": _STR,
        "edit_mode": _STR,
        "default_level": _STR,
        "language": _STR,
        "organization": _STR,
        "parent": _STR,
        "created_at": _TIME,
        "updated_at": _TIME,
        "deleted_at": _TIME,
        "url_app": _STR,
        "url_location": _STR,
    },
    "permission_users": {
        "space_id": _STR,
        "user_id": _STR,
        "display_name": _STR,
        "email": _STR,
        "role": _STR,
    },
    "permission_teams": {
        "space_id": _STR,
        "team_id": _STR,
        "title": _STR,
        "members": _INT,
        "role": _STR,
    },
    "files": {
        "space_id": _STR,
        "id": _STR,
        "name": _STR,
        "content_type": _STR,
        "size": _INT,
        "width": _INT,
        "height": _INT,
        "download_url": _STR,
    },
    "search": {
        "space_id": _STR,
        "id": _STR,
        "title": _STR,
        "path": _STR,
        "rank": _INT,
        "result_type": _STR,
        "ancestors": _LIST,
        "url_app": _STR,
    },
    "pages": {
        "space_id": _STR,
        "id": _STR,
        "title": _STR,
        "kind": _STR,
        "type": _STR,
        "slug": _STR,
        "path": _STR,
        "parent_id": _STR,
        "depth": _INT,
        "position": _INT,
    },
    "org_members": {
        "org_id": _STR,
        "user_id": _STR,
        "display_name": _STR,
        "email": _STR,
        "role": _STR,
        "disabled": _BOOL,
        "joined_at": _TIME,
        "last_seen_at": _TIME,
    },
    "teams": {
        "org_id": _STR,
        "id": _STR,
        "title": _STR,
        "members": _INT,
        "spaces": _INT,
        "created_at": _TIME,
    },
    "team_members": {
        "org_id": _STR,
        "team_id": _STR,
        "user_id": _STR,
        "display_name": _STR,
        "email": _STR,
        "role": _STR,
    },
    "organizations": {
        "id": _STR,
        "title": _STR,
        "type": _STR,
        "created_at": _TIME,
        "url_app": _STR,
    },
    "change_requests": {
        "space_id": _STR,
        "id": _STR,
        "number": _INT,
        "subject": _STR,
        "status": _STR,
        "created_at": _TIME,
        "updated_at": _TIME,
        "url_app": _STR,
    },
}

#: The page ``type`` values that keep their name as ``kind``; any other (computed) is a document.
_PAGE_KINDS = frozenset({"document", "group", "link"})


# -- column builders ------------------------------------------------------------------------


def _strings(values: list[Any]) -> Any:
    import pandas as pd

    try:
        return pd.array(values, dtype=_STR_STORAGE)
    except (TypeError, ValueError):
        return pd.array([None if v is None else str(v) for v in values], dtype=_STR_STORAGE)


def _ints(values: list[Any]) -> Any:
    import pandas as pd

    try:
        return pd.array(values, dtype=_INT)
    except (TypeError, ValueError):
        return pd.array([_as_int(v) for v in values], dtype=_INT)


def _as_int(value: Any) -> int | None:
    if isinstance(value, bool) or value is None:
        return None
    try:
        return round(float(value))
    except (TypeError, ValueError, OverflowError):
        return None


def _timestamps(values: list[Any]) -> Any:
    import pandas as pd

    parsed = pd.to_datetime(
        pd.Series(values, dtype=object), utc=True, format="ISO8601", errors="coerce"
    )
    return parsed.astype(_TIME).array


def _flags(values: list[Any]) -> Any:
    import pandas as pd

    return pd.array([v if isinstance(v, bool) else None for v in values], dtype=_BOOL)


def _objects(values: list[Any]) -> Any:
    import pandas as pd

    return pd.Series(values, dtype=_LIST).array


_BUILDERS = {_STR: _strings, _INT: _ints, _TIME: _timestamps, _BOOL: _flags, _LIST: _objects}


def _build(name: str, columns: Mapping[str, list[Any]]) -> pd.DataFrame:
    """Assemble a frame from raw column lists, converting each to its declared dtype."""
    import pandas as pd

    schema = SCHEMAS[name]
    return pd.DataFrame(
        {column: _BUILDERS[dtype](columns[column]) for column, dtype in schema.items()},
        columns=list(schema),
    )


def _sub(records: Sequence[Record], key: str) -> list[Mapping[str, Any]]:
    """The nested object under ``key`` of every record (``{}`` where absent)."""
    return [r.get(key) or {} for r in records]


def _repeat(value: str | Sequence[str] | None, count: int) -> list[str | None]:
    """One space id for every record, or the given per-record ids (checked for length)."""
    if value is None or isinstance(value, str):
        return [value] * count
    ids: list[str | None] = list(value)
    if len(ids) != count:
        raise ValueError(f"got {len(ids)} space ids for {count} records; pass one per record")
    return ids


# -- public ---------------------------------------------------------------------------------


def empty(name: str) -> pd.DataFrame:
    """An empty frame with the columns and dtypes of schema ``name``.

    Examples
    --------
    >>> empty("teams").dtypes["members"]
    Int64Dtype()
    """
    return _build(name, {column: [] for column in SCHEMAS[name]})


def spaces(records: Sequence[Record]) -> pd.DataFrame:
    """Spaces (``Space`` objects) as a frame with the ``spaces`` schema.

    Parameters
    ----------
    records : sequence of dict
        ``Space`` JSON objects, e.g. the items of ``GET /orgs/{id}/spaces``.

    Returns
    -------
    pandas.DataFrame
        One row per space: id, title, emoji, visibility, edit_mode, default_level,
        language, organization, parent, created_at, updated_at, deleted_at, url_app,
        url_location.

    Examples
    --------
    >>> spaces([{"id": "s1", "title": "Docs", "urls": {"app": "https://x/s1"}}]).loc[0, "url_app"]
    'https://x/s1'
    """
    urls = _sub(records, "urls")
    return _build(
        "spaces",
        {
            "id": [r.get("id") for r in records],
            "title": [r.get("title") for r in records],
            "emoji": [r.get("emoji") for r in records],
            "visibility": [r.get("visibility") for r in records],
            "edit_mode": [r.get("editMode") for r in records],
            "default_level": [r.get("defaultLevel") for r in records],
            "language": [r.get("language") for r in records],
            "organization": [r.get("organization") for r in records],
            "parent": [r.get("parent") for r in records],
            "created_at": [r.get("createdAt") for r in records],
            "updated_at": [r.get("updatedAt") for r in records],
            "deleted_at": [r.get("deletedAt") for r in records],
            "url_app": [u.get("app") for u in urls],
            "url_location": [u.get("location") for u in urls],
        },
    )


def permission_users(
    space_id: str | Sequence[str] | None, records: Sequence[Record]
) -> pd.DataFrame:
    """User permissions of a space (``UserContentPermission`` objects).

    Parameters
    ----------
    space_id : str, sequence of str, or None
        The space the permissions belong to, repeated in the ``space_id`` column; or one
        space id per record, to build one frame over many spaces at once.
    records : sequence of dict
        ``{"permission": role, "user": User}`` objects.

    Returns
    -------
    pandas.DataFrame
        space_id, user_id, display_name, email, role.

    Examples
    --------
    >>> permission_users("s1", [{"permission": "edit", "user": {"id": "u1"}}]).loc[0, "role"]
    'edit'
    """
    users = _sub(records, "user")
    return _build(
        "permission_users",
        {
            "space_id": _repeat(space_id, len(records)),
            "user_id": [u.get("id") for u in users],
            "display_name": [u.get("displayName") for u in users],
            "email": [u.get("email") for u in users],
            "role": [r.get("permission") for r in records],
        },
    )


def permission_teams(
    space_id: str | Sequence[str] | None, records: Sequence[Record]
) -> pd.DataFrame:
    """Team permissions of a space (``{"permission", "team"}`` objects).

    Parameters
    ----------
    space_id : str or None
        The space, repeated in the ``space_id`` column.
    records : sequence of dict
        The items of the list endpoint.

    Returns
    -------
    pandas.DataFrame
        space_id, team_id, title, members, role.
    """
    teams_ = _sub(records, "team")
    return _build(
        "permission_teams",
        {
            "space_id": _repeat(space_id, len(records)),
            "team_id": [t.get("id") for t in teams_],
            "title": [t.get("title") for t in teams_],
            "members": [t.get("members") for t in teams_],
            "role": [r.get("permission") for r in records],
        },
    )


def files(space_id: str | None, records: Sequence[Record]) -> pd.DataFrame:
    """Files of a revision (``RevisionFile`` objects).

    Parameters
    ----------
    space_id : str or None
        The space, repeated in the ``space_id`` column.
    records : sequence of dict
        The items of the list endpoint.

    Returns
    -------
    pandas.DataFrame
        space_id, id, name, content_type, size, width, height, download_url;
        width and height are missing for files without dimensions.
    """
    dimensions = _sub(records, "dimensions")
    return _build(
        "files",
        {
            "space_id": _repeat(space_id, len(records)),
            "id": [r.get("id") for r in records],
            "name": [r.get("name") for r in records],
            "content_type": [r.get("contentType") for r in records],
            "size": [r.get("size") for r in records],
            "width": [d.get("width") for d in dimensions],
            "height": [d.get("height") for d in dimensions],
            "download_url": [r.get("downloadURL") for r in records],
        },
    )


def search(space_id: str | None, records: Sequence[Record]) -> pd.DataFrame:
    """Search results of a space (``SearchPageResult`` objects).

    Parameters
    ----------
    space_id : str or None
        The space, repeated in the ``space_id`` column.
    records : sequence of dict
        The items of the list endpoint.

    Returns
    -------
    pandas.DataFrame
        space_id, id, title, path, rank, result_type, ancestors (a list of the
        ancestor pages' titles, outermost first), url_app.
    """
    return _build(
        "search",
        {
            "space_id": _repeat(space_id, len(records)),
            "id": [r.get("id") for r in records],
            "title": [r.get("title") for r in records],
            "path": [r.get("path") for r in records],
            "rank": [r.get("rank") for r in records],
            "result_type": [r.get("resultType") for r in records],
            "ancestors": [
                [a.get("title") for a in r.get("ancestors") or [] if isinstance(a, Mapping)]
                for r in records
            ],
            "url_app": [(r.get("urls") or {}).get("app") for r in records],
        },
    )


def pages(space_id: str | None, tree: Sequence[Record]) -> pd.DataFrame:
    """Flatten a revision's page tree: one row per page, parents before their children.

    Parameters
    ----------
    space_id : str or None
        The space, repeated in the ``space_id`` column.
    tree : sequence of dict
        The top-level ``RevisionPage`` objects; children are under each page's ``pages``.

    Returns
    -------
    pandas.DataFrame
        space_id, id, title, kind (``document``, ``group`` or ``link``), type (the API's
        page type, e.g. ``computed``), slug, path (the page's full path; built from the
        slugs when the API omits it), parent_id (missing at the top level), depth (0 at
        the top level) and position (0-based index among its siblings).

    Examples
    --------
    >>> tree = [{"id": "a", "title": "A", "type": "group", "slug": "a", "path": "a",
    ...          "pages": [{"id": "b", "title": "B", "type": "document", "slug": "b"}]}]
    >>> pages("s1", tree)[["id", "path", "parent_id", "depth"]].values.tolist()
    [['a', 'a', <NA>, 0], ['b', 'a/b', 'a', 1]]
    """
    columns: dict[str, list[Any]] = {column: [] for column in SCHEMAS["pages"]}

    def walk(siblings: Sequence[Record], parent_id: Any, parent_path: str | None, depth: int):
        for position, page in enumerate(siblings):
            if not isinstance(page, Mapping):
                continue
            page_type = page.get("type")
            slug = page.get("slug")
            path = page.get("path")
            if path is None and slug is not None:
                path = f"{parent_path}/{slug}" if parent_path else slug
            columns["space_id"].append(space_id)
            columns["id"].append(page.get("id"))
            columns["title"].append(page.get("title"))
            columns["kind"].append(page_type if page_type in _PAGE_KINDS else "document")
            columns["type"].append(page_type)
            columns["slug"].append(slug)
            columns["path"].append(path)
            columns["parent_id"].append(parent_id)
            columns["depth"].append(depth)
            columns["position"].append(position)
            walk(page.get("pages") or [], page.get("id"), path, depth + 1)

    walk(tree, None, None, 0)
    return _build("pages", columns)


def org_members(org_id: str | None, records: Sequence[Record]) -> pd.DataFrame:
    """Members of an organization (``OrganizationMember`` objects).

    Parameters
    ----------
    org_id : str or None
        The organization, repeated in the ``org_id`` column.
    records : sequence of dict
        The items of the list endpoint.

    Returns
    -------
    pandas.DataFrame
        org_id, user_id, display_name, email, role (missing for a guest), disabled,
        joined_at, last_seen_at.
    """
    users = _sub(records, "user")
    return _build(
        "org_members",
        {
            "org_id": _repeat(org_id, len(records)),
            "user_id": [u.get("id") or r.get("id") for u, r in zip(users, records, strict=True)],
            "display_name": [u.get("displayName") for u in users],
            "email": [u.get("email") for u in users],
            "role": [r.get("role") for r in records],
            "disabled": [r.get("disabled") for r in records],
            "joined_at": [r.get("joinedAt") for r in records],
            "last_seen_at": [r.get("lastSeenAt") for r in records],
        },
    )


def teams(org_id: str | None, records: Sequence[Record]) -> pd.DataFrame:
    """Teams of an organization (``OrganizationTeam`` objects).

    Parameters
    ----------
    org_id : str or None
        The organization, repeated in the ``org_id`` column.
    records : sequence of dict
        The items of the list endpoint.

    Returns
    -------
    pandas.DataFrame
        org_id, id, title, members, spaces, created_at.
    """
    return _build(
        "teams",
        {
            "org_id": _repeat(org_id, len(records)),
            "id": [r.get("id") for r in records],
            "title": [r.get("title") for r in records],
            "members": [r.get("members") for r in records],
            "spaces": [r.get("spaces") for r in records],
            "created_at": [r.get("createdAt") for r in records],
        },
    )


def team_members(
    org_id: str | None, team_id: str | None, records: Sequence[Record]
) -> pd.DataFrame:
    """Members of a team (``OrganizationTeamMember`` objects).

    Parameters
    ----------
    org_id, team_id : str or None
        The organization and the team, repeated in their columns.
    records : sequence of dict
        The items of ``GET /orgs/{id}/teams/{teamId}/members``.

    Returns
    -------
    pandas.DataFrame
        org_id, team_id, user_id, display_name, email, role (the team role:
        ``owner`` or ``member``).
    """
    members = _sub(records, "organization")
    users = [m.get("user") or {} for m in members]
    return _build(
        "team_members",
        {
            "org_id": _repeat(org_id, len(records)),
            "team_id": _repeat(team_id, len(records)),
            "user_id": [u.get("id") or m.get("id") for u, m in zip(users, members, strict=True)],
            "display_name": [u.get("displayName") for u in users],
            "email": [u.get("email") for u in users],
            "role": [t.get("role") for t in _sub(records, "team")],
        },
    )


def organizations(records: Sequence[Record]) -> pd.DataFrame:
    """Organizations (``Organization`` objects).

    Parameters
    ----------
    records : sequence of dict
        The items of ``GET /orgs``.

    Returns
    -------
    pandas.DataFrame
        id, title, type, created_at, url_app.
    """
    return _build(
        "organizations",
        {
            "id": [r.get("id") for r in records],
            "title": [r.get("title") for r in records],
            "type": [r.get("type") for r in records],
            "created_at": [r.get("createdAt") for r in records],
            "url_app": [u.get("app") for u in _sub(records, "urls")],
        },
    )


def change_requests(space_id: str | None, records: Sequence[Record]) -> pd.DataFrame:
    """Change requests of a space (``ChangeRequest`` objects).

    Parameters
    ----------
    space_id : str or None
        The space, repeated in the ``space_id`` column.
    records : sequence of dict
        The items of the list endpoint.

    Returns
    -------
    pandas.DataFrame
        space_id, id, number, subject, status, created_at, updated_at, url_app.
    """
    return _build(
        "change_requests",
        {
            "space_id": [r.get("space") or space_id for r in records],
            "id": [r.get("id") for r in records],
            "number": [r.get("number") for r in records],
            "subject": [r.get("subject") for r in records],
            "status": [r.get("status") for r in records],
            "created_at": [r.get("createdAt") for r in records],
            "updated_at": [r.get("updatedAt") for r in records],
            "url_app": [u.get("app") for u in _sub(records, "urls")],
        },
    )
