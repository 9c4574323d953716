"""The WSGI application: faults and rate limit first, then routing, authentication, the
description's request rules, then the handler (under the store lock: shared by the routes
that only read, held alone by those that write)."""

from __future__ import annotations

import itertools
import json
import logging
import threading
from collections.abc import Callable, Iterable
from email.utils import format_datetime
from typing import Any

from werkzeug.exceptions import MethodNotAllowed, NotFound
from werkzeug.routing import Map, Rule
from werkzeug.wrappers import Request, Response

from docsapi.sandbox.core._auth import TokenRegistry, allowed, describe
from docsapi.sandbox.core._errors import ApiError
from docsapi.sandbox.core._faults import Fault, Faults, Planned
from docsapi.sandbox.core._server import CONNECTION_KEY
from docsapi.sandbox.core._store import Store
from docsapi.sandbox.core._validation import RequestRules
from docsapi.sandbox.core._web import DEFAULT_PREFIX, Ctx, Reply, Route, json_body
from docsapi.sandbox.routes import (
    _audit_events,
    _change_requests,
    _collections,
    _content,
    _git,
    _insights,
    _invites,
    _orgs,
    _permissions,
    _site_structure,
    _sites,
    _spaces,
    _users,
)

logger = logging.getLogger("docsapi.sandbox")
ROUTES: list[Route] = [
    *_users.ROUTES,
    *_spaces.ROUTES,
    *_permissions.ROUTES,
    *_content.ROUTES,
    *_git.ROUTES,
    *_change_requests.ROUTES,
    *_orgs.ROUTES,
    *_collections.ROUTES,
    *_sites.ROUTES,
    *_site_structure.ROUTES,
    *_invites.ROUTES,
    *_audit_events.ROUTES,
    *_insights.ROUTES,
]
_HTML_PAGE = (
    b"<!DOCTYPE html><html><head><title>Sign in</title></head><body><h1>Sign in to continue</h1>"
    b"<p>This network requires you to sign in.</p></body></html>"
)
WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


class RequestLog:
    """Counts and records API requests since the last reset: (method, path with query, status)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.entries: list[tuple[str, str, int | None]] = []

    def add(self, method: str, path: str, status: int | None) -> None:
        """Record one request (status None when the connection was cut without an answer)."""
        with self._lock:
            self.entries.append((method, path, status))

    def reset(self) -> None:
        """Forget every request."""
        with self._lock:
            self.entries.clear()

    def snapshot(self) -> list[tuple[str, str, int | None]]:
        """A copy of the entries."""
        with self._lock:
            return list(self.entries)


def error_response(status: int, message: str, headers: dict[str, str] | None = None) -> Response:
    """The API's error body ``{"error": {"code", "message"}}``."""
    body = json.dumps({"error": {"code": status, "message": message}})
    return Response(body, status=status, headers=headers or {}, content_type="application/json")


def _build_map(prefix: str) -> tuple[Map, dict[str, Route]]:
    endpoints: dict[str, Route] = {}
    rules = []
    for route in ROUTES:
        key = f"{route.method} {route.rule}"
        endpoints[key] = route
        rules.append(Rule(prefix + route.rule, endpoint=key, methods=[route.method]))
    return Map(rules, strict_slashes=False, merge_slashes=False), endpoints


