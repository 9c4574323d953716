"""Audit under partial failure: what depends on a failed read is marked, never guessed."""

from __future__ import annotations

import pandas as pd
import pytest
from audit_org import Org, found

from docsapi import audit_permissions
from docsapi.audit.rules import AuditThresholds


def failing_team_org() -> Org:
    """s1 and s2 each have 3 direct admins; team t1 (whose members fail) is admin on s1 and
    on collection c1 holding s3; s4 depends on nothing that failed."""
    org = Org().member("boss", "admin").team("t1").collection("c1")
    for user in ("a1", "a2", "a3", "m1", "m2"):
        org.member(user, "edit")
    org.rows["team_members"] = []  # t1's members were not read
    org.fail("team", "t1", "team members")
    org.space("s1").space("s2").space("s3", parent="c1").space("s4")
    for space in ("s1", "s2"):
        for user in ("a1", "a2", "a3"):
            org.grant(space, user, "admin")
    org.grant("s1", "t1", "admin").grant("c1", "t1", "admin").grant("s4", "m1", "admin")
    return org


@pytest.fixture(scope="module")
def partial():
    return failing_team_org().audit(thresholds=AuditThresholds(max_admins=2))


def test_spaces_that_depend_on_the_failed_read_are_marked_incomplete(partial):
    complete = partial.effective.groupby("space_id", observed=True)["complete"].first().to_dict()
    assert complete == {"s1": False, "s2": True, "s3": False, "s4": True}
    assert not partial.complete
    assert "complete" not in repr(partial).split(",")[1]


def test_the_team_and_its_read_are_named_in_coverage_and_errors(partial):
    coverage = partial.coverage.set_index("item")
    assert not coverage.loc["team members read", "complete"]
    assert "t1" in coverage.loc["team members read", "detail"]
    assert coverage.loc["spaces with complete access", "seen"] == 2
    assert partial.errors[["target_type", "target_id", "stage"]].values.tolist() == [
        ["team", "t1", "team members"]
    ]
    assert set(partial.incomplete["item"]) >= {"team members read", "failed reads"}


def test_no_finding_comes_from_the_missing_members(partial):
    assert found(partial, "empty_team") == set()  # t1 is not known to be empty
    assert ("s3", None) not in found(partial, "no_admin")  # its admins may be in t1


def test_real_too_many_admins_findings_stay(partial):
    # s1: three direct admins already exceed 2 whatever t1 holds; s2 is unaffected
    assert found(partial, "too_many_admins") == {("s1", None), ("s2", None)}


def test_rows_that_were_read_are_kept(partial):
    effective = partial.effective
    s1 = effective[effective["space_id"] == "s1"]
    assert set(s1["user_id"]) == {"a1", "a2", "a3", "boss"}


def test_a_token_that_is_not_an_admin_cannot_claim_completeness():
    org = failing_team_org()
    org.rows.pop("errors")
    org.rows["team_members"] = [{"team_id": "t1", "user_id": "m2"}]
    assert org.audit().complete
    org.token_role = "edit"
    audit = org.audit()
    assert not audit.complete
    detail = audit.coverage.set_index("item").loc["token role", "detail"]
    assert "not an organization admin" in detail


def test_fewer_spaces_listed_than_the_api_counts_makes_the_audit_partial():
    org = Org(spaces_reported=30).member("boss", "admin").space("s1").space("s2")
    coverage = org.audit().coverage.set_index("item")
    assert (coverage.loc["spaces listed", "seen"], coverage.loc["spaces listed", "total"]) == (
        2,
        30,
    )
    assert not coverage.loc["spaces listed", "complete"]


def test_parts_not_read_at_all_are_named_and_make_the_audit_partial():
    org = Org(not_read=frozenset({"sites", "share_links"})).member("boss", "admin").space("s1")
    audit = org.audit()
    assert not audit.complete
    assert {"sites listed", "share links read"} <= set(audit.incomplete["item"])


def test_unlisted_collections_leave_their_spaces_incomplete():
    org = Org().member("boss", "admin").member("ann", "edit")
    org.space("s1", parent="c9", default="inherit").space("s2", default="inherit")
    audit = org.audit()
    complete = audit.effective.groupby("space_id", observed=True)["complete"].first().to_dict()
    assert complete == {"s1": False, "s2": True}
    assert (
        "1 spaces sit in collections"
        in audit.coverage.set_index("item").loc["collections listed", "detail"]
    )


def test_failed_collection_permissions_mark_every_space_below():
    org = Org().member("boss", "admin").collection("c1").collection("c2", parent="c1")
    org.space("s1", parent="c2").space("s2").fail("collection", "c1", "collection users")
    complete = org.audit().effective.groupby("space_id", observed=True)["complete"].first()
    assert complete.to_dict() == {"s1": False, "s2": True}


# -- against the sandbox -------------------------------------------------------------------------


def test_a_team_whose_members_keep_failing_is_marked_not_guessed(sandbox):
    client = sandbox.client()
    baseline = audit_permissions(client, sandbox.org_id, progress=False)
    grants = baseline.grants
    team_grants = grants[grants["principal_type"] == "team"]
    team = team_grants["principal_id"].value_counts().index[0]  # the most used team
    affected = set(team_grants.loc[team_grants["principal_id"] == team, "target_id"])

    sandbox.inject("503", count=100, path=f"/orgs/{sandbox.org_id}/teams/{team}/members")
    audit = audit_permissions(client, sandbox.org_id, progress=False)

    assert audit.errors[["target_type", "target_id", "stage"]].values.tolist() == [
        ["team", team, "team members"]
    ]
    assert not audit.complete
    assert team in audit.coverage.set_index("item").loc["team members read", "detail"]
    marked = audit.effective.groupby("space_id", observed=True)["complete"].all()
    was = baseline.effective.groupby("space_id", observed=True)["complete"].all()
    newly = set(marked[~marked & was].index)
    assert affected & set(baseline.effective["space_id"]) <= set(marked[~marked].index)
    assert newly <= affected | _below(audit, affected)
    assert team not in {p for _, p in found(audit, "empty_team")}

    touched = newly | affected | _below(audit, affected)

    def unaffected(table: pd.DataFrame) -> pd.DataFrame:
        keep = ~table["space_id"].isin(touched)
        columns = ["space_id", "user_id", "role", "sources"]
        return table.loc[keep, columns].astype(str).reset_index(drop=True)

    pd.testing.assert_frame_equal(unaffected(audit.effective), unaffected(baseline.effective))
    before = found(baseline, "too_many_admins")
    assert {f for f in before if f[0] not in touched} <= found(audit, "too_many_admins")


def _below(audit, targets: set[str]) -> set[str]:
    """Spaces under any of ``targets`` that is a collection, at any depth."""
    collections = audit.data.collections
    parents = dict(zip(collections["id"], collections["parent"], strict=True))
    found = {c for c in targets if c in parents}
    while True:
        more = {c for c, parent in parents.items() if parent in found} - found
        if not more:
            break
        found |= more
    spaces = audit.data.spaces
    return set(spaces.loc[spaces["parent"].isin(list(found)), "id"])
