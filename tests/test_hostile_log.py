"""Whatever the server sends, the audit finishes and says what it could not trust.

The audits here read the sandbox through a proxy that rewrites some answers
(:mod:`hostile_proxy`): lists whose cursors never end, and an audit log holding events out
of range, incomplete, of the wrong types, from unknown actors, and copies of one id that
differ, in either order.
"""

from __future__ import annotations

import copy

import pandas as pd
import pytest
from hostile_proxy import HostileProxy, endless

from docsapi import DocsClient, ReadBoundError, ReadBounds, audit_permissions
from docsapi.audit.provenance import PROVENANCE_COLUMNS
from docsapi.cli import main
from docsapi.errors import ValidationError


def _audit(sandbox, rewrite, **kwargs):
    with HostileProxy(sandbox, rewrite) as proxy:
        client = DocsClient(base_url=proxy.url, token=sandbox.token)
        return audit_permissions(client, sandbox.org_id, progress=False, max_workers=4, **kwargs)


def _unchanged(path, query, body):
    return body


def _coverage(audit) -> dict[str, tuple[bool, str]]:
    table = audit.coverage.astype(object)
    return {row.item: (bool(row.complete), row.detail) for row in table.itertuples(index=False)}


# -- bounded reads -----------------------------------------------------------------------------
def test_a_log_whose_cursor_never_ends_stops_at_its_page_bound(sandbox):
    def rewrite(path, query, body):
        return endless(body) if path.endswith("/audit-events") else body

    audit = _audit(sandbox, rewrite, read_bounds=ReadBounds(pages=4))
    coverage = _coverage(audit)
    assert not audit.complete
    complete, detail = coverage["reads stopped at a bound"]
    assert not complete
    assert f"audit log of organization {sandbox.org_id}" in detail
    assert "stopped after 4 pages" in detail and "page bound of 4 pages" in detail
    assert not coverage["audit log read"][0]
    assert set(audit.grants["provenance"].astype(str)) == {
        "unknown: the audit log could not be read"
    }


def test_a_space_list_whose_cursor_never_ends_leaves_that_space_incomplete(sandbox, client):
    space_id = str(client.spaces.list(org_id=sandbox.org_id)["id"].iloc[0])
    target = f"/spaces/{space_id}/permissions/users"

    def rewrite(path, query, body):
        return endless(body) if path == target else body

    audit = _audit(sandbox, rewrite, read_bounds=ReadBounds(pages=3))
    coverage = _coverage(audit)
    assert not audit.complete
    complete, detail = coverage["reads stopped at a bound"]
    assert not complete and detail.startswith("1 read stopped")
    assert f"space users of space {space_id}: GET {target} stopped after 3 pages" in detail
    incomplete = audit.effective.loc[~audit.effective["complete"].astype(bool), "space_id"]
    assert set(incomplete.astype(str)) == {space_id}


def test_the_organizations_spaces_read_to_a_bound_are_kept_and_the_audit_is_partial(sandbox):
    def rewrite(path, query, body):
        return endless(body) if path.endswith("/spaces") and "/orgs/" in path else body

    audit = _audit(sandbox, rewrite, read_bounds=ReadBounds(pages=2), read_log=False)
    complete, detail = _coverage(audit)["reads stopped at a bound"]
    assert not complete and "spaces of organization" in detail
    assert len(audit.data.spaces) > 0  # what was read before the bound is kept
    assert not audit.complete


def test_a_read_stops_at_its_time_budget(sandbox, client):
    space_id = str(client.spaces.list(org_id=sandbox.org_id)["id"].iloc[0])
    target = f"/spaces/{space_id}/permissions/teams"

    def rewrite(path, query, body):
        return endless(body) if path == target else body

    audit = _audit(sandbox, rewrite, read_bounds=ReadBounds(seconds=0.5), read_log=False)
    complete, detail = _coverage(audit)["reads stopped at a bound"]
    assert not complete
    assert "space teams of space" in detail and "its time budget (0." in detail


