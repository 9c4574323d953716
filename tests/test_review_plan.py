"""Review plans: each access path becomes the right API call, with its exact blast radius.

A small organization built fact by fact (``audit_org.Org``) makes every expected call and
every collateral access known in advance; the sandbox then shows that a plan carried out
takes away exactly the decided accesses and the blast radius it announced.
"""

from __future__ import annotations

import pandas as pd
import pytest
from review_org import RULE_SETS, org

import docsapi
from docsapi import AccessReview
from docsapi.errors import ValidationError


@pytest.fixture(params=RULE_SETS)
def sandbox(request, sandbox_server, highest_sandbox_server):
    """The review predicts by the audit's own rule set: its tests run under each, on a
    sandbox that follows it."""
    server = highest_sandbox_server if request.param == "highest" else sandbox_server
    server.reset()
    return server


@pytest.fixture(params=RULE_SETS)
def rule_set(request) -> str:
    """The rule set the organization is audited with (the review predicts by it)."""
    return request.param


def review(rule_set: str, **options) -> AccessReview:
    return AccessReview(org(rule_set), reviewer="Rita Reviewer", **options)


def accesses(text) -> set[str]:
    """The names in an ``also_revokes`` text: {"B on S1", ...}."""
    if pd.isna(text):
        return set()
    return {item.rsplit(" (", 1)[0] for item in text.split("; ")}


def test_direct_and_team_paths_are_both_cut_membership_by_default(rule_set):
    r = review(rule_set)
    r.decide({"space": "s1", "user": "a"}, "revoke", comment="moved teams")
    plan = r.plan()
    assert list(plan["operation"]) == [
        "removeUserFromSpace",
        "deleteMemberFromOrganizationTeamById",
    ]
    assert list(plan["path"]) == [
        "/spaces/s1/permissions/users/a",
        "/orgs/org/teams/t1/members/a",
    ]
    assert plan["body"].isna().all()
    # Leaving t1 also takes a's comment access to s5 (only t1 gives it): the blast radius.
    assert accesses(plan["also_revokes"].iloc[1]) == {"A on S5"}
    assert plan["also_revokes_count"].tolist() == [0, 1]
    assert plan["decisions"].iloc[0] == "revoke A on S1"


def test_team_grant_change_names_the_other_members_who_lose_access(rule_set):
    r = review(rule_set, team_change="grant")
    r.decide({"space": "s1", "user": "a"}, "revoke")
    plan = r.plan()
    assert list(plan["operation"]) == ["removeUserFromSpace", "removeTeamFromSpace"]
    assert plan["path"].iloc[1] == "/spaces/s1/permissions/teams/t1"
    assert accesses(plan["also_revokes"].iloc[1]) == {"B on S1"}
    impact = r.blast_radius()
    collateral = impact[impact["decided"].isna()]
    assert collateral[["display_name", "space_title", "change"]].values.tolist() == [
        ["B", "S1", "revoked"]
    ]


def test_collection_path_revokes_every_space_below_it(rule_set):
    r = review(rule_set)
    r.decide({"space": "s2", "user": "a"}, "revoke")
    plan = r.plan()
    assert list(plan["operation"]) == [
        "removeUserFromCollection",
        "deleteMemberFromOrganizationTeamById",
    ]
    assert plan["path"].tolist() == [
        "/collections/c1/permissions/users/a",
        "/orgs/org/teams/t2/members/a",
    ]
    # The collection grant and t2 both reach s3: s3 is lost only once both calls are made.
    assert plan["also_revokes_count"].tolist() == [0, 1]
    assert accesses(plan["also_revokes"].iloc[1]) == {"A on S3"}


def test_default_level_revoke_changes_the_space_for_everyone_who_inherits(rule_set):
    r = review(rule_set)
    r.decide({"space": "s4", "user": "b"}, "revoke", comment="b reads nothing here")
    plan = r.plan()
    assert plan[["operation", "method", "path"]].values.tolist() == [
        ["updateSpaceById", "PATCH", "/spaces/s4"]
    ]
    assert plan["body"].iloc[0] == {"defaultLevel": None}
    assert accesses(plan["also_revokes"].iloc[0]) == {"A on S4"}
    assert "every member" in plan["note"].iloc[0]


