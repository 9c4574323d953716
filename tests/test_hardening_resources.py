"""The new resource groups on values test_bad_input.py's table does not hold: moments at the
edge of the calendar, blank and display-reordering titles, a query of 100k characters.
Each refusal is a ValidationError naming the argument, and the sandbox sees no request."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from docsapi import ValidationError

FIVE_EAST = timezone(timedelta(hours=5))


@pytest.fixture
def ids(sandbox):
    demo = sandbox.demo
    return {
        "org": sandbox.org_id,
        "collection": demo["collection_ids"][0],
        "site": demo["site_ids"][0],
        "link": demo["share_link_ids"]["stale"],
        "team": demo["team_ids"][0],
    }


def _refused(sandbox, call, argument: str) -> ValidationError:
    before = sandbox.request_count
    with pytest.raises(ValidationError) as caught:
        call()
    assert caught.value.argument == argument
    assert sandbox.request_count == before
    return caught.value


@pytest.mark.parametrize(
    "moment",
    [
        datetime.min.replace(tzinfo=FIVE_EAST),
        datetime.max.replace(tzinfo=timezone(-timedelta(hours=5))),
    ],
    ids=["year 1 east of UTC", "year 9999 west of UTC"],
)
def test_moments_beyond_the_calendar_in_utc_are_refused(client, sandbox, ids, moment):
    error = _refused(sandbox, lambda: client.orgs.audit_events(ids["org"], since=moment), "since")
    assert "out of range" in str(error)


def test_early_years_are_sent_as_iso_8601(client, sandbox, ids):
    early = datetime(5, 1, 1, tzinfo=UTC)
    client.orgs.audit_events(ids["org"], since=early)
    assert "from=0005-01-01T00%3A00%3A00Z" in sandbox.request_log[-1][1]


def test_since_and_until_are_compared_as_moments_not_strings(client, sandbox, ids):
    since = datetime(2025, 1, 31, 12, tzinfo=UTC)
    until = since + timedelta(microseconds=500_000)
    client.orgs.audit_events(ids["org"], since=since, until=until)  # not "since after until"
    _refused(
        sandbox,
        lambda: client.orgs.audit_events(ids["org"], since=until, until=since),
        "since, until",
    )


def test_an_action_longer_than_any_action_is_refused(client, sandbox, ids):
    _refused(sandbox, lambda: client.orgs.audit_events(ids["org"], action="x" * 100_000), "action")


BLANK = ["   ", "\u200b", "\u3000"]
REORDERING = ["Docs\u202etxt.exe", "a\u2066b\u2069", "\u202dx"]


@pytest.mark.parametrize("value", BLANK + REORDERING, ids=repr)
def test_titles_and_names_need_visible_text_in_reading_order(client, sandbox, ids, value):
    o, c, s, link, t = ids["org"], ids["collection"], ids["site"], ids["link"], ids["team"]
    calls = {
        "title": [
            lambda: client.collections.create(o, title=value),
            lambda: client.collections.update(c, title=value),
            lambda: client.orgs.create_team(o, title=value),
            lambda: client.orgs.update_team(o, t, title=value),
            lambda: client.sites.update(o, s, title=value + "xx"[: 2 - len(value)]),
        ],
        "name": [
            lambda: client.sites.create_share_link(o, s, name=value),
            lambda: client.sites.update_share_link(o, s, link, name=value),
        ],
    }
    for argument, group in calls.items():
        for call in group:
            if value in BLANK and call is calls["title"][4]:
                continue  # a site title of 2+ characters with blanks is exercised below
            _refused(sandbox, call, argument)


def test_a_blank_site_title_is_refused(client, sandbox, ids):
    _refused(sandbox, lambda: client.sites.update(ids["org"], ids["site"], title="    "), "title")


def test_visible_titles_with_emoji_sequences_are_sent(client, sandbox, ids):
    title = "\U0001f469\u200d\U0001f4bb Docs"  # a zero-width joiner inside an emoji
    assert client.collections.update(ids["collection"], title=title).title == title


LONE = "a\ud800b"


def test_lone_surrogates_are_refused_in_every_kind_of_text(client, sandbox, ids):
    """Not valid Unicode: sent as a JSON escape or a raw UnicodeEncodeError before."""
    o, c, s = ids["org"], ids["collection"], ids["site"]
    space = sandbox.demo["space_ids"][0]
    calls = {
        "title": lambda: client.collections.update(c, title=LONE),
        "description": lambda: client.collections.update(c, description=LONE),
        "name": lambda: client.sites.create_share_link(o, s, name=LONE),
        "action": lambda: client.orgs.audit_events(o, action=LONE),
        "query": lambda: client.spaces.search(space, LONE),
        "path": lambda: client.content.page_by_path(space, LONE + "/x"),
        "params['q']": lambda: client.request("GET", "/user", params={"q": LONE}),
        "json": lambda: client.request("POST", f"/spaces/{space}/duplicate", json={"q": LONE}),
    }
    for argument, call in calls.items():
        error = _refused(sandbox, call, argument)
        assert "lone surrogate" in str(error)
