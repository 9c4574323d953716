"""Provenance: every grant and change tied to the event of the audit log that made it.

The demo organization's log is read through the API here (never copied from the seed), and
the audit's answers are checked against it.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pandas as pd
import pytest
from access_reading import fetch_all
from contract import ApiSession

from docsapi.audit import audit_permissions, load_audit
from docsapi.audit.crawl import LOG_SLICES
from docsapi.audit.provenance import grant_key
from docsapi.errors import ValidationError


@pytest.fixture
def api(sandbox):
    return ApiSession(sandbox.url, sandbox.token)


def _log(api, sandbox, **params) -> list[dict]:
    return fetch_all(api, f"/orgs/{sandbox.org_id}/audit-events", **params)


def _grant_events(events: list[dict]) -> dict[str, dict]:
    """The last event of each permission in the log (the log is newest first)."""
    last: dict[str, dict] = {}
    for event in events:
        kind = event["target"]["type"]
        if kind.endswith("-permission"):
            target, principal_type, principal = event["target"]["id"].split("/")
            key = grant_key(kind.removesuffix("-permission"), target, principal_type, principal)
            last.setdefault(key, event)
    return last


def _stamp(text: str) -> pd.Timestamp:
    return pd.Timestamp(text).tz_convert("UTC")


# -- grants and their events ---------------------------------------------------------------------
def test_every_grant_of_the_seeded_history_carries_its_event(sandbox, client, api):
    audit = audit_permissions(client, sandbox.org_id, progress=False)
    last = _grant_events(_log(api, sandbox))
    grants = audit.grants.astype(object)
    checked = 0
    for row in grants.itertuples(index=False):
        event = last.get(
            grant_key(row.target_type, row.target_id, row.principal_type, row.principal_id)
        )
        if event is None:
            continue
        checked += 1
        assert row.granted_by == event["actor"]["label"]
        assert row.granted_by_id == event["actor"]["id"]
        assert row.granted_at == _stamp(event["occurredAt"])
        assert (row.granted_via, row.event_id) == (event["source"], event["id"])
    assert checked > 0.7 * len(grants)  # the demo logs most of its grants


def test_a_grant_older_than_the_log_says_before_its_first_date(sandbox, client, api):
    audit = audit_permissions(client, sandbox.org_id, progress=False)
    events = _log(api, sandbox, **{"from": audit.data.events_since.isoformat()})
    last = _grant_events(events)
    first = min(_stamp(e["occurredAt"]) for e in events)
    older = [
        row
        for row in audit.grants.astype(object).itertuples(index=False)
        if grant_key(row.target_type, row.target_id, row.principal_type, row.principal_id)
        not in last
    ]
    assert older, "the demo keeps some grants older than its log"
    for row in older:
        assert row.provenance == f"before {first:%Y-%m-%d}"
        assert pd.isna(row.granted_by) and pd.isna(row.granted_at) and pd.isna(row.event_id)


def test_paths_and_explain_say_who_opened_each_door(sandbox, client, api):
    audit = audit_permissions(client, sandbox.org_id, progress=False)
    example = sandbox.demo["path_examples"]["direct"]
    rows = audit.explain(example["space_id"], example["user_id"])
    direct = rows[rows["source"] == "direct"].iloc[0]
    event = _grant_events(_log(api, sandbox))[
        grant_key("space", example["space_id"], "user", example["user_id"])
    ]
    assert direct["granted_by"] == event["actor"]["label"]
    assert direct["granted_at"] == _stamp(event["occurredAt"])
    assert direct["provenance"].startswith(event["actor"]["label"] + " on ")


def test_a_guest_who_can_edit_is_a_finding_that_says_who_gave_it(sandbox, client, api):
    audit = audit_permissions(client, sandbox.org_id, progress=False)
    space, guest = sandbox.demo["guest_write"][0]
    finding = audit.findings[
        (audit.findings["rule"] == "guest_write")
        & (audit.findings["space_id"] == space)
        & (audit.findings["principal_id"] == guest)
    ].iloc[0]
    event = _grant_events(_log(api, sandbox))[grant_key("space", space, "user", guest)]
    assert finding["granted_by"] == event["actor"]["label"]
    assert finding["event_id"] == event["id"]


def test_the_audit_log_is_read_in_slices_and_counts_in_the_coverage(sandbox, client):
    before = sandbox.request_count
    audit = audit_permissions(client, sandbox.org_id, progress=False)
    log_reads = [path for _m, path, _s in sandbox.request_log[before:] if "/audit-events?" in path]
    window = [path for path in log_reads if "action=" not in path]
    pages = -(-len(audit.data.events) // 100)
    # The year is read in slices of time at once (LOG_SLICES), each paged (100 events a
    # page): a slice's last page may be part-full, and no event is read by two slices but at
    # their edges.
    slices = {path.split("from=")[1].split("&")[0] for path in window}
    assert len(slices) == LOG_SLICES
    assert pages <= len(window) <= pages + len(slices)
    # Creators: each create action read once, only before the window (no event read twice).
    creations = sorted(path for path in log_reads if "action=" in path)
    assert len(creations) == 4 and all("to=" in path for path in creations)
    assert len({path.split("action=")[1].split("&")[0] for path in creations}) == 4
    row = audit.coverage.set_index("item").loc["audit log read"]
    assert bool(row["complete"]) and row["seen"] == len(audit.data.events)


@pytest.mark.full  # several seconds: `pytest --full` (and CI)
def test_a_token_that_cannot_read_the_log_gives_a_partial_audit_that_says_so(sandbox, client):
    sandbox.inject("500", count=50, path="/orgs/*/audit-events*")
    audit = audit_permissions(client, sandbox.org_id, progress=False)
    assert not audit.complete
    row = audit.coverage.set_index("item").loc["audit log read"]
    assert not bool(row["complete"]) and "not read" in row["detail"]
    assert set(audit.grants["provenance"]) == {"unknown: the audit log could not be read"}
    assert (audit.errors["stage"] == "audit log").sum() == 1


def test_without_the_log_provenance_and_creators_are_unknown(sandbox, client):
    audit = audit_permissions(client, sandbox.org_id, progress=False, read_log=False)
    assert audit.events.empty
    assert set(audit.grants["provenance"]) == {"unknown: the audit log was not read"}
    coverage = audit.coverage.set_index("item")
    assert bool(coverage.loc["audit log read", "complete"])  # not asked for
    # Who created the content set to No access is unknown: the audit says it is partial.
    assert not bool(coverage.loc["creators", "complete"]) and not audit.complete
    assert "not read (no audit log)" in coverage.loc["creators", "detail"]
    others = coverage.drop(["creators", "spaces with complete access"])
    assert others["complete"].all()
    with pytest.raises(ValidationError, match="events_since"):
        audit_permissions(client, sandbox.org_id, read_log=False, events_since=timedelta(days=1))
    with pytest.raises(ValidationError, match="time zone"):
        audit_permissions(client, sandbox.org_id, events_since=datetime(2026, 1, 1))


def test_the_log_window_starts_where_asked(sandbox, client):
    everything = audit_permissions(client, sandbox.org_id, progress=False)
    recent = everything.data.events["occurred_at"].sort_values().iloc[-5]  # 5 events on
    week = audit_permissions(client, sandbox.org_id, progress=False, events_since=recent)
    assert (week.data.events["occurred_at"] >= week.data.events_since).all()
    assert len(week.data.events) < len(everything.data.events)
    # Grants older than the window now say so, with the window's first event.
    first = week.data.events["occurred_at"].min()
    assert f"before {first:%Y-%m-%d}" in set(week.grants["provenance"])
    # Looking back further than any log reads it all, from 1970 or from the year 1.
    for since in (timedelta(days=10**8), "0001-01-01T00:00:00Z"):
        every = audit_permissions(client, sandbox.org_id, progress=False, events_since=since)
        assert every.data.events_since.year in (1, 1970)
        # Everything the year's window holds, and the creations older than it.
        assert set(everything.data.events["id"]) < set(every.data.events["id"])
        older = every.data.events[every.data.events["occurred_at"] < everything.data.events_since]
        assert set(older["action"].astype(str)) <= {"space.created", "collection.created"}


# -- diffs ---------------------------------------------------------------------------------------
def test_a_change_through_the_client_is_attributed_to_the_tokens_user(
    sandbox, client, api, tmp_path
):
    earlier = audit_permissions(client, sandbox.org_id, progress=False)
    earlier.save(tmp_path / "before")
    space, user = sandbox.demo["no_admin"][0], sandbox.demo["other_user_id"]
    sent = datetime.now(UTC)
    client.permissions.invite(space, role="comment", users=[user])
    answered = datetime.now(UTC)
    later = audit_permissions(client, sandbox.org_id, progress=False, previous=tmp_path / "before")
    diff = later.diff(load_audit(tmp_path / "before"))
    change = diff.changed_grants.set_index(["target_id", "principal_id"]).loc[(space, user)]
    me = client.users.me()
    event = _log(api, sandbox, target=f"{space}/user/{user}")[0]
    assert change["change"] == "added" and bool(change["explained"])
    assert change["changed_by_id"] == me.id == event["actor"]["id"]
    assert change["changed_by"] == me.display_name
    assert change["changed_at"] == _stamp(event["occurredAt"])
    assert sent - timedelta(seconds=1) <= change["changed_at"] <= answered + timedelta(seconds=1)
    assert change["changed_via"] == "api"
    granted = diff.granted.set_index(["space_id", "user_id"]).loc[(space, user)]
    assert (granted["changed_by"], bool(granted["explained"])) == (me.display_name, True)
    assert diff.unexplained.empty


def test_a_change_without_an_event_is_flagged_as_unexplained(sandbox, client):
    earlier = audit_permissions(client, sandbox.org_id, progress=False)
    space, guest = sandbox.demo["no_admin"][0], sandbox.demo["guest_ids"][-1]
    with sandbox.unlogged():
        sandbox.grant(space, guest, "read")
    later = audit_permissions(client, sandbox.org_id, progress=False, previous=earlier)
    diff = later.diff(earlier)
    change = diff.changed_grants.set_index(["target_id", "principal_id"]).loc[(space, guest)]
    assert not bool(change["explained"]) and pd.isna(change["changed_by"])
    assert list(diff.unexplained["table"]).count("changed grants") == 1
    made = later.events[later.events["key"] == grant_key("space", space, "user", guest)]
    assert not (made["occurred_at"] > earlier.generated_at).any()  # no event: made unseen


def test_a_log_that_does_not_reach_back_cannot_explain_and_says_so(sandbox, client):
    earlier = audit_permissions(client, sandbox.org_id, progress=False)
    sandbox.grant(sandbox.demo["no_admin"][0], sandbox.demo["guest_ids"][-1], "read")
    since = datetime.now(UTC) + timedelta(seconds=1)  # after the change: the log misses it
    later = audit_permissions(client, sandbox.org_id, progress=False, events_since=since)
    diff = later.diff(earlier)
    assert diff.changed_grants["explained"].isna().all()
    assert any("does not" in note or "starts" in note for note in diff.notes)
    assert diff.unexplained.empty


def test_previous_audits_events_are_kept_so_provenance_reaches_as_far_back(sandbox, client):
    earlier = audit_permissions(client, sandbox.org_id, progress=False)
    later = audit_permissions(client, sandbox.org_id, progress=False, previous=earlier)
    assert later.data.events_since == earlier.data.events_since
    assert set(later.data.events["id"]) == set(earlier.data.events["id"])
    pd.testing.assert_series_equal(later.grants["provenance"], earlier.grants["provenance"])


# -- the tables, snapshots and charts ------------------------------------------------------------
def test_provenance_table_covers_every_setting_and_snapshots_keep_it(sandbox, client, tmp_path):
    audit = audit_permissions(client, sandbox.org_id, progress=False)
    settings = audit.provenance
    counts = settings["setting"].value_counts()
    assert counts["grant"] == len(audit.grants)
    assert counts["org-role"] == len(audit.data.members)
    link = sandbox.demo["share_link_ids"]["recent"]
    made = settings[settings["target_id"] == link].iloc[0]
    assert made["setting"] == "share-link" and made["action"] == "site.share-link.created"
    loaded = load_audit(audit.save(tmp_path / "snapshot"))
    pd.testing.assert_frame_equal(loaded.provenance, settings)
    pd.testing.assert_frame_equal(loaded.paths, audit.paths)
    assert loaded.data.events_since == audit.data.events_since
    assert len(loaded.events) == len(audit.events)


def test_the_timeline_counts_changes_per_month_and_reads_at_800_pixels(sandbox, client):
    audit = audit_permissions(client, sandbox.org_id, progress=False)
    monthly = audit.timeline("M", by="actor")
    changes = audit.events[audit.events["setting"].notna()]
    assert int(monthly.to_numpy().sum()) == len(changes)
    assert set(monthly.columns) == set(changes["actor_label"].astype(str))
    weekly = audit.timeline("W", by="action")
    assert (weekly.index.day_of_week == 0).all()  # weeks start on Monday
    figure = audit.plot()["timeline"]
    width, _ = figure.get_size_inches()
    assert width * figure.dpi <= 800
    with pytest.raises(ValidationError, match="freq"):
        audit.timeline("D")


def test_site_paths_name_the_site_permission_or_level_that_opens_them(sandbox, client, api):
    audit = audit_permissions(client, sandbox.org_id, progress=False)
    events = _grant_events(_log(api, sandbox))
    paths = audit.paths
    site_paths = paths[paths["kind"].isin(["site", "site-team"])]
    assert len(site_paths)
    for row in site_paths.itertuples():
        site_id = str(row.source).split(":", 1)[1].split("/")[0]
        principal = ("user", row.user_id) if row.kind == "site" else ("team", row.team_id)
        event = events.get(grant_key("site", site_id, *principal))
        if event is None:  # older than the log: it says so
            assert str(row.provenance).startswith("before ")
        else:
            assert row.event_id == event["id"] and row.granted_by == event["actor"]["label"]
    levels = paths[paths["kind"] == "site-default"]
    assert len(levels) and not levels["provenance"].astype(str).str.startswith("unknown").any()


def test_event_keys_are_coded_once_per_setting_whatever_the_columns_dtypes():
    from docsapi.audit.provenance import event_key_codes, event_keys

    log = pd.DataFrame(
        {
            "action": pd.Categorical(
                [
                    "space.permission.added",
                    None,
                    "space.permission.removed",
                    "site.published",
                    "organization.member.updated",
                    "space.permission.added",
                ]
            ),
            "target_type": pd.array(
                ["space-permission", "space", "space-permission", "site", "user", None],
                dtype="string[pyarrow]",
            ),
            "target_id": ["s1/user/u1", "s1", "s1/user/u1", "w1", "u1", "s1/user/u1"],
        }
    )
    codes, keys, removal = event_key_codes(log)
    assert keys.tolist() == ["grant|space|s1|user|u1", "published|w1", "org-role|u1"]
    assert codes.tolist() == [0, -1, 0, 1, 2, -1]  # no action, no target type: no key
    assert removal.tolist() == [False, False, True, False, False, False]
    per_event, same_removal = event_keys(log)
    assert per_event.tolist() == [*keys[[0]], None, keys[0], keys[1], keys[2], None]
    assert same_removal.tolist() == removal.tolist()
