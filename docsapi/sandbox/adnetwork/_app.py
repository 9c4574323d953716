"""The ad-network sandbox as a WSGI application: routing, keys, controls and faults.

Every answer is JSON: ``{"code": 0, "message": "Success", "data": ...}`` or
``{"code": <application code>, "message": "..."}``. A request goes through, in order:
an injected fault, maintenance (50), the IP whitelist (41), the ``X-Api-Key`` header
(13, 12, 42), the rate limit (40), routing (501, 405 with code 32), write permission (5),
then the handler (20, 30, 31, 33, 11, 60). Any unexpected failure is answered with
code 51, never with an HTML page.
"""

from __future__ import annotations

import json
import math
import threading
import time
from collections import deque
from collections.abc import Iterable
from typing import Any

from werkzeug.wrappers import Request, Response

from docsapi.sandbox.adnetwork._store import FILTER_FIELDS, MAX_LIMIT, AffiliateStore
from docsapi.sandbox.adnetwork.codes import CODES, AppError
from docsapi.sandbox.core._jsonbody import BodyError, parse_json_body
from docsapi.sandbox.core._web import json_body

__all__ = ["DEFAULT_LIMIT", "AdNetworkApp", "error_body", "parse_fault"]

#: Rows per page when the request does not say.
DEFAULT_LIMIT = 20

_COLLECTION = "/api/affiliate"
_COLLECTION_METHODS: tuple[str, ...] = ("GET", "POST")
_ITEM_METHODS: tuple[str, ...] = ("GET", "PUT", "PATCH", "DELETE")
_WRITES = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_HTTP_200_PREFIX = "200-with-code:"


def parse_fault(fault: str) -> tuple[int, int | None]:
    """Read a fault name: ``"<code>"`` or ``"200-with-code:<code>"``.

    Returns
    -------
    (int, int or None)
        The application code, and the HTTP status to force (None: the code's own).

    Raises
    ------
    ValueError
        For any other name.

    Examples
    --------
    >>> parse_fault("50"), parse_fault("200-with-code:20")
    ((50, None), (20, 200))
    """
    text = str(fault)
    status = None
    if text.startswith(_HTTP_200_PREFIX):
        text, status = text.removeprefix(_HTTP_200_PREFIX), 200
    if not _is_number(text) or int(text) not in CODES or int(text) == 0:
        codes = ", ".join(str(c) for c in CODES if c)
        raise ValueError(
            f"unknown fault {fault!r}: use an application code ({codes}) as a "
            f"string, or '{_HTTP_200_PREFIX}<code>'"
        )
    return int(text), status


