"""A review's predictions are what the platform then does, under each rule set.

Random organizations (``test_access_rule_sets.organizations``: collections nested, sites
linking inheriting and non-inheriting spaces, teams, default levels at every level, guests,
creators) are built in a sandbox that follows the rule set; random revoke and lower
decisions are planned, the plan is applied to the sandbox over HTTP, and a fresh audit with
the same rule set must find, for every (space, user) pair of the organization, the role the
review predicted (``review.after()``). A decision the review refuses must say why, and
nothing is sent then.
"""

from __future__ import annotations

import os

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_access_rule_sets import build, organizations

import docsapi
from docsapi import AccessReview
from docsapi.audit.data import ROLES
from docsapi.errors import ValidationError

#: A property run that applies plans to the sandbox: `pytest --full` (and CI).
pytestmark = pytest.mark.full

#: How many organizations each run tries (more with DOCSAPI_REVIEW_EXAMPLES).
EXAMPLES = int(os.environ.get("DOCSAPI_REVIEW_EXAMPLES", "10"))
#: What the property test tried, over the session (printed with ``-s``).
TRIED = {"organizations": 0, "decisions": 0, "refused": 0, "plans applied": 0, "pairs": 0}
REFUSALS: list[str] = []


def roles(effective: pd.DataFrame) -> dict[tuple[str, str], str]:
    """(space id, user id) -> role of an effective table."""
    return dict(
        zip(
            zip(effective["space_id"].astype(str), effective["user_id"].astype(str), strict=True),
            effective["role"].astype(str),
            strict=True,
        )
    )


def pick_decisions(data, review: AccessReview, owner: str) -> int:
    """Draw 1-3 revoke or lower decisions on accesses of anyone but the sandbox's owner (who
    applies the plan); the number decided."""
    rows = review.decisions[(review.decisions["user_id"] != owner).to_numpy(dtype=bool)]
    if rows.empty:
        return 0
    labels = data.draw(
        st.lists(st.sampled_from(list(rows.index)), min_size=1, max_size=3, unique=True)
    )
    for label in labels:
        role = str(rows.loc[label, "role"])
        below = [r for r in ROLES[1 : ROLES.index(role)] if r != "admin"]
        if below and data.draw(st.booleans()):
            review.decide([label], "lower", lower_to=data.draw(st.sampled_from(below)))
        else:
            review.decide([label], "revoke")
    return len(labels)


def check_prediction(sandbox, recipe, data, model: str) -> None:
    sandbox.reset()
    org, _ = build(sandbox, recipe)
    client = sandbox.client()
    audit = docsapi.audit_permissions(client, org.org_id, progress=False, model=model)
    review = AccessReview(audit, reviewer="Property", client=client)
    decided = pick_decisions(data, review, org.owner)
    TRIED["organizations"] += 1
    TRIED["decisions"] += decided
    if not decided:
        return
    try:
        predicted = roles(review.after())
    except ValidationError as refused:
        TRIED["refused"] += 1
        REFUSALS.append(str(refused))
        assert "cannot be carried out" in str(refused)
        assert "creator" in str(refused) or "decide keep" in str(refused)
        again = docsapi.audit_permissions(client, org.org_id, progress=False, model=model)
        assert roles(again.effective) == roles(audit.effective)  # nothing was sent
        return
    done = review.apply(progress=False)
    assert set(done["status"]) <= {"done"}, done
    TRIED["plans applied"] += 1
    fresh = docsapi.audit_permissions(client, org.org_id, progress=False, model=model)
    found = roles(fresh.effective)
    TRIED["pairs"] += len(set(found) | set(predicted))
    wrong = {
        pair: (predicted.get(pair), found.get(pair))
        for pair in set(found) | set(predicted)
        if predicted.get(pair) != found.get(pair)
    }
    assert not wrong, (model, wrong, review.plan()[["operation", "path", "body"]])
    announced = "; ".join(review.plan()["also_revokes"].dropna())
    for decision in review.decisions.dropna(subset=["decision"]).itertuples():
        role = found.get((decision.space_id, decision.user_id))
        if decision.decision == "revoke":
            assert role is None, decision
        elif role is None:  # more than asked: only where the plan says so
            access = f"{decision.display_name} on {decision.space_title}"
            assert f"{access} ({decision.role}, DECIDED LOWER)" in announced
        else:
            assert ROLES.index(role) <= ROLES.index(decision.lower_to), decision


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(recipe=organizations(), data=st.data())
def test_predictions_equal_what_a_fresh_audit_finds_under_both_rule_sets(
    sandbox_server, highest_sandbox_server, recipe, data
):
    for sandbox, model in ((sandbox_server, "precedence"), (highest_sandbox_server, "highest")):
        check_prediction(sandbox, recipe, data, model)


def test_zz_report_what_was_tried():
    """Prints the counts of the property test (run it with ``-s`` to see them)."""
    print("review predictions tried:", TRIED)
    for refusal in REFUSALS:
        print("refused:", refusal)
