"""Applying a review's plan on the sandbox: dry run, idempotency, resume after a 503, re-audit."""

from __future__ import annotations

import pytest
from review_org import RULE_SETS

import docsapi
from docsapi import AccessReview
from docsapi.errors import AdminRoleWarning, ValidationError
from docsapi.review import apply_plan


@pytest.fixture(params=RULE_SETS)
def sandbox(request, sandbox_server, highest_sandbox_server):
    """The review predicts by the audit's own rule set: its tests run under each, on a
    sandbox that follows it."""
    server = highest_sandbox_server if request.param == "highest" else sandbox_server
    server.reset()
    return server


def start(sandbox, **options) -> AccessReview:
    client = sandbox.client(**options)
    audit = docsapi.audit_permissions(client, sandbox.org_id, progress=False, model=sandbox.model)
    review = AccessReview(audit, reviewer="Rita Reviewer", client=client)
    # accesses by a direct grant alone (no other path, not even one a nearer level
    # overrides): under both rule sets removing the grant is all it takes
    paths = audit.paths.groupby(["space_id", "user_id"], observed=True).size()
    alone = {key for key, count in paths.items() if count == 1}
    keys = zip(review.decisions["space_id"], review.decisions["user_id"], strict=True)
    only_direct = review.decisions[
        (review.decisions["sources"] == "direct").to_numpy(dtype=bool)
        & [key in alone for key in keys]
    ]
    chosen = only_direct.drop_duplicates("space_id").head(3)
    review.decide(chosen, "revoke", comment="direct grants end")
    return review


def accesses(audit) -> set[tuple[str, str]]:
    e = audit.effective
    return set(zip(e["space_id"].astype(str), e["user_id"].astype(str), strict=True))


def test_dry_run_sends_nothing(sandbox):
    review = start(sandbox)
    sent = sandbox.request_count
    shown = review.apply(dry_run=True)
    assert sandbox.request_count == sent
    assert set(shown["action"]) == {"would send"}
    assert shown["call_id"].tolist() == review.plan()["call_id"].tolist()


def test_apply_then_reaudit_shows_the_accesses_gone_and_again_is_idempotent(sandbox):
    review = start(sandbox)
    plan = review.plan()
    results = review.apply(progress=False)
    assert results["status"].tolist() == ["done"] * len(plan)
    assert set(results["outcome"]) == {"removed"}
    assert set(results["http_status"]) == {205}
    after = docsapi.audit_permissions(
        review.client, sandbox.org_id, progress=False, model=sandbox.model
    )
    revoked = review.decisions[review.decisions["decision"] == "revoke"]
    gone = set(zip(revoked["space_id"], revoked["user_id"], strict=True))
    assert gone and not gone & accesses(after)
    # Done calls are skipped; sending the same plan afresh finds every target already as
    # the plan leaves it (the grants are gone): its preconditions send nothing.
    sent = sandbox.request_count
    assert review.apply(progress=False).empty
    assert sandbox.request_count == sent
    assert set(review.apply(dry_run=True)["action"]) == {"skip (done)"}
    writes = [entry for entry in sandbox.request_log if entry[0] != "GET"]
    again = apply_plan(review.client, plan, progress=False)
    assert again["status"].tolist() == ["done"] * len(plan)
    assert set(again["outcome"]) == {"already as planned"}
    assert all(p.endswith(", found absent; not sent") for p in again["precondition"])
    assert [entry for entry in sandbox.request_log if entry[0] != "GET"] == writes
    assert review.complete


def test_apply_stops_at_an_injected_503_and_resumes(sandbox):
    review = start(sandbox, max_retries=0)
    plan = review.plan()
    assert len(plan) == 3
    second = plan["path"].iloc[1]
    sandbox.inject("503", count=1, methods=["DELETE"], path=second)
    first_run = review.apply(progress=False)
    assert first_run["status"].tolist() == ["done", "failed"]
    failed = first_run.iloc[1]
    assert (failed["http_status"], failed["outcome"]) == (503, "ServerError")
    assert "503" in failed["error"]
    assert not review.complete
    deletes = [entry for entry in sandbox.request_log if entry[0] == "DELETE"]
    assert len(deletes) == 2  # the third call was not sent
    assert review.apply(dry_run=True)["action"].tolist() == [
        "skip (done)",
        "would send",
        "would send",
    ]

    second_run = review.apply(progress=False)
    assert second_run["path"].tolist() == plan["path"].iloc[1:].tolist()
    assert second_run["status"].tolist() == ["done", "done"]
    assert review.complete
    assert review.results["status"].tolist() == ["done", "failed", "done", "done"]
    after = docsapi.audit_permissions(
        review.client, sandbox.org_id, progress=False, model=sandbox.model
    )
    revoked = review.decisions[review.decisions["decision"] == "revoke"]
    assert not set(zip(revoked["space_id"], revoked["user_id"], strict=True)) & accesses(after)


