"""Git sync: import and export answer 204 at once; the work finishes later, on the sandbox's timing.

An operation stays ``running`` for the first ``GET git/info`` after it was queued and finishes on
the second one, or on the first one after :data:`GIT_DELAY` has passed on the sandbox clock. It
also finishes when the sandbox clock is advanced past that delay. Nothing runs in the background
or before other requests: an operation only moves when its state is read or the clock moves.
A repository URL whose host ends in ``.invalid`` makes the operation fail.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

from docsapi.sandbox.core import _events as events
from docsapi.sandbox.core._auth import security
from docsapi.sandbox.core._clock import iso
from docsapi.sandbox.core._content_gen import imported_content
from docsapi.sandbox.core._errors import bad_request, not_found
from docsapi.sandbox.core._store import Store
from docsapi.sandbox.core._web import Ctx, Reply, Route, no_content
from docsapi.sandbox.routes import _render as render
from docsapi.sandbox.routes._access import space_for
from docsapi.sandbox.routes._checks import check_bool, check_string

#: Sandbox time after which a queued Git operation has finished.
GIT_DELAY = timedelta(seconds=5)
_POLLS_TO_FINISH = 2
_COMMON = (
    "url",
    "ref",
    "force",
    "standalone",
    "repoProjectDirectory",
    "repoTreeURL",
    "repoCommitURL",
    "timestamp",
    "gitInfo",
    "repoCacheID",
)


def _queue(ctx: Ctx, space_id: str, direction: str) -> Reply:
    space = space_for(ctx, space_id, "edit")
    allowed = (*_COMMON, "commitMessage") if direction == "export" else _COMMON
    body = ctx.object_body(allowed=allowed)
    url = check_string(body.get("url"), "url", min_length=1)
    ref = check_string(body.get("ref"), "ref", min_length=1)
    if direction == "export":
        check_string(body.get("commitMessage"), "commitMessage", min_length=1)
    standalone = check_bool(body.get("standalone", False), "standalone")
    host = urlsplit(url).netloc.lower()
    if not host:
        raise bad_request(
            f"url must be a repository URL such as https://github.com/org/repo.git; got {url!r}."
        )
    now = ctx.store.clock.now()
    record = ctx.state.git.get(space_id)
    if record is None:
        provider = "gitlab" if "gitlab" in host else "github"
        if isinstance(body.get("gitInfo"), dict) and body["gitInfo"].get("provider") in (
            "github",
            "gitlab",
        ):
            provider = body["gitInfo"]["provider"]
        record = {
            "installationId": ctx.store.new_id(),
            "installationProvider": provider,
            "installationStatus": "active",
        }
        ctx.state.git[space_id] = record
    record.update(
        url=url,
        repoName=urlsplit(url).path.strip("/").removesuffix(".git"),
        updatedAt=iso(now),
        operation={"state": "running", "direction": direction, "startedAt": iso(now)},
        _polls=0,
        _due=now + GIT_DELAY,
        _job={"url": url, "ref": ref, "standalone": standalone},
    )
    label = f"{space['title']}: {direction} {url}@{ref}"
    events.space_event(ctx.store, ctx.credential, space, f"space.git-sync.{direction}ed", label)
    return no_content()


def import_repository(ctx: Ctx, space_id: str) -> Reply:
    """POST /spaces/{spaceId}/git/import: 204; the space content follows later unless standalone."""
    return _queue(ctx, space_id, "import")


def export_repository(ctx: Ctx, space_id: str) -> Reply:
    """POST /spaces/{spaceId}/git/export: 204; the export finishes later."""
    return _queue(ctx, space_id, "export")


def _finish(store: Store, space_id: str, record: dict[str, Any]) -> None:
    job = record.pop("_job")
    record.pop("_due", None)
    record.pop("_polls", None)
    now = store.clock.now()
    operation = record["operation"]
    operation["endedAt"] = iso(now)
    record["updatedAt"] = iso(now)
    if urlsplit(job["url"]).netloc.lower().endswith(".invalid"):
        operation.update(state="failure", error=f"Repository {job['url']} could not be reached.")
        return
    operation["state"] = "success"
    if (
        operation["direction"] == "import"
        and not job["standalone"]
        and space_id in store.state.spaces
    ):
        store.set_content(space_id, imported_content(job["url"], job["ref"], iso(now)))


def finish_due_operations(store: Store) -> None:
    """Finish every running Git operation whose time has come (when the clock is advanced)."""
    now = store.clock.now()
    for space_id, record in list(store.state.git.items()):
        if "_job" in record and now >= record["_due"]:
            _finish(store, space_id, record)


def git_info(ctx: Ctx, space_id: str) -> Reply:
    """GET /spaces/{spaceId}/git/info -> GitSyncState; 404 when no Git provider is configured."""
    space_for(ctx, space_id)
    record = ctx.state.git.get(space_id)
    if record is None:
        raise not_found(
            f"No Git provider is configured for space {space_id!r}; run a Git import first."
        )
    if "_job" in record:
        record["_polls"] += 1
        if record["_polls"] >= _POLLS_TO_FINISH or ctx.store.clock.now() >= record["_due"]:
            _finish(ctx.store, space_id, record)
    return Reply(200, render.git_sync(record))


ROUTES = [
    Route(
        "POST",
        "/spaces/<space_id>/git/import",
        import_repository,
        security("user", "integration", "integration-installation", "oauth:space:write"),
    ),
    Route(
        "POST",
        "/spaces/<space_id>/git/export",
        export_repository,
        security("user", "integration", "integration-installation", "oauth:space:write"),
    ),
    Route(
        "GET",
        "/spaces/<space_id>/git/info",
        git_info,
        security("user", "oauth:space:read"),
        changes_on_read=True,  # a poll may finish the operation
    ),
]
