"""Git import/export (204 now, work later on the sandbox's timing) and change requests."""

from __future__ import annotations

import pytest
from contract import ApiSession

REPO = {"url": "https://github.com/acme/handbook.git", "ref": "main"}


@pytest.fixture
def api(sandbox):
    session = ApiSession(sandbox.url, sandbox.token)
    yield session
    session.close()


def _without_git(sandbox):
    return next(
        s
        for s in sandbox.demo["space_ids"]
        if s not in sandbox.demo["git_space_ids"] and s not in sandbox.demo["empty_space_ids"]
    )


def test_git_info_is_404_without_a_provider_and_200_with_one(sandbox, api):
    assert api.get(f"/spaces/{_without_git(sandbox)}/git/info").status_code == 404
    configured = api.get(f"/spaces/{sandbox.demo['git_space_ids'][0]}/git/info").json()
    assert configured["installationProvider"] in ("github", "gitlab")
    assert configured["operation"]["state"] == "success"


def test_import_answers_204_then_finishes_on_the_second_poll(sandbox, api):
    space = _without_git(sandbox)
    titles_before = [p["title"] for p in api.get(f"/spaces/{space}/content/pages").json()["pages"]]
    response = api.post(f"/spaces/{space}/git/import", json=REPO)
    assert response.status_code == 204
    assert response.content == b""
    first = api.get(f"/spaces/{space}/git/info").json()
    assert first["operation"] == {
        "state": "running",
        "direction": "import",
        "startedAt": first["operation"]["startedAt"],
    }
    assert first["url"] == REPO["url"]
    assert [
        p["title"] for p in api.get(f"/spaces/{space}/content/pages").json()["pages"]
    ] == titles_before
    second = api.get(f"/spaces/{space}/git/info").json()
    assert second["operation"]["state"] == "success"
    assert "endedAt" in second["operation"]
    titles_after = [p["title"] for p in api.get(f"/spaces/{space}/content/pages").json()["pages"]]
    assert titles_after == ["README", "Docs"]
    revision = api.get(f"/spaces/{space}/content").json()
    assert revision["git"]["ref"] == "main"


def test_import_finishes_when_the_sandbox_clock_moves_on(sandbox, api):
    space = _without_git(sandbox)
    api.post(f"/spaces/{space}/git/import", json=REPO)
    sandbox.advance_clock(seconds=6)
    assert [p["title"] for p in api.get(f"/spaces/{space}/content/pages").json()["pages"]] == [
        "README",
        "Docs",
    ]
    assert api.get(f"/spaces/{space}/git/info").json()["operation"]["state"] == "success"


def test_standalone_import_keeps_the_content(sandbox, api):
    space = _without_git(sandbox)
    before = api.get(f"/spaces/{space}/content/pages").json()
    api.post(f"/spaces/{space}/git/import", json={**REPO, "standalone": True})
    sandbox.advance_clock(seconds=6)
    assert api.get(f"/spaces/{space}/git/info").json()["operation"]["state"] == "success"
    assert api.get(f"/spaces/{space}/content/pages").json() == before


def test_export_runs_then_succeeds_and_unreachable_repositories_fail(sandbox, api):
    space = sandbox.demo["git_space_ids"][0]
    body = {**REPO, "commitMessage": "Sync docs"}
    assert api.post(f"/spaces/{space}/git/export", json=body).status_code == 204
    assert api.get(f"/spaces/{space}/git/info").json()["operation"]["direction"] == "export"
    assert api.get(f"/spaces/{space}/git/info").json()["operation"]["state"] == "success"
    api.post(
        f"/spaces/{space}/git/export", json={**body, "url": "https://git.example.invalid/x.git"}
    )
    sandbox.advance_clock(seconds=6)
    failed = api.get(f"/spaces/{space}/git/info").json()["operation"]
    assert failed["state"] == "failure"
    assert failed["error"]


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"url": "https://github.com/a/b.git"},
        {"ref": "main"},
        {"url": "not a url", "ref": "main"},
        {**REPO, "standalone": "yes"},
    ],
)
def test_git_import_rejects_bad_bodies(sandbox, api, body):
    assert api.post(f"/spaces/{_without_git(sandbox)}/git/import", json=body).status_code == 400


def test_export_needs_a_commit_message(sandbox, api):
    assert (
        api.post(f"/spaces/{sandbox.demo['space_ids'][0]}/git/export", json=REPO).status_code == 400
    )


def test_create_change_request_returns_the_object_and_the_deprecated_property(sandbox, api):
    space = sandbox.demo["space_ids"][0]
    response = api.post(f"/spaces/{space}/change-requests", json={"subject": "Fix typos"})
    assert response.status_code == 201
    created = response.json()
    assert created["object"] == "change-request"
    assert created["changeRequest"] == created["id"]
    assert created["subject"] == "Fix typos"
    assert created["createdBy"]["id"] == sandbox.demo["owner_id"]
    assert response.headers["Location"].endswith(f"/spaces/{space}/change-requests/{created['id']}")
    listed = api.get(f"/spaces/{space}/change-requests").json()["items"]
    assert created["id"] in {item["id"] for item in listed}
    assert created["number"] == max(item["number"] for item in listed)


def test_change_requests_filter_by_status(sandbox, api):
    counts = {}
    for status in ("open", "draft", "merged", "archived"):
        for space in sandbox.demo["space_ids"]:
            items = api.get(f"/spaces/{space}/change-requests", params={"status": status}).json()[
                "items"
            ]
            assert all(item["status"] == status for item in items)
            counts[status] = counts.get(status, 0) + len(items)
    assert all(counts.values())
    space = sandbox.demo["space_ids"][0]
    assert api.get(f"/spaces/{space}/change-requests", params={"status": "lost"}).status_code == 400
    assert (
        api.post(f"/spaces/{space}/change-requests", json={"subject": "x" * 101}).status_code == 400
    )


def test_space_counts_follow_change_requests(sandbox, api):
    space = sandbox.demo["space_ids"][0]
    before = api.get(f"/spaces/{space}").json()
    api.post(f"/spaces/{space}/change-requests", json={})
    after = api.get(f"/spaces/{space}").json()
    assert after["changeRequests"] == before["changeRequests"] + 1
    assert after["changeRequestsOpen"] == before["changeRequestsOpen"] + 1
