"""Serve a WSGI app on 127.0.0.1 in a daemon thread, with a hook to reset connections unread."""

from __future__ import annotations

import logging
import socket
import struct
import threading
from collections.abc import Callable
from typing import Any

from werkzeug.serving import ThreadedWSGIServer, WSGIRequestHandler

logger = logging.getLogger("docsapi.sandbox")

#: Called with each new connection; returning True resets it before the request is read.
ConnectionScreen = Callable[[socket.socket], bool]


class _Handler(WSGIRequestHandler):
    """Werkzeug's handler, quiet, with the connection screen in front."""

    def handle(self) -> None:
        screen: ConnectionScreen | None = getattr(self.server, "connection_screen", None)
        if screen is not None and screen(self.connection):
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()
            return
        super().handle()

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        logger.debug("%s %s -> %s", self.command, self.path.split("?", 1)[0], code)

    def log(self, type: str, message: str, *args: Any) -> None:
        logger.debug(message, *args)


class ServerThread:
    """A threaded werkzeug server running in a daemon thread.

    Parameters
    ----------
    app
        The WSGI application.
    host
        Interface to listen on (127.0.0.1 by default).
    port
        Port to listen on; 0 picks a free one.
    connection_screen
        Optional hook, called with each new connection's socket; True resets it unread.

    Examples
    --------
    >>> server = ServerThread(app).start()           # doctest: +SKIP
    >>> server.url                                    # doctest: +SKIP
    'http://127.0.0.1:53211'
    >>> server.stop()                                 # doctest: +SKIP
    """

    def __init__(
        self,
        app: Callable[..., Any],
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        connection_screen: ConnectionScreen | None = None,
    ) -> None:
        self.app = app
        self.host = host
        self.requested_port = port
        self.connection_screen = connection_screen
        self._server: ThreadedWSGIServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        """The port actually listened on (after :meth:`start`)."""
        if self._server is None:
            raise RuntimeError("the server is not running; call start() first")
        return self._server.port

    @property
    def url(self) -> str:
        """``http://host:port`` of the running server."""
        return f"http://{self.host}:{self.port}"

    def start(self) -> ServerThread:
        """Bind and start serving in a daemon thread.

        Raises
        ------
        OSError
            When the port cannot be bound (for example, it is already in use).
        """
        if self._server is not None:
            raise RuntimeError("the server is already running")
        try:
            server = ThreadedWSGIServer(self.host, self.requested_port, self.app, handler=_Handler)
        except SystemExit as exit_:
            raise OSError(
                f"cannot listen on {self.host}:{self.requested_port}; "
                "is the port in use? Choose another port."
            ) from exit_
        server.connection_screen = self.connection_screen  # type: ignore[attr-defined]
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"sandbox-{server.port}",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and release the port (safe to call twice)."""
        server, self._server = self._server, None
        if server is None:
            return
        server.shutdown()
        server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> ServerThread:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
