"""The ad-network client: affiliates as a DataFrame, and CRUD on any collection."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from docsapi.adnetwork import frames
from docsapi.adnetwork._checks import (
    check_changes,
    check_network,
    check_record_id,
    check_resource,
    check_scheme,
)
from docsapi.adnetwork.errors import make_error_parser
from docsapi.core.checks import check_headers, check_limit, check_text
from docsapi.core.clock import Clock
from docsapi.core.config import (
    DEFAULT_MAX_RATE_LIMIT_WAIT,
    DEFAULT_MAX_RETRIES,
    RetryPolicy,
    Timeout,
)
from docsapi.core.reprs import methods_html, methods_markdown, safe_display
from docsapi.core.secret import Secret, describe_sources, find_credential
from docsapi.core.version import version
from docsapi.credentials.keyring_store import (
    ADNETWORK_SERVICE,
    keyring_problem,
    read_stored,
    service_name,
)
from docsapi.errors import PaginationError, ResponseFormatError, ValidationError
from docsapi.wire.client_base import BaseClient
from docsapi.wire.transport import SeenDigests, Session, quote_segment

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "API_KEY_ENV",
    "API_KEY_SOURCES",
    "MAX_PAGE_SIZE",
    "AdNetworkClient",
    "api_key_service",
    "find_api_key",
]

#: The environment variable read when no ``api_key`` is passed.
API_KEY_ENV = "ADNETWORK_API_KEY"
#: Where :func:`find_api_key` looks for a key, in order.
API_KEY_SOURCES: tuple[str, ...] = (
    "the api_key= argument",
    f"the {API_KEY_ENV} environment variable",
    "the keyring (stored by `docsapi login --adnetwork NETWORK`)",
)
#: The largest page the API serves.
MAX_PAGE_SIZE = 100

Record = dict[str, Any]


def api_key_service(network: str, scheme: str = "https") -> str:
    """The keyring service holding the API key of ``network``.

    Examples
    --------
    >>> api_key_service("demo.example.com")
    'docsapi-adnetwork:https://demo.example.com/api'
    """
    return service_name(ADNETWORK_SERVICE, f"{scheme}://{network}/api")


def find_api_key(
    api_key: str | None = None, *, network: str | None = None, scheme: str = "https"
) -> Secret | None:
    """Look the API key up in :data:`API_KEY_SOURCES` order; None when none has one.

    Parameters
    ----------
    api_key : str, optional
        The key passed to the client; when None, ``ADNETWORK_API_KEY`` is read (blank
        counts as unset), then the keyring entry of the network (when ``network`` is given).
    network : str, optional
        The network's host (and port), which names the keyring entry.
    scheme : str
        How the network is reached ("https" or "http"), also part of the entry's name.

    Returns
    -------
    Secret or None
        Its ``source`` says where it was found: ``"argument"``, ``"ADNETWORK_API_KEY"``
        or ``"keyring"``.

    Raises
    ------
    ValidationError
        A value that cannot be a key (never repeated in the message).

    Examples
    --------
    >>> find_api_key("k-123")
    Secret('********')
    """
    service = api_key_service(network, scheme) if network is not None else None
    try:
        return find_credential(
            api_key,
            argument="api_key",
            env_var=API_KEY_ENV,
            stored=(lambda: read_stored(service)) if service is not None else None,
            stored_name=f"the keyring ({service!r})",
        )
    finally:
        api_key = None  # a refused key stays out of this frame's locals


class AdNetworkClient(BaseClient):
    """A client of one ad network's management API (``{scheme}://{network}/api``).

    Parameters
    ----------
    network : str
        The network's host, with an optional port: ``"demo.example.com"``. No scheme, no path.
    api_key : str, optional
        The API key from the network's admin settings (``/admin/settings.html``); defaults to
        the environment variable ``ADNETWORK_API_KEY``, then to the key
        ``docsapi login --adnetwork NETWORK`` stored in the keyring for this network. Without
        any, the first call raises :class:`~docsapi.errors.MissingCredentialError` saying how
        to pass one (nothing is sent). The repr says where the key came from, never what it is.
    scheme : {"https", "http"}
        How to reach the network.
    timeout : float or (float, float) or Timeout
        Seconds to wait for the server (a number is the read timeout).
    max_retries : int
        How many times a failed request is tried again (when it is safe to).
    max_rate_limit_wait : float
        The longest wait, in seconds, for a rate limit to reset.
    retry : RetryPolicy, optional
        The whole retry policy; when given, ``max_retries`` and ``max_rate_limit_wait`` are
        ignored.
    session : requests.Session, optional
        A session to send requests with (proxies, certificates).
    headers : Mapping[str, str], optional
        Extra headers sent with every request (not ``X-Api-Key``: pass ``api_key``).
    clock : Clock, optional
        Where time is read and waited; tests pass a fake clock.

    Raises
    ------
    ValidationError
        If a setting is malformed, e.g. ``network``, ``scheme`` or ``api_key`` (a key is
        never repeated in the message).

    Examples
    --------
    >>> client = AdNetworkClient("demo.example.com", api_key="k-123")
    >>> client
    AdNetworkClient(network='demo.example.com', scheme='https', api_key=from argument)
    >>> client.base_url
    'https://demo.example.com/api'
    """

    def __init__(
        self,
        network: str,
        api_key: str | None = None,
        *,
        scheme: str = "https",
        timeout: float | tuple[float, float] | Timeout | None = 30.0,
        max_retries: int = DEFAULT_MAX_RETRIES,
        max_rate_limit_wait: float = DEFAULT_MAX_RATE_LIMIT_WAIT,
        retry: RetryPolicy | None = None,
        session: Session | None = None,
        headers: Mapping[str, str] | None = None,
        clock: Clock | None = None,
    ) -> None:
        try:
            self.network = check_network(network)
            self.scheme = check_scheme(scheme)
            credential = find_api_key(api_key, network=self.network, scheme=self.scheme)
            extra_headers = check_headers(headers, reserved=("X-Api-Key",))
        finally:
            api_key = headers = None  # this frame keeps no plain credential, whatever is raised
        #: Where keys are generated and the IP whitelist is kept.
        self.settings_url = f"{self.scheme}://{self.network}/admin/settings.html"
        #: Where the key came from ("argument", "ADNETWORK_API_KEY", "keyring"), or None.
        self.api_key_source = credential.source if credential is not None else None
        self._connect(
            f"{self.scheme}://{self.network}/api",
            credential=credential,
            missing_credential="" if credential is not None else self._missing_key(),
            timeout=timeout,
            retry=retry,
            max_retries=max_retries,
            max_rate_limit_wait=max_rate_limit_wait,
            session=session,
            headers={"Cache-Control": "no-cache", **extra_headers},
            clock=clock,
            user_agent=f"docsapi/{version()}",
            auth_header="X-Api-Key",
            auth_prefix="",
            error_parser=make_error_parser(self.settings_url),
        )

    # -- display ------------------------------------------------------------------------------

    def _missing_key(self) -> str:
        """The message of the error raised when no key was found: where, and what to do."""
        message = (
            f"No API key found: docsapi looked in {describe_sources(API_KEY_SOURCES)} "
            f"(service {api_key_service(self.network, self.scheme)!r}). Pass api_key=... to "
            f"AdNetworkClient, set {API_KEY_ENV} or run `docsapi login --adnetwork "
            f"{self.network}`; generate a key in the network's admin settings "
            f"({self.settings_url})."
        )
        problem = keyring_problem(API_KEY_ENV)
        return f"{message} {problem}" if problem else message

    @safe_display
    def __repr__(self) -> str:
        has = f"from {self.api_key_source}" if self.api_key_source else "missing"
        return f"AdNetworkClient(network={self.network!r}, scheme={self.scheme!r}, api_key={has})"

    @safe_display
    def _repr_markdown_(self) -> str:
        return methods_markdown(f"AdNetworkClient for {self.base_url}", self, prefix=".")

    @safe_display
    def _repr_html_(self) -> str:
        return methods_html(f"AdNetworkClient for {self.base_url}", self, prefix=".")

    # -- lists ------------------------------------------------------------------------------

    def affiliates(self, *, page_size: int = MAX_PAGE_SIZE, **filters: Any) -> pd.DataFrame:
        """Every affiliate of the network (all pages) as a DataFrame.

        Parameters
        ----------
        page_size : int
            Affiliates per request, 1 to 100.
        **filters
            Column = value filters sent as ``filters[column]=value``, e.g.
            ``status="active"``, ``country="FR"``, ``manager_id=3``; a list or tuple of
            values matches any of them.

        Returns
        -------
        pandas.DataFrame
            One row per affiliate; every field the API returns, nested ones flattened
            (``manager_id``, ``manager_name``), snake_case names, ids first, typed columns
            (numbers numeric, timestamps tz-aware UTC).

        Raises
        ------
        ValidationError
            If ``page_size`` is out of range.
        AdNetworkError
            If the API refuses the request (a subclass per application code).

        Examples
        --------
        >>> active = ads.affiliates(status="active")
        >>> set(active.status)
        {'active'}
        >>> per_country = active.groupby("country").size()
        """
        # Read whole first: a read that fails half-way leaves no record in a frame's locals.
        return frames.affiliates(list(self.paginate("affiliate", page_size=page_size, **filters)))

    def paginate(
        self, resource: str, *, page_size: int = MAX_PAGE_SIZE, **filters: Any
    ) -> Iterator[Record]:
        """Every record of a collection, page after page.

        Parameters
        ----------
        resource : str
            The collection, e.g. ``"affiliate"``.
        page_size : int
            Records per request, 1 to 100.
        **filters
            As in :meth:`affiliates`.

        Returns
        -------
        Iterator[dict]
            The records, as the API sends them; pages are read as it is consumed.

        Raises
        ------
        ValidationError
            A bad resource, page size or filter (raised at once, before any request).
        PaginationError
            If the server answers another page than the one asked for.
        ResponseFormatError
            If an answer is not a list (``data.rowset``) of objects.

        Notes
        -----
        Pages are read by offset: when records are added or removed while reading, a
        record may be served twice (it is yielded once, by id) or skipped; read again for
        an exact snapshot.

        Examples
        --------
        >>> first = next(ads.paginate("affiliate", status="paused"))
        >>> first["status"]
        'paused'
        """
        path = "/" + check_resource(resource)
        query = {
            **_filter_params(filters),
            "limit": check_limit(page_size, "page_size", maximum=MAX_PAGE_SIZE),
        }
        return self._pages(resource, path, query)

    def _pages(self, resource: str, path: str, query: dict[str, Any]) -> Iterator[Record]:
        page = 1
        seen = SeenDigests()  # digests only: a server may echo anything as a row's id
        while True:
            data = self._data("GET", path, params={**query, "offset": page})
            rows = data.get("rowset") if isinstance(data, Mapping) else None
            if not isinstance(rows, list):
                raise ResponseFormatError(
                    f"GET {path} did not answer a list (data.rowset); is {resource!r} a collection?"
                )
            served = data.get("offset")
            if served is not None and str(served) != str(page):
                data = rows = None  # what the server sent stays out of this frame
                raise PaginationError(
                    f"GET {path} answered page {_shown_page(served)} when page {page} was asked "
                    "for; stopped to avoid reading rows twice or forever. Try again later."
                )
            yield from _unseen_rows(rows, path, seen)
            total_pages = data.get("totalPages")
            if not rows or not isinstance(total_pages, int) or page >= total_pages:
                return
            page += 1

    # -- single resources ---------------------------------------------------------------------

    def get(
        self, resource: str, id: int | str | None = None, params: Mapping[str, Any] | None = None
    ) -> Any:
        """Read one resource, or one page of a collection when ``id`` is None.

        Parameters
        ----------
        resource : str
            The collection, e.g. ``"affiliate"``.
        id : int or str, optional
            The resource's id.
        params : Mapping, optional
            Query parameters, e.g. ``{"offset": 2, "limit": 50, "filters[status]": "active"}``.

        Returns
        -------
        dict
            The answer's ``data``: the resource, or a page (``rowset``, ``totalRows``,
            ``totalPages``, ``offset``, ``limit``).

        Raises
        ------
        ResourceNotFoundError
            If no resource has this id.

        Examples
        --------
        >>> ads.get("affiliate", 1001)["id"]
        1001
        """
        path = "/" + check_resource(resource) if id is None else self._path(resource, id)
        return self._data("GET", path, params=params)

    def create(self, resource: str, data: Mapping[str, Any]) -> Record:
        """Create a resource in a collection (POST).

        Parameters
        ----------
        resource : str
            The collection, e.g. ``"affiliate"``.
        data : Mapping
            The new resource's fields.

        Returns
        -------
        dict
            The created resource, with its id.

        Raises
        ------
        ParameterError
            If a required field is missing or a value is invalid.
        DuplicatedResourceError
            If a resource with the same unique field (email) exists.

        Examples
        --------
        >>> new = {"name": "Ada", "email": "ada@example.com"}
        >>> ads.create("affiliate", new)["email"]
        'ada@example.com'
        """
        body = _check_body(data, "data")
        return self._data("POST", "/" + check_resource(resource), json=body)

    def replace(self, resource: str, id: int | str, data: Mapping[str, Any]) -> Record:
        """Replace a resource with ``data`` (PUT); fields left out go back to their defaults.

        Parameters
        ----------
        resource : str
            The collection, e.g. ``"affiliate"``.
        id : int or str
            The resource's id.
        data : Mapping
            The complete new resource.

        Returns
        -------
        dict
            The resource as stored.

        Raises
        ------
        IllegalOperationError
            If ``data`` changes a read-only field such as ``id``.

        Examples
        --------
        >>> record = ads.get("affiliate", 1001)
        >>> ads.replace("affiliate", 1001, {**record, "company": "Acme"})["company"]
        'Acme'
        """
        body = _check_body(data, "data")
        return self._data("PUT", self._path(resource, id), json=body)

    def update(
        self,
        resource: str,
        id: int | str,
        changes: Mapping[str, Any],
        *,
        current: Mapping[str, Any] | None = None,
    ) -> Record:
        """Change some fields of a resource (PATCH), sending only what changed.

        Parameters
        ----------
        resource : str
            The collection, e.g. ``"affiliate"``.
        id : int or str
            The resource's id.
        changes : Mapping
            Fields and their new values.
        current : Mapping, optional
            The resource as last read: fields of ``changes`` equal to it are not sent.

        Returns
        -------
        dict
            The resource as stored after the change.

        Raises
        ------
        ValidationError
            If nothing is left to send (nothing given, or nothing differs from ``current``).

        Examples
        --------
        >>> record = ads.get("affiliate", 1001)
        >>> ads.update("affiliate", 1001, {"status": "paused"}, current=record)["status"]
        'paused'
        """
        path = self._path(resource, id)
        return self._data("PATCH", path, json=check_changes(changes, current))

    def delete(self, resource: str, id: int | str) -> Any:
        """Delete a resource.

        Parameters
        ----------
        resource : str
            The collection, e.g. ``"affiliate"``.
        id : int or str
            The resource's id.

        Returns
        -------
        Any
            The answer's ``data`` (for affiliates: ``{"id": ..., "deleted": True}``).

        Raises
        ------
        OperationNotAllowedError
            If the resource's state forbids it (an active affiliate must be paused first).
        ResourceNotFoundError
            If no resource has this id.

        Examples
        --------
        >>> new = ads.create("affiliate", {"name": "Grace", "email": "grace@example.com"})
        >>> ads.update("affiliate", new["id"], {"status": "paused"})["status"]
        'paused'
        >>> ads.delete("affiliate", new["id"])["deleted"]
        True
        """
        return self._data("DELETE", self._path(resource, id))

    # -- plumbing -----------------------------------------------------------------------------

    @staticmethod
    def _path(resource: str, id: int | str) -> str:
        """The path of one resource; ``id`` is required (None is refused)."""
        return "/" + check_resource(resource) + "/" + quote_segment(check_record_id(id))

    def _data(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        json: Any = None,
    ) -> Any:
        """Send a request and return the ``data`` of its success envelope."""
        body = self._transport.request(method, path, params=params, json=json).data
        if body is None:
            return None
        if not isinstance(body, Mapping) or ("data" not in body and "code" not in body):
            raise ResponseFormatError(
                f"{method} {path}: expected {{'code': 0, 'data': ...}}, got "
                f"{type(body).__name__}; is {self.base_url!r} the network's API address?"
            )
        return body.get("data")


def _unseen_rows(rows: list[Any], path: str, seen: SeenDigests) -> Iterator[Record]:
    """The rows of one page whose id was not yielded before (rows without an id all are)."""
    for row in rows:
        if not isinstance(row, dict):
            raise ResponseFormatError(
                f"GET {path}: a row is {type(row).__name__}, not a JSON object"
            )
        row_id = row.get("id")
        if isinstance(row_id, str | int) and not isinstance(row_id, bool) and not seen.add(row_id):
            continue  # pages shifted while the collection changed
        yield row


def _shown_page(served: Any) -> str:
    """A page number the server sent, for a message: a number, or its type only."""
    if isinstance(served, int | str) and not isinstance(served, bool) and str(served).isdigit():
        return str(served)[:20]
    return f"of type {type(served).__name__}"


def _check_body(data: Any, argument: str) -> dict[str, Any]:
    if not isinstance(data, Mapping):
        raise ValidationError(argument, f"must be a dict of fields, got {type(data).__name__}")
    if not data:
        raise ValidationError(argument, "is empty; pass the resource's fields")
    return dict(data)


def _filter_params(filters: Mapping[str, Any]) -> dict[str, str]:
    params = {}
    for name, value in filters.items():
        if value is None:
            continue
        if isinstance(value, list | tuple | set | frozenset):
            if not value:
                raise ValidationError(name, "an empty list matches nothing; leave the filter out")
            value = ",".join(_filter_value(name, v) for v in sorted(value, key=str))
        else:
            value = _filter_value(name, value)
        params[f"filters[{name}]"] = value
    return params


def _filter_value(name: str, value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if not isinstance(value, str | int | float):
        raise ValidationError(
            name, f"a filter must be a str, a number or a list of them, got {type(value).__name__}"
        )
    text = check_text(str(value), name)
    if "," in text:
        raise ValidationError(name, f"a filter value cannot hold a comma, got {value!r}")
    return text