def test_paginate_stops_at_its_item_bound_and_reads_a_list_that_ends_at_it(sandbox, client):
    path = f"/orgs/{sandbox.org_id}/members"
    total = sum(1 for _ in client.paginate(path))
    with pytest.raises(ReadBoundError) as caught:
        list(client.paginate(path, params={"limit": 3}, bounds=ReadBounds(items=7)))
    assert (caught.value.bound, caught.value.pages, caught.value.items) == ("items", 3, 9)
    assert "item bound of 7 items" in str(caught.value)
    whole = list(client.paginate(path, params={"limit": total}, bounds=ReadBounds(pages=1)))
    assert len(whole) == total  # the last page allowed is the list's last: no error


@pytest.mark.parametrize(
    ("bounds", "argument"),
    [({"pages": 0}, "pages"), ({"items": 1.5}, "items"), ({"seconds": -1}, "seconds")],
)
def test_bad_bounds_are_refused_before_any_request(bounds, argument):
    with pytest.raises(ValidationError, match=f"^{argument}: must be"):
        ReadBounds(**bounds)


def test_read_bounds_must_be_read_bounds(sandbox, client):
    before = client.transport.request_count
    with pytest.raises(ValidationError, match=r"read_bounds: must be a docsapi\.ReadBounds"):
        audit_permissions(client, sandbox.org_id, read_bounds=10)  # type: ignore[arg-type]
    assert client.transport.request_count == before


# -- hostile events ----------------------------------------------------------------------------
def _newest_first_page(path, query) -> bool:
    """The first page of the log's newest slice (open-ended, not a read by action)."""
    return path.endswith("/audit-events") and not {"page", "to", "action"} & set(query)


def _hostile_events(items: list[dict], conflict_first: bool) -> list[dict]:
    """``items`` with events that must be set aside, and a copy of one grant's event that
    names another actor (before or after the original)."""
    grants = [e for e in items if e["target"]["type"].endswith("-permission")]
    assert len(grants) >= 2, "the newest page of the demo's log holds grants"
    original, other = grants[0], grants[1]

    def event(**changes) -> dict:
        made = copy.deepcopy(other)
        made["id"] = changes.pop("id", f"hostile-{len(extra)}")
        made.update(changes)
        return made

    extra: list[dict] = []
    extra.append(event(occurredAt="9999-12-31T23:59:59.999Z"))
    extra.append(event(occurredAt="1900-01-01T00:00:00Z"))
    extra.append(event(occurredAt="0001-01-01T00:00:00Z"))
    extra.append(event(occurredAt="not a time"))
    extra.append(event(occurredAt=12345))
    extra.append(event(action=5))
    extra.append(event(actor={"type": "alien", "id": "x1", "label": "Mallory"}))
    extra.append(event(target=None))
    without = event()
    del without["target"]
    extra.append(without)
    nameless = event()
    del nameless["id"]
    extra.append(nameless)
    conflict = copy.deepcopy(original)
    conflict["actor"] = {"type": "user", "id": "mallory", "label": "Mallory"}
    rest = [e for e in items if e is not original]
    pair = [conflict, original] if conflict_first else [original, conflict]
    return [*pair, *extra, *rest]


def _hostile(conflict_first: bool):
    def rewrite(path, query, body):
        if _newest_first_page(path, query):
            body["items"] = _hostile_events(body["items"], conflict_first)
        return body

    return rewrite


def _provenance(audit) -> pd.DataFrame:
    keys = ["target_type", "target_id", "principal_type", "principal_id"]
    table = audit.grants[keys + PROVENANCE_COLUMNS].astype(object)
    return table.sort_values(keys).reset_index(drop=True)


def _texts(table: pd.DataFrame) -> pd.DataFrame:
    """Every cell as its text (a missing value too), to compare cell by cell."""
    return table.apply(lambda column: column.map(str))


