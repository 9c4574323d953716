"""Preconditions: every call of a plan records the state of its target as reviewed, and the
state read back from the API before anything changes is that state, for every kind of
target; a call whose target changed is not sent, and the results and the evidence say so."""

from __future__ import annotations

import pandas as pd
import pytest

import docsapi
from docsapi import AccessReview
from docsapi.review._expect import TARGETS, CurrentState, Expectations
from docsapi.review._operations import OPERATIONS, Target


def test_every_operation_a_plan_may_call_has_a_precondition():
    assert set(TARGETS) == set(OPERATIONS)


@pytest.fixture
def audit(sandbox):
    return docsapi.audit_permissions(sandbox.client(), sandbox.org_id, progress=False)


def test_a_call_expects_what_the_audit_saw_then_what_the_calls_before_it_leave(audit):
    grants = audit.data.user_permissions
    grant = grants[(grants["target_type"] == "space").to_numpy(dtype=bool)].iloc[0]
    space, user, role = str(grant["target_id"]), str(grant["user_id"]), str(grant["role"])
    expectations = Expectations(audit)
    lower = Target(space_id=space, user_id=user, role="read")
    assert expectations.expect("updateUserPermissionInSpace", lower) == {
        "target": "space-user",
        "state": role,
    }
    remove = Target(space_id=space, user_id=user)
    assert expectations.expect("removeUserFromSpace", remove)["state"] == "read"
    assert expectations.expect("removeUserFromSpace", remove)["state"] == "absent"
    level = audit.data.spaces.set_index("id").loc[space, "default_level"]
    set_level = Target(space_id=space, role=None)
    assert expectations.expect("updateSpaceById", set_level)["state"] == (
        "none" if pd.isna(level) else level
    )
    assert expectations.expect("updateSpaceById", set_level)["state"] == "none"
    member = audit.data.team_members.iloc[0]
    leave = Target(org_id=str(audit.org_id), team_id=member["team_id"], user_id=member["user_id"])
    assert expectations.expect("deleteMemberFromOrganizationTeamById", leave) == {
        "target": "team-member",
        "state": "member",
    }
    stranger = Target(org_id=str(audit.org_id), user_id="NoSuchUser0000000001", role="read")
    assert expectations.expect("updateMemberInOrganizationById", stranger)["state"] == "absent"


def _decide_every_kind(review: AccessReview) -> int:
    """Revoke or lower one access reached by each kind of path; how many were decided."""
    decided = 0
    paths = review.audit.paths
    kinds = ("direct", "team", "collection", "collection-team", "default", "org-admin")
    for number, kind in enumerate(kinds):
        rows = paths[(paths["kind"] == kind).to_numpy(dtype=bool)]
        rows = rows[(rows["role"] > "read").to_numpy(dtype=bool)]
        if not len(rows):
            continue
        row = rows.iloc[0]
        index = review.decisions.index[
            (review.decisions["space_id"] == row["space_id"]).to_numpy(dtype=bool)
            & (review.decisions["user_id"] == row["user_id"]).to_numpy(dtype=bool)
        ]
        role = review.decisions.loc[index[0], "role"]
        if number % 2 and role > "read":
            review.decide(index, "lower", lower_to="read")
        else:
            review.decide(index, "revoke")
        decided += 1
    return decided


@pytest.mark.parametrize("team_change", ["membership", "grant"])
def test_the_state_read_before_anything_changes_is_the_state_reviewed(sandbox, audit, team_change):
    review = AccessReview(audit, reviewer="Rita Reviewer")
    review.team_change = team_change
    assert _decide_every_kind(review) >= 5
    plan = review.plan()
    assert len(plan) >= 3
    current = CurrentState(sandbox.client())
    before = sandbox.request_count
    kinds = set()
    for call in plan.itertuples(index=False):
        target = Target(
            **{
                name: None if pd.isna(getattr(call, name)) else str(getattr(call, name))
                for name in ("org_id", "space_id", "collection_id", "team_id", "user_id", "role")
            }
        )
        check = current.check(call.operation, target, call.expect)
        assert check.held, (call.operation, call.path, str(check))
        kinds.add(call.expect["target"])
    assert {"space-user", "space-level", "org-role"} <= kinds and len(kinds) >= 5
    reads = sandbox.request_count - before
    print(f"\n{len(plan)} calls, {len(kinds)} kinds of target, {reads} reads")
    assert reads <= 2 * len(plan)  # one list per space, collection, team or organization


def test_a_stale_call_is_named_in_the_results_and_the_evidence(sandbox, audit, tmp_path):
    review = AccessReview(audit, reviewer="Rita Reviewer", client=sandbox.client())
    decisions = review.decisions
    edits = decisions[(decisions["sources"] == "direct") & (decisions["role"] == "edit")]
    review.decide(edits.index[:1], "lower", lower_to="read")
    plan = review.plan()
    call = plan[plan["operation"] == "updateUserPermissionInSpace"].iloc[0]
    sandbox.client().permissions.set_user_role(call["space_id"], call["user_id"], "admin")
    writes = [entry for entry in sandbox.request_log if entry[0] != "GET"]
    results = review.apply(progress=False)
    assert [entry for entry in sandbox.request_log if entry[0] != "GET"] == writes
    stale = results[(results["call_id"] == call["call_id"]).to_numpy(dtype=bool)].iloc[0]
    assert (stale["status"], stale["outcome"]) == ("stale", "not sent")
    expected = "changed since the review: expected edit, found admin; not sent"
    assert stale["precondition"] == expected
    page = review.to_html(tmp_path / "evidence.html").read_text()
    assert expected in page
