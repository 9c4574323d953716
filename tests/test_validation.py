"""Bad input is refused before any request: ValidationError, or TypeError for a wrong type."""

from __future__ import annotations

import pytest

from docsapi.core import checks as v
from docsapi.errors import ValidationError

URL = "https://github.com/acme/handbook"
VE, TE = ValidationError, TypeError

# (id, call, expected exception, words the message must contain)
BAD_CALLS = [
    # users
    ("user-id-empty", lambda c: c.users.get(""), VE, "user_id"),
    ("user-id-blank", lambda c: c.users.get("   "), VE, "user_id"),
    ("user-id-int", lambda c: c.users.get(123), TE, "user_id"),
    ("user-update-nothing", lambda c: c.users.update("u1"), VE, "at least one"),
    ("display-name-empty", lambda c: c.users.update("u1", display_name=""), VE, "display_name"),
    ("display-name-65", lambda c: c.users.update("u1", display_name="x" * 65), VE, "64"),
    ("display-name-blank", lambda c: c.users.update("u1", display_name="  "), VE, "whitespace"),
    ("display-name-int", lambda c: c.users.update("u1", display_name=5), TE, "display_name"),
    ("photo-ftp", lambda c: c.users.update("u1", photo_url="ftp://x.example/a.png"), VE, "http"),
    ("photo-not-url", lambda c: c.users.update("u1", photo_url="my photo"), VE, "photo_url"),
    ("photo-no-host", lambda c: c.users.update("u1", photo_url="https://"), VE, "host"),
    # spaces
    ("space-id-empty", lambda c: c.spaces.get(""), VE, "space_id"),
    ("space-id-url", lambda c: c.spaces.get("https://app.gitbook.com/s/x"), VE, "not an id"),
    ("space-id-none", lambda c: c.spaces.get(None), TE, "space_id"),
    ("share-key-empty", lambda c: c.spaces.get("sp1", share_key=""), VE, "share_key"),
    ("list-neither", lambda c: c.spaces.list(), VE, "exactly one"),
    ("list-both", lambda c: c.spaces.list(org_id="o1", user_id="u1"), VE, "exactly one"),
    ("update-nothing", lambda c: c.spaces.update("sp1"), VE, "at least one"),
    ("title-51", lambda c: c.spaces.update("sp1", title="x" * 51), VE, "50"),
    ("title-none", lambda c: c.spaces.update("sp1", title=None), TE, "title"),
    ("edit-mode", lambda c: c.spaces.update("sp1", edit_mode="frozen"), VE, "live"),
    ("default-level", lambda c: c.spaces.update("sp1", default_level="owner"), VE, "inherit"),
    ("language", lambda c: c.spaces.update("sp1", language="tlh"), VE, "language"),
    ("emoji-and-icon", lambda c: c.spaces.update("sp1", emoji="1f4da", icon=URL), VE, "not both"),
    ("emoji-none-icon-set", lambda c: c.spaces.update("sp1", emoji=None, icon=URL), VE, "exactly"),
    ("icon-not-url", lambda c: c.spaces.update("sp1", icon="rocket"), VE, "icon"),
    ("emoji-empty", lambda c: c.spaces.update("sp1", emoji=""), VE, "emoji"),
    ("merge-rules-type", lambda c: c.spaces.update("sp1", merge_rules={"type": "x"}), VE, "type"),
    ("merge-rules-str", lambda c: c.spaces.update("sp1", merge_rules="inherit"), TE, "dict"),
    ("delete-empty", lambda c: c.spaces.delete(""), VE, "space_id"),
    ("duplicate-spaces", lambda c: c.spaces.duplicate("a b"), VE, "space_id"),
    ("restore-int", lambda c: c.spaces.restore(7), TE, "space_id"),
    ("move-nothing", lambda c: c.spaces.move("sp1"), VE, "parent or position"),
    ("move-bad-side", lambda c: c.spaces.move("sp1", position={"beside": "sp2"}), VE, "before"),
    (
        "move-two-sides",
        lambda c: c.spaces.move("sp1", position={"before": "a", "after": "b"}),
        VE,
        "exactly one key",
    ),
    ("move-position-str", lambda c: c.spaces.move("sp1", position="after:sp2"), TE, "position"),
    ("move-parent-empty", lambda c: c.spaces.move("sp1", parent=""), VE, "parent"),
    ("move-bad-pointer", lambda c: c.spaces.move("sp1", position={"after": 3}), VE, "position"),
    ("embed-js", lambda c: c.spaces.embed("sp1", "javascript:alert(1)"), VE, "url"),
    ("search-empty", lambda c: c.spaces.search("sp1", ""), VE, "query"),
    ("search-blank", lambda c: c.spaces.search("sp1", "   "), VE, "query"),
    ("search-513", lambda c: c.spaces.search("sp1", "q" * 513), VE, "512"),
    ("search-limit-0", lambda c: c.spaces.search("sp1", "ok", limit=0), VE, "between 1"),
    ("search-limit-1001", lambda c: c.spaces.search("sp1", "ok", limit=1001), VE, "1000"),
    ("search-limit-str", lambda c: c.spaces.search("sp1", "ok", limit="5"), TE, "limit"),
    ("search-limit-bool", lambda c: c.spaces.search("sp1", "ok", limit=True), TE, "limit"),
    # permissions
    ("invite-nobody", lambda c: c.permissions.invite("sp1", role="read"), VE, "at least one"),
    (
        "invite-role",
        lambda c: c.permissions.invite("sp1", role="owner", users=["u1"]),
        VE,
        "role",
    ),
    (
        "invite-guest-word",
        lambda c: c.permissions.invite("sp1", role="guest", users=["u1"]),
        VE,
        "None",
    ),
    (
        "invite-users-str",
        lambda c: c.permissions.invite("sp1", role="read", users="u1"),
        TE,
        "list",
    ),
    (
        "invite-user-empty",
        lambda c: c.permissions.invite("sp1", role="read", users=[""]),
        VE,
        "users",
    ),
    ("invite-no-role", lambda c: c.permissions.invite("sp1", users=["u1"]), TE, "role"),
    ("set-user-role", lambda c: c.permissions.set_user_role("sp1", "u1", "root"), VE, "role"),
    ("set-team-empty", lambda c: c.permissions.set_team_role("sp1", "", "read"), VE, "team_id"),
    ("remove-user-space", lambda c: c.permissions.remove_user("", "u1"), VE, "space_id"),
    ("remove-team-bad", lambda c: c.permissions.remove_team("sp1", "bad id!"), VE, "team_id"),
    ("users-of-nothing", lambda c: c.permissions.users(""), VE, "space_id"),
    # content
    ("page-format", lambda c: c.content.page("sp1", "p1", format="html"), VE, "markdown"),
    ("page-refs", lambda c: c.content.page("sp1", "p1", markdown_refs="absolute"), VE, "stable"),
    ("page-evaluated", lambda c: c.content.page("sp1", "p1", evaluated="yes"), VE, "evaluated"),
    ("page-deref", lambda c: c.content.page("sp1", "p1", dereferenced=1), VE, "dereferenced"),
    ("path-empty", lambda c: c.content.page_by_path("sp1", ""), VE, "path"),
    ("path-slashes", lambda c: c.content.page_by_path("sp1", "///"), VE, "path"),
    ("file-empty", lambda c: c.content.file("sp1", ""), VE, "file_id"),
    ("meta-links-page", lambda c: c.content.meta_links("sp1", "a/b"), VE, "page_id"),
    (
        "computed-no-source",
        lambda c: c.content.computed_document("sp1", source={}, seed="1"),
        VE,
        "source",
    ),
    (
        "computed-no-seed",
        lambda c: c.content.computed_document("sp1", source={"type": "x"}, seed=""),
        VE,
        "seed",
    ),
    (
        "computed-schema",
        lambda c: c.content.computed_document("sp1", source={"type": "x"}, seed="1", schema="v0"),
        VE,
        "current",
    ),
    (
        "computed-rev-source-str",
        lambda c: c.content.computed_revision("sp1", source="openapi", seed="1"),
        TE,
        "source",
    ),
    ("template-empty", lambda c: c.content.apply_template("sp1", ""), VE, "template_id"),
    ("template-params", lambda c: c.content.apply_template("sp1", "t1", params=[1]), TE, "params"),
    # git
    (
        "git-ssh-url",
        lambda c: c.git.import_repo("sp1", url="git@github.com:a/b.git", ref="main"),
        VE,
        "url",
    ),
    ("git-ref-empty", lambda c: c.git.import_repo("sp1", url=URL, ref=""), VE, "ref"),
    (
        "git-unknown-option",
        lambda c: c.git.import_repo("sp1", url=URL, ref="main", branch="x"),
        TE,
        "branch",
    ),
    (
        "git-force-str",
        lambda c: c.git.import_repo("sp1", url=URL, ref="main", force="yes"),
        TE,
        "force",
    ),
    (
        "git-export-message",
        lambda c: c.git.export_repo("sp1", url=URL, ref="main", commit_message=""),
        VE,
        "commit_message",
    ),
    (
        "git-timestamp-str",
        lambda c: c.git.export_repo("sp1", url=URL, ref="m", commit_message="m", timestamp="now"),
        TE,
        "timestamp",
    ),
    ("git-info-empty", lambda c: c.git.info(""), VE, "space_id"),
    # change requests
    ("cr-subject-101", lambda c: c.change_requests.create("sp1", subject="x" * 101), VE, "100"),
    ("cr-status", lambda c: c.change_requests.list("sp1", status="closed"), VE, "merged"),
    # organizations
    ("org-empty", lambda c: c.orgs.get(""), VE, "org_id"),
    ("org-members-slash", lambda c: c.orgs.members("org/1"), VE, "org_id"),
    ("team-members-empty", lambda c: c.orgs.team_members("org1", ""), VE, "team_id"),
    # escape hatches
    ("request-method", lambda c: c.request("FETCH", "/user"), VE, "method"),
    (
        "request-full-url",
        lambda c: c.request("GET", "https://evil.example/v1/user"),
        VE,
        "full URL",
    ),
    ("paginate-empty", lambda c: c.paginate(""), VE, "path"),
]


