"""Under ``precedence``, a removal can hand the decision to a farther level: the plan says so.

Member A is in team T, which holds edit on a private space S1 and on S2, a space in
inherited mode that a site with the default level comment links. Revoking A's access to S1
takes A out of T (``team_change="membership"``): on S2 T's edit no longer speaks for A, and
the site's default level decides (comment). The plan's ``hands_to``, the panel's plan message
(the text that says who to tell) and the HTML evidence name that site's default level, and
the sandbox then gives A exactly that.
"""

from __future__ import annotations

import pytest
from sandbox_orgs import SmallOrg

import docsapi
from docsapi import AccessReview


@pytest.fixture
def handed(sandbox):
    org = SmallOrg(sandbox)
    a = org.member(org.users[0], "read")
    org.member(org.users[1], "read")
    team = org.team(a)
    s1 = org.space(None, None)
    s2 = org.space(None, "inherit")
    site = org.site(s2, level="comment")
    org.grant(s1, team, "edit").grant(s2, team, "edit")
    client = sandbox.client()
    audit = docsapi.audit_permissions(client, org.org_id, progress=False, model="precedence")
    review = AccessReview(audit, reviewer="Handover", client=client)
    review.decide({"space": s1, "user": a}, "revoke")
    titles = audit.data.sites.set_index("id")["title"]
    return review, org, a, s2, f"default level of site {titles[site]}"


def test_the_plan_names_the_farther_level_that_takes_over(handed):
    review, _, a, s2, level = handed
    plan = review.plan()
    assert plan["operation"].tolist() == ["deleteMemberFromOrganizationTeamById"]
    name = review.decisions.set_index("user_id")["display_name"].astype(str)[a].iloc[0]
    space = str(review.audit.data.spaces.set_index("id")["title"][s2])
    assert plan["hands_to"].iloc[0] == f"the {level} now decides on {space} for {name} (comment)"
    assert plan["also_lowers"].iloc[0] == f"{name} on {space} (edit to comment)"
    radius = review.blast_radius()
    moved = radius[(radius["space_id"] == s2).to_numpy(dtype=bool)]
    assert moved[["role_before", "role_after", "decided_by_after"]].values.tolist() == [
        ["edit", "comment", level]
    ]


def test_the_panel_message_and_the_html_name_it(handed, tmp_path):
    review, *_, level = handed
    panel = review.panel()
    panel.plan_button.click()
    assert "Where a removal hands the decision to a farther level: the " + level in panel.status
    page = review.to_html(tmp_path / "review.html").read_text()
    assert f"the {level} now decides on" in page


def test_the_sandbox_then_gives_what_the_farther_level_says(handed, sandbox):
    review, org, a, s2, level = handed
    predicted = review.after()
    assert set(review.apply(progress=False)["status"]) == {"done"}
    fresh = docsapi.audit_permissions(
        review.client, org.org_id, progress=False, model="precedence"
    ).effective
    row = fresh[(fresh["space_id"] == s2).to_numpy(dtype=bool) & (fresh["user_id"] == a).to_numpy()]
    assert row["role"].astype(str).tolist() == ["comment"]
    assert row["source_names"].astype(str).tolist() == [level]
    keys = ["space_id", "user_id", "role", "sources"]
    assert fresh[keys].astype(str).values.tolist() == predicted[keys].astype(str).values.tolist()
