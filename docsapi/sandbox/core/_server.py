"""Serve a WSGI app with waitress on 127.0.0.1 in a daemon thread.

Connections are kept alive (HTTP/1.1) and served by a pool of threads; a request is only handed
to the application once its head and body have arrived, so a slow or half-sent request holds no
thread and no lock. Idle and slow connections are closed after ``channel_timeout`` seconds.

Requests that are not valid HTTP/1.1, or exceed a limit, are answered by the server itself (400,
413, 414 or 431) with the application's error body, then the connection is closed after the
peer's remaining input has been drained, so the answer is not lost to a reset.

The application can end the connection of the request it is serving, to simulate failures:
``environ[CONNECTION_KEY]`` is a :class:`Connection` (``close()``: no answer, orderly close;
``reset()``: no answer, TCP reset).
"""

from __future__ import annotations

import errno
import json
import logging
import re
import socket
import struct
import threading
import time
from collections.abc import Callable
from http import HTTPStatus
from typing import Any

from waitress import wasyncore
from waitress.adjustments import Adjustments
from waitress.channel import HTTPChannel
from waitress.parser import HTTPRequestParser, first_line_re
from waitress.server import TcpWSGIServer
from waitress.task import ErrorTask, ThreadedTaskDispatcher, WSGITask
from waitress.utilities import (
    BadRequest,
    Error,
    RequestEntityTooLarge,
    RequestHeaderFieldsTooLarge,
    ServerNotImplemented,
)

logger = logging.getLogger("docsapi.sandbox.server")
logging.getLogger("docsapi.sandbox").addHandler(logging.NullHandler())

#: environ key of the :class:`Connection` of the request being served.
CONNECTION_KEY = "docsapi.sandbox.connection"
#: Longest request target (path and query) accepted, in characters; longer ones get 414.
MAX_TARGET_LENGTH = 8192
#: Largest request line plus headers, in bytes; larger ones get 431.
MAX_HEAD_BYTES = 65536
#: Largest request body, in bytes; larger ones get 413.
MAX_BODY_BYTES = 10 * 1024 * 1024
#: Seconds a closing connection keeps reading (and discarding) what the peer still sends.
DRAIN_SECONDS = 2.0

_METHOD_PREFIX = re.compile(rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]{0,32}")
#: How much of a request's first line is enough to tell it is not HTTP.
_LOOK_AT = MAX_TARGET_LENGTH + 64

#: Builds the error body of an answer the server gives itself: (status, message) -> bytes.
ErrorBody = Callable[[int, str], bytes]


def api_error_body(status: int, message: str) -> bytes:
    """The documentation-platform API's error body ``{"error": {"code", "message"}}``.

    Examples
    --------
    >>> api_error_body(414, "Too long.")
    b'{"error": {"code": 414, "message": "Too long."}}'
    """
    return json.dumps({"error": {"code": status, "message": message}}).encode()


class _TargetTooLong(Error):
    code = 414
    reason = "URI Too Long"


class _VersionNotSupported(Error):
    code = 400
    reason = "Bad Request"


def _describe(error: Error) -> tuple[int, str]:
    """The status and message answered for a request waitress could not hand to the app."""
    if isinstance(error, _TargetTooLong):
        return 414, (
            f"The request target is longer than {MAX_TARGET_LENGTH} characters; "
            "send long values in a request body."
        )
    if isinstance(error, RequestHeaderFieldsTooLarge):
        return 431, f"The request line and headers exceed {MAX_HEAD_BYTES} bytes."
    if isinstance(error, RequestEntityTooLarge):
        return 413, f"The request body exceeds the limit of {MAX_BODY_BYTES} bytes."
    if isinstance(error, _VersionNotSupported):
        return 400, f"{error.body}; send HTTP/1.1 requests."
    if isinstance(error, ServerNotImplemented):
        return 400, f"{error.body} Send a Content-Length or Transfer-Encoding: chunked."
    if isinstance(error, BadRequest):
        return 400, f"The request is not valid HTTP/1.1 ({error.body})."
    return 500, "The server failed while answering; the request may not have been completed."


def _head_error(head: bytes) -> Error | None:
    """The error of a request head that cannot be HTTP/1.x, judged on its first line alone
    (None while it still may be)."""
    head = head.lstrip(b"\r\n")
    line_end = head.find(b"\n")
    if line_end < 0:
        method = _METHOD_PREFIX.match(head)
        end = method.end() if method else 0
        if end < len(head) and head[end : end + 1] != b" ":
            return BadRequest("it is not an HTTP/1.x request")
        return None
    match = first_line_re.fullmatch(head[:line_end].rstrip(b"\r"))
    if match is None:
        return BadRequest("it is not an HTTP/1.x request")
    version = match["version"]
    if version is None:
        return BadRequest("the request line names no HTTP version")
    if version not in (b"1.0", b"1.1"):
        return _VersionNotSupported(f"HTTP/{version.decode()} is not supported here")
    return None


