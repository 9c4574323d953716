"""The response cache, over real HTTP against the sandbox: hits, misses, writes, tokens, expiry."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from fake_clock import FakeClock

from docsapi import CacheSettings, DocsClient, ValidationError
from docsapi.errors import NotFoundError
from docsapi.wire.cache import CACHE_FILE_NAME, stale_scopes


@pytest.fixture
def cache_file(tmp_path: Path) -> Path:
    return tmp_path / "cache" / "answers.sqlite"


def sent_and_cached(client: DocsClient, count: int) -> list[bool]:
    """``from_cache`` of the last ``count`` attempts in the history."""
    return [record.from_cache for record in list(client.transport.history)[-count:]]


# -- settings (offline) -----------------------------------------------------------------------


def test_cache_argument_forms(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert CacheSettings.coerce(None) is None and CacheSettings.coerce(False) is None
    default = CacheSettings.coerce(True)
    if sys.platform.startswith("linux"):
        assert default.path == tmp_path / "xdg" / "docsapi" / CACHE_FILE_NAME
    assert default.expire_after == timedelta(hours=1)
    assert CacheSettings.coerce(str(tmp_path / "a.sqlite")).path == tmp_path / "a.sqlite"
    assert CacheSettings.coerce(tmp_path).path == tmp_path / CACHE_FILE_NAME  # a directory
    assert CacheSettings.coerce(90).expire_after == timedelta(seconds=90)
    assert CacheSettings.coerce(timedelta(days=2)).expire_after == timedelta(days=2)
    never = CacheSettings(path=tmp_path / "n.sqlite", expire_after=None)
    assert CacheSettings.coerce(never) is never
    assert repr(never) == f"CacheSettings(path='{tmp_path / 'n.sqlite'}', expire_after=None)"
    assert "expire_after=timedelta(days=2)" in repr(CacheSettings.coerce(timedelta(days=2)))


@pytest.mark.parametrize(
    ("value", "argument"),
    [
        ("", "path"),
        (b"x", "cache"),
        (0, "expire_after"),
        (-5.0, "expire_after"),
        (float("nan"), "expire_after"),
        (timedelta(days=-1), "expire_after"),
        ([], "cache"),
    ],
)
def test_bad_cache_arguments_are_refused_before_anything_is_opened(value, argument, sandbox):
    with pytest.raises(ValidationError) as info:
        sandbox.client(cache=value)
    assert info.value.argument == argument
    assert sandbox.request_count == 0


def test_docsapi_and_an_uncached_client_do_not_import_requests_cache():
    code = (
        "import sys, docsapi\n"
        "assert 'requests_cache' not in sys.modules\n"
        "docsapi.DocsClient(token='t').close()\n"
        "assert 'requests_cache' not in sys.modules\n"
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.stdout.strip() == "ok", done.stderr


# -- hits and misses --------------------------------------------------------------------------


def test_a_second_read_is_served_from_the_cache(sandbox, cache_file):
    client = sandbox.client(cache=cache_file)
    first = client.spaces.list(org_id=sandbox.org_id)
    sent = sandbox.request_count
    second = client.spaces.list(org_id=sandbox.org_id)
    assert sandbox.request_count == sent  # nothing sent the second time
    assert second.equals(first)
    pages = sent  # one record per page, sent then cached
    assert sent_and_cached(client, 2 * pages) == [False] * pages + [True] * pages
    assert client.cache.hits == pages and client.cache.misses == pages
    assert client.transport.request_count == pages
    text = repr(client.cache)
    assert f"path='{cache_file}'" in text and f"entries={pages}" in text
    assert f"hits={pages}, misses={pages}" in text
    assert f"cache='{cache_file}'" in repr(client)


def test_a_new_client_on_the_same_file_reuses_the_answers(sandbox, cache_file):
    with sandbox.client(cache=cache_file) as first:
        me = first.users.me()
    sent = sandbox.request_count
    with sandbox.client(cache=cache_file) as again:  # a re-run notebook: a new kernel
        assert again.users.me().raw == me.raw
        assert again.cache.hits == 1
    assert sandbox.request_count == sent


def test_errors_are_not_cached(sandbox, cache_file):
    client = sandbox.client(cache=cache_file)
    for _ in range(2):
        with pytest.raises(NotFoundError):
            client.spaces.get("no-such-space")
    assert sandbox.request_count == 2 and client.cache.entries == 0


def test_only_gets_are_cached_and_writes_are_always_sent(sandbox, cache_file):
    client = sandbox.client(cache=cache_file)
    space_id = sandbox.demo["space_ids"][0]
    for title in ("First title", "First title"):
        client.spaces.update(space_id, title=title)
    assert sandbox.request_count == 2 and client.cache.entries == 0
    assert sent_and_cached(client, 2) == [False, False]


def test_cache_hits_spend_no_rate_limit_budget_and_never_wait(sandbox, cache_file):
    clock = FakeClock()
    client = sandbox.client(cache=cache_file, clock=clock)
    space_ids = sandbox.demo["space_ids"][:2]
    sandbox.set_rate_limit(2, per_seconds=60)
    for space_id in space_ids:
        client.spaces.get(space_id)  # the budget is spent: X-RateLimit-Remaining 0
    for _ in range(3):
        for space_id in space_ids:
            client.spaces.get(space_id)
    assert clock.sleeps == [] and sandbox.request_count == 2


def test_the_key_includes_the_content_headers_and_the_clients_extra_headers(sandbox, cache_file):
    sandbox.client(cache=cache_file, headers={"Accept-Language": "fr"}).users.me()
    sandbox.client(cache=cache_file, headers={"Accept-Language": "de"}).users.me()
    sandbox.client(cache=cache_file, headers={"X-Team": "a"}).users.me()
    assert sandbox.request_count == 3
    sandbox.client(cache=cache_file, headers={"X-Team": "a"}).users.me()
    assert sandbox.request_count == 3


def test_the_key_includes_headers_given_with_one_request(sandbox, cache_file):
    client = sandbox.client(cache=cache_file)
    client.transport.request("GET", "/user", headers={"X-Partner": "a"})
    client.transport.request("GET", "/user", headers={"X-Partner": "b"})
    client.transport.request("GET", "/user")
    assert sandbox.request_count == 3
    again = client.transport.request("GET", "/user", headers={"X-Partner": "a"})
    assert sandbox.request_count == 3
    assert client.transport.history[-1].from_cache and again.data["id"]


# -- writes drop what they may change -----------------------------------------------------------


class Scene:
    """The demo organization's ids a write test needs, and the answers it watches."""

    def __init__(self, sandbox, client):
        demo = sandbox.demo
        self.org = sandbox.org_id
        self.collection = demo["collections"]["product"]
        self.other_collection = demo["collections"]["engineering"]
        in_collection = [s["id"] for s in client.paginate(f"/collections/{self.collection}/spaces")]
        self.space = in_collection[0]
        self.other_space = next(s for s in demo["space_ids"] if s not in in_collection)
        granted = client.permissions.users(self.space)
        self.grantee = next(u for u in granted.user_id if u != demo["owner_id"])
        members = client.orgs.members(self.org)
        self.newcomer = next(u for u in members.user_id if u not in set(granted.user_id))
        self.member = next(
            u for u in members.user_id if u not in (demo["owner_id"], *demo["org_admin_ids"])
        )
        self.team = demo["team_ids"][0]
        in_team = set(client.orgs.team_members(self.org, self.team).user_id)
        self.team_member = next(iter(in_team))
        self.outsider = next(u for u in members.user_id if u not in in_team)
        collection_users = client.request(
            "GET", f"/collections/{self.collection}/permissions/users"
        )["items"]
        self.collection_user = collection_users[0]["user"]["id"]
        self.me = demo["owner_id"]
        self.watched = {
            "space": f"/spaces/{self.space}",
            "space users": f"/spaces/{self.space}/permissions/users",
            "space access": f"/spaces/{self.space}/permissions/aggregate",
            "other space users": f"/spaces/{self.other_space}/permissions/users",
            "org spaces": f"/orgs/{self.org}/spaces",
            "org members": f"/orgs/{self.org}/members",
            "collection spaces": f"/collections/{self.collection}/spaces",
            "me": "/user",
        }

    def read(self, client) -> dict[str, object]:
        answers: dict[str, object] = {}
        for name, path in self.watched.items():
            try:
                answers[name] = client.request("GET", path)
            except NotFoundError:
                answers[name] = "404"
        return answers


