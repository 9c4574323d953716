"""The official TypeScript client, ``@gitbook/api``, calls the sandbox's site operations.

``tests/typescript_client/`` holds a small node script and its ``package.json`` (the client's
version pinned; ``.ci/run`` installs it with ``npm ci``). The script talks to a proxy of the
standard library in front of the sandbox that validates every answer against the description
(``contract.validate``, as ``ApiSession`` does), so the client's calls and the sandbox's
answers are both checked. Skips when node or the installed package is absent.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import requests
from access_reading import fetch_all
from contract import ApiSession, ContractError, validate

FOLDER = Path(__file__).parent / "typescript_client"
NODE = shutil.which("node")

pytestmark = pytest.mark.skipif(
    NODE is None or not (FOLDER / "node_modules" / "@gitbook" / "api").is_dir(),
    reason="node or @gitbook/api is not installed (cd tests/typescript_client && npm ci)",
)


class _Proxy:
    """Forwards each request to the sandbox and validates its answer (failures kept)."""

    def __init__(self, target: str) -> None:
        self.failures: list[str] = []
        self.seen: list[tuple[str, str, int]] = []
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def _forward(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                headers = {
                    k: v
                    for k, v in self.headers.items()
                    if k.lower() not in ("host", "content-length", "connection")
                }
                answer = requests.request(
                    self.command, target + self.path, data=body, headers=headers, timeout=30
                )
                proxy.seen.append((self.command, self.path, answer.status_code))
                try:
                    validate(answer)
                except ContractError as error:
                    proxy.failures.append(str(error))
                self.send_response(answer.status_code)
                for key, value in answer.headers.items():
                    if key.lower() not in ("content-length", "transfer-encoding", "connection"):
                        self.send_header(key, value)
                self.send_header("Content-Length", str(len(answer.content)))
                self.end_headers()
                self.wfile.write(answer.content)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _forward

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> _Proxy:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_the_official_typescript_client_calls_the_three_site_operations(sandbox):
    org, site = sandbox.org_id, sandbox.demo["sites"]["public"]
    api = ApiSession(sandbox.url, sandbox.token)
    linked = {i["space"]["id"] for i in fetch_all(api, f"/orgs/{org}/sites/{site}/site-spaces")}
    space = next(s for s in sandbox.demo["space_ids"] if s not in linked)
    user = sandbox.demo["other_user_id"]
    root = sandbox.url.removesuffix("/v1")
    with _Proxy(root) as proxy:
        run = subprocess.run(
            [NODE, "site_operations.mjs", proxy.url, sandbox.token, org, site, space, user],
            cwd=FOLDER,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    assert run.returncode == 0, run.stderr
    results = {r["name"]: r for r in map(json.loads, run.stdout.splitlines())}
    assert proxy.failures == []
    assert [(m, s) for m, _, s in proxy.seen] == [
        ("POST", 201),
        ("POST", 404),
        ("POST", 201),
        ("POST", 204),
    ]
    made = results["addSpaceToSite"]
    assert made["status"] == 201 and made["data"]["space"]["id"] == space
    assert results["addSpaceToSite refused"]["status"] == 404
    section = results["addSectionToSite"]["data"]
    assert section["object"] == "site-section" and section["title"] == "TypeScript section"
    assert results["inviteToSite"]["status"] == 204
    granted = fetch_all(api, f"/orgs/{org}/sites/{site}/permissions/users")
    assert {g["user"]["id"]: g["permission"] for g in granted}[user] == "comment"
