"""The names of the access model's rule sets, shared by the audit, the sandbox and the CLI.

How the levels of access (a space's own permissions and default level, the sites linking
it, its collections, the organization) combine into a role, as the platform's documentation
has described it (``docs/access-model.md``):

- ``precedence`` (since 2026-05-31, the default): the nearest level with a say decides;
- ``highest`` (2026-04-13 to 2026-05-31): the highest role over every path.

Each implementation (the audit's resolver, the sandbox's model) validates the name itself.
"""

from __future__ import annotations

__all__ = ["DEFAULT_RULE_SET", "RULE_SETS"]

#: The rule sets, the default first.
RULE_SETS: tuple[str, ...] = ("precedence", "highest")
DEFAULT_RULE_SET = RULE_SETS[0]