SPACE = {"space", "space users", "space access", "org spaces", "org members", "collection spaces"}
ORG = SPACE | {"other space users"}
EVERYTHING = ORG | {"me"}

WRITES = {
    "PATCH a space": (lambda s, c: c.spaces.update(s.space, title="Renamed by a test"), SPACE),
    "POST space permissions": (
        lambda s, c: c.permissions.invite(s.space, role="read", users=[s.newcomer]),
        SPACE,
    ),
    "PATCH a space user's role": (
        lambda s, c: c.permissions.set_user_role(s.space, s.grantee, "admin"),
        SPACE,
    ),
    "DELETE a space user": (lambda s, c: c.permissions.remove_user(s.space, s.grantee), SPACE),
    "POST duplicate": (lambda s, c: c.spaces.duplicate(s.space), SPACE),
    "DELETE a space": (lambda s, c: c.spaces.delete(s.space), SPACE),
    "POST move": (
        lambda s, c: c.spaces.move(s.space, parent=s.other_collection),
        SPACE,
    ),
    "PATCH an org member": (
        lambda s, c: c.request(
            "PATCH", f"/orgs/{s.org}/members/{s.member}", json={"role": "admin"}
        ),
        ORG,
    ),
    "PUT a team member": (
        lambda s, c: c.request(
            "PUT", f"/orgs/{s.org}/teams/{s.team}/members/{s.outsider}", json={}
        ),
        ORG,
    ),
    "DELETE a team member": (
        lambda s, c: c.request("DELETE", f"/orgs/{s.org}/teams/{s.team}/members/{s.team_member}"),
        ORG,
    ),
    "PATCH a collection": (
        lambda s, c: c.request(
            "PATCH", f"/collections/{s.collection}", json={"defaultLevel": "edit"}
        ),
        ORG,
    ),
    "PATCH a collection user's role": (
        lambda s, c: c.request(
            "PATCH",
            f"/collections/{s.collection}/permissions/users/{s.collection_user}",
            json={"role": "admin"},
        ),
        ORG,
    ),
    "PATCH a user": (
        lambda s, c: c.users.update(s.me, display_name="Renamed by a test"),
        EVERYTHING,
    ),
}