def test_org_admin_revoke_demotes_the_member_last(rule_set):
    r = review(rule_set)
    r.decide({"user": "boss", "space": "s1"}, "revoke")
    r.decide({"user": "a", "space": "s1"}, "revoke")
    plan = r.plan()
    assert plan["operation"].iloc[-1] == "updateMemberInOrganizationById"
    assert plan["body"].iloc[-1] == {"role": None}
    # Without the admin role boss loses every space (s4's default too: a guest gets none).
    assert accesses(plan["also_revokes"].iloc[-1]) == {f"Boss on S{i}" for i in (2, 3, 4, 5)}


def test_lower_sets_roles_where_they_are_granted(rule_set):
    r = review(rule_set)
    r.decide({"space": "s1", "user": "a"}, "lower", lower_to="read", comment="reader now")
    plan = r.plan()
    assert plan[["operation", "path"]].values.tolist() == [
        ["updateUserPermissionInSpace", "/spaces/s1/permissions/users/a"],
        ["updateTeamPermissionInSpace", "/spaces/s1/permissions/teams/t1"],
    ]
    assert plan["body"].tolist() == [{"role": "read"}, {"role": "read"}]
    assert accesses(plan["also_lowers"].iloc[1]) == {"B on S1"}
    assert plan["also_revokes_count"].sum() == 0


def test_shared_calls_are_sent_once_and_ids_are_stable(rule_set):
    r = review(rule_set)
    r.decide({"user": "a", "space": ["s1", "s5"]}, "revoke")
    plan = r.plan()
    assert plan["operation"].tolist().count("deleteMemberFromOrganizationTeamById") == 1
    leave = plan[plan["operation"] == "deleteMemberFromOrganizationTeamById"].iloc[0]
    assert leave["decisions"] == "revoke A on S1; revoke A on S5"
    assert leave["also_revokes_count"] == 0  # both accesses it takes were decided
    assert r.plan()["call_id"].tolist() == plan["call_id"].tolist()
    assert plan["call_id"].is_unique


def test_keep_decisions_plan_nothing_and_bad_team_change_is_refused(rule_set):
    r = review(rule_set)
    r.decide({"user": "a"}, "keep")
    assert r.plan().empty
    with pytest.raises(ValidationError, match="team_change"):
        review(rule_set, team_change="everything")


def test_a_carried_out_plan_takes_exactly_the_decided_access_and_its_blast_radius(sandbox):
    """On the sandbox: revoke one team access (grant change) and one default-level access;
    the re-audit lost exactly the decided accesses plus what the plan announced."""
    client = sandbox.client()
    audit = docsapi.audit_permissions(client, sandbox.org_id, progress=False, model=sandbox.model)
    examples = sandbox.demo["path_examples"]
    r = AccessReview(audit, reviewer="Rita Reviewer", client=client, team_change="grant")
    # a collection access on a space no site permission reaches (the plan does not follow
    # site paths: a default level it changes would also end what a site gives)
    via_collection = sandbox.demo["guest_write_via_collection"][0]
    pairs = [(examples[k]["space_id"], examples[k]["user_id"]) for k in ("team", "default:read")]
    decided = set()
    for space_id, user_id in (*pairs, via_collection):
        r.decide({"space": space_id, "user": user_id}, "revoke")
        decided.add((space_id, user_id))
    impact = r.blast_radius()
    announced = set(zip(impact["space_id"], impact["user_id"], strict=True))
    revoked = impact[impact["change"] == "revoked"]
    gone_announced = set(zip(revoked["space_id"], revoked["user_id"], strict=True))
    assert decided <= gone_announced
    assert r.plan()["also_revokes_count"].sum() == len(gone_announced - decided) > 0

    results = r.apply(progress=False)
    assert (results["status"] == "done").all()
    after = docsapi.audit_permissions(client, sandbox.org_id, progress=False, model=sandbox.model)

    def roles(a):
        e = a.effective
        keys = zip(e["space_id"].astype(str), e["user_id"].astype(str), strict=True)
        return dict(zip(keys, e["role"].cat.codes, strict=True))

    before_roles, after_roles = roles(audit), roles(after)
    lost = set(before_roles) - set(after_roles)
    assert lost == gone_announced
    lowered = {k for k in before_roles if k in after_roles and after_roles[k] < before_roles[k]}
    assert lowered == announced - gone_announced


