"""A proxy over the sandbox that rewrites some of its answers, as a hostile server would.

Every request is forwarded to the sandbox (with its headers, ``Date`` included, back); a
``rewrite`` function may change the JSON body of any answer before it goes out. Cursors the
proxy hands out itself (:func:`endless`) are taken off the request before it is forwarded,
so the sandbox answers the list's first page again, with another fresh cursor: a list that
never ends.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import requests

#: (path, query, body) -> the body to send instead; the path without the ``/v1`` prefix.
Rewrite = Callable[[str, dict[str, str], Any], Any]

_FRESH = "proxy-"


def endless(body: Any) -> Any:
    """``body`` (a list page) with a fresh cursor to a next page, always."""
    if isinstance(body, dict) and isinstance(body.get("items"), list):
        body["next"] = {"page": _FRESH + uuid.uuid4().hex}
    return body


class HostileProxy:
    """Serve the sandbox at ``url`` through ``rewrite``.

    Examples
    --------
    >>> with HostileProxy(sandbox, rewrite) as proxy:   # doctest: +SKIP
    ...     client = DocsClient(base_url=proxy.url, token=sandbox.token)
    """

    def __init__(self, sandbox: Any, rewrite: Rewrite) -> None:
        self.sandbox = sandbox
        self.rewrite = rewrite
        self.requests = 0
        self._session = requests.Session()
        prefix = urlsplit(sandbox.url).path
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                outer.requests += 1
                parts = urlsplit(self.path)
                query = dict(parse_qsl(parts.query, keep_blank_values=True))
                if query.get("page", "").startswith(_FRESH):
                    del query["page"]  # a cursor of the proxy's: the first page again
                answer = outer._session.get(
                    sandbox.root_url + parts.path,
                    params=query,
                    headers={"Authorization": self.headers.get("Authorization", "")},
                    timeout=30,
                )
                payload = answer.content
                if answer.headers.get("Content-Type", "").startswith("application/json"):
                    body = outer.rewrite(parts.path.removeprefix(prefix), query, answer.json())
                    payload = json.dumps(body).encode()
                self.send_response(answer.status_code)
                for name in ("Content-Type", "Date", "Retry-After"):
                    if name in answer.headers:
                        self.send_header(name, answer.headers[name])
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: object) -> None:
                return

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_port}{prefix}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> HostileProxy:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._session.close()
