"""Check a review's predictions on the demo organization, as an auditor would.

For each rule set and each seed, a fresh sandbox (the demo organization of that seed) is
audited; one access per kind of path (picked at random among three kinds, creators left out:
their access is always refused) is decided revoke or lower; the plan is applied over HTTP,
and a fresh audit with the same rule set is compared with ``review.after()`` on every
(space, user) pair. It prints each trial and the totals: pairs predicted wrong, and decisions
not carried out (an access still there, or above the role it was lowered to)::

    python tools/review_prediction_trials.py --seeds 0 6
"""

from __future__ import annotations

import argparse
import random
import time

import pandas as pd

import docsapi
from docsapi import AccessReview
from docsapi.audit.data import ROLES
from docsapi.errors import ValidationError
from docsapi.sandbox import Sandbox


def roles(effective: pd.DataFrame) -> dict[tuple[str, str], str]:
    keys = zip(effective["space_id"].astype(str), effective["user_id"].astype(str), strict=True)
    return dict(zip(keys, effective["role"].astype(str), strict=True))


def decide_at_random(review: AccessReview, owner: str, rng: random.Random) -> int:
    """One access per kind of path, for three kinds picked at random; the number decided."""
    decisions = review.decisions[(review.decisions["user_id"] != owner).to_numpy(dtype=bool)]
    by_kind: dict[str, list[int]] = {}
    for label, sources in zip(decisions.index, decisions["sources"].astype(str), strict=True):
        for source in sources.split("; "):
            by_kind.setdefault(source.split(":", 1)[0], []).append(label)
    by_kind.pop("creator", None)
    chosen = {rng.choice(by_kind[kind]) for kind in rng.sample(sorted(by_kind), 3)}
    for label in chosen:
        role = str(decisions.loc[label, "role"])
        below = [r for r in ROLES[1 : ROLES.index(role)] if r != "admin"]
        if below and rng.random() < 0.5:
            review.decide([label], "lower", lower_to=rng.choice(below))
        else:
            review.decide([label], "revoke")
    return len(chosen)


def trial(model: str, seed: int, totals: dict[str, int]) -> None:
    rng = random.Random(seed)
    with Sandbox(seed=seed, model=model) as sandbox:
        client = sandbox.client()
        audit = docsapi.audit_permissions(client, sandbox.org_id, progress=False, model=model)
        team_change = rng.choice(["membership", "grant"])
        review = AccessReview(audit, reviewer="Trials", client=client, team_change=team_change)
        totals["decisions"] += decide_at_random(review, sandbox.demo["owner_id"], rng)
        totals["trials"] += 1
        started = time.perf_counter()
        try:
            predicted = roles(review.after())
        except ValidationError as refused:
            totals["refused"] += 1
            print(model, seed, "refused:", refused)
            return
        took = time.perf_counter() - started
        results = review.apply(progress=False)
        assert set(results["status"]) == {"done"}, results
        fresh = roles(
            docsapi.audit_permissions(client, sandbox.org_id, progress=False, model=model).effective
        )
    pairs = set(fresh) | set(predicted)
    wrong = [pair for pair in pairs if fresh.get(pair) != predicted.get(pair)]
    totals["pairs"] += len(pairs)
    totals["wrong"] += len(wrong)
    for decision in review.decisions.dropna(subset=["decision"]).itertuples():
        role = fresh.get((decision.space_id, decision.user_id))
        if role is not None and (
            decision.decision == "revoke" or ROLES.index(role) > ROLES.index(decision.lower_to)
        ):
            totals["not carried out"] += 1
    calls = len(review.plan())
    print(
        f"{model} seed {seed}: {calls} calls, {len(pairs)} pairs, {len(wrong)} wrong, "
        f"planned in {took:.1f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", nargs=2, type=int, default=(0, 6), metavar=("FIRST", "END"))
    arguments = parser.parse_args()
    totals = dict.fromkeys(("trials", "decisions", "refused", "pairs", "wrong"), 0)
    totals["not carried out"] = 0
    for model in ("precedence", "highest"):
        for seed in range(*arguments.seeds):
            trial(model, seed, totals)
    print(totals)


if __name__ == "__main__":
    main()
