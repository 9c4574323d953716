"""Roles and their order: admin > create > review > edit > comment > read > guest (None)."""

from __future__ import annotations

from collections.abc import Iterable

#: Space and organization roles, strongest first (the API's MemberRole enum).
MEMBER_ROLES = ("admin", "create", "review", "edit", "comment", "read")
#: Roles that can change content.
WRITE_ROLES = frozenset({"admin", "create", "edit"})
_RANK = {role: len(MEMBER_ROLES) - index for index, role in enumerate(MEMBER_ROLES)}


def rank(role: str | None) -> int:
    """Numeric strength of a role; guest (None) is 0.

    Examples
    --------
    >>> rank("admin") > rank("review") > rank("edit") > rank(None)
    True
    """
    return _RANK.get(role, 0) if role else 0


def strongest(roles: Iterable[str | None]) -> str | None:
    """The strongest role among ``roles``, or None when there is none."""
    best: str | None = None
    for role in roles:
        if rank(role) > rank(best):
            best = role
    return best


def at_least(role: str | None, needed: str) -> bool:
    """True when ``role`` is ``needed`` or stronger."""
    return rank(role) >= rank(needed)
