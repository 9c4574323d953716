"""Run a documentation-platform sandbox in its own process for the benchmarks.

A separate process keeps the server's GIL apart from the client's, as a real remote API
would be; the benchmark process only sends requests and measures them.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import time
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any


def _serve(conn: Connection, options: dict[str, Any]) -> None:
    """Child process: build and start the sandbox, report its address, obey commands."""
    from docsapi.sandbox import Sandbox

    sandbox = Sandbox(**options)
    with sandbox:
        demo = sandbox.demo
        conn.send(
            {
                "url": sandbox.url,
                "token": sandbox.token,
                "org_id": sandbox.org_id,
                "space_ids": list(demo["space_ids"]),
            }
        )
        while True:
            command, argument = conn.recv()
            if command == "stop":
                break
            if command == "latency":
                sandbox.set_latency(argument)
            if command == "rate_limit":
                sandbox.set_rate_limit(*argument)
            if command == "later":
                _later(sandbox, *argument)
            conn.send("ok")


def _later(sandbox: Any, hours: float, changes: int) -> None:
    """Move the sandbox clock ``hours`` on, then make ``changes`` grants (each logged): the
    organization a while after an audit, with new events in its log."""
    sandbox.advance_clock(hours=hours)
    spaces = sandbox.demo["space_ids"]
    users = list(sandbox.client().orgs.members(sandbox.org_id)["user_id"])
    roles = ("read", "comment", "edit")
    for i in range(changes):
        sandbox.grant(spaces[(7 * i) % len(spaces)], users[(13 * i) % len(users)], roles[i % 3])


@dataclass
class RemoteSandbox:
    """A sandbox served by a child process; use as a context manager.

    Parameters
    ----------
    options : dict
        Keyword arguments of :class:`docsapi.sandbox.Sandbox` (seed, spaces, users, ...).

    Examples
    --------
    >>> with RemoteSandbox({"seed": 0, "spaces": 300}) as sb:      # doctest: +SKIP
    ...     print(sb.url, sb.org_id)
    """

    options: dict[str, Any]

    def __enter__(self) -> RemoteSandbox:
        context = mp.get_context("spawn")
        self._conn, child = context.Pipe()
        self._process = context.Process(
            target=_serve, args=(child, self.options), name="bench-sandbox", daemon=True
        )
        self._process.start()
        deadline = time.monotonic() + 300
        while not self._conn.poll(0.2):
            if not self._process.is_alive() or time.monotonic() > deadline:
                self._process.terminate()
                raise RuntimeError("the sandbox process failed to start; see its traceback")
        info = self._conn.recv()
        self.url: str = info["url"]
        self.token: str = info["token"]
        self.org_id: str = info["org_id"]
        self.space_ids: list[str] = info["space_ids"]
        return self

    def set_latency(self, seconds: float) -> None:
        """Add ``seconds`` of delay to every API request."""
        self._conn.send(("latency", seconds))
        self._conn.recv()

    def set_rate_limit(self, limit: int | None, per_seconds: float = 60.0) -> None:
        """Allow ``limit`` API requests per ``per_seconds`` window (None: no limit)."""
        self._conn.send(("rate_limit", (limit, per_seconds)))
        self._conn.recv()

    def later(self, hours: float, changes: int) -> None:
        """Move the sandbox clock ``hours`` on and make ``changes`` logged grants."""
        self._conn.send(("later", (hours, changes)))
        self._conn.recv()

    @property
    def pid(self) -> int:
        """The server process's id."""
        return self._process.pid

    def __exit__(self, *exc: object) -> None:
        with contextlib.suppress(OSError):
            self._conn.send(("stop", None))
        self._process.join(timeout=10)
        if self._process.is_alive():
            self._process.terminate()
            self._process.join(timeout=5)
