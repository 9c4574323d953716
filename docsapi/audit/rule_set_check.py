"""Which rule set does the organization follow? Both, checked against the platform's aggregate.

The platform's documentation has described two ways of combining the levels of access
(``docs/access-model.md``): ``precedence`` (the nearest level with a say decides) and,
earlier, ``highest`` (the highest role over every path). The audit resolves every path
once and combines it under each rule set; on every space whose aggregate was read and whose
access the audit fully knows, it counts how many users each rule set places differently
from the platform's own ``permissions/aggregate``.

:func:`rule_set_matches` gives one row per such space; :func:`verdict` one sentence ("the
platform's aggregate matches the precedence rule set on all 30 spaces checked (highest:
27); neither matches on …"), which the report says in a person's words
(:func:`docsapi.audit.report.words.state_sentence`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from docsapi.audit.data import STRING
from docsapi.audit.resolve import RULE_SETS, Effective, Resolution, rule_set_roles
from docsapi.audit.tables import PlatformPairs, mismatch_counts

__all__ = [
    "MATCHES",
    "RULE_SET_MATCH_COLUMNS",
    "empty_rule_set_matches",
    "match_counts",
    "rule_set_matches",
    "verdict",
]

#: Columns of the ``rule_set_matches`` table.
RULE_SET_MATCH_COLUMNS = [
    "space_id",
    "space_title",
    *(f"{rule_set}_mismatches" for rule_set in RULE_SETS),
    "matches",
]
#: What the aggregate of a space matches.
MATCHES: tuple[str, ...] = ("both", *RULE_SETS, "neither")


def empty_rule_set_matches() -> pd.DataFrame:
    """A ``rule_set_matches`` table of no space, with its dtypes (an audit that compared none,
    or a snapshot written before rule sets)."""
    return pd.DataFrame(
        {
            "space_id": pd.Series(dtype=STRING),
            "space_title": pd.Series(dtype=STRING),
            **{f"{r}_mismatches": pd.Series(dtype=np.int64) for r in RULE_SETS},
            "matches": pd.Categorical([], categories=list(MATCHES)),
        },
        columns=RULE_SET_MATCH_COLUMNS,
    )


def rule_set_matches(
    resolution: Resolution,
    effective: Effective,
    rule_set: str,
    platform: PlatformPairs,
    mismatches: np.ndarray,
) -> pd.DataFrame:
    """Per space compared, how many users each rule set places differently from the platform.

    Parameters
    ----------
    resolution : Resolution
        The coded organization.
    effective : Effective
        The audit's effective access over every path, under ``rule_set``; the other rule
        sets' roles are computed from its groups (:func:`~docsapi.audit.resolve.rule_set_roles`).
    rule_set : str
        The audit's rule set.
    platform : PlatformPairs
        The platform's aggregate on the spaces compared
        (:func:`~docsapi.audit.tables.platform_pairs`).
    mismatches : ndarray of int
        The pair keys where the audit's own access differs from the platform's (the first
        of :func:`~docsapi.audit.tables.mismatch_codes`).

    Returns
    -------
    DataFrame
        Columns :data:`RULE_SET_MATCH_COLUMNS`, one row per space compared, in space order;
        ``matches`` is ``both``, a rule set, or ``neither``.
    """
    spaces = np.flatnonzero(platform.checked)
    user_count = max(len(resolution.users), 1)
    differing = {}
    for name in RULE_SETS:
        if name == rule_set:
            counts = np.bincount(mismatches // user_count, minlength=len(platform.checked))
        else:
            roles = rule_set_roles(resolution.paths, resolution.spaces, name, effective)
            counts = mismatch_counts(resolution, roles, platform)
        differing[name] = counts[spaces]
    exact = {name: differing[name] == 0 for name in RULE_SETS}
    first, second = RULE_SETS
    matches = np.select(
        [exact[first] & exact[second], exact[first], exact[second]],
        ["both", first, second],
        "neither",
    )
    titles = resolution.spaces["title"].to_numpy(dtype=object)[spaces]
    return pd.DataFrame(
        {
            "space_id": pd.array(resolution.spaces["id"].to_numpy(dtype=object)[spaces], STRING),
            "space_title": pd.array(titles, dtype=STRING),
            **{f"{r}_mismatches": differing[r].astype(np.int64) for r in RULE_SETS},
            "matches": pd.Categorical(matches, categories=list(MATCHES)),
        },
        columns=RULE_SET_MATCH_COLUMNS,
        copy=False,
    )


def match_counts(matches: pd.DataFrame) -> dict[str, int]:
    """How many compared spaces each rule set matches (``both`` counts for each), and how
    many neither matches."""
    found = matches["matches"].astype(object)
    result = {r: int(found.isin([r, "both"]).sum()) for r in RULE_SETS}
    result["neither"] = int((found == "neither").sum())
    return result


def verdict(matches: pd.DataFrame, rule_set: str) -> str:
    """One sentence: which rule set the platform's aggregate matches, where neither does.

    Parameters
    ----------
    matches : DataFrame
        The ``rule_set_matches`` table.
    rule_set : str
        The rule set the audit used (named when the other one matches better).

    Returns
    -------
    str

    Examples
    --------
    >>> table = pd.DataFrame({"space_id": ["s1", "s2"], "space_title": ["A", "B"],
    ...     "matches": ["both", "precedence"]})
    >>> print(verdict(table, "precedence"))  # doctest: +NORMALIZE_WHITESPACE
    The platform's aggregate matches the precedence rule set on all 2 spaces compared
    (highest: 1).
    """
    total = len(matches)
    if not total:
        return (
            "The platform's aggregate was compared on no space, so which rule set the "
            "organization follows is not known."
        )
    found = match_counts(matches)
    best = max(RULE_SETS, key=lambda r: (found[r], r == rule_set))
    other = next(r for r in RULE_SETS if r != best)
    if found[other] == found[best] == total:
        return (
            f"The platform's aggregate matches both rule sets on all {total} spaces compared: "
            "none of them tells precedence from highest."
        )
    share = f"all {total}" if found[best] == total else f"{found[best]} of {total}"
    sentence = (
        f"The platform's aggregate matches the {best} rule set on {share} spaces compared "
        f"({other}: {found[other]})"
    )
    neither = matches[(matches["matches"] == "neither").to_numpy(dtype=bool)]
    if len(neither):
        names = neither["space_title"].fillna(neither["space_id"]).astype(str).tolist()
        shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
        sentence += f"; neither matches on {shown}"
    sentence += "."
    if best != rule_set and found[best] > found[rule_set]:
        sentence += f" This audit used {rule_set}: run it with model={best!r}."
    return sentence