class _Parser(HTTPRequestParser):
    """waitress's parser, refusing non-HTTP/1.x input on its first line and long targets."""

    completed: bool
    headers_finished: bool

    def received(self, data: bytes) -> int:
        in_head = self.body_rcv is None and not self.headers_finished
        head = self.header_plus + data if in_head else b""
        error = _head_error(head[:_LOOK_AT]) if in_head and not self.completed else None
        if error is not None:
            self.parse_header(b"GET / HTTP/1.0\r\n")
            self.error = error
            self.completed = True
            self.headers_finished = True
            return len(data)
        consumed = super().received(data)
        if isinstance(self.error, RequestHeaderFieldsTooLarge) and b"\n" not in head:
            self.error = _TargetTooLong("request line too long")
        elif (
            in_head
            and self.headers_finished
            and self.error is None
            and not self.empty
            and len(self.request_uri) > MAX_TARGET_LENGTH
        ):
            self.error = _TargetTooLong("request target too long")
            self.completed = True
        return consumed


class Connection:
    """The connection of the request being served, for simulating network failures.

    After calling :meth:`close` or :meth:`reset`, the application returns an empty iterable
    without calling ``start_response``: nothing is answered.
    """

    def __init__(self, task: _Task) -> None:
        self._task = task

    def close(self) -> None:
        """End the connection without an answer (an orderly close: the peer reads EOF)."""
        self._task.cut = "close"

    def reset(self) -> None:
        """End the connection without an answer with a TCP reset."""
        self._task.cut = "reset"


class _Task(WSGITask):
    logger = logger
    cut: str | None = None

    def get_environment(self) -> dict[str, Any]:
        environ = super().get_environment()
        environ.setdefault(CONNECTION_KEY, Connection(self))
        return environ

    def finish(self) -> None:
        if self.cut is None:
            super().finish()
            return
        self.close_on_finish = True
        if self.cut == "reset":
            self.channel.reset_on_close()


class _ErrorTask(ErrorTask):
    """Answers malformed or oversized requests with the application's error body."""

    logger = logger

    def execute(self) -> None:
        status, message = _describe(self.request.error)
        body = self.channel.server.error_body(status, message)
        self.status = f"{status} {HTTPStatus(status).phrase}"
        self.response_headers.append(("Content-Type", "application/json"))
        self.set_close_on_finish()
        self.content_length = len(body)
        self.write(body)


class _Channel(HTTPChannel):
    """waitress's channel, with lingering close and an optional reset."""

    task_class = _Task
    error_task_class = _ErrorTask
    parser_class = _Parser
    logger = logger
    _closing_by_us = False
    _draining_until: float | None = None
    _reset = False

    def reset_on_close(self) -> None:
        """Close with a TCP reset instead of an orderly close (called from a worker thread)."""
        self._reset = True
        if self.socket is not None:
            self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))

    def handle_write(self) -> None:
        if self.close_when_flushed and not self.total_outbufs_len:
            self._closing_by_us = True
        super().handle_write()

    def handle_close(self) -> None:
        if self._draining_until is None and self._closing_by_us and not self._reset:
            # Send FIN, then read what the peer still sends: closing with unread input would
            # reset the connection and could destroy the answer before the peer reads it.
            try:
                self.socket.shutdown(socket.SHUT_WR)
            except OSError:
                super().handle_close()
                return
            self._draining_until = time.monotonic() + DRAIN_SECONDS
            return
        super().handle_close()

    def readable(self) -> bool:
        if self._draining_until is not None:
            if time.monotonic() >= self._draining_until:
                super().handle_close()
                return False
            return True
        return super().readable()

    def writable(self) -> bool:
        if self._draining_until is not None:
            return False
        return super().writable()

    def handle_read(self) -> None:
        if self._draining_until is None:
            super().handle_read()
            return
        try:
            data = self.socket.recv(65536)
        except OSError:
            data = b""
        if not data:
            super().handle_close()


class _Dispatcher(ThreadedTaskDispatcher):
    logger = logger
    queue_logger = logging.getLogger("docsapi.sandbox.server.queue")


class _Server(TcpWSGIServer):
    channel_class = _Channel
    error_body: ErrorBody = staticmethod(api_error_body)


