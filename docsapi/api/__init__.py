"""The whole API, generated from its packaged OpenAPI description: ``client.api``.

``client.api`` has one attribute per tag of the description (snake_case), and each of those
one method per operation, named from its ``operationId`` in snake_case::

    client.api.sites.list_sites(organization_id="org_1")          # a DataFrame, every page
    client.api.spaces.get_space_by_id("sp_1")                      # an ApiObject
    client.api.find("insights")                                    # a DataFrame of operations

Methods have real signatures (path parameters first, then keyword-only query, header and
body parameters, and ``body=`` for the whole body) and numpydoc docstrings written from the
description. Arguments are checked against the description before anything is sent
(:class:`~docsapi.errors.ValidationError` names the argument and the rule). Lists come back
as DataFrames whose columns follow the item schema; objects as
:class:`~docsapi.api.ApiObject`. An operation without tags is listed under its path's first
segment. The description is read on first use, not on ``import docsapi``.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from html import escape
from typing import TYPE_CHECKING, Any

from docsapi.api._methods import Caller, StreamingNotSupportedError, build_method
from docsapi.api._operation import NOT_GIVEN, Operation, operations_of
from docsapi.api._results import ApiObject, list_shape
from docsapi.api._spec import load_description, reader, snake_case
from docsapi.core.reprs import safe_display, short_signature
from docsapi.errors import ValidationError
from docsapi.wire.transport import Transport

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "NOT_GIVEN",
    "ApiGroup",
    "ApiNamespace",
    "ApiObject",
    "StreamingNotSupportedError",
    "catalog",
    "page_path_segments",
]


@functools.cache
def catalog() -> dict[str, tuple[Operation, ...]]:
    """The description's operations by group name (a tag in snake_case), groups sorted.

    An operation with several tags is in each of their groups; one without tags is in the
    group named after the first segment of its path.
    """
    groups: dict[str, list[Operation]] = {}
    for operation in operations_of(reader()):
        for group in _groups_of(operation):
            groups.setdefault(group, []).append(operation)
    return {name: tuple(groups[name]) for name in sorted(groups)}


@functools.cache
def _page_path_templates() -> tuple[tuple[tuple[str, ...], frozenset[int]], ...]:
    """The path templates taking a page path: their segments, and where the page path is."""
    templates = {}
    for operations in catalog().values():
        for operation in operations:
            pages = {"{" + p.name + "}" for p in operation.path_parameters if p.page_path}
            if pages:
                segments = tuple(operation.path[1:].split("/"))
                where = frozenset(i for i, part in enumerate(segments) if part in pages)
                templates[segments] = where
    return tuple(templates.items())


def page_path_segments(path: str) -> frozenset[int]:
    """Where a path under the base URL holds a page path, by the operations it matches.

    Parameters
    ----------
    path : str
        A path as :meth:`DocsClient.request <docsapi.DocsClient.request>` takes it, its
        segments percent-encoded.

    Returns
    -------
    frozenset of int
        The 0-based indexes of its segments (after the leading ``/``) where an operation of
        the description takes a page path (slugs with encoded ``/`` between them); empty
        when it matches none: each of its segments is then one id.

    Examples
    --------
    >>> sorted(page_path_segments("/spaces/sp1/content/path/guides%2Finstall"))
    [4]
    >>> page_path_segments("/users/a%2Fb")
    frozenset()
    """
    segments = path[1:].split("/")
    found: set[int] = set()
    for template, where in _page_path_templates():
        if len(template) == len(segments) and all(
            part.startswith("{") or part == segment
            for part, segment in zip(template, segments, strict=True)
        ):
            found |= where
    return frozenset(found)


def _groups_of(operation: Operation) -> list[str]:
    """The groups offering ``operation``, its first tag's group first."""
    tags = operation.tags or (operation.path.strip("/").split("/")[0],)
    return [snake_case(tag) for tag in tags]


def _titles() -> dict[str, str]:
    return {
        snake_case(tag["name"]): tag.get("x-page-description") or tag.get("x-page-title") or ""
        for tag in load_description().get("tags", ())
    }


