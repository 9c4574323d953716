"""An HTTP server in a process of its own that answers 404 to every request and logs it.

Each request's method and target, exactly as received (not decoded), is appended to a log
file and flushed before the answer goes out, so a test that reads the log after a call has
returned sees every request that call sent. Being another process, the server does not
compete with the test for the interpreter lock: thousands of requests take seconds.

Run alone as ``python recording_server.py LOG``: it prints its port, then serves until it is
terminated.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import IO, Any

NOT_FOUND = b'{"error": {"code": 404, "message": "Not found"}}'


class RecordingServer:
    """Start the server process; :meth:`take` returns the requests received since last time.

    Examples
    --------
    >>> with RecordingServer(tmp_path / "requests.log") as server:   # doctest: +SKIP
    ...     requests.get(server.url + "/v1/x")
    ...     server.take()
    [('GET', '/v1/x')]
    """

    def __init__(self, log: Path) -> None:
        self.log = log
        self.port = 0
        self._process: subprocess.Popen[str] | None = None
        self._reader: IO[bytes] | None = None
        self._rest = b""

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> RecordingServer:
        self.log.write_bytes(b"")
        self._process = subprocess.Popen(
            [sys.executable, __file__, str(self.log)], stdout=subprocess.PIPE, text=True
        )
        assert self._process.stdout is not None
        self.port = int(self._process.stdout.readline())
        self._reader = self.log.open("rb")
        return self

    def __exit__(self, *exc: object) -> None:
        if self._reader is not None:
            self._reader.close()
        if self._process is not None:
            self._process.terminate()
            self._process.wait(timeout=10)

    def take(self) -> list[tuple[str, str]]:
        """The ``(method, target)`` of each request received since the last call."""
        assert self._reader is not None
        data = self._rest + self._reader.read()
        *lines, self._rest = data.split(b"\n")
        return [tuple(line.decode("latin-1").split(" ", 1)) for line in lines]  # type: ignore[misc]


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    log_file: IO[bytes]
    lock = threading.Lock()

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        with self.lock:
            self.log_file.write(f"{self.command} {self.path}\n".encode("latin-1"))
            self.log_file.flush()
        self.send_response(404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(NOT_FOUND)))
        self.end_headers()
        self.wfile.write(NOT_FOUND)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _answer

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the log file is the record."""


def _serve(log: str) -> None:
    with open(log, "ab") as log_file:
        _Handler.log_file = log_file
        httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        print(httpd.server_port, flush=True)
        httpd.serve_forever()


if __name__ == "__main__":
    _serve(sys.argv[1])
