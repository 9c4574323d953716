"""Record the sandbox's answers, then serve them again from a server with no CPU cost to speak of.

The concurrency benchmark needs a server whose own work does not hide the client's: the
sandbox spends a few hundred microseconds of Python per request, a real API spends its time
elsewhere. This module has two halves:

- :class:`Recorder`, a ``requests`` transport adapter that forwards each request to the
  sandbox and keeps the answer (status and body) under its method, path and sorted query;
- a minimal HTTP/1.1 server on ``asyncio`` (``python benchmarks/replay_server.py FILE``) that
  answers from such a recording over keep-alive connections, after a non-blocking
  ``asyncio.sleep(latency)`` per request, so 16 concurrent requests wait 16 latencies at once.
  Requests it has no answer for get a 404 and are counted (``GET /__replay__/misses``).

:class:`ReplayServer` starts that server in a child process and stops it.

Usage::

    python benchmarks/replay_server.py RECORDING.pickle --latency 0.03   # prints its URL
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import pickle
import subprocess
import sys
import threading
from email.utils import formatdate
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit

import requests
from requests.adapters import HTTPAdapter

#: (method, path?sorted-query) -> (status, body)
Recording = dict[tuple[str, str], tuple[int, bytes]]

_REASONS = {200: "OK", 201: "Created", 204: "No Content", 404: "Not Found"}


def key(method: str, target: str) -> tuple[str, str]:
    """The recording key of a request: method and path with its query sorted."""
    parts = urlsplit(target)
    query = urlencode(sorted(parse_qsl(parts.query, keep_blank_values=True)))
    return method.upper(), parts.path + ("?" + query if query else "")


class Recorder(HTTPAdapter):
    """A transport adapter that sends as usual and records every answer.

    Mount it on a session (``session.mount("http://", Recorder())``) and give that session
    to the client whose requests should be recorded; :attr:`answers` is the recording.
    """

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.answers: Recording = {}
        self._lock = threading.Lock()

    def send(self, request, **kwargs):  # type: ignore[no-untyped-def]
        response = super().send(request, **kwargs)
        body = response.content
        with self._lock:
            self.answers[key(request.method, request.path_url)] = (response.status_code, body)
        return response


def save(recording: Recording, path: Path) -> None:
    """Write a recording to ``path``."""
    path.write_bytes(pickle.dumps(recording, protocol=pickle.HIGHEST_PROTOCOL))


# -- the server -------------------------------------------------------------------------------


class _Replay:
    def __init__(self, recording: Recording, latency: float) -> None:
        self.recording = recording
        self.latency = latency
        self.misses = 0
        self.served = 0

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                method, target, _ = lines[0].split(" ", 2)
                headers = {}
                for line in lines[1:]:
                    name, _, value = line.partition(":")
                    headers[name.strip().lower()] = value.strip()
                length = int(headers.get("content-length") or 0)
                if length:
                    await reader.readexactly(length)
                if self.latency:
                    await asyncio.sleep(self.latency)
                status, body = self.answer(method, target)
                close = headers.get("connection", "").lower() == "close"
                writer.write(
                    (
                        f"HTTP/1.1 {status} {_REASONS.get(status, 'Status')}\r\n"
                        f"Date: {formatdate(usegmt=True)}\r\n"
                        "Content-Type: application/json\r\n"
                        f"Content-Length: {len(body)}\r\n"
                        f"Connection: {'close' if close else 'keep-alive'}\r\n\r\n"
                    ).encode("latin-1")
                    + body
                )
                await writer.drain()
                if close:
                    break
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError):
            pass
        finally:
            writer.close()

    def answer(self, method: str, target: str) -> tuple[int, bytes]:
        if target == "/__replay__/misses":
            return 200, f'{{"misses": {self.misses}, "served": {self.served}}}'.encode()
        found = self.recording.get(key(method, target))
        if found is None:
            self.misses += 1
            return 404, b'{"error": {"code": 404, "message": "not recorded"}}'
        self.served += 1
        return found


async def _serve(recording: Recording, latency: float, port: int) -> None:
    replay = _Replay(recording, latency)
    server = await asyncio.start_server(replay.handle, "127.0.0.1", port, backlog=256)
    host, bound = server.sockets[0].getsockname()[:2]
    print(f"http://{host}:{bound}", flush=True)
    async with server:
        await server.serve_forever()


class ReplayServer:
    """The replay server in a child process; use as a context manager.

    Parameters
    ----------
    recording : Path
        A file written by :func:`save`.
    latency : float
        Seconds each answer waits (without holding the server).
    """

    def __init__(self, recording: Path, latency: float = 0.0) -> None:
        self.recording = recording
        self.latency = latency

    def __enter__(self) -> ReplayServer:
        command = [
            sys.executable,
            str(Path(__file__).resolve()),
            str(self.recording),
            "--latency",
            str(self.latency),
        ]
        self._process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
        line = self._process.stdout.readline() if self._process.stdout else ""
        if not line.startswith("http://"):
            self._process.kill()
            raise RuntimeError("the replay server failed to start")
        self.url = line.strip()
        return self

    def misses(self) -> int:
        """How many requests had no recorded answer so far."""
        return int(requests.get(f"{self.url}/__replay__/misses", timeout=10).json()["misses"])

    def __exit__(self, *exc: object) -> None:
        self._process.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._process.wait(timeout=10)
        if self._process.poll() is None:
            self._process.kill()
            self._process.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("recording", type=Path)
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    recording = pickle.loads(args.recording.read_bytes())
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_serve(recording, args.latency, args.port))


if __name__ == "__main__":
    main()
