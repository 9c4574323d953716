"""The WSGI application: faults and rate limit first, then routing, authentication, handler."""

from __future__ import annotations

import itertools
import json
import logging
import socket
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from werkzeug.exceptions import MethodNotAllowed, NotFound
from werkzeug.routing import Map, Rule
from werkzeug.wrappers import Request, Response

from docsapi.sandbox import (
    _routes_audit_events,
    _routes_changes,
    _routes_collections,
    _routes_content,
    _routes_git,
    _routes_invites,
    _routes_orgs,
    _routes_permissions,
    _routes_sites,
    _routes_spaces,
    _routes_users,
)
from docsapi.sandbox._auth import TokenRegistry, allowed, describe
from docsapi.sandbox._errors import ApiError
from docsapi.sandbox._faults import Faults, retry_after_seconds
from docsapi.sandbox._store import Store
from docsapi.sandbox._web import Ctx, Reply, Route

logger = logging.getLogger("docsapi.sandbox")
PREFIX = "/v1"
ROUTES: list[Route] = [
    *_routes_users.ROUTES,
    *_routes_spaces.ROUTES,
    *_routes_permissions.ROUTES,
    *_routes_content.ROUTES,
    *_routes_git.ROUTES,
    *_routes_changes.ROUTES,
    *_routes_orgs.ROUTES,
    *_routes_collections.ROUTES,
    *_routes_sites.ROUTES,
    *_routes_invites.ROUTES,
    *_routes_audit_events.ROUTES,
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


def _build_map() -> tuple[Map, dict[str, Route]]:
    endpoints: dict[str, Route] = {}
    rules = []
    for route in ROUTES:
        key = f"{route.method} {route.rule}"
        endpoints[key] = route
        rules.append(Rule(PREFIX + route.rule, endpoint=key, methods=[route.method]))
    return Map(rules, strict_slashes=False, merge_slashes=False), endpoints


class DocsApp:
    """The documentation-platform API as a WSGI application.

    Parameters
    ----------
    store, tokens, faults, log
        The sandbox's data, accepted tokens, fault plan and request log.
    controls
        WSGI application answering ``/_sandbox/...`` (no authentication, not logged).
    """

    def __init__(
        self,
        store: Store,
        tokens: TokenRegistry,
        faults: Faults,
        log: RequestLog,
        controls: Callable[[Request], Response],
    ) -> None:
        self.store = store
        self.tokens = tokens
        self.faults = faults
        self.log = log
        self.controls = controls
        self.url_map, self.endpoints = _build_map()
        self._ids = itertools.count(1)

    def __call__(
        self, environ: dict[str, Any], start_response: Callable[..., Any]
    ) -> Iterable[bytes]:
        request = Request(environ)
        if request.path == "/_sandbox" or request.path.startswith("/_sandbox/"):
            return self.controls(request)(environ, start_response)
        raw_path = environ.get("RAW_URI") or request.full_path.rstrip("?")
        if self.faults.latency > 0:
            self.faults.stop_event.wait(self.faults.latency)
        fault = self.faults.take(request.method, request.path)
        if fault == "stall":
            # logged now: the answer never comes (the connection is cut after the stall)
            self.log.add(request.method, raw_path, None)
            self.faults.stop_event.wait(self.faults.stall_seconds)
            return _dropped(environ)(environ, start_response)
        app, status = self._serve(request, environ, fault)
        self.log.add(request.method, raw_path, status)
        return app(environ, start_response)

    # -- the pipeline -----------------------------------------------------------------
    def _serve(
        self, request: Request, environ: dict[str, Any], fault: str | None
    ) -> tuple[WSGIApp, int | None]:
        if fault == "drop":
            request.get_data()
            return _dropped(environ), None
        response = self._fault_response(fault) if fault and fault != "truncate" else None
        if response is None:
            response = self._answer(request)
        response.headers["X-Request-Id"] = f"sbx-req-{next(self._ids)}"
        if fault == "truncate":
            return _truncated(response, environ), response.status_code
        return response, response.status_code

    def _fault_response(self, fault: str) -> Response:
        if fault in ("500", "503"):
            message = (
                "Service unavailable, try again later."
                if fault == "503"
                else "Internal server error."
            )
            return error_response(int(fault), message)
        if fault == "html":
            return Response(_HTML_PAGE, status=200, content_type="text/html; charset=utf-8")
        seconds = retry_after_seconds(fault)
        retry_after = "1" if seconds is None else (f"{seconds:g}")
        return error_response(
            429,
            "Too many requests: slow down and retry after the delay in Retry-After.",
            {"Retry-After": retry_after},
        )

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
        path = request.path if request.path != PREFIX else PREFIX + "/"
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
        ctx = Ctx(self.store, request, credential)
        with self.store.lock:
            self.store.purge_trash()
            _routes_git.finish_due_operations(self.store)
            reply = route.handler(ctx, **args)
            return _to_response(reply)


def _to_response(reply: Reply) -> Response:
    if reply.body is None:
        return Response(b"", status=reply.status, headers=reply.headers)
    return Response(
        json.dumps(reply.body),
        status=reply.status,
        headers=reply.headers,
        content_type="application/json",
    )


def _socket(environ: dict[str, Any]) -> socket.socket | None:
    return environ.get("werkzeug.socket")


def _dropped(environ: dict[str, Any]) -> WSGIApp:
    """Close the connection without answering (the request has been read).

    The socket is shut when the returned app runs, after the request has been logged, so
    a client that sees the connection close also sees the request in the log.
    """

    def app(environ_: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        connection = _socket(environ)
        if connection is not None:
            connection.shutdown(socket.SHUT_RDWR)
        start_response("500 Dropped", [])
        return []

    return app


def _truncated(response: Response, environ: dict[str, Any]) -> WSGIApp:
    """Declare the full Content-Length, send half of the body, then close the connection."""
    body = response.get_data()
    headers = [(k, v) for k, v in response.headers.items() if k.lower() != "content-length"]
    headers.append(("Content-Length", str(len(body))))

    def app(environ_: dict[str, Any], start_response: Callable[..., Any]) -> Iterator[bytes]:
        start_response(response.status, headers)
        yield body[: len(body) // 2]
        connection = _socket(environ)
        if connection is not None:
            connection.shutdown(socket.SHUT_RDWR)

    return app