def test_results_are_kept_with_the_snapshot_so_another_sitting_resumes(sandbox, tmp_path):
    review = start(sandbox, max_retries=0)
    sandbox.inject("503", count=1, methods=["DELETE"], path=review.plan()["path"].iloc[2])
    review.apply(progress=False)
    folder = review.save(tmp_path / "review")
    later = AccessReview.load(folder, reviewer="Rita Reviewer", client=sandbox.client())
    assert later.apply(dry_run=True)["action"].tolist() == ["skip (done)"] * 2 + ["would send"]
    assert later.apply(progress=False)["status"].tolist() == ["done"]
    assert later.complete


def test_apply_needs_a_client_and_a_real_plan(sandbox):
    review = start(sandbox)
    review.client = None
    with pytest.raises(ValidationError, match="client"):
        review.apply()
    plan = review.plan()
    plan.loc[0, "path"] = "/spaces/other/permissions/users/x"
    with pytest.raises(ValidationError, match="edited"):
        apply_plan(sandbox.client(), plan, progress=False)
    plan = review.plan()
    plan.at[0, "body"] = {"role": "admin"}
    with pytest.raises(ValidationError, match="edited"):
        apply_plan(sandbox.client(), plan, progress=False)
    with pytest.raises(ValidationError, match="columns"):
        apply_plan(sandbox.client(), plan.drop(columns=["operation"]), progress=False)


# -- the organization's admins ------------------------------------------------------------------
def _review_demoting(sandbox, *users: str) -> AccessReview:
    """A review revoking, for each of ``users`` (organization admins), one access they hold
    only as an admin (the plan makes them organization guests), after three direct revokes."""
    review = start(sandbox)
    decisions = review.decisions
    for user_id in users:
        mine = decisions[(decisions["user_id"] == user_id) & (decisions["sources"] == "org-admin")]
        review.decide(mine.head(1), "revoke", comment="no admin role any more")
    return review


def _org_role_calls(sandbox) -> list[str]:
    return [
        path for method, path, _ in sandbox.request_log if method == "PATCH" and "/members/" in path
    ]


def test_a_plan_demoting_the_token_user_needs_the_flag(sandbox):
    owner = sandbox.demo["owner_id"]
    review = _review_demoting(sandbox, owner)
    plan = review.plan()
    assert "updateMemberInOrganizationById" in set(plan["operation"])
    sent = len([e for e in sandbox.request_log if e[0] != "GET"])

    with pytest.raises(ValidationError, match="allow_self_demotion") as refused:
        review.apply(progress=False)
    assert "takes the admin role" in str(refused.value) and "Nothing was sent" in str(refused.value)
    assert len([e for e in sandbox.request_log if e[0] != "GET"]) == sent
    assert review.results.empty

    with pytest.warns(AdminRoleWarning, match="takes the admin role"):
        results = review.apply(progress=False, allow_self_demotion=True)
    assert results["status"].tolist() == ["done"] * len(plan)
    assert results["operation"].iloc[-1] == "updateMemberInOrganizationById"
    other = next(u for u in sandbox.demo["org_admin_ids"] if u != owner)
    sandbox.add_token("sbx_other_admin", user_id=other)
    other_admin = docsapi.DocsClient(base_url=sandbox.url, token="sbx_other_admin")
    assert other_admin.orgs.member(sandbox.org_id, owner).role is None


def test_the_own_demotion_is_sent_after_the_other_admin_changes(sandbox):
    owner = sandbox.demo["owner_id"]
    third = sandbox.demo["other_user_id"]
    sandbox.set_member(third, role="admin")
    review = _review_demoting(sandbox, owner, third)
    plan = review.plan()
    org_calls = plan[plan["operation"] == "updateMemberInOrganizationById"]
    assert sorted(org_calls["user_id"]) == sorted([owner, third])  # in the decisions' order
    with pytest.warns(AdminRoleWarning):
        review.apply(progress=False, allow_self_demotion=True)
    assert _org_role_calls(sandbox)[-1].endswith(f"/members/{owner}")
    assert len(_org_role_calls(sandbox)) == 2


def test_a_plan_leaving_no_admin_is_refused_even_with_the_flag(sandbox):
    review = _review_demoting(sandbox, *sandbox.demo["org_admin_ids"])
    sent = len([e for e in sandbox.request_log if e[0] != "GET"])
    for allowed in (False, True):
        with pytest.raises(ValidationError, match="without an enabled admin") as refused:
            review.apply(progress=False, allow_self_demotion=allowed)
        assert refused.value.argument == "plan"
    assert len([e for e in sandbox.request_log if e[0] != "GET"]) == sent
    assert set(
        sandbox.client().orgs.members(sandbox.org_id).query("role == 'admin'").user_id
    ) == set(sandbox.demo["org_admin_ids"])


def test_a_plan_demoting_another_admin_needs_no_flag(sandbox):
    owner = sandbox.demo["owner_id"]
    other = next(u for u in sandbox.demo["org_admin_ids"] if u != owner)
    review = _review_demoting(sandbox, other)
    results = review.apply(progress=False)
    assert set(results["status"]) == {"done"}
    assert sandbox.client().orgs.member(sandbox.org_id, other).role is None
