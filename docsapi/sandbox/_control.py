"""Sandbox-only HTTP controls under ``/_sandbox/`` (mirroring the Python methods), file downloads.

======  =========================  ==============================================================
POST    /_sandbox/reset            back to the seeded state
POST    /_sandbox/clock            ``{"days", "hours", "seconds"}``: move the sandbox clock forward
GET     /_sandbox/clock            the sandbox time and offset
POST    /_sandbox/faults           ``{"fault", "count", "methods", "path"}``: queue a fault
POST    /_sandbox/latency          ``{"seconds"}``
POST    /_sandbox/rate-limit       ``{"limit", "per_seconds"}`` (limit null turns it off)
GET     /_sandbox/stats            request count, the request log, pending faults
GET     /_sandbox/files/...        the bytes of a file listed in a space's content
POST    /_sandbox/grant            ``{"target", "principal", "role"}`` (role null revokes)
POST    /_sandbox/default-level    ``{"target", "level"}``
POST    /_sandbox/member           ``{"user", "role"?, "disabled"?}``
POST    /_sandbox/publish          ``{"site"}``; ``/_sandbox/unpublish`` likewise
POST    /_sandbox/share-links      ``{"site", "name"?}``: 201 ``{"id"}`` of a new active link
POST    /_sandbox/share-link       ``{"site", "link", "active"}``
======  =========================  ==============================================================

The access controls (grant ... share-link) also take ``"log": false``: the change is made
without an audit event, as one made behind the platform's back would be.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from contextlib import AbstractContextManager, nullcontext
from typing import Any, Protocol

from werkzeug.wrappers import Request, Response

from docsapi.sandbox.core._clock import Clock, iso
from docsapi.sandbox.core._faults import Fault
from docsapi.sandbox.core._jsonbody import parse_json_body


class ControlledSandbox(Protocol):
    """What the controls drive: the methods of :class:`~docsapi.sandbox.Sandbox` they mirror."""

    clock: Clock

    def reset(self) -> None: ...

    def advance_clock(self, days: float = 0, hours: float = 0, seconds: float = 0) -> None: ...

    def inject(
        self,
        fault: Fault | str,
        count: int = 1,
        *,
        methods: Iterable[str] | None = None,
        path: str | None = None,
    ) -> None: ...

    def set_latency(self, seconds: float) -> None: ...

    def set_rate_limit(self, n: int | None, per_seconds: float = 60.0) -> None: ...

    @property
    def request_log(self) -> list[tuple[str, str, int | None]]: ...

    @property
    def faults_pending(self) -> int: ...

    def file_bytes(self, space_id: str, file_id: str) -> tuple[str, bytes] | None: ...

    def grant(self, target_id: str, principal_id: str, role: str | None) -> str | None: ...

    def set_default_level(self, target_id: str, level: str | None) -> None: ...

    def set_member(
        self, user_id: str, *, role: Any = ..., disabled: bool | None = None
    ) -> dict[str, Any]: ...

    def publish(self, site_id: str) -> None: ...

    def unpublish(self, site_id: str) -> None: ...

    def create_share_link(self, site_id: str, name: str = "Shared by the sandbox") -> str: ...

    def set_share_link_active(self, site_id: str, link_id: str, active: bool) -> None: ...

    def unlogged(self) -> AbstractContextManager[None]: ...


def _json(body: Any, status: int = 200) -> Response:
    return Response(json.dumps(body), status=status, content_type="application/json")


def _error(status: int, message: str) -> Response:
    return _json({"error": {"code": status, "message": message}}, status)


logger = logging.getLogger("docsapi.sandbox")
#: The properties each control's body may have.
_ALLOWED = {
    "reset": (),
    "clock": ("days", "hours", "seconds"),
    "faults": ("fault", "count", "methods", "path"),
    "latency": ("seconds",),
    "rate-limit": ("limit", "per_seconds"),
    "grant": ("target", "principal", "role", "log"),
    "default-level": ("target", "level", "log"),
    "member": ("user", "role", "disabled", "log"),
    "publish": ("site", "log"),
    "unpublish": ("site", "log"),
    "share-links": ("site", "name", "log"),
    "share-link": ("site", "link", "active", "log"),
}


def _body(request: Request, control: str) -> dict[str, Any]:
    """The JSON object sent to a POST control (empty when there is no body)."""
    if request.method != "POST" or not request.get_data().strip():
        return {}
    body = parse_json_body(request.get_data())
    if not isinstance(body, dict):
        raise ValueError("the body must be a JSON object")
    allowed = _ALLOWED.get(control, ())
    unknown = sorted(set(body) - set(allowed))
    if unknown:
        shown = ", ".join(allowed) or "nothing"
        raise ValueError(f"unknown properties {unknown}; this control takes {shown}")
    return body


class Controls:
    """Answers ``/_sandbox/...`` requests for one sandbox."""

    def __init__(self, sandbox: ControlledSandbox) -> None:
        self.sandbox = sandbox

    def __call__(self, request: Request) -> Response:
        parts = [p for p in request.path.split("/") if p][1:]
        key = (request.method, parts[0] if parts else "")
        handlers = {
            ("POST", "reset"): self._reset,
            ("POST", "clock"): self._advance,
            ("GET", "clock"): self._clock,
            ("POST", "faults"): self._inject,
            ("POST", "latency"): self._latency,
            ("POST", "rate-limit"): self._rate_limit,
            ("GET", "stats"): self._stats,
            ("GET", "files"): self._file,
            ("POST", "grant"): self._grant,
            ("POST", "default-level"): self._default_level,
            ("POST", "member"): self._member,
            ("POST", "publish"): self._publish,
            ("POST", "unpublish"): self._unpublish,
            ("POST", "share-links"): self._new_share_link,
            ("POST", "share-link"): self._share_link_active,
        }
        handler = handlers.get(key)
        if handler is None:
            return _error(404, f"No sandbox control {request.method} {request.path}.")
        try:
            body = _body(request, key[1])
            with self._logging(body.pop("log", True)):
                return handler(body, parts[1:])
        except (ValueError, TypeError) as error:
            return _error(400, f"{error}.".replace("..", "."))
        except KeyError as error:
            return _error(400, f"missing property {error}.")
        except Exception:
            logger.exception("sandbox control failed: %s %s", request.method, request.path)
            return _error(500, "The sandbox control failed; this is a sandbox bug.")

    def _logging(self, log: object) -> AbstractContextManager[None]:
        """Where an access control runs: as usual, or without an audit event (``log: false``)."""
        if not isinstance(log, bool):
            raise ValueError(f"log must be true or false; got {log!r}")
        return nullcontext() if log else self.sandbox.unlogged()

    def _reset(self, body: dict[str, Any], rest: list[str]) -> Response:
        self.sandbox.reset()
        return Response(status=204)

    def _advance(self, body: dict[str, Any], rest: list[str]) -> Response:
        self.sandbox.advance_clock(
            days=body.get("days", 0), hours=body.get("hours", 0), seconds=body.get("seconds", 0)
        )
        return self._clock(body, rest)

    def _clock(self, body: dict[str, Any], rest: list[str]) -> Response:
        clock = self.sandbox.clock
        return _json({"now": iso(clock.now()), "offsetSeconds": clock.offset.total_seconds()})

    def _inject(self, body: dict[str, Any], rest: list[str]) -> Response:
        self.sandbox.inject(
            body.get("fault", ""),
            body.get("count", 1),
            methods=body.get("methods"),
            path=body.get("path"),
        )
        return Response(status=204)

    def _latency(self, body: dict[str, Any], rest: list[str]) -> Response:
        self.sandbox.set_latency(body.get("seconds", 0.0))
        return Response(status=204)

    def _rate_limit(self, body: dict[str, Any], rest: list[str]) -> Response:
        self.sandbox.set_rate_limit(body.get("limit"), per_seconds=body.get("per_seconds", 60.0))
        return Response(status=204)

    def _stats(self, body: dict[str, Any], rest: list[str]) -> Response:
        log = self.sandbox.request_log
        return _json(
            {
                "requestCount": len(log),
                "faultsPending": self.sandbox.faults_pending,
                "requests": [{"method": m, "path": p, "status": s} for m, p, s in log[-200:]],
            }
        )

    def _file(self, body: dict[str, Any], rest: list[str]) -> Response:
        if len(rest) < 2:
            return _error(404, "Use /_sandbox/files/<spaceId>/<fileId>/<name>.")
        found = self.sandbox.file_bytes(rest[0], rest[1])
        if found is None:
            return _error(404, "No such file.")
        content_type, data = found
        return Response(data, content_type=content_type)

    # -- access changes (see Sandbox.grant ...) -------------------------------------------
    def _grant(self, body: dict[str, Any], rest: list[str]) -> Response:
        previous = self.sandbox.grant(body["target"], body["principal"], body.get("role"))
        return _json({"previous": previous})

    def _default_level(self, body: dict[str, Any], rest: list[str]) -> Response:
        self.sandbox.set_default_level(body["target"], body.get("level"))
        return Response(status=204)

    def _member(self, body: dict[str, Any], rest: list[str]) -> Response:
        options = {key: body[key] for key in ("role", "disabled") if key in body}
        return _json(self.sandbox.set_member(body["user"], **options))

    def _publish(self, body: dict[str, Any], rest: list[str]) -> Response:
        self.sandbox.publish(body["site"])
        return Response(status=204)

    def _unpublish(self, body: dict[str, Any], rest: list[str]) -> Response:
        self.sandbox.unpublish(body["site"])
        return Response(status=204)

    def _new_share_link(self, body: dict[str, Any], rest: list[str]) -> Response:
        name = body.get("name", "Shared by the sandbox")
        return _json({"id": self.sandbox.create_share_link(body["site"], name)}, 201)

    def _share_link_active(self, body: dict[str, Any], rest: list[str]) -> Response:
        self.sandbox.set_share_link_active(body["site"], body["link"], body["active"])
        return Response(status=204)