@pytest.mark.parametrize("write", list(WRITES))
def test_a_write_drops_what_it_may_change_and_the_rest_stays(write, sandbox, cache_file):
    act, dropped = WRITES[write]
    client = sandbox.client(cache=cache_file)
    scene = Scene(sandbox, sandbox.client())
    scene.read(client)
    assert scene.read(client) == scene.read(sandbox.client())  # warm, and right
    act(scene, client)
    sent_before = sandbox.request_count
    after = scene.read(client)
    from_cache = dict(zip(scene.watched, sent_and_cached(client, len(scene.watched)), strict=True))
    assert {name for name, cached in from_cache.items() if not cached} == dropped
    assert sandbox.request_count - sent_before == len(dropped)
    assert after == scene.read(sandbox.client())  # what the cache serves is what the API says


def test_every_write_counts_even_a_failed_one(sandbox, cache_file):
    client = sandbox.client(cache=cache_file)
    space_id = sandbox.demo["space_ids"][0]
    client.spaces.get(space_id)
    with pytest.raises(ValidationError):  # refused before sending: nothing to drop
        client.spaces.update(space_id, title="x" * 500)
    client.spaces.get(space_id)
    assert sent_and_cached(client, 1) == [True]
    with pytest.raises(NotFoundError):  # sent: whatever the answer, the cache is dropped
        client.request(
            "PATCH", f"/spaces/{space_id}/permissions/users/nobody", json={"role": "read"}
        )
    client.spaces.get(space_id)
    assert sent_and_cached(client, 1) == [False]


def test_the_invalidation_rule():
    assert stale_scopes("/spaces/s1") == ("/spaces/s1", "/collections", "/orgs")
    assert stale_scopes("/spaces/s1/content/template") == ("/spaces/s1", "/collections", "/orgs")
    for path in ("/collections/c1/permissions", "/orgs/o1/teams/t1/members", "/orgs"):
        assert stale_scopes(path) == ("/spaces", "/collections", "/orgs")
    for path in ("/users/u1", "/user/notifications/token", "/spaces", "/", "/something/new"):
        assert stale_scopes(path) == ("",)


def test_a_write_to_one_api_address_leaves_anothers_answers(sandbox, cache_file, tmp_path):
    from docsapi.sandbox import Sandbox

    with Sandbox(seed=0) as second:
        here = sandbox.client(cache=cache_file)
        there = second.client(cache=cache_file)
        here.users.me()
        there.users.me()
        there.users.update(second.demo["owner_id"], display_name="Elsewhere")
        here.users.me()
        assert sent_and_cached(here, 1) == [True]


# -- tokens --------------------------------------------------------------------------------------


