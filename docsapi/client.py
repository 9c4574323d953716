"""The documentation-platform client: :class:`DocsClient`."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from datetime import timedelta
from functools import cached_property
from typing import TYPE_CHECKING, Any, get_type_hints

from docsapi.core.checks import (
    check_api_path,
    check_base_url,
    check_headers,
    check_http_method,
    check_params,
    check_text,
)
from docsapi.core.clock import Clock
from docsapi.core.config import (
    DEFAULT_BASE_URL,
    DEFAULT_MAX_RATE_LIMIT_WAIT,
    DEFAULT_MAX_RETRIES,
    ReadBounds,
    RetryPolicy,
    Timeout,
)
from docsapi.core.reprs import (
    escape,
    method_listing,
    methods_html,
    methods_markdown,
    safe_display,
)
from docsapi.core.secret import Secret, describe_sources, find_credential
from docsapi.core.version import version
from docsapi.credentials.keyring_store import (
    DOCS_SERVICE,
    keyring_problem,
    read_stored,
    service_name,
)
from docsapi.errors import ValidationError
from docsapi.wire.client_base import BaseClient
from docsapi.wire.transport import Session

# The resource groups and models load with the first group used, so that
# `from docsapi import DocsClient` costs little more than `import requests`.
if TYPE_CHECKING:
    from docsapi.api import ApiNamespace
    from docsapi.models import ApiInformation
    from docsapi.resources import (
        ChangeRequests,
        Collections,
        Content,
        Git,
        Orgs,
        Permissions,
        Sites,
        Spaces,
        Users,
    )
    from docsapi.wire.cache import CacheSettings

__all__ = ["TOKEN_ENV_VAR", "TOKEN_SOURCES", "DocsClient", "find_token", "token_service"]

#: The environment variable read when no token is passed.
TOKEN_ENV_VAR = "GITBOOK_API_TOKEN"
#: Where :func:`find_token` looks for a token, in order.
TOKEN_SOURCES: tuple[str, ...] = (
    "the token= argument",
    f"the {TOKEN_ENV_VAR} environment variable",
    "the keyring (stored by `docsapi login` or docsapi.login())",
)


def token_service(base_url: str = DEFAULT_BASE_URL) -> str:
    """The keyring service holding the token for ``base_url``.

    Examples
    --------
    >>> token_service("http://127.0.0.1:8765/v1")
    'docsapi:http://127.0.0.1:8765/v1'
    """
    return service_name(DOCS_SERVICE, base_url)


def _missing_token(base_url: str) -> str:
    """The message of the error raised when no token was found: where, and what to do."""
    message = (
        f"No API token found: docsapi looked in {describe_sources(TOKEN_SOURCES)} (service "
        f"{token_service(base_url)!r}). Pass DocsClient(token='...'), set {TOKEN_ENV_VAR}, or "
        "run `docsapi login` (in a notebook: docsapi.login()), then create the client again."
    )
    problem = keyring_problem(TOKEN_ENV_VAR)
    return f"{message} {problem}" if problem else message


def find_token(token: str | None = None, *, base_url: str = DEFAULT_BASE_URL) -> Secret | None:
    """Look the API token up in :data:`TOKEN_SOURCES` order; None when none has one.

    Parameters
    ----------
    token : str, optional
        The token passed to the client; when None, the ``GITBOOK_API_TOKEN``
        environment variable is read (a blank value counts as unset), then the keyring
        entry of ``base_url`` (see :func:`token_service`).
    base_url : str
        The API's address, which names the keyring entry.

    Returns
    -------
    Secret or None
        Its ``source`` says where it was found: ``"argument"``, ``"GITBOOK_API_TOKEN"``
        or ``"keyring"``.

    Raises
    ------
    ValidationError
        A value that cannot be a token (not a string, blank, control characters, not
        Latin-1); the message never repeats it.

    Examples
    --------
    >>> find_token("gb_api_abc")
    Secret('********')
    """
    try:
        return find_credential(
            token,
            argument="token",
            env_var=TOKEN_ENV_VAR,
            stored=lambda: read_stored(token_service(base_url)),
            stored_name=f"the keyring ({token_service(base_url)!r})",
        )
    finally:
        token = None  # a refused token stays out of this frame's locals


def _return_type(function: Any) -> Any:
    """A function's resolved return annotation, or None when it cannot be resolved.

    Names of :mod:`docsapi.resources` resolve too (this module imports them on first use).
    """
    import docsapi.resources

    names = {**vars(docsapi.resources), **function.__globals__}
    try:
        return get_type_hints(function, globalns=names).get("return")
    except (NameError, TypeError):
        return None


def _resource_groups(cls: type[DocsClient]) -> tuple[tuple[str, str], ...]:
    """``(name, first docstring line)`` of each cached property of ``cls`` giving a group."""
    from docsapi.resources._base import ResourceGroup

    groups = []
    for klass in reversed(cls.__mro__):
        for name, member in vars(klass).items():
            if not isinstance(member, cached_property):
                continue
            returns = _return_type(member.func)
            if isinstance(returns, type) and issubclass(returns, ResourceGroup):
                doc = (member.__doc__ or "").strip().splitlines()
                groups.append((name, doc[0] if doc else ""))
    return tuple(groups)


class DocsClient(BaseClient):
    """A synchronous client of the documentation-platform API (GitBook API v1).

    Lists come back as pandas DataFrames, single resources as model objects.
    Each resource group (``client.spaces``, ``client.permissions``, …) is created on
    first use; evaluating the client in a notebook lists them with their methods.

    Parameters
    ----------
    token : str, optional
        The API token. Defaults to the ``GITBOOK_API_TOKEN`` environment variable, then
        to the token ``docsapi login`` stored in the keyring for ``base_url``; without
        any, the first request raises :class:`~docsapi.errors.MissingCredentialError`
        (nothing is sent). The repr says where the token came from, never what it is.
    base_url : str
        The API's address: any http(s) URL without credentials, query or fragment (the
        platform's ``https://api.gitbook.com/v1``, a gateway's prefix, or a server
        whose API sits at the root).
    timeout : float or (float, float) or Timeout
        Seconds to wait for the server (a number is the read timeout).
    max_retries : int
        How many times a failed request may be tried again.
    max_rate_limit_wait : float
        The longest wait, in seconds, for a rate limit to reset before giving up.
    session : requests.Session, optional
        A session to send requests with (e.g. one with proxies configured).
    headers : Mapping[str, str], optional
        Extra headers sent with every request (not ``Authorization``: pass ``token``).
    retry : RetryPolicy, optional
        A full retry policy (backoff, jitter, …); replaces ``max_retries`` and
        ``max_rate_limit_wait`` when given.
    clock : Clock, optional
        Where time is read and waited (``time()``, ``monotonic()``, ``sleep(s)``); tests
        pass a fake clock so retries and rate limits need no real waiting.
    cache : bool, str, os.PathLike, timedelta, float or CacheSettings, optional
        Keep answers to GET requests in an SQLite file so re-running a notebook re-uses
        them (off by default). True: ``~/.cache/docsapi/http-cache.sqlite``, fresh for an
        hour; a path: that file; a timedelta or seconds: that freshness; or a
        :class:`~docsapi.CacheSettings`. Writes through the client drop the answers they
        may change; ``client.cache`` shows and clears it. See :mod:`docsapi.wire.cache`.

    Raises
    ------
    ValidationError
        A setting of the wrong type or out of range, a ``base_url`` that is not an http(s)
        address, or a token that cannot be sent (never repeated in the message).

    Examples
    --------
    >>> import docsapi
    >>> docsapi.DocsClient(token="gb_api_...", base_url="https://api.example.com/v1")
    DocsClient(base_url='https://api.example.com/v1', token=from argument)
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
        clock: Clock | None = None,
        cache: bool | str | os.PathLike[str] | timedelta | float | CacheSettings | None = None,
    ) -> None:
        try:
            base_url = check_base_url(base_url)
            credential = find_token(token, base_url=base_url)
            extra_headers = check_headers(headers, reserved=("Authorization",))
        finally:
            token = headers = None  # this frame keeps no plain credential, whatever is raised
        #: Where the token came from ("argument", "GITBOOK_API_TOKEN", "keyring"), or None.
        self.token_source = credential.source if credential is not None else None
        self._connect(
            base_url,
            credential=credential,
            missing_credential="" if credential is not None else _missing_token(base_url),
            timeout=timeout,
            retry=retry,
            max_retries=max_retries,
            max_rate_limit_wait=max_rate_limit_wait,
            session=session,
            headers=extra_headers,
            clock=clock,
            user_agent=f"docsapi/{version()}",
            cache=cache,
        )

    # -- resource groups (created on first use) -------------------------------------------

    @cached_property
    def users(self) -> Users:
        """User accounts."""
        from docsapi.resources import Users

        return Users(self._transport)

    @cached_property
    def spaces(self) -> Spaces:
        """Spaces."""
        from docsapi.resources import Spaces

        return Spaces(self._transport)

    @cached_property
    def permissions(self) -> Permissions:
        """Who can access a space."""
        from docsapi.resources import Permissions

        return Permissions(self._transport)

    @cached_property
    def content(self) -> Content:
        """The published content of spaces."""
        from docsapi.resources import Content

        return Content(self._transport)

    @cached_property
    def git(self) -> Git:
        """Git synchronisation of spaces."""
        from docsapi.resources import Git

        return Git(self._transport)

    @cached_property
    def change_requests(self) -> ChangeRequests:
        """Change requests of spaces."""
        from docsapi.resources import ChangeRequests

        return ChangeRequests(self._transport)

    @cached_property
    def orgs(self) -> Orgs:
        """Organizations, their members, teams, invite links and audit log."""
        from docsapi.resources import Orgs

        return Orgs(self._transport)

    @cached_property
    def collections(self) -> Collections:
        """Collections of spaces and who can access them."""
        from docsapi.resources import Collections

        return Collections(self._transport)

    @cached_property
    def sites(self) -> Sites:
        """Published sites, their audience, share links and permissions."""
        from docsapi.resources import Sites

        return Sites(self._transport)

    @cached_property
    def api(self) -> ApiNamespace:
        """Every operation of the API description, one group per tag (``client.api.sites``)."""
        from docsapi.api import ApiNamespace

        return ApiNamespace(self._transport)

    # -- general ----------------------------------------------------------------------------

    def info(self) -> ApiInformation:
        """Return the API's release version and build date.

        Returns
        -------
        ApiInformation

        Raises
        ------
        MissingCredentialError
            No token was found (nothing was sent).
        AuthenticationError
            The token was refused.

        Examples
        --------
        >>> type(client.info().version).__name__
        'str'
        """
        from docsapi.models import ApiInformation
        from docsapi.resources._base import object_of

        return ApiInformation.from_api(object_of(self._transport.request("GET", "/")))

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
            URL-encodes path segments, once. It must stay under the base URL: full URLs,
            query strings and empty segments are refused, and each segment, decoded, must
            be an id by the rule every method applies (:func:`~docsapi.core.checks.check_id`:
            no dot segment, also encoded or normalised like ``%2e%2e`` or ``‥``, no encoded
            ``/``, ``;`` or ``%``), except a page path where the API takes one.
        params : Mapping, optional
            Query parameters (str, numbers, bools or lists of them; None is left out).
        json : Any, optional
            The JSON body.

        Returns
        -------
        Any
            The parsed JSON answer, or None.

        Raises
        ------
        ValidationError
            An unknown method, a path leaving the base URL, bad params or a body that is
            not JSON; nothing was sent.
        APIStatusError
            The server answered with an error status.

        Examples
        --------
        >>> client.request("GET", f"/orgs/{org_id}/members/{admin_id}")["role"]
        'admin'
        """
        verb = check_http_method(method)
        return self._transport.request(verb, self._path(path), params=params, json=json).data

    def paginate(
        self,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        bounds: ReadBounds | None = None,
    ) -> Iterator[Any]:
        """Iterate over every item of any List endpoint, fetching pages as needed.

        An item with an ``id`` is yielded once even if a page repeats it (a list that
        changes while it is read shifts the server's pages). An item added or removed
        meanwhile may be missing or present; list again for an exact snapshot.

        Parameters
        ----------
        path : str
            A List endpoint under the base URL, e.g. ``"/orgs/org_1/members"``, checked
            as :meth:`request` checks its path.
        params : Mapping, optional
            Query parameters sent with every page.
        bounds : ReadBounds, optional
            How many pages and items, and how long, the read may go on before it stops
            with :class:`~docsapi.errors.ReadBoundError` (default: ``ReadBounds()``, which
            covers the documented scale): a server that sends a fresh cursor forever is
            not read forever.

        Returns
        -------
        Iterator
            The items, one by one (JSON objects).

        Raises
        ------
        ValidationError
            A path leaving the base URL or bad params; nothing was sent.
        ResponseFormatError
            An answer that is not a list envelope ``{"items": [...]}``.
        PaginationError
            The server repeated a page cursor.
        ReadBoundError
            The read reached one of ``bounds`` and the server still sent a next page.

        Examples
        --------
        >>> members = client.paginate(f"/orgs/{org_id}/members")
        >>> sum(1 for _ in members) == len(client.orgs.members(org_id))
        True
        """
        path = self._path(path)
        query = check_params(params)  # checked now, not when the first page is read
        if bounds is not None and not isinstance(bounds, ReadBounds):
            raise ValidationError(
                "bounds", f"must be a docsapi.ReadBounds, got {type(bounds).__name__}"
            )
        return self._transport.paginate(path, params=query, key=("id",), bounds=bounds)

    @staticmethod
    def _path(path: Any) -> str:
        """Check a raw path: each segment one id (:func:`~docsapi.core.checks.check_id`),
        except where an operation of the description takes a page path."""
        check_text(path, "path", min_length=1)
        path = path if path.startswith("/") else "/" + path
        try:
            return check_api_path(path, page_paths=())
        except ValidationError:
            from docsapi.api import page_path_segments  # the description, read only now

            pages = page_path_segments(path)
            if not pages:
                raise
        return check_api_path(path, page_paths=pages)

    # -- displays ---------------------------------------------------------------------------

    @safe_display
    def __repr__(self) -> str:
        token = f"from {self.token_source}" if self.token_source else "missing"
        cache = f", cache={str(self.cache.path)!r}" if self.cache is not None else ""
        return f"DocsClient(base_url={self.base_url!r}, token={token}{cache})"

    def _group_lines(self) -> list[tuple[str, str]]:
        """``(name, description)`` per resource group, its methods listed by introspection."""
        lines = []
        for name, doc in _resource_groups(type(self)):
            methods = ", ".join(method for method, _, _ in method_listing(getattr(self, name)))
            lines.append((name, f"{doc.rstrip('.')}: {methods}"))
        return lines

    @safe_display
    def _repr_markdown_(self) -> str:
        groups = "\n".join(f"- `client.{name}`: {doc}" for name, doc in self._group_lines())
        methods = methods_markdown("Methods", self, prefix="client.")
        return f"`{self!r}`\n\nResource groups:\n\n{groups}\n\n{methods}"

    @safe_display
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