@pytest.mark.parametrize(
    ("call", "error", "words"),
    [pytest.param(call, error, words, id=name) for name, call, error, words in BAD_CALLS],
)
def test_bad_input_is_refused_before_any_request(sandbox, client, call, error, words):
    before = sandbox.request_count
    with pytest.raises(error) as info:
        call(client)
    assert words.lower() in str(info.value).lower()
    assert sandbox.request_count == before
    assert client.transport.request_count == 0


def test_there_are_at_least_forty_bad_inputs():
    assert len(BAD_CALLS) >= 40
    assert len({name for name, *_ in BAD_CALLS}) == len(BAD_CALLS)


def test_validation_error_names_the_argument():
    with pytest.raises(ValidationError) as info:
        v.check_display_name("")
    assert info.value.argument == "display_name"
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("role", [*v.MEMBER_ROLES, None])
def test_every_member_role_and_guest_are_accepted(role):
    assert v.check_role(role) == role


@pytest.mark.parametrize("level", [*v.DEFAULT_LEVELS, None])
def test_default_levels_accept_inherit_and_guest(level):
    assert v.check_default_level(level) == level


@pytest.mark.parametrize(
    "url", ["https://example.com", "http://127.0.0.1:8080/a?b=c", "https://x.example/p.png#f"]
)
def test_valid_urls_pass(url):
    assert v.check_url(url, "url") == url


@pytest.mark.parametrize("url", ["https://exa mple.com", "http:///path", "//example.com", "x" * 10])
def test_invalid_urls_fail(url):
    with pytest.raises(ValidationError):
        v.check_url(url, "url")


def test_boundaries_are_inclusive():
    assert v.check_display_name("x" * 64)
    assert v.check_space_title("x" * 50)
    assert v.check_search_query("q" * 512)
    assert v.check_limit(1) == 1 and v.check_limit(1000) == 1000


def test_enumerations_match_the_reference():
    assert v.EDIT_MODES == ("live", "locked")
    assert "pt-br" in v.LANGUAGES and len(v.LANGUAGES) == 39
    assert v.CHANGE_REQUEST_STATUSES == ("draft", "open", "archived", "merged")