def test_a_cache_written_with_one_token_is_not_served_to_another(sandbox, cache_file):
    owner = sandbox.client(cache=cache_file)
    other = sandbox.client(cache=cache_file, token=sandbox.tokens["other-user"])
    assert owner.users.me().id == sandbox.demo["owner_id"]
    sent = sandbox.request_count
    assert other.users.me().id == sandbox.demo["other_user_id"]  # not the owner's answer
    assert sandbox.request_count == sent + 1 and other.cache.misses == 1
    assert owner.users.me().id == sandbox.demo["owner_id"]  # each token has its own entries
    assert other.users.me().id == sandbox.demo["other_user_id"]
    assert sandbox.request_count == sent + 1


def test_no_token_bytes_in_the_cache_files(sandbox, cache_file, canary_token):
    sandbox.add_token(canary_token)
    client = sandbox.client(cache=cache_file, token=canary_token)
    client.users.me()
    client.spaces.list(org_id=sandbox.org_id)
    client.permissions.users(sandbox.demo["space_ids"][0])
    client.users.me()
    assert client.cache.entries >= 3 and client.cache.hits == 1
    texts = [repr(client), repr(client.cache), repr(client.transport.sender)]
    client.close()
    files = [p for p in cache_file.parent.iterdir() if p.name.startswith(cache_file.name)]
    assert cache_file in files
    stored = b"".join(p.read_bytes() for p in files)
    assert b"REDACTED" in stored  # the credential header was stored, masked
    for needle in (canary_token, canary_token[7:], canary_token[-12:]):
        assert needle.encode() not in stored
        assert all(needle not in text for text in texts)
    if os.name == "posix":
        assert cache_file.stat().st_mode & 0o077 == 0  # the user's alone
        assert cache_file.parent.stat().st_mode & 0o077 == 0


# -- expiry, clearing ------------------------------------------------------------------------------


def test_answers_expire_on_the_clients_clock(sandbox, cache_file):
    clock = FakeClock()
    client = sandbox.client(cache=CacheSettings(cache_file, expire_after=60), clock=clock)
    client.users.me()
    clock.advance(59)
    client.users.me()
    assert sandbox.request_count == 1
    clock.advance(1)
    client.users.me()  # 60 s old: sent again, and stored anew
    assert sandbox.request_count == 2
    client.users.me()
    assert sandbox.request_count == 2
    assert sent_and_cached(client, 4) == [False, True, False, True]


def test_opening_a_cache_drops_expired_answers(sandbox, cache_file):
    clock = FakeClock()
    client = sandbox.client(cache=CacheSettings(cache_file, expire_after=60), clock=clock)
    client.users.me()
    client.spaces.get(sandbox.demo["space_ids"][0])
    assert client.cache.entries == 2
    clock.advance(3600)
    later = sandbox.client(cache=CacheSettings(cache_file, expire_after=60), clock=clock)
    assert later.cache.entries == 0
    never = sandbox.client(cache=CacheSettings(cache_file, expire_after=None), clock=clock)
    never.users.me()
    clock.advance(10 * 365 * 86400)
    never.users.me()
    assert sent_and_cached(never, 2) == [False, True]


def test_clear_empties_the_cache(sandbox, cache_file):
    client = sandbox.client(cache=cache_file)
    client.spaces.list(org_id=sandbox.org_id)
    assert client.cache.entries > 0
    client.cache.clear()
    assert client.cache.entries == 0 and "entries=0" in repr(client.cache)
    sent = sandbox.request_count
    client.spaces.list(org_id=sandbox.org_id)
    assert sandbox.request_count > sent


def test_a_client_without_a_cache_has_none(sandbox):
    client = sandbox.client()
    assert client.cache is None and "cache=" not in repr(client)
    client.users.me()
    client.users.me()
    assert sandbox.request_count == 2
    assert sent_and_cached(client, 2) == [False, False]


def test_a_broken_cache_file_is_a_clear_error(sandbox, tmp_path):
    path = tmp_path / "broken.sqlite"
    client = sandbox.client(cache=path)
    client.close()
    path.write_bytes(b"this is not a database" * 100)
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    with pytest.raises(ValidationError) as info:
        sandbox.client(cache=path)
    assert info.value.argument == "cache" and str(path) in str(info.value)
    assert "delete it" in str(info.value) and sandbox.request_count == 0


def test_a_closed_client_reopens_its_cache(sandbox, cache_file):
    with sandbox.client(cache=cache_file) as client:
        client.users.me()
    client.users.me()  # after close(), as a requests session would
    assert sent_and_cached(client, 1) == [True] and sandbox.request_count == 1