@pytest.mark.parametrize("model", ["precedence", "highest"])
def test_a_default_level_set_above_some_members_role_shows_who_it_raises(model):
    """s6 inherits each member's organization role. Under ``highest`` lowering the admin's
    default access to edit sets the level to edit, which raises the read member r; under
    ``precedence`` the admin's organization role decides alone (their default path does not
    count), so the plan changes only that role."""
    from audit_org import Org

    o = Org().member("boss", "admin").member("lead", "admin").member("r", "read")
    o.space("s6", default="inherit").grant("s6", "boss", "admin")
    r = AccessReview(o.audit(model=model), reviewer="R")
    r.decide({"space": "s6", "user": "lead"}, "lower", lower_to="edit")
    plan = r.plan()
    if model == "precedence":
        assert plan["operation"].tolist() == ["updateMemberInOrganizationById"]
        assert plan["also_raises_count"].tolist() == [0]
        assert set(r.blast_radius()["change"]) == {"lowered"}
        return
    assert plan["operation"].tolist() == ["updateSpaceById", "updateMemberInOrganizationById"]
    assert plan["body"].tolist() == [{"defaultLevel": "edit"}, {"role": "edit"}]
    assert accesses(plan["also_raises"].iloc[0]) == {"R on S6"}
    assert plan["also_raises_count"].tolist() == [1, 0]
    assert set(r.blast_radius()["change"]) == {"raised", "lowered"}
    assert r.after().set_index(["space_id", "user_id"])["role"].astype(str).to_dict() == {
        ("s6", "boss"): "admin",
        ("s6", "lead"): "edit",
        ("s6", "r"): "edit",
    }


def test_an_access_decided_keep_that_a_call_would_take_is_marked(rule_set):
    r = review(rule_set, team_change="grant")
    r.decide({"space": "s1", "user": "b"}, "keep", comment="b stays")
    r.decide({"space": "s1", "user": "a"}, "revoke")
    plan = r.plan()
    assert plan["also_revokes"].iloc[1] == "B on S1 (edit, DECIDED KEEP)"
    kept = r.blast_radius()
    assert kept.loc[kept["display_name"] == "B", "decided"].tolist() == ["keep"]


@pytest.mark.parametrize("model", ["precedence", "highest"])
def test_a_revoke_wins_over_a_lower_of_the_same_default_level(model):
    """A lowers B's default access to comment (the space's default level) and revokes A's
    direct admin: under ``precedence`` A's default path did not count before, but the lowered
    default level would then give A comment. The revoke is carried out: the space's default
    level becomes none, and B's lowered access, taken away too, is marked."""
    from audit_org import Org

    o = Org().member("boss", "admin").member("a", "edit").member("b", "edit")
    o.space("s7", default="edit").grant("s7", "a", "admin")
    r = AccessReview(o.audit(model=model), reviewer="R")
    r.decide({"space": "s7", "user": "b"}, "lower", lower_to="comment")
    r.decide({"space": "s7", "user": "a"}, "revoke")
    plan = r.plan()
    assert sorted(plan["operation"]) == ["removeUserFromSpace", "updateSpaceById"]
    assert plan.loc[plan["operation"] == "updateSpaceById", "body"].tolist() == [
        {"defaultLevel": None}
    ]
    after = r.after().set_index(["space_id", "user_id"])["role"].astype(str).to_dict()
    assert after == {("s7", "boss"): "admin"}
    assert "B on S7 (edit, DECIDED LOWER)" in "; ".join(plan["also_revokes"].dropna())
