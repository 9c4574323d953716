"""A sandbox is ready when start() returns: its first request builds nothing (issue 36)."""

from __future__ import annotations

import sys

import requests

from docsapi.sandbox import Sandbox


def test_start_builds_what_the_first_request_would_and_the_first_requests_build_nothing():
    sandbox = Sandbox(seed=3)
    assert not sandbox._app.prepared  # built by start(), not by the constructor
    with sandbox, requests.Session() as session:
        assert sandbox._app.prepared
        session.headers["Authorization"] = f"Bearer {sandbox.token}"
        # the client's own first request (its lazy imports) goes to a control, not the API
        assert session.get(f"{sandbox.root_url}/_sandbox/clock", timeout=30).ok
        modules = set(sys.modules)
        space = sandbox.demo["space_ids"][0]
        answers = [
            session.get(f"{sandbox.url}/orgs/{sandbox.org_id}", timeout=30),
            session.get(f"{sandbox.url}/orgs/{sandbox.org_id}/members?limit=5", timeout=30),
            session.get(f"{sandbox.url}/spaces/{space}/permissions/aggregate", timeout=30),
            session.patch(f"{sandbox.url}/spaces/{space}", json={"title": "Ready"}, timeout=30),
            session.get(f"{sandbox.url}/spaces/{space}?unknown=1", timeout=30),
        ]
        assert [a.status_code for a in answers] == [200, 200, 200, 200, 200]
        assert set(sys.modules) - modules == set()  # nothing imported on first use
        assert sandbox._app.prepared


def test_a_refused_body_on_a_fresh_sandbox_names_the_field():
    with Sandbox(seed=3) as sandbox:
        space = sandbox.demo["space_ids"][0]
        answer = requests.patch(
            f"{sandbox.url}/spaces/{space}",
            json={"title": 5},
            headers={"Authorization": f"Bearer {sandbox.token}"},
            timeout=30,
        )
        assert answer.status_code == 400
        assert "title" in answer.json()["error"]["message"]
