"""What every resource group shares: the transport, path building, rich displays."""

from __future__ import annotations

from types import EllipsisType
from typing import Any

from docsapi._http import Response, Transport, quote_segment
from docsapi._repr import method_listing, methods_html, methods_markdown

__all__ = ["PAGE_SIZE", "UNSET", "ResourceGroup", "api_path", "query_flag", "was_removed"]

#: Items asked per page when following a List endpoint.
PAGE_SIZE = 100

#: The default of optional update arguments: "leave this field as it is" (``None`` may mean
#: "remove" or "guest", so it cannot serve).
UNSET: EllipsisType = ...


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

    def _get(self, path: str, params: dict[str, Any] | None = None) -> Any:
        return self._transport.request("GET", path, params=params).data

    def _items(self, path: str, params: dict[str, Any] | None = None) -> list[Any]:
        return list(self._transport.paginate(path, params=params, limit=PAGE_SIZE))

    def __repr__(self) -> str:
        names = ", ".join(name for name, _, _ in method_listing(self))
        return f"<{type(self).__name__} {self._name}: {names}>"

    def _repr_markdown_(self) -> str:
        return methods_markdown(f"client.{self._name}", self, prefix=f"client.{self._name}.")

    def _repr_html_(self) -> str:
        return methods_html(f"client.{self._name}", self, prefix=f"client.{self._name}.")
