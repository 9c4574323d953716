"""``docsapi review apply PLAN``: dry run, sending, resuming after a failure, exit codes."""

from __future__ import annotations

import json

import pytest

import docsapi
from docsapi import AccessReview
from docsapi.cli import main


@pytest.fixture
def sandbox(highest_sandbox):
    """The review predicts what its calls do by the ``highest`` rule set (the highest role
    over every path): its tests run on a sandbox that follows it."""
    return highest_sandbox


def run(capsys, *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    printed = capsys.readouterr()
    return status, printed.out, printed.err


@pytest.fixture
def plan_review(sandbox):
    """A review of the demo revoking three accesses held only through a direct grant, signed
    off."""
    audit = docsapi.audit_permissions(
        sandbox.client(), sandbox.org_id, progress=False, model="highest"
    )
    review = AccessReview(audit, reviewer="Rita Reviewer")
    only_direct = review.decisions[review.decisions["sources"] == "direct"]
    review.decide(only_direct.drop_duplicates("space_id").head(3), "revoke")
    review.sign_off("Grace Owner")
    return review


@pytest.fixture
def token(sandbox, monkeypatch, canary_token):
    sandbox.add_token(canary_token, user_id=sandbox.demo["owner_id"])
    monkeypatch.setenv("GITBOOK_API_TOKEN", canary_token)
    return canary_token


@pytest.mark.parametrize("suffix", [".json", ".csv"])
def test_dry_run_shows_the_calls_and_sends_nothing(sandbox, plan_review, capsys, tmp_path, suffix):
    plan_file = plan_review.save_plan(tmp_path / f"plan{suffix}")
    sent = sandbox.request_count
    status, out, err = run(capsys, "review", "apply", str(plan_file), "--dry-run")
    assert status == 0, err
    assert sandbox.request_count == sent
    for path in plan_review.plan()["path"]:
        assert f"would send   DELETE {path}" in out
    assert "Dry run: 3 of 3 calls would be sent; nothing was sent." in out


def test_apply_sends_keeps_results_and_a_second_run_sends_nothing(
    sandbox, plan_review, capsys, tmp_path, token
):
    plan_file = plan_review.save_plan(tmp_path / "plan.json")
    args = ["review", "apply", str(plan_file), "--base-url", sandbox.url, "--no-progress"]
    status, out, err = run(capsys, *args)
    assert status == 0, err
    assert out.count("done    DELETE") == 3
    assert "3 of 3 calls done." in out
    results = json.loads((tmp_path / "plan.results.json").read_text())
    assert [r["outcome"] for r in results] == ["removed"] * 3
    assert token not in out + err + (tmp_path / "plan.results.json").read_text()
    after = docsapi.audit_permissions(
        sandbox.client(), sandbox.org_id, progress=False, model="highest"
    )
    revoked = plan_review.decisions[plan_review.decisions["decision"] == "revoke"]
    keys = set(zip(after.effective["space_id"], after.effective["user_id"], strict=True))
    assert not set(zip(revoked["space_id"], revoked["user_id"], strict=True)) & keys

    sent = sandbox.request_count
    status, out, err = run(capsys, *args)
    assert (status, sandbox.request_count) == (4, sent)
    assert "was applied completely" in err and "Nothing was sent" in err
    writes = [entry for entry in sandbox.request_log if entry[0] != "GET"]
    status, out, _ = run(capsys, *args, "--again")  # the targets are as planned: nothing sent
    assert status == 0, out
    assert out.count("done    DELETE") == 3 and out.count("already as planned") == 3
    assert [entry for entry in sandbox.request_log if entry[0] != "GET"] == writes


def test_a_failed_call_exits_1_and_the_same_command_resumes(
    sandbox, plan_review, capsys, tmp_path, token
):
    plan_file = plan_review.save_plan(tmp_path / "plan.csv")
    results = tmp_path / "kept" / "results.csv"
    second = plan_review.plan()["path"].iloc[1]
    sandbox.inject("503", count=4, methods=["DELETE"], path=second)  # outlasts the retries
    args = ["review", "apply", str(plan_file), "--base-url", sandbox.url, "--no-progress"]
    args += ["--results", str(results)]
    status, out, err = run(capsys, *args)
    assert status == 1, err
    assert "FAILED: 503" in out and "run the same command again to resume" in out
    assert "1 of 3 calls done." in out
    status, out, _ = run(
        capsys, "review", "apply", str(plan_file), "--dry-run", "--results", str(results)
    )
    assert status == 0
    assert out.count("skip (done)") == 1 and out.count("would send") == 2
    status, out, err = run(capsys, *args)
    assert status == 0, err
    assert out.count("done    DELETE") == 2
    assert "3 of 3 calls done." in out


def test_usage_problems_exit_2(sandbox, plan_review, capsys, tmp_path, monkeypatch):
    monkeypatch.delenv("GITBOOK_API_TOKEN", raising=False)
    plan_file = plan_review.save_plan(tmp_path / "plan.json")
    status, _, err = run(capsys, "review", "apply", str(plan_file), "--base-url", sandbox.url)
    assert status == 2 and "docsapi login" in err
    status, _, err = run(capsys, "review", "apply", str(tmp_path / "none.json"), "--dry-run")
    assert status == 2 and "does not exist" in err
    (tmp_path / "plan.txt").write_text("x")
    status, _, err = run(capsys, "review", "apply", str(tmp_path / "plan.txt"), "--dry-run")
    assert status == 2 and ".csv or .json" in err
    (tmp_path / "broken.json").write_text(json.dumps([{"call_id": "x"}]))
    status, _, err = run(capsys, "review", "apply", str(tmp_path / "broken.json"), "--dry-run")
    assert status == 2 and "lacks columns" in err


def test_a_plan_demoting_the_token_user_exits_2_unless_allowed(
    sandbox, plan_review, capsys, tmp_path, token
):
    owner = sandbox.demo["owner_id"]
    decisions = plan_review.decisions
    own = decisions[(decisions["user_id"] == owner) & (decisions["sources"] == "org-admin")]
    plan_review.decide(own.head(1), "revoke")
    plan_review.sign_off("Grace Owner")  # the plan changed: approve it again
    plan_file = plan_review.save_plan(tmp_path / "plan.json")
    args = ["review", "apply", str(plan_file), "--base-url", sandbox.url, "--no-progress"]
    writes = len([e for e in sandbox.request_log if e[0] != "GET"])
    status, out, err = run(capsys, *args)
    assert status == 2
    assert "takes the admin role" in err and "--allow-self-demotion" in err
    assert len([e for e in sandbox.request_log if e[0] != "GET"]) == writes
    status, out, err = run(capsys, *args, "--allow-self-demotion")
    assert status == 0, err
    assert 0 <= out.index("warning: this takes the admin role") < out.index("done    ")
    assert out.count("done    ") == 4 and out.index("PATCH") > out.rindex("DELETE")
    assert token not in out + err


@pytest.mark.parametrize("suffix", [".json", ".csv"])
def test_plan_files_round_trip_exactly(tmp_path, suffix):
    from pandas.testing import assert_frame_equal
    from review_org import org

    from docsapi.review import dry_run_calls, read_plan

    review = AccessReview(org(), reviewer="R")
    review.decide({"space": "s1", "user": "a"}, "lower", lower_to="read")
    review.decide({"space": "s4", "user": "b"}, "revoke")
    review.decide({"space": "s2", "user": "a"}, "revoke")
    plan = review.plan()
    assert {"PATCH", "DELETE"} <= set(plan["method"])
    assert {"defaultLevel": None} in plan["body"].tolist()
    again = read_plan(review.save_plan(tmp_path / f"plan{suffix}"))
    assert_frame_equal(again, plan, check_exact=True)
    assert set(dry_run_calls(again)["action"]) == {"would send"}