class ApiGroup:
    """The operations of one tag, as methods.

    Parameters
    ----------
    name : str
        The group's attribute on ``client.api``.
    operations : tuple[Operation, ...]
        Its operations.
    caller : Caller
        Sends calls through the client's transport.
    groups_of : Mapping[str, list[str]]
        Operation id → every group offering it.
    description : str
        A one-line description of the tag.
    """

    def __init__(
        self,
        name: str,
        operations: tuple[Operation, ...],
        caller: Caller,
        groups_of: dict[str, list[str]],
        description: str = "",
    ) -> None:
        self._name = name
        self._operations = {op.python_name: op for op in operations}
        self._caller = caller
        self._groups_of = groups_of
        self.__doc__ = description or f"Operations tagged {name!r} in the API description."

    def __getattr__(self, name: str) -> Any:
        operation = self.__dict__.get("_operations", {}).get(name)
        if operation is None:
            raise AttributeError(self._missing(name))
        aliases = [g for g in self._groups_of[operation.operation_id] if g != self._name]
        method = build_method(operation, self._caller, self._name, aliases)
        setattr(self, name, method)
        return method

    def _missing(self, name: str) -> str:
        import difflib

        # Read from __dict__: on a half-built group, attribute lookups come back here.
        operations = self.__dict__.get("_operations", {})
        close = difflib.get_close_matches(name, list(operations), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        return f"client.api.{self.__dict__.get('_name', '?')} has no operation {name!r}{hint}"

    def __dir__(self) -> list[str]:
        return sorted(set(self._operations) | set(super().__dir__()))

    def __iter__(self) -> Iterator[str]:
        return iter(self._operations)

    def __len__(self) -> int:
        return len(self._operations)

    @property
    def operations(self) -> list[str]:
        """The names of the group's methods."""
        return list(self._operations)

    def _lines(self) -> list[tuple[str, str, str]]:
        lines = []
        for name, operation in self._operations.items():
            signature = short_signature(getattr(self, name))
            summary = operation.summary + (" (deprecated)" if operation.deprecated else "")
            if operation.streaming:
                summary += " (event stream: not supported)"
            lines.append((name, signature, summary))
        return lines

    @safe_display
    def __repr__(self) -> str:
        return f"<ApiGroup {self._name}: {', '.join(self._operations)}>"

    @safe_display
    def _repr_markdown_(self) -> str:
        head = f"**client.api.{self._name}** — {self.__doc__}"
        rows = [f"- `{name}{sig}`: {summary}" for name, sig, summary in self._lines()]
        return "\n".join([head, "", *rows])

    @safe_display
    def _repr_html_(self) -> str:
        rows = "".join(
            f"<tr><td style='text-align:left'><code>{escape(name + sig)}</code></td>"
            f"<td style='text-align:left'>{escape(summary)}</td></tr>"
            for name, sig, summary in self._lines()
        )
        return (
            f"<div><strong>client.api.{escape(self._name)}</strong> — {escape(self.__doc__ or '')}"
            f"<table>{rows}</table></div>"
        )


class ApiNamespace:
    """Every operation of the API description, one :class:`ApiGroup` per tag.

    Created by ``DocsClient.api`` on first use; the packaged description is read then.

    Parameters
    ----------
    transport : Transport
        The client's wire layer (shared with the hand-written groups).

    Examples
    --------
    >>> sites = client.api.sites.list_sites(organization_id=org_id)
    >>> site_id in set(sites.id)
    True
    """

    def __init__(self, transport: Transport) -> None:
        self._caller = Caller(transport)
        self._catalog = catalog()
        self._titles = _titles()
        self._groups_of = {
            op.operation_id: _groups_of(op) for ops in self._catalog.values() for op in ops
        }
        self._groups: dict[str, ApiGroup] = {}

    def __getattr__(self, name: str) -> ApiGroup:
        catalog_ = self.__dict__.get("_catalog", {})
        if name not in catalog_:
            import difflib

            close = difflib.get_close_matches(name, list(catalog_), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise AttributeError(f"client.api has no group {name!r}{hint}")
        group = ApiGroup(
            name, catalog_[name], self._caller, self._groups_of, self._titles.get(name, "")
        )
        setattr(self, name, group)
        return group

    def __dir__(self) -> list[str]:
        return sorted(set(self._catalog) | set(super().__dir__()))

    @property
    def groups(self) -> list[str]:
        """The group names (tags in snake_case), sorted."""
        return list(self._catalog)

    def operation(self, operation_id: str) -> Any:
        """The method of an operation, by its ``operationId`` or its snake_case name.

        Raises
        ------
        ValidationError
            No operation has that id.

        Examples
        --------
        >>> client.api.operation("listSites")  # doctest: +ELLIPSIS
        <function sites.list_sites at ...>
        """
        key = snake_case(operation_id)
        for operation_key, groups in self._groups_of.items():
            if snake_case(operation_key) == key:
                return getattr(getattr(self, groups[0]), key)
        raise ValidationError("operation_id", f"no operation is named {operation_id!r}")

    def operations(self) -> pd.DataFrame:
        """Every operation as a DataFrame: group, name, method, path, summary and flags.

        An operation with several tags has one row per group.
        """
        import pandas as pd

        rows = [
            {
                "group": name,
                "name": op.python_name,
                "operation_id": op.operation_id,
                "method": op.method,
                "path": op.path,
                "summary": op.summary,
                "returns": _returns(op),
                "deprecated": op.deprecated,
                "streaming": op.streaming,
            }
            for name, operations in self._catalog.items()
            for op in operations
        ]
        frame = pd.DataFrame(rows)
        for column in ("group", "name", "operation_id", "method", "path", "summary", "returns"):
            frame[column] = frame[column].astype("string[python]")
        for column in ("deprecated", "streaming"):
            frame[column] = frame[column].astype("boolean")
        return frame

    def find(self, text: str) -> pd.DataFrame:
        """The operations whose group, name, path or summary contains ``text`` (any case).

        Examples
        --------
        >>> found = client.api.find("insights")
        >>> "site_insights" in set(found.group)
        True
        """
        if not isinstance(text, str):
            raise ValidationError("text", f"must be a str to look for, got {type(text).__name__}")
        frame = self.operations()
        needle = text.lower()
        hay = frame["group"] + " " + frame["name"] + " " + frame["path"] + " " + frame["summary"]
        return frame[hay.str.lower().str.contains(needle, regex=False)].reset_index(drop=True)

    def __len__(self) -> int:
        return len({op.operation_id for ops in self._catalog.values() for op in ops})

    @safe_display
    def __repr__(self) -> str:
        return f"<ApiNamespace: {len(self)} operations in {len(self._catalog)} groups>"

    def _summary_lines(self) -> list[tuple[str, str, list[str]]]:
        return [
            (name, self._titles.get(name, ""), [op.python_name for op in ops])
            for name, ops in self._catalog.items()
        ]

    @safe_display
    def _repr_markdown_(self) -> str:
        lines = [f"**client.api** — {len(self)} operations in {len(self._catalog)} groups", ""]
        for name, _title, methods in self._summary_lines():
            lines.append(f"- `client.api.{name}` ({len(methods)}): {', '.join(methods)}")
        return "\n".join(lines)

    @safe_display
    def _repr_html_(self) -> str:
        rows = "".join(
            f"<tr><td style='text-align:left'><code>client.api.{escape(name)}</code></td>"
            f"<td style='text-align:left'>{escape(title)}</td>"
            f"<td style='text-align:left'>{escape(', '.join(methods))}</td></tr>"
            for name, title, methods in self._summary_lines()
        )
        return (
            f"<div><strong>client.api</strong> — {len(self)} operations in "
            f"{len(self._catalog)} groups<table><tr><th>group</th><th>about</th>"
            f"<th>operations</th></tr>{rows}</table></div>"
        )


def _returns(operation: Operation) -> str:
    if operation.streaming:
        return "event stream"
    if list_shape(operation.success_schema) is not None:
        return "DataFrame"
    return "ApiObject" if operation.success_schema is not None else "None"
