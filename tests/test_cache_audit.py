"""An audit on a cached crawl: the second run sends nothing, and finds what a fresh crawl finds."""

from __future__ import annotations

import pandas as pd

from docsapi import DocsClient, audit_permissions

TABLES = ("grants", "effective", "findings")


def _audit(client: DocsClient, org_id: str, **thresholds: float):
    return audit_permissions(client, org_id, progress=False, max_workers=4, **thresholds)


def test_a_second_audit_through_a_cached_client_sends_no_request(sandbox, tmp_path):
    cache = tmp_path / "audit.sqlite"
    first = _audit(
        DocsClient(token=sandbox.token, base_url=sandbox.url, cache=cache), sandbox.org_id
    )
    crawled = sandbox.request_count
    assert crawled > len(sandbox.demo["space_ids"])
    again = DocsClient(token=sandbox.token, base_url=sandbox.url, cache=cache)  # a new kernel
    second = _audit(again, sandbox.org_id)
    assert sandbox.request_count == crawled  # the sandbox's request log did not grow
    assert again.transport.request_count == 0
    assert all(record.from_cache for record in again.transport.history)
    assert again.cache.misses == 0 and again.cache.hits == len(again.transport.history)
    for table in TABLES:
        pd.testing.assert_frame_equal(getattr(second, table), getattr(first, table))


def test_iterating_on_thresholds_costs_no_requests_and_matches_a_fresh_crawl(sandbox, tmp_path):
    client = sandbox.client(cache=tmp_path / "audit.sqlite")
    usual = _audit(client, sandbox.org_id)
    crawled = sandbox.request_count
    strict = _audit(client, sandbox.org_id, admin_share=0.05)
    assert sandbox.request_count == crawled
    assert len(strict.findings) > len(usual.findings)  # the new threshold did apply
    fresh = _audit(sandbox.client(), sandbox.org_id, admin_share=0.05)
    for table in TABLES:
        pd.testing.assert_frame_equal(getattr(strict, table), getattr(fresh, table))


def test_fixing_a_finding_then_auditing_again_sees_the_fix(sandbox, tmp_path):
    client = sandbox.client(cache=tmp_path / "audit.sqlite")
    space_id, guest_id = sandbox.demo["guest_write"][0]
    before = _audit(client, sandbox.org_id)
    assert _has(before.findings, "guest_write", space_id)
    client.permissions.remove_user(space_id, guest_id)
    crawled = sandbox.request_count
    after = _audit(client, sandbox.org_id)
    resent = sandbox.request_log[crawled:]
    assert 0 < len(resent) < crawled  # the space and the organization's lists, not all
    fresh = _audit(sandbox.client(), sandbox.org_id)
    for table in TABLES:
        pd.testing.assert_frame_equal(getattr(after, table), getattr(fresh, table))


def _has(findings: pd.DataFrame, rule: str, space_id: str) -> bool:
    return bool(((findings["rule"] == rule) & (findings["space_id"] == space_id)).any())
