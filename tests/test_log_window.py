"""The log paid for once: an audit given an earlier one reads only the log that follows it.

Each test audits an organization, changes it (new grants, content, a share link, an hour
on the sandbox clock), then audits it twice: once with ``previous=`` (the new log path: the
events after the earlier audit's newest one, no create action read again) and once reading
the whole window afresh from the same start. Provenance, the rule-set check and every table
must be the same either way; only the requests differ.
"""

from __future__ import annotations

import pandas as pd
import pytest

from docsapi.audit import audit_permissions
from docsapi.audit.data import AuditData
from docsapi.audit.log_window import OVERLAP, known_creators, log_start_after
from docsapi.sandbox import Sandbox

_EVENTS = "/audit-events"


def _log_reads(client, run):
    """What ``run()`` returns, and the audit-log addresses it read (path and query)."""
    sent = client.transport.request_count
    before = len(client.transport.history)
    result = run()
    reads = [r for r in list(client.transport.history)[before:] if _EVENTS in r.path]
    return result, reads, client.transport.request_count - sent


def _change(sandbox, client, org_id):
    """A day's work: grants, a new collection and space, a share link, an hour later."""
    demo = sandbox.demo
    sandbox.advance_clock(hours=1)
    spaces = list(client.spaces.list(org_id=org_id)["id"])
    users = list(client.orgs.members(org_id)["user_id"])
    sandbox.grant(spaces[0], users[-1], "edit")
    sandbox.grant(spaces[-1], users[-2], "read")
    sandbox.revoke(spaces[1], users[-3])
    client.collections.create(org_id, title="Made after the first audit")
    client.spaces.duplicate(spaces[2])
    if org_id == demo["org_id"] and demo["site_ids"]:
        sandbox.create_share_link(demo["site_ids"][0], name="After the first audit")


def _rows(table):
    """``table``'s rows in one order (the crawl files its answers in the order they come,
    so two crawls of one state may list, say, team members in another order)."""
    numbered = isinstance(table.index, pd.RangeIndex)
    keys = table.reset_index(drop=numbered).astype(str)
    order = keys.sort_values(list(keys.columns), kind="stable").index
    ordered = table.iloc[order]
    return ordered.reset_index(drop=True) if numbered else ordered


def _same_audit(incremental, fresh):
    """Every table, provenance and the rule-set check equal, and the raw log tables."""
    assert incremental.data.events_since == fresh.data.events_since
    pd.testing.assert_frame_equal(incremental.data.events, fresh.data.events)
    pd.testing.assert_frame_equal(
        incremental.data.creators.sort_values(["target_type", "target_id"], ignore_index=True),
        fresh.data.creators.sort_values(["target_type", "target_id"], ignore_index=True),
    )
    assert incremental.verdict == fresh.verdict
    for name, table in fresh.tables().items():
        pd.testing.assert_frame_equal(_rows(incremental.tables()[name]), _rows(table), obj=name)


def _compare(sandbox, client, org_id, tmp_path=None):
    first = audit_permissions(client, org_id, progress=False)
    previous = first if tmp_path is None else first.save(tmp_path / "first")
    _change(sandbox, client, org_id)
    since = first.data.events_since
    incremental, new_reads, new_requests = _log_reads(
        client, lambda: audit_permissions(client, org_id, progress=False, previous=previous)
    )
    fresh, full_reads, full_requests = _log_reads(
        client, lambda: audit_permissions(client, org_id, progress=False, events_since=since)
    )
    _same_audit(incremental, fresh)
    # The new path read one slice of the log from the earlier audit's newest event on, and
    # no create action: fewer reads of the log, fewer requests.
    assert len(new_reads) == 1 < len(full_reads)
    assert new_requests < full_requests
    newest = first.data.events["occurred_at"].max()
    assert len(incremental.events) > len(first.events)  # the changes' events were added
    assert (incremental.events["occurred_at"] > newest).sum() >= 4
    return incremental


def test_the_demo_organization_reads_only_the_new_log_and_gives_the_same_audit(sandbox, client):
    _compare(sandbox, client, sandbox.org_id)


def test_a_saved_snapshot_as_previous_gives_the_same_audit(sandbox, client, tmp_path):
    audit = _compare(sandbox, client, sandbox.org_id, tmp_path)
    assert audit.complete


@pytest.mark.parametrize("seed", [1, 2])
def test_other_demo_organizations_give_the_same_audit(seed):
    with Sandbox(seed=seed) as sandbox:
        _compare(sandbox, sandbox.client(), sandbox.org_id)


@pytest.mark.full  # several seconds: `pytest --full` (and CI)
def test_a_benchmark_shaped_organization_gives_the_same_audit():
    # The benchmarks' organization (over 100 spaces: mostly explicit grants, a year of
    # history), small enough for a test.
    with Sandbox(seed=0, spaces=120, users=400, grants_per_space=12) as sandbox:
        audit = _compare(sandbox, sandbox.client(), sandbox.org_id)
        assert len(audit.events) > 1000


def test_an_earlier_audit_without_a_log_lends_nothing(sandbox, client):
    blind = audit_permissions(client, sandbox.org_id, progress=False, read_log=False)
    assert log_start_after(blind.data) is None
    assert known_creators(blind.data, pd.Timestamp("2026-01-01", tz="UTC")) is None
    again, reads, _ = _log_reads(
        client, lambda: audit_permissions(client, sandbox.org_id, progress=False, previous=blind)
    )
    fresh = audit_permissions(
        client, sandbox.org_id, progress=False, events_since=again.data.events_since
    )
    _same_audit(again, fresh)
    assert len(reads) > 1  # the whole window and the create actions before it


def test_a_window_that_starts_after_the_earlier_audit_keeps_none_of_it():
    earlier = AuditData(
        "org",
        generated_at=pd.Timestamp("2026-03-02T12:00Z"),
        events_since=pd.Timestamp("2025-03-02T00:00Z"),
    )
    end = log_start_after(earlier)
    assert end == pd.Timestamp("2026-03-02T12:00Z") - OVERLAP  # no event: its time
    assert known_creators(earlier, end) is not None
    # A gap between the two windows: creations in it would be missed, so they are read.
    assert known_creators(earlier, end + pd.Timedelta(seconds=1)) is None
    lost = AuditData("org", events_since=earlier.events_since, not_read=frozenset({"creators"}))
    assert known_creators(lost, end) is None
