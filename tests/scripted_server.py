"""A tiny HTTP server on 127.0.0.1 that answers each request with the next scripted reaction.

It reads raw sockets, so it can do what no well-behaved server does: drop a connection
after reading the request, cut a body short, answer with HTML, or echo what the client sent
(a body or headers given as a function of the request) into its answer.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class SeenRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    arrived: float = field(default_factory=time.monotonic)


#: A body or headers computed from the request, to echo what the client sent.
Echo = Callable[[SeenRequest], Any]


@dataclass
class Reply:
    """One scripted reaction to one request.

    ``body`` and ``headers`` may be functions of the :class:`SeenRequest`, e.g.
    ``Reply(401, lambda req: {"error": {"message": req.headers["authorization"]}})``.
    """

    status: int = 200
    body: bytes | str | dict | list | Echo | None = None
    headers: dict[str, str] | Echo = field(default_factory=dict)
    #: "respond", "drop" (read the request, close without answering), "truncate"
    #: (declare the full length, send half), "close-before-read", "stall" (wait, then answer)
    action: str = "respond"
    stall_seconds: float = 0.0

    def render(self, request: SeenRequest | None) -> tuple[bytes, dict[str, str]]:
        """The payload and headers of the answer to ``request``."""
        body = self.body(request) if callable(self.body) else self.body
        headers = self.headers(request) if callable(self.headers) else dict(self.headers)
        if isinstance(body, dict | list):
            return json.dumps(body).encode(), {"Content-Type": "application/json", **headers}
        if isinstance(body, str):
            return body.encode(), {"Content-Type": "text/html", **headers}
        return body or b"", {"Content-Type": "application/json", **headers}


class ScriptedServer:
    """Serve scripted replies; the last reply repeats once the script runs out.

    Examples
    --------
    >>> with ScriptedServer([Reply(503), Reply(200, {"ok": True})]) as srv:   # doctest: +SKIP
    ...     requests.get(srv.url + "/x")
    """

    def __init__(self, replies: list[Reply]) -> None:
        self.replies = list(replies)
        self.seen: list[SeenRequest] = []
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(16)
        self._sock.settimeout(0.1)
        self.port = self._sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def __enter__(self) -> ScriptedServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        with contextlib.suppress(OSError):
            self._sock.shutdown(socket.SHUT_RDWR)  # wakes a pending accept() at once
        self._sock.close()
        self._thread.join(timeout=2)

    def _next_reply(self) -> Reply:
        return self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except (TimeoutError, OSError):
                continue
            reply = self._next_reply()
            threading.Thread(target=self._handle, args=(conn, reply), daemon=True).start()

    def _handle(self, conn: socket.socket, reply: Reply) -> None:
        with conn:
            conn.settimeout(5)
            if reply.action == "close-before-read":
                return
            request = self._read_request(conn)
            if request is None:
                return
            self.seen.append(request)
            if reply.action == "drop":
                return
            if reply.action == "stall":
                self._stop.wait(reply.stall_seconds)
            self._answer(conn, reply, request)

    @staticmethod
    def _read_request(conn: socket.socket) -> SeenRequest | None:
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = conn.recv(65536)
            if not chunk:
                return None
            data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        method, path, _ = lines[0].split(" ", 2)
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        length = int(headers.get("content-length", 0))
        while len(body) < length:
            chunk = conn.recv(65536)
            if not chunk:
                break
            body += chunk
        return SeenRequest(method, path, headers, body)

    @staticmethod
    def _answer(conn: socket.socket, reply: Reply, request: SeenRequest) -> None:
        payload, extra = reply.render(request)
        headers = {"Content-Length": str(len(payload)), "Connection": "close", **extra}
        if reply.action == "truncate":
            payload = payload[: len(payload) // 2]
        head = f"HTTP/1.1 {reply.status} X\r\n" + "".join(
            f"{k}: {v}\r\n" for k, v in headers.items()
        )
        with contextlib.suppress(OSError):
            conn.sendall(head.encode() + b"\r\n" + payload)
