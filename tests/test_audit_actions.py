"""The platform's audit-log vocabulary: one list, logged by the sandbox, mapped by provenance.

The sandbox's log is read over HTTP; the audit's coverage and provenance are checked on the
demo organization's log with actions added, renamed or taken away.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest
from access_reading import fetch_all
from contract import ApiSession

from docsapi.audit import audit_permissions, load_audit
from docsapi.audit.facade import analyze
from docsapi.audit.snapshot.files import write_table
from docsapi.core.audit_actions import (
    ACTION_LIST,
    ACTIONS,
    LEGACY_ACTIONS,
    READ_ON,
    SETTINGS,
    SOURCE_URL,
    action_settings,
)
from docsapi.errors import ValidationError
from docsapi.sandbox.core import _events as sandbox_events

_DOCS = Path(__file__).resolve().parents[1] / "docs" / "provenance.md"
#: The documented pattern: resource, sub-resources, then a past-tense verb.
_PATTERN = re.compile(r"^[a-z]+(?:-[a-z]+)*(?:\.[a-z]+(?:-[a-z]+)*)*\.[a-z-]*(?:ed|added)$")


@pytest.fixture
def api(sandbox):
    return ApiSession(sandbox.url, sandbox.token)


@pytest.fixture(scope="module")
def demo_audit():
    from docsapi.sandbox import Sandbox

    with Sandbox() as sb:
        yield audit_permissions(sb.client(), sb.org_id, progress=False)


def test_the_list_is_one_list_with_its_source():
    assert len(ACTIONS) == len(ACTION_LIST)  # no ID twice
    assert SOURCE_URL.startswith("https://") and re.fullmatch(r"\d{4}-\d{2}-\d{2}", READ_ON)
    for action in ACTION_LIST:
        assert _PATTERN.match(action.id), action.id
        assert action.source in ("documented", "derived")
        assert action.changes is None or action.changes in SETTINGS
        assert action.label and action.label[0].isupper()
    # the examples the platform's page gives are there, word for word
    for documented in ("organization.team.member-added", "organization.team.created"):
        assert ACTIONS[documented].source == "documented"
    assert ACTIONS["site.redirect.created"].label == "Created site redirect"
    # every older sandbox name maps to an action of the list
    assert set(LEGACY_ACTIONS.values()) <= set(ACTIONS)


def test_the_sandbox_serves_the_list_and_logs_only_its_actions(sandbox, api):
    served = api.get(f"/orgs/{sandbox.org_id}/audit-event-actions").json()["items"]
    assert [(a["id"], a["label"]) for a in served] == [(a.id, a.label) for a in ACTION_LIST]
    assert {a["object"] for a in served} == {"audit-event-action"}
    logged = {e["action"] for e in fetch_all(api, f"/orgs/{sandbox.org_id}/audit-events")}
    assert logged <= set(ACTIONS), logged - set(ACTIONS)
    # a change of each kind the demo does not log at start, through the API
    team = api.put(f"/orgs/{sandbox.org_id}/teams", json={"title": "Vocabulary"}).json()
    api.put(
        f"/orgs/{sandbox.org_id}/teams/{team['id']}/members",
        json={"add": [sandbox.demo["owner_id"]]},
    )
    newest = fetch_all(api, f"/orgs/{sandbox.org_id}/audit-events")[:2]
    assert [e["action"] for e in newest] == [
        "organization.team.member-added",
        "organization.team.created",
    ]


def test_the_sandbox_refuses_to_log_an_action_of_its_own_invention(sandbox):
    before = len(sandbox._store.state.events.get(sandbox.org_id, []))
    with pytest.raises(ValueError, match="not an action ID"):
        sandbox_events.record(
            sandbox._store, sandbox.org_id, None, "space.permission.grant", ("a", "b", "c")
        )
    assert len(sandbox._store.state.events.get(sandbox.org_id, [])) == before


def test_audit_event_actions_needs_an_admin(sandbox):
    sandbox.add_token("gb_api_vocabulary_guest", user_id=sandbox.demo["guest_ids"][0])
    guest = ApiSession(sandbox.url, "gb_api_vocabulary_guest")
    answer = guest.get(f"/orgs/{sandbox.org_id}/audit-event-actions")
    assert answer.status_code in (403, 404)


def test_docs_list_every_action_with_its_source():
    text = _DOCS.read_text("utf-8")
    assert SOURCE_URL in text and READ_ON in text
    for action in ACTION_LIST:
        assert f"`{action.id}`" in text, action.id


def _with_events(data, rows: list[dict]):
    extra = pd.DataFrame(rows)
    events = pd.concat([data.events, extra], ignore_index=True)
    return replace(data, events=events)


def _event(number: int, action: str, target_type: str, target_id: str) -> dict:
    return {
        "id": f"00000000-0000-4000-8000-{number:012d}",
        "occurred_at": pd.Timestamp("2026-11-01T12:00:00Z") + pd.Timedelta(minutes=number),
        "action": action,
        "source": "api",
        "actor_type": "user",
        "actor_id": "someone",
        "actor_label": "Some One",
        "target_type": target_type,
        "target_id": target_id,
        "target_label": "x",
    }


def test_a_log_with_unknown_actions_gives_the_coverage_line(demo_audit):
    data = demo_audit.data
    assert data.log_actions == tuple(a.id for a in ACTION_LIST)  # read once, with the log
    grant = demo_audit.grants.iloc[0]
    target = f"{grant['target_id']}/{grant['principal_type']}/{grant['principal_id']}"
    rows = [
        _event(i, "space.member.invited", f"{grant['target_type']}-permission", target)
        for i in range(3)
    ] + [_event(10, "organization.sso.updated", "organization", data.org_id)]
    audit = analyze(_with_events(data, rows))
    row = audit.coverage.set_index("item").loc["audit log actions"]
    assert row["detail"].startswith("4 events of 2 actions not used for provenance: ")
    assert "space.member.invited (3, not in the documented list)" in row["detail"]
    assert "organization.sso.updated (1, not in the documented list)" in row["detail"]
    assert bool(row["complete"])
    unchanged = audit.grants["provenance"].reset_index(drop=True)
    pd.testing.assert_series_equal(
        unchanged, demo_audit.grants["provenance"].reset_index(drop=True)
    )

    # the user maps the unknown action: it now explains the grant, and is no longer listed
    mapped = analyze(_with_events(data, rows), log_actions={"space.member.invited": "grant"})
    first = mapped.grants.iloc[0]
    assert first["provenance"].startswith("Some One on 2026-11-01 (api)")
    detail = mapped.coverage.set_index("item").loc["audit log actions", "detail"]
    assert "space.member.invited" not in detail


def test_older_snapshots_names_are_read_as_the_platforms_ids(demo_audit):
    data = demo_audit.data
    new_to_old: dict[str, str] = {}
    for old, new in LEGACY_ACTIONS.items():
        new_to_old.setdefault(new, old)
    renamed = data.events.assign(
        action=data.events["action"].astype(object).map(lambda a: new_to_old.get(a, a))
    )
    assert set(renamed["action"]) & set(LEGACY_ACTIONS)
    older = analyze(replace(data, events=renamed))
    for column in ("granted_by", "granted_at", "granted_via", "event_id"):
        pd.testing.assert_series_equal(older.grants[column], demo_audit.grants[column])
        pd.testing.assert_series_equal(older.provenance[column], demo_audit.provenance[column])
    assert older.coverage.equals(demo_audit.coverage)


def test_a_kind_of_change_the_platform_does_not_record(demo_audit):
    data = demo_audit.data
    no_links = tuple(a.id for a in ACTION_LIST if a.changes != "share-link")
    kept = data.events["action"].astype(object).isin(no_links).to_numpy(dtype=bool)
    audit = analyze(replace(data, log_actions=no_links, events=data.events[kept]))
    settings = audit.provenance
    links = settings[settings["setting"] == "share-link"]
    assert len(links) and set(links["provenance"]) == {"not recorded by the platform"}
    others = settings[settings["setting"] != "share-link"]
    assert "not recorded by the platform" not in set(others["provenance"])
    # without the organization's list nothing is claimed
    assert "not recorded by the platform" not in set(
        analyze(replace(data, log_actions=None)).provenance["provenance"]
    )


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"space.member.invited": "owner"}, "must be one of grant"),
        ({"": "grant"}, "each key must be an action ID"),
        (["space.member.invited"], "must be a mapping"),
    ],
)
def test_a_bad_log_actions_is_refused_before_any_request(value, message):
    from docsapi import DocsClient

    client = DocsClient(token="gb_api_unused", base_url="http://127.0.0.1:9")  # nothing listens
    with pytest.raises(ValidationError, match=message):
        audit_permissions(client, "org", log_actions=value, progress=False)
    assert action_settings({"x.y.added": "grant"})["x.y.added"] == "grant"


def test_a_snapshot_made_before_the_vocabulary_still_loads(demo_audit, tmp_path, monkeypatch):
    """A snapshot whose log holds the sandbox's older names and whose manifest has no
    ``log_actions`` (as snapshots made before): it loads, and its provenance, analysed again,
    is what the platform's IDs give."""
    from test_snapshot import rewrite_manifest

    # written and read as by a user without a signing key (as snapshots made before were)
    monkeypatch.setenv("DOCSAPI_SIGNING_KEY", "none")
    folder = demo_audit.save(tmp_path / "older")
    new_to_old: dict[str, str] = {}
    for old, new in LEGACY_ACTIONS.items():
        new_to_old.setdefault(new, old)
    events = demo_audit.data.events.copy()
    events["action"] = events["action"].astype(object).map(lambda a: new_to_old.get(a, a))
    entry = write_table(folder, "data/events.parquet", events.astype({"action": "category"}))

    def older(manifest: dict) -> None:
        del manifest["crawl"]["log_actions"]
        manifest["files"] = [
            entry if old["path"] == entry["path"] else old for old in manifest["files"]
        ]

    rewrite_manifest(folder, older)
    loaded = load_audit(folder)
    assert loaded.data.log_actions is None
    assert set(loaded.data.events["action"].astype(str)) & set(LEGACY_ACTIONS)
    again = analyze(loaded.data)
    for column in ("granted_by", "granted_at", "event_id"):
        pd.testing.assert_series_equal(again.grants[column], demo_audit.grants[column])


def test_a_hostile_action_name_is_cut_short_in_coverage(demo_audit):
    data = demo_audit.data
    name = "x" * 100_000
    audit = analyze(_with_events(data, [_event(1, name, "organization", data.org_id)]))
    detail = audit.coverage.set_index("item").loc["audit log actions", "detail"]
    assert len(detail) < 1000 and "x" * 79 + "…" in detail


def test_the_audit_reads_the_organizations_actions_once(sandbox, client):
    before = len(sandbox.request_log)
    audit = audit_permissions(client, sandbox.org_id, progress=False)
    asked = [p for _, p, _ in sandbox.request_log[before:] if p.endswith("/audit-event-actions")]
    assert len(asked) == 1 and audit.data.log_actions is not None
    before = len(sandbox.request_log)
    unread = audit_permissions(client, sandbox.org_id, progress=False, read_log=False)
    asked = [p for _, p, _ in sandbox.request_log[before:] if p.endswith("/audit-event-actions")]
    assert asked == [] and unread.data.log_actions is None
    assert "audit log actions" not in set(unread.coverage["item"])