class DocsApp:
    """The documentation-platform API as a WSGI application.

    Parameters
    ----------
    store, tokens, faults, log
        The sandbox's data, accepted tokens, fault plan and request log.
    controls
        WSGI application answering ``/_sandbox/...`` (no authentication, not logged).
    prefix
        The path the API is served under: ``/v1`` as the platform, or ``""`` for the root.
    """

    def __init__(
        self,
        store: Store,
        tokens: TokenRegistry,
        faults: Faults,
        log: RequestLog,
        controls: Callable[[Request], Response],
        prefix: str = DEFAULT_PREFIX,
    ) -> None:
        self.store = store
        self.tokens = tokens
        self.faults = faults
        self.log = log
        self.controls = controls
        self.prefix = prefix
        self.url_map, self.endpoints = _build_map(prefix)
        described = RequestRules()
        self.rules = {
            key: described.for_route(r.method, r.rule) for key, r in self.endpoints.items()
        }
        self._ids = itertools.count(1)

    def prepare(self) -> None:
        """Build now what requests would otherwise build on first use: the description's
        validators (importing jsonschema) and the router's matcher. The sandbox calls it
        before it starts serving, so its first request is answered as fast as any other.
        """
        for rules in self.rules.values():
            if rules is not None:
                rules.prepare()
        self.url_map.update()

    @property
    def prepared(self) -> bool:
        """Whether every validator is built (nothing is left to build on a request)."""
        return all(
            schema.prepared
            for rules in self.rules.values()
            if rules is not None
            for schema in rules.schemas
        )

    def __call__(
        self, environ: dict[str, Any], start_response: Callable[..., Any]
    ) -> Iterable[bytes]:
        request = Request(environ)
        if request.path == "/_sandbox" or request.path.startswith("/_sandbox/"):
            return self.controls(request)(environ, start_response)
        raw_path = environ.get("REQUEST_URI") or request.full_path.rstrip("?")
        # faults name the platform's paths (with or without /v1), whatever the prefix
        platform_path = DEFAULT_PREFIX + request.path.removeprefix(self.prefix)
        planned = self.faults.take(request.method, platform_path)
        fault = planned.fault if planned else None
        if fault is Fault.RESET_BEFORE_READ:
            self.log.add(request.method, raw_path, None)
            return _cut(environ, reset=True)
        if self.faults.latency > 0:
            self.faults.stop_event.wait(self.faults.latency)
        if fault is Fault.STALL:
            # logged now: the answer never comes (the connection is cut after the stall)
            self.log.add(request.method, raw_path, None)
            self.faults.stop_event.wait(self.faults.stall_seconds)
            return _cut(environ)
        if fault is Fault.DROP:
            self.log.add(request.method, raw_path, None)
            return _cut(environ)
        response = None if planned is None else _fault_response(planned)
        if response is None:
            response = self._answer(request)
        response.headers["X-Request-Id"] = f"sbx-req-{next(self._ids)}"
        # The answer's Date is the sandbox clock's, so advancing it ages what clients compute.
        response.headers["Date"] = format_datetime(self.store.clock.now(), usegmt=True)
        self.log.add(request.method, raw_path, response.status_code)
        if fault is Fault.TRUNCATE:
            return _truncated(response)(environ, start_response)
        return response(environ, start_response)

    # -- the pipeline -----------------------------------------------------------------
    def _answer(self, request: Request) -> Response:
        limit_headers, retry_after = self.faults.count_request()
        if retry_after is not None:
            response = error_response(
                429,
                "Rate limit exceeded: wait until X-RateLimit-Reset, then retry.",
                {"Retry-After": f"{retry_after:g}"},
            )
        else:
            try:
                response = self._dispatch(request)
            except ApiError as error:
                response = error_response(error.status, error.message, error.headers)
            except Exception:
                logger.exception("sandbox handler failed for %s %s", request.method, request.path)
                response = error_response(
                    500, "Internal sandbox error; the request was not completed."
                )
        response.headers.update(limit_headers)
        return response

    def _dispatch(self, request: Request) -> Response:
        adapter = self.url_map.bind_to_environ(request.environ)
        path = request.path if request.path != self.prefix else self.prefix + "/"
        try:
            endpoint, args = adapter.match(path, method=request.method)
        except NotFound:
            raise ApiError(404, f"No API operation at {request.path}; check the path.") from None
        except MethodNotAllowed as error:
            methods = sorted(error.valid_methods or [])
            raise ApiError(
                405,
                f"Method {request.method} is not allowed here; use {', '.join(methods)}.",
                {"Allow": ", ".join(methods)},
            ) from None
        route = self.endpoints[endpoint]
        credential = self.tokens.authenticate(request.headers.get("Authorization"))
        if not allowed(credential, route.security):
            raise ApiError(
                403,
                f"This token cannot call {route.method} {route.rule}; it needs "
                f"{describe(route.security)}.",
            )
        ctx = Ctx(self.store, request, credential, self.prefix)
        rules = self.rules[endpoint]
        if rules is not None:
            rules.check(ctx, args)  # reads and checks the body before any lock is taken
        with self.store.lock if route.writes else self.store.lock.reading():
            reply = route.handler(ctx, **args)
        return _to_response(reply)


def _fault_response(planned: Planned) -> Response | None:
    """The answer of an HTTP-level fault (None for faults that are not an answer)."""
    fault = planned.fault
    if fault is Fault.SERVICE_UNAVAILABLE:
        return error_response(503, "Service unavailable, try again later.")
    if fault is Fault.SERVER_ERROR:
        return error_response(500, "Internal server error.")
    if fault is Fault.HTML:
        return Response(_HTML_PAGE, status=200, content_type="text/html; charset=utf-8")
    if fault in (Fault.TOO_MANY_REQUESTS, Fault.RETRY_AFTER):
        seconds = planned.retry_after
        return error_response(
            429,
            "Too many requests: slow down and retry after the delay in Retry-After.",
            {"Retry-After": "1" if seconds is None else f"{seconds:g}"},
        )
    return None


def _to_response(reply: Reply) -> Response:
    if reply.body is None:
        return Response(b"", status=reply.status, headers=reply.headers)
    return Response(
        json_body(reply.body),
        status=reply.status,
        headers=reply.headers,
        content_type="application/json",
    )


def _cut(environ: dict[str, Any], *, reset: bool = False) -> Iterable[bytes]:
    """End the request's connection without answering (orderly close, or a reset)."""
    connection = environ.get(CONNECTION_KEY)
    if connection is None:
        raise RuntimeError("connection faults need the sandbox's own server (ServerThread)")
    if reset:
        connection.reset()
    else:
        connection.close()
    return []


def _truncated(response: Response) -> WSGIApp:
    """Declare the full Content-Length, send half of the body; the server then closes."""
    body = response.get_data()
    headers = [(k, v) for k, v in response.headers.items() if k.lower() != "content-length"]
    headers.append(("Content-Length", str(len(body))))

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        start_response(response.status, headers)
        return [body[: len(body) // 2]]

    return app
