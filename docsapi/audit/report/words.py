"""The audit said in words: the organization's state, the rules' names, how roles combine.

The report's first sentence says which rule set the organization follows as a person would
("The organization follows the platform's current rules: the nearest level decides; all 30
spaces checked agree."), from the comparison of both rule sets with the platform's own
aggregate (``audit.rule_set_matches``); the explanation of how roles combine follows the
rule set the audit used (:data:`~docsapi.core.rule_sets.COMBINING`), so the page never says
"highest" when the audit used ``precedence``. Rules are named in words, their codes kept
for hover and filters (:func:`rule_words`).
"""

from __future__ import annotations

import pandas as pd

from docsapi.audit.rule_set_check import match_counts
from docsapi.audit.rules import RULES
from docsapi.audit.view import AuditView
from docsapi.core.rule_sets import COMBINING, RULE_SET_WORDS, RULE_SETS

__all__ = [
    "RULE_WORDS",
    "combining",
    "rule_hover",
    "rule_words",
    "severity_sentence",
    "state_sentence",
]

#: Each rule's name as the report shows it (its code, e.g. ``guest_write``, on hover).
RULE_WORDS: dict[str, str] = {
    "guest_write": "Guest who can write",
    "former_member": "Former member with access",
    "public_exposure": "Readable without an account",
    "risky_invite_link": "Invite link to a high role",
    "aggregate_mismatch": "Platform and audit disagree",
    "guest_collection_write": "Guest writing through a collection",
    "inactive_writer": "Inactive member who can write",
    "stale_share_link": "Old share link",
    "admin_sprawl": "Admin of most spaces",
    "no_admin": "Space without an admin",
    "too_many_admins": "Too many admins",
    "redundant_grant": "Grant that changes nothing",
    "empty_team": "Team without members",
}


def rule_words(code: str) -> str:
    """A rule's name in words; an unknown code in words made from it.

    Examples
    --------
    >>> rule_words("guest_write")
    'Guest who can write'
    >>> rule_words("some_new_rule")
    'Some new rule'
    """
    return RULE_WORDS.get(code) or code.replace("_", " ").capitalize()


def rule_hover(code: str) -> str:
    """What hovering a rule's name shows: its code and what it looks for.

    Examples
    --------
    >>> rule_hover("empty_team")
    'empty_team: a team without members holds a permission'
    """
    rule = RULES.get(code)
    return f"{code}: {rule.description}" if rule else code


def combining(rule_set: str) -> str:
    """How a user's effective role follows from their paths under ``rule_set``, in words.

    Examples
    --------
    >>> combining("highest").startswith("Under the rule set highest (the platform's earlier")
    True
    """
    return COMBINING[rule_set]


def _listed(names: list[str], limit: int = 3) -> str:
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def state_sentence(audit: AuditView) -> str:
    """One plain sentence on the organization's state: the rules its platform follows, how
    many spaces agree, and what this audit applied when that differs.

    Parameters
    ----------
    audit : AuditView
        The audit; its ``rule_set_matches`` and ``model`` are read.

    Returns
    -------
    str

    Examples
    --------
    >>> print(state_sentence(audit))  # doctest: +NORMALIZE_WHITESPACE
    The organization follows the platform's current rules: the nearest level decides; all
    30 spaces checked agree.
    """
    matches, used = audit.rule_set_matches, audit.model
    total = len(matches)
    if not total:
        return (
            "Which rules the organization follows is not known: the platform's own view of "
            f"access could be compared on no space. This audit applied {RULE_SET_WORDS[used]}."
        )
    found = match_counts(matches)
    if all(found[r] == total for r in RULE_SETS):
        return (
            f"The organization's access reads the same under the platform's current and "
            f"earlier rules on all {total} spaces checked; this audit applied "
            f"{RULE_SET_WORDS[used]}."
        )
    best = max(RULE_SETS, key=lambda r: (found[r], r == used))
    if found[best] == total:
        sentence = (
            f"The organization follows {RULE_SET_WORDS[best]}; all {total} spaces checked agree."
        )
    else:
        neither = matches[(matches["matches"] == "neither").to_numpy(dtype=bool)]
        names = neither["space_title"].fillna(neither["space_id"]).astype(str).tolist()
        sentence = (
            f"The organization mostly follows {RULE_SET_WORDS[best]}: {found[best]} of {total} "
            "spaces checked agree"
            + (f"; on {_listed(names)} neither rule set matches the platform" if names else "")
            + "."
        )
    if best != used and found[best] > found[used]:
        sentence += (
            f" This audit applied {RULE_SET_WORDS[used]}: run it again with "
            f"model={best!r} (--model {best})."
        )
    return sentence


def severity_sentence(findings: pd.DataFrame) -> str:
    """How many findings there are, and how many to fix first.

    Examples
    --------
    >>> severity_sentence(audit.findings[:0])
    'No rule found anything to fix.'
    """
    if findings.empty:
        return "No rule found anything to fix."
    high = int((findings["severity"].astype(object) == "high").sum())
    total = len(findings)
    noun = "finding" if total == 1 else "findings"
    if not high:
        return f"{total} {noun}, none of high severity."
    return f"{total} {noun}, {high} of high severity: fix {'it' if high == 1 else 'those'} first."
