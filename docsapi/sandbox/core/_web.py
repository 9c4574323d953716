"""Request context, replies, JSON bodies, query parameters and List pagination."""

from __future__ import annotations

import base64
import binascii
import functools
import json
import math
import re
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec
from werkzeug.wrappers import Request

from docsapi.sandbox.core._auth import Credential
from docsapi.sandbox.core._errors import ApiError, bad_request
from docsapi.sandbox.core._jsonbody import BodyError, parse_json_body
from docsapi.sandbox.core._store import Store

#: Items per page when a List request does not say.
DEFAULT_LIMIT = 100
MAX_LIMIT = 1000
_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


_encode = msgspec.json.Encoder().encode


def json_body(value: Any) -> bytes:
    """A reply's JSON body: msgspec's UTF-8 encoding (compact, a few times faster than
    :func:`json.dumps`); a string holding a lone surrogate (a request byte echoed in a
    message) is written as an escape, as :func:`json.dumps` writes it.

    Examples
    --------
    >>> json_body({"title": "Café"})
    b'{"title":"Caf\\xc3\\xa9"}'
    >>> json_body({"message": "bad " + chr(0xDCFF)})
    b'{"message": "bad \\\\udcff"}'
    """
    try:
        return _encode(value)
    except UnicodeEncodeError:
        return json.dumps(value, default=_decoded).encode()


def _decoded(value: Any) -> Any:
    """An already encoded part (:func:`encoded`) as plain values, for :func:`json.dumps`."""
    if isinstance(value, msgspec.Raw):
        return json.loads(bytes(value))
    raise TypeError(f"{type(value).__name__} is not JSON")


def encoded(value: Any) -> msgspec.Raw:
    """``value`` encoded now (as :func:`json_body` does), to be embedded as is in the bodies
    that include it: a part that many answers repeat (a user) is then encoded once.

    Examples
    --------
    >>> json_body({"items": [encoded({"id": "u1"})], "count": 1})
    b'{"items":[{"id":"u1"}],"count":1}'
    """
    return msgspec.Raw(json_body(value))


@dataclass
class Reply:
    """What a route handler answers: a status, an optional JSON body and headers."""

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)


#: Where the API is served unless a sandbox is told otherwise (``Sandbox(prefix=...)``).
DEFAULT_PREFIX = "/v1"


@dataclass
class Ctx:
    """Everything a route handler needs about the current request."""

    store: Store
    request: Request
    credential: Credential
    prefix: str = DEFAULT_PREFIX
    _parsed: tuple[Any, ApiError | None] | None = field(default=None, repr=False)

    @functools.cached_property
    def api_base(self) -> str:
        """``http://host:port/v1`` (or the sandbox's other prefix) as the caller reached it
        (worked out once per request: every item of a page links to it)."""
        return self.request.host_url.rstrip("/") + self.prefix

    @property
    def state(self):
        """The store's current state."""
        return self.store.state

    def has_body(self) -> bool:
        """True when the request carries a body other than whitespace."""
        return bool(self.request.get_data(cache=True).strip())

    def body(self) -> Any:
        """The JSON body (parsed once, on first use).

        Raises
        ------
        ApiError
            400 when the body is missing or is not valid JSON (see
            :func:`~docsapi.sandbox.core._jsonbody.parse_json_body`).
        """
        if self._parsed is None:
            try:
                self._parsed = (parse_json_body(self.request.get_data(cache=True)), None)
            except BodyError as problem:
                self._parsed = (None, bad_request(str(problem)))
        value, refusal = self._parsed
        if refusal is not None:
            raise refusal
        return value

    def object_body(self, allowed: Sequence[str] | None = None) -> dict[str, Any]:
        """The JSON body, which must be an object with only ``allowed`` keys (if given)."""
        body = self.body()
        if not isinstance(body, dict):
            raise bad_request("The request body must be a JSON object.")
        if allowed is not None:
            unknown = sorted(set(body) - set(allowed))
            if unknown:
                raise bad_request(f"Unknown properties {unknown}; allowed: {', '.join(allowed)}.")
        return body

    def query(self, name: str, default: Any = None) -> Any:
        """A query parameter as a string, or ``default``."""
        return self.request.args.get(name, default)

    def query_bool(self, name: str, default: bool) -> bool:
        """A boolean query parameter ("true"/"false")."""
        value = self.request.args.get(name)
        if value is None:
            return default
        if value.lower() in ("true", "1"):
            return True
        if value.lower() in ("false", "0"):
            return False
        raise bad_request(f"Query parameter {name!r} must be true or false, got {value!r}.")

    def query_enum(
        self, name: str, allowed: Sequence[str], default: str | None = None
    ) -> str | None:
        """A query parameter restricted to ``allowed`` values."""
        value = self.request.args.get(name)
        if value is None:
            return default
        if value not in allowed:
            raise bad_request(
                f"Query parameter {name!r} must be one of {', '.join(allowed)}; got {value!r}."
            )
        return value