#: The longest a connection may stay idle, in seconds (a day).
MAX_CHANNEL_TIMEOUT = 86_400


class ServerThread:
    """A waitress server (keep-alive, thread pool, size limits) running in a daemon thread.

    Parameters
    ----------
    app
        The WSGI application.
    host
        Interface to listen on (127.0.0.1 by default).
    port
        Port to listen on; 0 picks a free one.
    threads
        Worker threads answering requests.
    channel_timeout
        Seconds after which an idle connection, or one whose request does not arrive in
        full, is closed (a whole number, at least 1).
    error_body
        Builds the body of the answers the server gives itself (malformed HTTP, limits);
        the documentation-platform API's error body by default.

    Examples
    --------
    >>> def app(environ, start_response):
    ...     start_response("200 OK", [("Content-Type", "text/plain")])
    ...     return [b"hello"]
    >>> server = ServerThread(app).start()
    >>> server.url  # doctest: +ELLIPSIS
    'http://127.0.0.1:...'
    >>> server.stop()
    """

    def __init__(
        self,
        app: Callable[..., Any],
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        threads: int = 32,
        channel_timeout: int = 120,
        error_body: ErrorBody = api_error_body,
    ) -> None:
        if isinstance(channel_timeout, bool) or not isinstance(channel_timeout, int):
            raise ValueError(
                f"channel_timeout must be a whole number of seconds, got {channel_timeout!r}"
            )
        if not 1 <= channel_timeout <= MAX_CHANNEL_TIMEOUT:
            raise ValueError(
                f"channel_timeout must be from 1 to {MAX_CHANNEL_TIMEOUT} seconds, "
                f"got {channel_timeout!r:.60}"
            )
        if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65_535:
            raise ValueError(
                f"port must be an integer from 0 (a free port) to 65535, got {port!r:.60}"
            )
        self.app = app
        self.host = host
        self.requested_port = port
        self.threads = threads
        self.channel_timeout = channel_timeout
        self.error_body = error_body
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        """The port actually listened on (after :meth:`start`)."""
        if self._server is None:
            raise RuntimeError("the server is not running; call start() first")
        return int(self._server.effective_port)

    @property
    def url(self) -> str:
        """``http://host:port`` of the running server."""
        return f"http://{self.host}:{self.port}"

    def start(self) -> ServerThread:
        """Bind and start serving in a daemon thread.

        Raises
        ------
        OSError
            When the port cannot be bound; ``strerror`` says so in one sentence, e.g.
            ``cannot listen on 127.0.0.1:8765: the port is in use``.
        """
        if self._server is not None:
            raise RuntimeError("the server is already running")
        adjustments = Adjustments(
            host=self.host,
            port=self.requested_port,
            threads=self.threads,
            channel_timeout=self.channel_timeout,
            cleanup_interval=min(self.channel_timeout, 30),
            max_request_header_size=MAX_HEAD_BYTES,
            max_request_body_size=MAX_BODY_BYTES,
            connection_limit=1000,
            asyncore_use_poll=True,
            log_socket_errors=False,
            ident="docsapi-sandbox",
        )
        socket_map: dict[int, Any] = {}
        dispatcher = _Dispatcher()
        try:
            server = _Server(self.app, map=socket_map, dispatcher=dispatcher, adj=adjustments)
        except OSError as error:
            wasyncore.close_all(socket_map, ignore_all=True)
            reason = (
                "the port is in use"
                if error.errno == errno.EADDRINUSE
                else (error.strerror or str(error)).lower()
            )
            raise OSError(
                error.errno, f"cannot listen on {self.host}:{self.requested_port}: {reason}"
            ) from None
        server.error_body = self.error_body
        dispatcher.set_thread_count(self.threads)
        self._server = server
        self._thread = threading.Thread(target=server.run, name=f"sandbox-{self.port}", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and release the port (safe to call twice).

        The listening socket is closed first, then the worker threads finish the requests
        they hold, then every connection is closed.
        """
        server, self._server = self._server, None
        if server is None:
            return
        self._in_loop(server, lambda: wasyncore.dispatcher.close(server))
        server.task_dispatcher.shutdown(timeout=5)
        self._in_loop(server, lambda: wasyncore.close_all(server._map, ignore_all=True))
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    @staticmethod
    def _in_loop(server: _Server, action: Callable[[], object]) -> None:
        """Run ``action`` in the server's loop thread and wait for it (at most 5 s)."""
        done = threading.Event()

        def run() -> None:
            try:
                action()
            finally:
                done.set()

        server.trigger.pull_trigger(run)
        done.wait(timeout=5)

    def __enter__(self) -> ServerThread:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
