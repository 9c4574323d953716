"""The names of the access model's rule sets, shared by the audit, the sandbox and the CLI.

How the levels of access (a space's own permissions and default level, the sites linking
it, its collections, the organization) combine into a role, as the platform's documentation
has described it (``docs/access-model.md``):

- ``precedence`` (since 2026-05-31, the default): the nearest level with a say decides;
- ``highest`` (2026-04-13 to 2026-05-31): the highest role over every path.

Each implementation (the audit's resolver, the sandbox's model) validates the name itself.
"""

from __future__ import annotations

__all__ = ["COMBINING", "DEFAULT_RULE_SET", "RULE_SETS", "RULE_SET_WORDS"]

#: The rule sets, the default first.
RULE_SETS: tuple[str, ...] = ("precedence", "highest")
DEFAULT_RULE_SET = RULE_SETS[0]

#: Each rule set as a person would name it (the report's first sentence, the CLI's summary).
RULE_SET_WORDS: dict[str, str] = {
    "precedence": "the platform's current rules: the nearest level decides",
    "highest": "the platform's earlier rules: the highest role over every path counts",
}

#: How a user's role on a space follows from their paths, under each rule set (the report's
#: and the CLI's explanation; ``docs/access-model.md`` has the whole of it).
COMBINING: dict[str, str] = {
    "precedence": (
        "Under the rule set precedence (the platform's current rules) the nearest level with "
        "a say decides a user's effective role on a space: the space's own permissions (the "
        "user's and their teams'), then its default level, then the sites linking it, then "
        "each collection above it from the nearest, then the organization. Paths from "
        "farther levels are listed but do not count: the status column says which decide."
    ),
    "highest": (
        "Under the rule set highest (the platform's earlier rules) every path counts: a "
        "user's effective role on a space is the highest role over all of their paths, "
        "whatever level each comes from."
    ),
}