def test_hostile_events_are_set_aside_counted_and_change_no_other_grant(sandbox):
    clean = _audit(sandbox, _unchanged)
    sandbox.reset()
    first = _audit(sandbox, _hostile(conflict_first=True))
    sandbox.reset()
    last = _audit(sandbox, _hostile(conflict_first=False))

    complete, detail = _coverage(first)["audit log read"]
    assert not complete
    assert "The log: 11 events set aside: 3 time out of range, 2 without a target, " in detail
    for words in (
        "1 with an action that is not text",
        "1 with a time that is not text",
        "1 time unreadable",
        "1 with an unknown actor type",
        "1 without an id",
        "1 with the id of another event",
    ):
        assert words in detail
    assert "(e.g. event 'hostile-0': occurredAt '9999-12-31T23:59:59.999Z')" in detail
    assert _coverage(first)["failed reads"][0]  # the log was read: nothing failed

    # which copy of the conflicting event is used does not depend on the order
    pd.testing.assert_frame_equal(_provenance(first), _provenance(last))
    assert len(first.data.events) == len(clean.data.events)
    # every grant not touched by the conflicting copy keeps its provenance
    before, after = _provenance(clean), _provenance(first)
    touched = (_texts(before) != _texts(after)).any(axis=1).to_numpy()
    assert touched.sum() <= 1  # at most the grant of the conflicting event
    pd.testing.assert_frame_equal(before[~touched], after[~touched])


# -- the command line ---------------------------------------------------------------------------
def test_the_cli_bounds_stop_a_read_and_the_audit_exits_partial(
    sandbox, capsys, monkeypatch, tmp_path
):
    def rewrite(path, query, body):
        return endless(body) if path.endswith("/audit-events") else body

    monkeypatch.setenv("GITBOOK_API_TOKEN", sandbox.token)
    out = tmp_path / "report.html"
    with HostileProxy(sandbox, rewrite) as proxy:
        options = ["--org", sandbox.org_id, "--base-url", proxy.url, "--out", str(out)]
        status = main(["audit", "--no-progress", *options, "--max-pages", "3"])
    printed = capsys.readouterr()
    assert status == 3, printed.err
    partial = [line for line in printed.out.splitlines() if line.startswith("PARTIAL AUDIT")]
    assert len(partial) == 1 and "reads stopped at a bound" in partial[0]
    assert out.exists()


@pytest.mark.parametrize(
    ("flag", "value"), [("--max-pages", "0"), ("--max-items", "-3"), ("--max-read-seconds", "0")]
)
def test_a_bad_cli_bound_is_refused_before_any_request(sandbox, capsys, monkeypatch, flag, value):
    monkeypatch.setenv("GITBOOK_API_TOKEN", sandbox.token)
    status = main(["audit", "--no-progress", "--org", sandbox.org_id, "--base-url", sandbox.url,
                   flag, value])  # fmt: skip
    printed = capsys.readouterr()
    assert status == 2
    assert f"{flag}: must be" in printed.err and "Traceback" not in printed.err


def test_the_time_budget_is_the_crawls_however_many_reads_never_end(sandbox, client):
    spaces = set(client.spaces.list(org_id=sandbox.org_id)["id"].astype(str))

    def rewrite(path, query, body):
        parts = path.split("/")
        endless_space = len(parts) == 5 and parts[1] == "spaces" and parts[2] in spaces
        return endless(body) if endless_space and path.endswith("/users") else body

    audit = _audit(sandbox, rewrite, read_bounds=ReadBounds(seconds=1.0), read_log=False)
    stopped = audit.data.errors[audit.data.errors["error_type"] == "ReadBoundError"]
    assert set(stopped["target_id"].astype(str)) == spaces  # every space's read stopped
    assert stopped["message"].astype(str).str.contains("its time budget", regex=False).all()
    assert not audit.complete