def _cursor(offset: int, scope: str) -> str:
    payload = json.dumps({"o": offset, "s": zlib.crc32(scope.encode())}, separators=(",", ":"))
    return base64.urlsafe_b64encode(payload.encode()).decode().rstrip("=")


def _offset(cursor: str, scope: str) -> int:
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        payload = json.loads(base64.urlsafe_b64decode(padded.encode()))
        offset = payload["o"]
        if payload["s"] != zlib.crc32(scope.encode()) or not isinstance(offset, int) or offset < 0:
            raise ValueError
        return offset
    except (ValueError, KeyError, TypeError, binascii.Error, UnicodeDecodeError):
        raise bad_request(
            "Invalid page cursor: pass the next.page value of a previous response "
            "of the same list, unchanged."
        ) from None


def list_limit(
    ctx: Ctx, default: int = DEFAULT_LIMIT, most: int = MAX_LIMIT, least: int = 0
) -> int:
    """The ``limit`` query parameter: a whole number from ``least`` (0 unless told, as the
    description's ``listLimit`` allows) to ``most`` (1000 unless told); ``default`` if absent."""
    raw = ctx.query("limit")
    if raw is None:
        return default
    number = float(raw) if len(raw) <= 32 and _NUMBER.fullmatch(raw) else math.nan
    if not (math.isfinite(number) and number.is_integer() and least <= number <= most):
        raise bad_request(f"limit must be a whole number from {least} to {most}; got {raw!r}.")
    return int(number)


def paginate(
    ctx: Ctx,
    items: Sequence[Any],
    render: Callable[[Any], Any] = lambda item: item,
    limits: tuple[int, int] = (DEFAULT_LIMIT, MAX_LIMIT),
    least: int = 0,
) -> Reply:
    """Answer one page of ``items`` in the List envelope (``items``, ``next.page``, ``count``).

    Only the items of the page are rendered. The cursor is opaque and tied to the list's path.
    ``limits`` are the list's (default, largest) page sizes and ``least`` its smallest. A page
    of ``limit=0`` holds no item; its ``count`` is the list's size and, while items remain,
    ``next.page`` is the cursor of the same place (the next page starts where it stood).
    """
    limit = list_limit(ctx, *limits, least)
    scope = ctx.request.path
    cursor = ctx.query("page")
    offset = _offset(cursor, scope) if cursor else 0
    chunk = items[offset : offset + limit]
    body: dict[str, Any] = {"items": [render(item) for item in chunk], "count": len(items)}
    if offset + limit < len(items):
        body["next"] = {"page": _cursor(offset + limit, scope)}
    return Reply(200, body)


def no_content(status: int = 204) -> Reply:
    """An empty reply (204 or 205)."""
    return Reply(status)


@dataclass(frozen=True)
class Route:
    """One operation: method, werkzeug rule under /v1, handler and accepted security.

    ``changes_on_read`` marks a GET whose handler changes the state (a Git operation that
    finishes when polled, events seeded on first use): it takes the store's lock alone, as
    every other method does; the other GETs share it.
    """

    method: str
    rule: str
    handler: Callable[..., Reply]
    security: tuple[str, ...]
    changes_on_read: bool = False

    @property
    def writes(self) -> bool:
        """Whether the handler may change the state (it then holds the lock alone)."""
        return self.method != "GET" or self.changes_on_read
