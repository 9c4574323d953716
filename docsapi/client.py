"""The documentation-platform client: :class:`DocsClient`."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from functools import cached_property
from html import escape
from typing import TYPE_CHECKING, Any

from docsapi import __version__
from docsapi._config import (
    DEFAULT_BASE_URL,
    DEFAULT_MAX_RATE_LIMIT_WAIT,
    DEFAULT_MAX_RETRIES,
    RetryPolicy,
    Timeout,
)
from docsapi._http import Session, Transport
from docsapi._repr import methods_html, methods_markdown
from docsapi._secret import Secret
from docsapi._validate import check_text
from docsapi.errors import ValidationError
from docsapi.models import ApiInformation
from docsapi.resources import ChangeRequests, Content, Git, Orgs, Permissions, Spaces, Users

if TYPE_CHECKING:
    from docsapi.api import ApiNamespace

__all__ = ["TOKEN_ENV_VAR", "DocsClient"]

#: The environment variable read when no token is passed.
TOKEN_ENV_VAR = "GITBOOK_API_TOKEN"

_MISSING_TOKEN = (
    "No API token was given. Pass DocsClient(token='...') or set the "
    f"{TOKEN_ENV_VAR} environment variable, then create the client again."
)
_METHODS = frozenset({"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"})
_GROUPS = ("users", "spaces", "permissions", "content", "git", "change_requests", "orgs")


def _credential(token: str | None) -> Secret | None:
    if token is None:
        token = os.environ.get(TOKEN_ENV_VAR) or None
        if token is None or not token.strip():
            return None
    if not isinstance(token, str):
        raise TypeError(f"token must be a str, got {type(token).__name__}")
    if not token.strip():
        raise ValidationError("token", f"must not be empty; pass a token or set {TOKEN_ENV_VAR}")
    return Secret(token)


class DocsClient:
    """A synchronous client of the documentation-platform API (GitBook API v1).

    Lists come back as pandas DataFrames, single resources as model objects.
    Resource groups: ``users``, ``spaces``, ``permissions``, ``content``, ``git``,
    ``change_requests``, ``orgs``.

    Parameters
    ----------
    token : str, optional
        The API token. Defaults to the ``GITBOOK_API_TOKEN`` environment variable;
        without either, the first request raises :class:`~docsapi.errors.AuthenticationError`.
    base_url : str
        The API's address, ending in ``/v1``.
    timeout : float or (float, float) or Timeout
        Seconds to wait for the server (a number is the read timeout).
    max_retries : int
        How many times a failed request may be tried again.
    max_rate_limit_wait : float
        The longest wait, in seconds, for a rate limit to reset before giving up.
    session : requests.Session, optional
        A session to send requests with (e.g. one with proxies configured).
    headers : Mapping[str, str], optional
        Extra headers sent with every request.
    retry : RetryPolicy, optional
        A full retry policy (backoff, jitter, …); replaces ``max_retries`` and
        ``max_rate_limit_wait`` when given.

    Examples
    --------
    >>> import docsapi
    >>> with docsapi.DocsClient(token="gb_api_...") as client:  # doctest: +SKIP
    ...     spaces = client.spaces.list(org_id="org_1")
    """

    def __init__(
        self,
        token: str | None = None,
        base_url: str = DEFAULT_BASE_URL,
        timeout: float | tuple[float, float] | Timeout = 30.0,
        max_retries: int = DEFAULT_MAX_RETRIES,
        max_rate_limit_wait: float = DEFAULT_MAX_RATE_LIMIT_WAIT,
        session: Session | None = None,
        headers: Mapping[str, str] | None = None,
        *,
        retry: RetryPolicy | None = None,
    ) -> None:
        credential = _credential(token)
        if retry is None:
            retry = RetryPolicy(max_retries=max_retries, max_rate_limit_wait=max_rate_limit_wait)
        elif not isinstance(retry, RetryPolicy):
            raise TypeError(f"retry must be a RetryPolicy, got {type(retry).__name__}")
        self._has_token = credential is not None
        self._transport = Transport(
            base_url,
            credential=credential,
            timeout=Timeout.coerce(timeout),
            retry=retry,
            session=session,
            headers=headers,
            missing_credential=_MISSING_TOKEN,
            user_agent=f"docsapi/{__version__}",
        )

    # -- resource groups (created on first use) -------------------------------------------

    @cached_property
    def users(self) -> Users:
        """User accounts: me, get, update, notifications_token."""
        return Users(self._transport)

    @cached_property
    def spaces(self) -> Spaces:
        """Spaces: get, list, update, delete, duplicate, restore, move, embed, search."""
        return Spaces(self._transport)

    @cached_property
    def permissions(self) -> Permissions:
        """Space access: users, teams, invite, set_user_role, set_team_role, remove_*."""
        return Permissions(self._transport)

    @cached_property
    def content(self) -> Content:
        """Space content: revision, pages, files, page, page_by_path, templates, …"""
        return Content(self._transport)

    @cached_property
    def git(self) -> Git:
        """Git sync: import_repo, export_repo, info."""
        return Git(self._transport)

    @cached_property
    def change_requests(self) -> ChangeRequests:
        """Change requests: create, list."""
        return ChangeRequests(self._transport)

    @cached_property
    def orgs(self) -> Orgs:
        """Organizations: list, get, members, teams, team, team_members."""
        return Orgs(self._transport)

    @cached_property
    def api(self) -> ApiNamespace:
        """Every operation of the API description, one group per tag (``client.api.sites``)."""
        from docsapi.api import ApiNamespace

        return ApiNamespace(self._transport)

    # -- general ----------------------------------------------------------------------------

    @property
    def transport(self) -> Transport:
        """The wire layer: request counts, ``history`` of attempts, retry settings."""
        return self._transport

    @property
    def base_url(self) -> str:
        """The API's address."""
        return self._transport.base_url

    def info(self) -> ApiInformation:
        """Return the API's release version and build date.

        Returns
        -------
        ApiInformation

        Raises
        ------
        AuthenticationError
            No token, or the token was refused.

        Examples
        --------
        >>> client.info().version  # doctest: +SKIP
        '10.9.1050'
        """
        return ApiInformation.from_api(self._transport.request("GET", "/").data)

    def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        json: Any = None,
    ) -> Any:
        """Call any endpoint of the API and return its decoded JSON (None for an empty body).

        Parameters
        ----------
        method : str
            The HTTP method, e.g. ``"GET"``.
        path : str
            The path under the base URL, e.g. ``"/orgs/org_1/members/u_1"``; the caller
            URL-encodes path segments (see :func:`docsapi._http.quote_segment`).
        params : Mapping, optional
            Query parameters.
        json : Any, optional
            The JSON body.

        Returns
        -------
        Any
            The parsed JSON answer, or None.

        Raises
        ------
        ValidationError
            An unknown method, or a full URL instead of a path.
        APIStatusError
            The server answered with an error status.

        Examples
        --------
        >>> client.request("GET", "/orgs/org_1/members/u_1")["role"]  # doctest: +SKIP
        'admin'
        """
        return self._transport.request(
            self._method(method), self._path(path), params=params, json=json
        ).data

    def paginate(self, path: str, *, params: Mapping[str, Any] | None = None) -> Iterator[Any]:
        """Iterate over every item of any List endpoint, fetching pages as needed.

        Parameters
        ----------
        path : str
            A List endpoint under the base URL, e.g. ``"/orgs/org_1/members"``.
        params : Mapping, optional
            Query parameters sent with every page.

        Returns
        -------
        Iterator
            The items, one by one (JSON objects).

        Raises
        ------
        PaginationError
            The server repeated a page cursor.

        Examples
        --------
        >>> sum(1 for _ in client.paginate("/orgs/org_1/members"))  # doctest: +SKIP
        60
        """
        return self._transport.paginate(self._path(path), params=params)

    def close(self) -> None:
        """Close the client's pooled connections."""
        self._transport.close()

    def __enter__(self) -> DocsClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @staticmethod
    def _method(method: Any) -> str:
        verb = check_text(method, "method", min_length=1).upper()
        if verb not in _METHODS:
            raise ValidationError("method", f"must be one of {', '.join(sorted(_METHODS))}")
        return verb

    @staticmethod
    def _path(path: Any) -> str:
        check_text(path, "path", min_length=1)
        if "://" in path or path.startswith("//"):
            raise ValidationError(
                "path", "must be a path under base_url such as '/orgs/org_1', not a full URL"
            )
        return path if path.startswith("/") else "/" + path

    # -- displays ---------------------------------------------------------------------------

    def __repr__(self) -> str:
        token = "set" if self._has_token else "missing"
        return f"DocsClient(base_url={self.base_url!r}, token={token})"

    def _group_lines(self) -> list[tuple[str, str]]:
        return [(name, getattr(type(self), name).__doc__ or "") for name in _GROUPS]

    def _repr_markdown_(self) -> str:
        groups = "\n".join(f"- `client.{name}`: {doc}" for name, doc in self._group_lines())
        methods = methods_markdown("Methods", self, prefix="client.")
        return f"`{self!r}`\n\nResource groups:\n\n{groups}\n\n{methods}"

    def _repr_html_(self) -> str:
        rows = "".join(
            f"<tr><td style='text-align:left'><code>client.{name}</code></td>"
            f"<td style='text-align:left'>{escape(doc)}</td></tr>"
            for name, doc in self._group_lines()
        )
        return (
            f"<div><strong>{escape(repr(self))}</strong><table>{rows}</table></div>"
            + methods_html("Methods", self, prefix="client.")
        )
