"""Review decisions: the table, filters, checks before recording, saving with the snapshot."""

from __future__ import annotations

import pandas as pd
import pytest
from pandas.testing import assert_frame_equal
from review_org import RULE_SETS, org

import docsapi
from docsapi import AccessReview
from docsapi.errors import SnapshotError, ValidationError


@pytest.fixture(params=RULE_SETS)
def review(request) -> AccessReview:
    return AccessReview(org(request.param), reviewer="Rita Reviewer")


def test_one_row_per_access_undecided_with_its_paths(review):
    d = review.decisions
    effective = review.audit.effective
    assert len(d) == len(effective)
    assert d["decision"].isna().all()
    row = d[(d["space_id"] == "s1") & (d["user_id"] == "a")].iloc[0]
    assert row["sources"] == "direct; team:t1"
    assert row["role"] == "edit"
    assert len(review.undecided) == len(d)


def test_findings_are_named_on_the_accesses_they_concern():
    o = Org_with_guest_writer()
    r = AccessReview(o, reviewer="R")
    row = r.select(user="g", space="s1").iloc[0]
    assert "guest_write" in row["findings"].split("; ")
    assert r.select(finding="guest_write")["user_id"].unique().tolist() == ["g"]


def Org_with_guest_writer() -> docsapi.PermissionAudit:
    from audit_org import Org

    o = Org().member("boss", "admin").member("g", None).member("a", "read")
    o.space("s1").grant("s1", "g", "edit").grant("s1", "a", "admin")
    return o.audit(model="highest")


def test_filters_combine(review):
    assert set(review.select(path="team")["user_id"]) == {"a", "b"}
    assert set(review.select(path="collection-team:c1/t2")["space_id"]) == {"s2", "s3"}
    assert set(review.select(space="S1", role="edit")["user_id"]) == {"a", "b"}
    assert set(review.select(user="a@example.com", path="collection")["space_id"]) == {"s2", "s3"}
    assert set(review.select(path="default")["space_id"]) == {"s4"}
    assert review.select(space=["s1", "s5"], user="B").shape[0] == 2


def test_decide_records_reviewer_time_and_comment(review):
    before = pd.Timestamp.now(tz="UTC")
    assert review.decide(review.select(path="team"), "revoke", comment="teams end") == 4
    assert review.decide({"space": "s4"}, "keep") == 3
    chosen = review.decisions[review.decisions["decision"] == "revoke"]
    assert set(chosen["reviewer"]) == {"Rita Reviewer"}
    assert set(chosen["comment"]) == {"teams end"}
    assert (chosen["decided_at"] >= before).all()
    # A later decision replaces the earlier one.
    review.decide({"space": "s5", "user": "a"}, "lower", lower_to="read")
    row = review.select(space="s5", user="a").iloc[0]
    assert (row["decision"], row["lower_to"], row["comment"]) == ("lower", "read", pd.NA)


@pytest.mark.parametrize(
    ("rows", "decision", "options", "argument"),
    [
        ({"space": "s1"}, "delete", {}, "decision"),
        ({"space": "s1"}, "lower", {"lower_to": "owner"}, "lower_to"),
        ({"space": "s1"}, "lower", {"lower_to": "guest"}, "lower_to"),
        ({"space": "s1"}, "lower", {}, "lower_to"),
        ({"space": "s1"}, "lower", {"lower_to": "edit"}, "lower_to"),  # a is edit: not lower
        ({"space": "s1"}, "revoke", {"lower_to": "read"}, "lower_to"),
        ({"space": "nowhere"}, "revoke", {}, "rows"),
        ({"colour": "red"}, "revoke", {}, "colour"),
        ({"role": "owner"}, "revoke", {}, "role"),
        ("s1", "revoke", {}, "rows"),
        ([999], "revoke", {}, "rows"),
        ({"space": "s1"}, "revoke", {"comment": 5}, "comment"),
    ],
)
def test_bad_decisions_are_refused_and_nothing_is_recorded(
    review, rows, decision, options, argument
):
    with pytest.raises(ValidationError, match=argument):
        review.decide(rows, decision, **options)
    assert review.decisions["decision"].isna().all()


def test_a_reviewer_is_required():
    with pytest.raises(ValidationError, match="reviewer"):
        AccessReview(org("precedence"), reviewer=" ")
    with pytest.raises(ValidationError, match="audit"):
        AccessReview("audit", reviewer="R")


def test_decisions_round_trip_with_the_snapshot(review, tmp_path):
    review.decide({"path": "direct"}, "revoke", comment="direct grants end")
    review.decide({"space": "s4"}, "keep", comment="handbook")
    folder = review.save(tmp_path / "2026-Q4")
    assert folder == tmp_path / "2026-Q4"
    again = AccessReview.load(folder, reviewer="Second Sitting")
    assert_frame_equal(again.decisions, review.decisions, check_exact=True)
    assert_frame_equal(again.results, review.results, check_exact=True)
    assert again.plan()["call_id"].tolist() == review.plan()["call_id"].tolist()
    # The second sitting adds its decisions under its own name, saved into the same snapshot.
    again.decide({"space": "s5"}, "revoke")
    assert again.save() == folder
    third = AccessReview.load(folder, reviewer="Third")
    assert set(third.decisions["reviewer"].dropna()) == {"Rita Reviewer", "Second Sitting"}
    assert docsapi.load_audit(folder).org_id == "org"


def test_saving_needs_a_folder_and_loading_a_snapshot(review, tmp_path):
    with pytest.raises(ValidationError, match="path"):
        review.save()
    with pytest.raises(SnapshotError):
        AccessReview.load(tmp_path / "missing", reviewer="R")


def test_a_partial_audit_is_reviewed_with_a_warning():
    from audit_org import Org

    partial = Org().member("boss", "admin").space("s1").fail("space", "s1", "permissions").audit()
    assert not partial.complete
    with pytest.warns(UserWarning, match="partial"):
        AccessReview(partial, reviewer="R")


def test_names_and_comments_are_checked_text(review):
    with pytest.raises(ValidationError, match="reviewer"):
        AccessReview(review.audit, reviewer="Ada\x00Cerf")
    with pytest.raises(ValidationError, match="name"):
        review.sign_off("x" * 70_000)
    with pytest.raises(ValidationError, match="comment"):
        review.decide(review.select(path="team"), "revoke", comment="bell\x07")
    review.decide(review.select(path="team"), "revoke", comment="two\nlines")
    assert set(review.select(path="team")["comment"]) == {"two\nlines"}