class AdNetworkApp:
    """The WSGI application of one sandbox network.

    Parameters
    ----------
    store : AffiliateStore
        The affiliates.
    keys : dict[str, str]
        Role (``admin``, ``readonly``, ``locked``, ``expired``, ``other-dc``) → key.
    """

    def __init__(self, store: AffiliateStore, keys: dict[str, str]) -> None:
        self.store = store
        self.keys = dict(keys)
        self._roles = {key: role for role, key in self.keys.items()}
        self._lock = threading.Lock()
        self.reset_controls()

    # -- controls -----------------------------------------------------------------------------

    def reset_controls(self) -> None:
        """Clear faults, maintenance, whitelist, rate limit, the request count and log."""
        with self._lock:
            self._faults: list[list[Any]] = []
            self.maintenance = False
            self.whitelist: frozenset[str] | None = None
            self.rate_limit: tuple[int, float] | None = None
            self._hits: deque[float] = deque()
            self.request_count = 0
            self.request_log: list[tuple[str, str, int]] = []

    def inject(self, fault: str, count: int, methods: Iterable[str] | None) -> None:
        """Answer the next ``count`` requests (of ``methods``) with ``fault``."""
        code, status = parse_fault(fault)
        wanted = None if methods is None else frozenset(m.upper() for m in methods)
        with self._lock:
            self._faults.append([code, status, count, wanted])

    def add_key(self, key: str, role: str) -> None:
        """Accept ``key`` with the rights of ``role`` (a key of :attr:`keys`)."""
        if role not in self.keys:
            raise ValueError(f"role must be one of {', '.join(self.keys)}, got {role!r}")
        with self._lock:
            self._roles[key] = role

    def set_rate_limit(self, n: int | None, per_seconds: float) -> None:
        """Allow ``n`` authenticated requests per ``per_seconds`` (None: no limit)."""
        with self._lock:
            self.rate_limit = None if n is None else (n, per_seconds)
            self._hits.clear()

    # -- WSGI ---------------------------------------------------------------------------------

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        request = Request(environ)
        with self._lock:
            self.request_count += 1
        headers: dict[str, str] = {}
        try:
            status, body = 200, {"code": 0, "message": "Success", "data": self._handle(request)}
        except AppError as error:
            status, body, headers = error.status, error.body(), error.headers
        except Exception as exc:  # the API answers every failure in its own format
            failure = AppError(51, f"unexpected {type(exc).__name__}; the sandbox has a bug")
            status, body = failure.status, failure.body()
        target = request.path + (
            f"?{request.query_string.decode()}" if request.query_string else ""
        )
        with self._lock:
            self.request_log.append((request.method, target, status))
        response = Response(json_body(body), status, headers, content_type="application/json")
        return response(environ, start_response)

    # -- the request pipeline -------------------------------------------------------------------

    def _handle(self, request: Request) -> Any:
        self._apply_faults(request.method)
        if self.maintenance:
            raise AppError(50, "System upgrade in progress")
        whitelist = self.whitelist
        if whitelist is not None and request.remote_addr not in whitelist:
            raise AppError(
                41,
                f"IP {request.remote_addr} is not whitelisted for this network; "
                "add it in the admin settings (/admin/settings.html)",
            )
        role = self._authenticate(request.headers.get("X-Api-Key"))
        self._count_against_rate_limit()
        path = request.path.rstrip("/")
        if path == _COLLECTION:
            allowed, affiliate_id = _COLLECTION_METHODS, None
        elif path.startswith(_COLLECTION + "/") and "/" not in path[len(_COLLECTION) + 1 :]:
            allowed, affiliate_id = _ITEM_METHODS, path[len(_COLLECTION) + 1 :]
        else:
            raise AppError(32, status=501, message="Request uri not found")
        if request.method not in allowed:
            raise AppError(
                32,
                f"{request.method} is not supported on {request.path}; use {', '.join(allowed)}",
                headers={"Allow": ", ".join(allowed)},
            )
        if request.method in _WRITES and role == "readonly":
            raise AppError(5, "this API key may only read; use a key with write access")
        if affiliate_id is None:
            if request.method == "GET":
                return self._list(request)
            return self.store.create(_json_body(request))
        number = _affiliate_id(affiliate_id)
        if request.method == "GET":
            return self.store.get(number)
        if request.method == "DELETE":
            return self.store.delete(number)
        if request.method == "PUT":
            return self.store.replace(number, _json_body(request))
        return self.store.patch(number, _json_body(request))

    def _apply_faults(self, method: str) -> None:
        with self._lock:
            for fault in self._faults:
                code, status, remaining, methods = fault
                if methods is not None and method not in methods:
                    continue
                fault[2] = remaining - 1
                if fault[2] <= 0:
                    self._faults.remove(fault)
                raise AppError(code, "injected fault", status=status)

    def _authenticate(self, key: str | None) -> str:
        if not key:
            raise AppError(
                13,
                "no X-Api-Key header; send the key generated in the admin "
                "settings (/admin/settings.html)",
            )
        role = self._roles.get(key.strip())
        if role is None:
            raise AppError(13, "the API key may be invalid or belong to a different data center")
        if role in ("expired", "other-dc"):
            raise AppError(
                12,
                "the API key is not valid here: it may have expired or belong "
                "to a different data center",
            )
        if role == "locked":
            raise AppError(42, "the account owning this API key is locked")
        return role

    def _count_against_rate_limit(self) -> None:
        with self._lock:
            if self.rate_limit is None:
                return
            allowed, per_seconds = self.rate_limit
            now = time.monotonic()
            while self._hits and self._hits[0] <= now - per_seconds:
                self._hits.popleft()
            if len(self._hits) >= allowed:
                wait = self._hits[0] + per_seconds - now
                raise AppError(
                    40,
                    f"at most {allowed} requests per {per_seconds:g} s",
                    headers={"Retry-After": str(max(1, math.ceil(wait)))},
                )
            self._hits.append(now)

    def _list(self, request: Request) -> dict[str, Any]:
        filters: dict[str, set[str]] = {}
        for name, value in request.args.items():
            if name in ("offset", "limit"):
                continue
            field = (
                name[len("filters[") : -1]
                if name.startswith("filters[") and name.endswith("]")
                else None
            )
            if field is None:
                raise AppError(
                    20, f"unknown query parameter {name!r}; use offset, limit and filters[<field>]"
                )
            if field not in FILTER_FIELDS:
                raise AppError(
                    20, f"cannot filter on {field!r}; filter fields are {', '.join(FILTER_FIELDS)}"
                )
            filters[field] = set(value.split(","))
        offset = _int_param(request, "offset", 1, minimum=1, maximum=None)
        limit = _int_param(request, "limit", DEFAULT_LIMIT, minimum=1, maximum=MAX_LIMIT)
        return self.store.page(filters, offset=offset, limit=limit)


def _int_param(
    request: Request, name: str, default: int, *, minimum: int, maximum: int | None
) -> int:
    raw = request.args.get(name)
    if raw is None:
        return default
    if not _is_number(raw.strip()):
        raise AppError(20, f"{name} must be an integer, got {raw!r}")
    value = int(raw)
    if maximum is None and value < minimum:
        raise AppError(20, f"{name} must be {minimum} or more, got {value}")
    if maximum is not None and not minimum <= value <= maximum:
        raise AppError(20, f"{name} must be between {minimum} and {maximum}, got {value}")
    return value


def _is_number(text: str) -> bool:
    return text.isascii() and text.isdigit() and len(text) <= 18


def _affiliate_id(segment: str) -> int:
    if not _is_number(segment):
        raise AppError(31, f"no affiliate has id {segment!r}; ids are integers")
    return int(segment)


def _json_body(request: Request) -> Any:
    raw = request.get_data()
    if not raw.strip():
        raise AppError(30, "the body is empty; send a JSON object")
    if request.mimetype != "application/json":
        raise AppError(30, "send the body as JSON with Content-Type: application/json")
    try:
        return parse_json_body(raw)
    except BodyError as error:
        raise AppError(30, str(error).rstrip(".")) from None


def error_body(status: int, message: str) -> bytes:
    """The ad network's body for answers its server gives itself (malformed HTTP, limits).

    Examples
    --------
    >>> error_body(414, "The request target is too long.")
    b'{"code": 30, "message": "Bad Request: The request target is too long."}'
    """
    code = 51 if status >= 500 else 30
    return json.dumps(AppError(code, message.rstrip(".") + ".").body()).encode()
