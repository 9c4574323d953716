"""The review panel, headless: set filter values, pick rows, click, read the status and tables."""

from __future__ import annotations

import pytest
from review_org import RULE_SETS, org

import docsapi
from docsapi import AccessReview
from docsapi.review.panel import ANY, ReviewPanel


@pytest.fixture(params=RULE_SETS)
def sandbox(request, sandbox_server, highest_sandbox_server):
    """The review predicts by the audit's own rule set: its tests run under each, on a
    sandbox that follows it."""
    server = highest_sandbox_server if request.param == "highest" else sandbox_server
    server.reset()
    return server


@pytest.fixture(params=RULE_SETS)
def panel(request) -> ReviewPanel:
    return AccessReview(org(request.param), reviewer="Rita Reviewer").panel()


def labels(panel: ReviewPanel) -> list[str]:
    return [label for label, _ in panel.rows_select.options]


def test_built_without_a_client_or_a_request_lists_every_access(panel):
    assert panel.client is None
    assert len(panel.rows_select.options) == len(panel.review.decisions)
    assert "13 accesses match; 0 picked" in panel.counts_html.value
    assert panel.status.startswith("13 accesses to review")


def test_filters_narrow_the_list_and_select_all_picks_what_is_shown(panel):
    panel.path_dropdown.value = "team"
    panel.space_dropdown.value = "S1"
    assert labels(panel) == ["S1 · A · edit · direct; team:t1", "S1 · B · edit · team:t1"]
    assert panel.select_all() == 2
    assert "2 accesses match; 2 picked" in panel.counts_html.value
    panel.space_dropdown.value = ANY
    assert len(labels(panel)) == 4  # a and b on s1 and s5
    assert len(panel.rows_select.value) == 2  # still picked


def test_decide_buttons_record_on_the_picked_rows_with_the_comment(panel):
    panel.user_dropdown.value = "A"
    panel.space_dropdown.value = "S1"
    panel.select_all_button.click()
    panel.comment_text.value = "left the team"
    panel.revoke_button.click()
    assert panel.status == "Recorded revoke on 1 access."
    row = panel.review.select(user="a", space="s1").iloc[0]
    assert (row["decision"], row["comment"], row["reviewer"]) == (
        "revoke",
        "left the team",
        "Rita Reviewer",
    )
    assert labels(panel)[0].endswith("[revoke]")
    panel.space_dropdown.value = "S5"
    panel.select_all_button.click()
    panel.lower_dropdown.value = "read"
    panel.lower_button.click()
    assert panel.review.select(user="a", space="s5").iloc[0]["lower_to"] == "read"
    assert "Decided: 0 keep, 1 revoke, 1 lower" in panel.counts_html.value


def test_refusals_are_status_lines(panel):
    panel.revoke_button.click()
    assert panel.status.startswith("Pick one or more accesses first")
    panel.space_dropdown.value = "S4"
    panel.select_all_button.click()
    panel.lower_dropdown.value = "read"  # s4 is read for everyone: not lower
    panel.lower_button.click()
    assert panel.status.startswith("Not recorded:") and "lower_to" in panel.status
    assert panel.review.decisions["decision"].isna().all()
    panel.apply_button.click()
    assert panel.status.startswith("Apply needs a client")


def test_plan_and_dry_run_show_tables(panel):
    panel.plan_button.click()
    assert panel.status.startswith("Nothing to change")
    panel.space_dropdown.value = "S1"
    panel.user_dropdown.value = "A"
    panel.select_all_button.click()
    panel.revoke_button.click()
    panel.plan_button.click()
    assert panel.status == (
        "Plan: 2 call(s); they also revoke 1 other access(es) (see also_revokes)."
    )
    table = panel.status_output.outputs[-1]["data"]["text/html"]
    assert "/orgs/org/teams/t1/members/a" in table
    panel.dry_run_button.click()
    assert panel.status == "Dry run: 2 call(s) would be sent; nothing was sent."


def test_apply_on_the_sandbox_shows_results_and_resumes_after_a_503(sandbox):
    client = sandbox.client(max_retries=0)
    audit = docsapi.audit_permissions(client, sandbox.org_id, progress=False, model=sandbox.model)
    panel = AccessReview(audit, reviewer="Rita Reviewer", client=client).panel()
    only_direct = panel.review.decisions[panel.review.decisions["sources"] == "direct"]
    panel.rows_select.value = tuple(only_direct.drop_duplicates("space_id").index[:2])
    panel.revoke_button.click()
    plan = panel.review.plan()  # under precedence a farther level may need a call too
    second = plan["path"].iloc[1]
    sandbox.inject("503", count=1, methods=["DELETE"], path=second)
    panel.apply_button.click()
    assert panel.status.startswith("Stopped at step 2: 503")
    assert panel.status.endswith("Press Apply again to resume.")
    panel.apply_button.click()
    assert panel.status == f"Applied: {len(plan) - 1} call(s) done."
    assert panel.review.complete
    assert not any(button.disabled for button in panel._buttons())
