"""Review evidence: an Excel workbook (read back with openpyxl) and a self-contained HTML page."""

from __future__ import annotations

import re

import openpyxl
import pytest
from review_org import RULE_SETS

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


@pytest.fixture
def applied(sandbox, canary_token):
    """A demo review with decisions of every kind, applied, signed off."""
    sandbox.add_token(canary_token, user_id=sandbox.demo["owner_id"])
    client = sandbox.client(token=canary_token)
    audit = docsapi.audit_permissions(client, sandbox.org_id, progress=False, model=sandbox.model)
    review = AccessReview(audit, reviewer="Rita <Reviewer>", client=client)
    only_direct = review.decisions[review.decisions["sources"] == "direct"]
    review.decide(only_direct.drop_duplicates("space_id").head(2), "revoke", comment="left")
    review.decide({"finding": "former_member"}, "revoke", comment=f"token {canary_token}")
    review.decide({"space": only_direct["space_id"].iloc[-1]}, "keep")
    review.apply(progress=False)
    review.sign_off("Grace Owner", role="Head of Security", note="Q4 done")
    return review


def test_excel_evidence_has_every_part(applied, tmp_path, canary_token):
    path = applied.to_excel(tmp_path / "evidence" / "review.xlsx")
    book = openpyxl.load_workbook(path)
    assert book.sheetnames == ["summary", "decisions", "plan", "results", "sign-off"]
    summary = {row[0]: row[1] for row in book["summary"].iter_rows(min_row=2, values_only=True)}
    decided = applied.decisions["decision"].notna().sum()
    assert int(summary["decided: revoke"]) + int(summary["decided: keep"]) == decided
    assert summary["calls done"] == str(len(applied.plan())) != "0"
    assert summary["reviewers"] == "Rita <Reviewer>"
    decisions = list(book["decisions"].iter_rows(values_only=True))
    header = decisions[0]
    assert {"reviewer", "decided_at", "decision", "comment"} <= set(header)
    assert len(decisions) - 1 == decided
    rows = [dict(zip(header, row, strict=True)) for row in decisions[1:]]
    assert all(r["reviewer"] == "Rita <Reviewer>" and r["decided_at"] for r in rows)
    results = list(book["results"].iter_rows(values_only=True))
    assert len(results) - 1 == len(applied.plan())
    assert {dict(zip(results[0], r, strict=True))["status"] for r in results[1:]} == {"done"}
    sign_off = [v for row in book["sign-off"].iter_rows(values_only=True) for v in row if v]
    assert "Grace Owner" in sign_off and "Signature:" in sign_off
    every_cell = " ".join(
        str(v) for sheet in book for row in sheet.iter_rows(values_only=True) for v in row if v
    )
    assert canary_token not in every_cell


def test_html_evidence_is_self_contained_escaped_and_complete(applied, tmp_path, canary_token):
    text = applied.to_html(tmp_path / "review.html").read_text()
    assert canary_token not in text
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", text)
    assert "default-src 'none'" in text
    assert "Rita &lt;Reviewer&gt;" in text and "Rita <Reviewer>" not in text
    for heading in ("Summary", "Decisions", "Plan: the API calls", "Calls applied", "Sign-off"):
        assert heading in text
    for path in applied.plan()["path"]:
        assert path in text
    assert "Grace Owner" in text and "Head of Security" in text


def test_evidence_before_anything_is_decided(sandbox, tmp_path):
    audit = docsapi.audit_permissions(
        sandbox.client(), sandbox.org_id, progress=False, model=sandbox.model
    )
    review = AccessReview(audit, reviewer="R")
    text = review.to_html(tmp_path / "empty.html").read_text()
    assert "No decision recorded yet." in text and "Not signed off yet." in text
    summary = dict(review.summary().values.tolist())
    assert summary["undecided"] == str(len(review.decisions))
    assert summary["calls planned"] == "0"
    book = openpyxl.load_workbook(review.to_excel(tmp_path / "empty.xlsx"))
    assert book["plan"].max_row == 1
    with pytest.raises(ValidationError, match="name"):
        review.sign_off("")


def test_sign_offs_are_kept_with_the_snapshot(sandbox, tmp_path):
    audit = docsapi.audit_permissions(
        sandbox.client(), sandbox.org_id, progress=False, model=sandbox.model
    )
    review = AccessReview(audit, reviewer="R")
    review.sign_off("Grace Owner")
    folder = review.save(tmp_path / "snap")
    again = AccessReview.load(folder, reviewer="R")
    assert again.sign_offs["name"].tolist() == ["Grace Owner"]
