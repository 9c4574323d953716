"""What every resource group shares: the transport, path building, rich displays."""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Final, Literal

from docsapi.core.checks import check_entity_id, require_any
from docsapi.core.reprs import method_listing, methods_html, methods_markdown, safe_display
from docsapi.errors import ResponseFormatError, ValidationError
from docsapi.wire.transport import Response, Transport, quote_segment

__all__ = [
    "NOT_GIVEN",
    "PAGE_SIZE",
    "NotGiven",
    "ResourceGroup",
    "api_path",
    "move_body",
    "object_of",
    "query_flag",
    "was_removed",
]

#: Items asked per page when following a List endpoint.
PAGE_SIZE = 100


class NotGiven(enum.Enum):
    """The type of :data:`NOT_GIVEN`, so signatures can say ``str | NotGiven``."""

    NOT_GIVEN = "NOT_GIVEN"

    def __repr__(self) -> str:
        return "NOT_GIVEN"

    def __bool__(self) -> Literal[False]:
        return False


#: The default of optional update arguments: "leave this field as it is" (``None`` may mean
#: "remove" or "guest", so it cannot serve).
#:
#: >>> NOT_GIVEN
#: NOT_GIVEN
NOT_GIVEN: Final = NotGiven.NOT_GIVEN


def api_path(*segments: str) -> str:
    """Join path segments under the base URL, URL-encoding each one (slashes included).

    Examples
    --------
    >>> api_path("spaces", "sp 1", "content")
    '/spaces/sp%201/content'
    """
    return "".join("/" + quote_segment(segment) for segment in segments)


def query_flag(value: bool | str | None) -> str | None:
    """A query parameter value: booleans as ``"true"``/``"false"``, other values unchanged."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return value


def was_removed(response: Response) -> bool:
    """True when a delete or remove answered 205 (removed now), False for 204 (was absent)."""
    return response.status == 205


_POINTER_KINDS = ("space", "collection")


def _pointer(value: Any, argument: str) -> dict[str, str]:
    """A ``SpacePointer``/``CollectionPointer`` from an id (a space) or a pointer dict."""
    if isinstance(value, str):
        return {"type": "space", "space": check_entity_id(value, argument)}
    if isinstance(value, Mapping):
        for kind in _POINTER_KINDS:
            if kind in value:
                return {"type": kind, kind: check_entity_id(value[kind], f"{argument}.{kind}")}
    raise ValidationError(
        argument,
        "must be a space id, {'space': id} or {'collection': id}; got " + type(value).__name__,
    )


def _position(position: Any) -> dict[str, Any]:
    """Build a ``ContentPosition`` from ``{"before": ...}`` or ``{"after": ...}``."""
    if not isinstance(position, Mapping):
        raise ValidationError(
            "position",
            f"must be a dict like {{'before': space_id}}, got {type(position).__name__}",
        )
    keys = set(position)
    if len(keys) != 1 or not keys <= {"before", "after"}:
        raise ValidationError(
            "position", "must have exactly one key, 'before' or 'after', e.g. {'after': space_id}"
        )
    (side,) = keys
    return {side: _pointer(position[side], f"position.{side}")}


def move_body(parent: Any = NOT_GIVEN, position: Any = NOT_GIVEN) -> dict[str, Any]:
    """The body of a move (of a space or a collection): a new parent and/or a position.

    Parameters
    ----------
    parent : str or None, optional
        The collection to move into; ``None``: the top level.
    position : dict, optional
        ``{"before": pointer}`` or ``{"after": pointer}``, a pointer being a space id,
        ``{"space": id}`` or ``{"collection": id}``.

    Raises
    ------
    ValidationError
        Neither given, a malformed parent id or position.

    Examples
    --------
    >>> move_body(parent=None)
    {'parent': None}
    >>> move_body(position={"after": {"collection": "c1"}})
    {'position': {'after': {'type': 'collection', 'collection': 'c1'}}}
    """
    require_any(
        {"parent": parent, "position": position}, "give parent, position or both", missing=NOT_GIVEN
    )
    body: dict[str, Any] = {}
    if parent is not NOT_GIVEN:
        body["parent"] = None if parent is None else check_entity_id(parent, "parent")
    if position is not NOT_GIVEN:
        body["position"] = _position(position)
    return body


class ResourceGroup:
    """Base of the resource groups: holds the client's transport.

    Parameters
    ----------
    transport : Transport
        The wire layer shared by every group of one client.
    """

    #: The attribute under which the client exposes the group, e.g. ``"spaces"``.
    _name = ""

    def __init__(self, transport: Transport) -> None:
        self._transport = transport

    def _object(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        json: Any = None,
    ) -> dict[str, Any]:
        """Send a request whose answer must be a JSON object, and return that object.

        Raises
        ------
        ResponseFormatError
            The answer is empty, an array or anything else than an object.
        """
        response = self._transport.request(method, path, params=params, json=json)
        return object_of(response)

    def _get(self, path: str, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
        return self._object("GET", path, params=params)

    def _items(
        self,
        path: str,
        params: Mapping[str, Any] | None = None,
        *,
        key: tuple[str, ...] = ("id",),
        limit: int = PAGE_SIZE,
        counted: Callable[[int], object] | None = None,
    ) -> list[dict[str, Any]]:
        """Every item of a List endpoint, each a JSON object, each id once.

        ``key`` says where an item's id is (``("user", "id")`` for a member): a server
        whose pages shift while the list changes may repeat an item, which is kept once.
        ``counted`` is called with 1 for each item (a progress bar's ``update``).

        Raises
        ------
        ResponseFormatError
            An answer that is not a list envelope, or an item that is not an object.
        """
        # Read whole before looking: a read that fails half-way (the server may have echoed
        # anything as an id) leaves none of its items in this frame's locals.
        pages = self._transport.paginate(path, params=params, limit=limit, key=key)
        items = list(pages if counted is None else _counting(pages, counted))
        kinds = {type(item).__name__ for item in items if not isinstance(item, dict)}
        if kinds:
            raise ResponseFormatError(
                f"GET {path}: a list item is {', '.join(sorted(kinds))}, not a JSON object"
            )
        return items

    @safe_display
    def __repr__(self) -> str:
        names = ", ".join(name for name, _, _ in method_listing(self))
        return f"<{type(self).__name__} {self._name}: {names}>"

    @safe_display
    def _repr_markdown_(self) -> str:
        return methods_markdown(f"client.{self._name}", self, prefix=f"client.{self._name}.")

    @safe_display
    def _repr_html_(self) -> str:
        return methods_html(f"client.{self._name}", self, prefix=f"client.{self._name}.")


def object_of(response: Response) -> dict[str, Any]:
    """The body of an answer that must be a JSON object.

    Raises
    ------
    ResponseFormatError
        The body is empty, an array, or anything else than an object.
    """
    data = response.data
    if not isinstance(data, dict):
        kind = "an empty body" if data is None else f"JSON {type(data).__name__}"
        raise ResponseFormatError(
            f"{response.method} {response.path}: expected a JSON object, got {kind} "
            f"(status {response.status}). Is base_url the API's address (e.g. https://api.gitbook.com/v1)?",
            status=response.status,
        )
    return data


def _counting(items: Iterator[Any], counted: Callable[[int], object]) -> Iterator[Any]:
    """``items``, calling ``counted(1)`` for each; holding none of them once it is passed on
    (a read failing half-way leaves no item in this frame's locals either)."""
    for item in items:
        counted(1)
        yield item
        item = None
