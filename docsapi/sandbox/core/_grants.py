"""Explicit permissions of one kind (say, users on spaces), indexed both ways.

A :class:`GrantTable` holds ``target id -> {principal id -> role}`` and keeps, on every write,
how many targets of each organization a principal holds a grant on and which targets that
is. Listing a space's grants, counting a member's spaces and dropping a deleted team's
grants therefore never scan the other targets.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping

_EMPTY: Mapping[str, str] = {}


class GrantTable:
    """Grants of principals on targets, with per-principal indexes.

    Examples
    --------
    >>> table = GrantTable()
    >>> table.set("org", "space1", "ada", "edit")
    >>> table.set("org", "space2", "ada", "read")
    >>> dict(table.on("space1")), table.count("org", "ada")
    ({'ada': 'edit'}, 2)
    >>> table.remove("space1", "ada"), table.count("org", "ada")
    ('edit', 1)
    """

    def __init__(self) -> None:
        self._by_target: dict[str, dict[str, str]] = {}
        self._org: dict[str, str] = {}
        self._targets_of: dict[str, set[str]] = {}
        self._counts: dict[str, Counter[str]] = {}

    # -- reads -------------------------------------------------------------------------
    def on(self, target: str) -> Mapping[str, str]:
        """Principal id -> role on ``target`` (empty when none); do not modify it."""
        return self._by_target.get(target, _EMPTY)

    def role(self, target: str, principal: str) -> str | None:
        """The role ``principal`` holds on ``target``, or None."""
        return self._by_target.get(target, _EMPTY).get(principal)

    def targets_of(self, principal: str) -> frozenset[str]:
        """The targets ``principal`` holds a grant on."""
        return frozenset(self._targets_of.get(principal, ()))

    def count(self, org_id: str, principal: str) -> int:
        """On how many targets of organization ``org_id`` ``principal`` holds a grant."""
        counts = self._counts.get(org_id)
        return 0 if counts is None else counts.get(principal, 0)

    def __iter__(self) -> Iterator[tuple[str, str, str]]:
        """Every grant as (target, principal, role)."""
        for target, grants in self._by_target.items():
            for principal, role in grants.items():
                yield target, principal, role

    def __len__(self) -> int:
        return sum(len(grants) for grants in self._by_target.values())

    # -- writes ------------------------------------------------------------------------
    def set(self, org_id: str, target: str, principal: str, role: str | None) -> str | None:
        """Give ``principal`` ``role`` on ``target`` (None removes the grant); the old role."""
        if role is None:
            return self.remove(target, principal)
        grants = self._by_target.setdefault(target, {})
        self._org[target] = org_id
        previous = grants.get(principal)
        grants[principal] = role
        if previous is None:
            self._targets_of.setdefault(principal, set()).add(target)
            self._counts.setdefault(org_id, Counter())[principal] += 1
        return previous

    def remove(self, target: str, principal: str) -> str | None:
        """Remove ``principal``'s grant on ``target``; the role it had, or None."""
        grants = self._by_target.get(target)
        if grants is None or principal not in grants:
            return None
        role = grants.pop(principal)
        self._forget(target, principal)
        return role

    def detach(self, target: str) -> dict[str, str]:
        """Remove every grant on ``target`` and return them (to :meth:`attach` back later)."""
        grants = self._by_target.pop(target, {})
        for principal in grants:
            self._forget(target, principal)
        self._org.pop(target, None)
        return grants

    def attach(self, org_id: str, target: str, grants: Mapping[str, str]) -> None:
        """Add ``grants`` (principal -> role) on ``target``."""
        for principal, role in grants.items():
            self.set(org_id, target, principal, role)

    def drop_principal(self, principal: str) -> int:
        """Remove every grant ``principal`` holds; how many there were."""
        targets = self._targets_of.get(principal, set())
        for target in list(targets):
            self.remove(target, principal)
        return len(targets)

    def _forget(self, target: str, principal: str) -> None:
        targets = self._targets_of.get(principal)
        if targets is not None:
            targets.discard(target)
            if not targets:
                del self._targets_of[principal]
        counts = self._counts.get(self._org.get(target, ""))
        if counts is not None:
            counts[principal] -= 1
            if counts[principal] <= 0:
                del counts[principal]
