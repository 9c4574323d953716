"""What a plan will do, from the audit's own resolver and rule set.

A plan's calls are played, in order, on a copy of the audit's raw tables
(:class:`~docsapi.audit.data.AuditData`: each operation knows how it changes them, see
:mod:`docsapi.review._operations`), and after each call the organization is resolved as it
will then be by the audit's resolver (:func:`docsapi.audit.resolve.resolve`) under the rule
set the audit was made with. Everything follows: a space leaving inherited mode, a team
membership ending, a farther level taking over when a nearer one stops saying anything.
Each call resolves again only the spaces it can reach (those of its space, collection, site
or team; every space for an organization role); the others keep their access.

:func:`predict` answers the effective access before and after the whole plan (the columns of
``audit.effective``) and, per call, the (space, user) accesses it changes.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from docsapi.audit.coverage import Gaps, find_gaps
from docsapi.audit.data import AuditData, text_categorical
from docsapi.audit.resolve import effective_access, path_keys, resolve
from docsapi.audit.tables import effective_table
from docsapi.review._operations import OPERATIONS, Target

__all__ = ["Access", "Change", "Prediction", "predict"]

_ORG_ROLE = "updateMemberInOrganizationById"
_TEAM_MEMBER = "deleteMemberFromOrganizationTeamById"


@dataclass(frozen=True)
class Access:
    """One (space, user) access: its role code (of ROLES) and what decides it."""

    role: int
    sources: str
    source_names: str


@dataclass(frozen=True)
class Change:
    """An access one call changes: before and after it (None: no access)."""

    space_id: str
    user_id: str
    before: Access | None
    after: Access | None

    @property
    def kind(self) -> str:
        """``revoked``, ``granted``, ``lowered`` or ``raised``."""
        if self.after is None:
            return "revoked"
        if self.before is None:
            return "granted"
        return "lowered" if self.after.role < self.before.role else "raised"


@dataclass(frozen=True)
class Prediction:
    """A plan's effect: the effective access before and after it, and each call's changes."""

    before: pd.DataFrame
    after: pd.DataFrame
    changes: list[list[Change]]


def effective_of(data: AuditData, gaps: Gaps, rule_set: str) -> pd.DataFrame:
    """The effective access of ``data`` (every path, teams included) under ``rule_set``,
    with the columns of ``audit.effective``."""
    resolution = resolve(data, gaps)
    keys = path_keys(resolution.paths, resolution.spaces, rule_set)
    full = effective_access(resolution.paths, keys, resolution.sources, len(resolution.users))
    return effective_table(resolution, full)


def _accesses(effective: pd.DataFrame) -> dict[tuple[str, str], Access]:
    codes = effective["role"].cat.codes.to_numpy()
    return {
        (str(space), str(user)): Access(int(code), str(sources), str(names))
        for space, user, code, sources, names in zip(
            effective["space_id"].astype(object),
            effective["user_id"].astype(object),
            codes,
            effective["sources"].astype(object),
            effective["source_names"].astype(object),
            strict=True,
        )
    }


class _Reach:
    """Which spaces a call can change: those of its space, collection (every space below
    it), site (the spaces it links) or team (the spaces its grants reach)."""

    def __init__(self, data: AuditData) -> None:
        parents = dict(
            zip(
                data.collections["id"].astype(object),
                data.collections["parent"].astype(object),
                strict=True,
            )
        )
        self.below: dict[str, set[str]] = {}
        for space, parent in zip(
            data.spaces["id"].astype(object), data.spaces["parent"].astype(object), strict=True
        ):
            seen: set[str] = set()
            while isinstance(parent, str) and parent not in seen:
                seen.add(parent)
                self.below.setdefault(parent, set()).add(str(space))
                parent = parents.get(parent)
        self.linked: dict[str, set[str]] = {}
        for site, space in zip(
            data.site_spaces["site_id"].astype(object),
            data.site_spaces["space_id"].astype(object),
            strict=True,
        ):
            self.linked.setdefault(str(site), set()).add(str(space))
        grants = data.team_permissions
        self.team_targets = {
            (str(team), str(kind), str(target))
            for team, kind, target in zip(
                grants["team_id"].astype(object),
                grants["target_type"].astype(object),
                grants["target_id"].astype(object),
                strict=True,
            )
        }

    def target(self, kind: str, target_id: str) -> set[str]:
        if kind == "space":
            return {target_id}
        if kind == "collection":
            return self.below.get(target_id, set())
        if kind == "site":
            return self.linked.get(target_id, set())
        return set()

    def spaces(self, operation: str, target: Target) -> set[str] | None:
        """The spaces the call can change; None: every space (an organization role)."""
        if operation == _ORG_ROLE:
            return None
        if operation == _TEAM_MEMBER:
            found: set[str] = set()
            for team, kind, target_id in self.team_targets:
                if team == target.team_id:
                    found |= self.target(kind, target_id)
            return found
        if target.space_id is not None:
            return {target.space_id}
        if target.collection_id is not None:
            return self.target("collection", target.collection_id)
        if target.site_id is not None:
            return self.target("site", target.site_id)
        return None


def _only(data: AuditData, spaces: set[str] | None) -> AuditData:
    """``data`` with only ``spaces`` (all when None): access to a space depends on its own
    settings and those above it, never on another space's."""
    if spaces is None:
        return data
    narrowed = copy.copy(data)
    narrowed.spaces = data.spaces[data.spaces["id"].isin(spaces).to_numpy(dtype=bool)]
    return narrowed


def _combined(before: pd.DataFrame, after: pd.DataFrame, spaces: set[str]) -> pd.DataFrame:
    """``before`` with the rows of ``spaces`` replaced by ``after``'s, in the audit's order
    (space title, space id, display name, user id) and dtypes."""
    kept = before[~before["space_id"].isin(spaces).to_numpy(dtype=bool)]
    frame = pd.concat(
        [
            kept.astype({c: object for c in _texts(before)}),
            after.astype({c: object for c in _texts(after)}),
        ],
        ignore_index=True,
    )
    frame = frame.sort_values(
        ["space_title", "space_id", "display_name", "user_id"], na_position="last", kind="stable"
    ).reset_index(drop=True)
    for column in _texts(before):
        frame[column] = text_categorical(frame[column])
    return frame.astype({"role": before["role"].dtype})


def _texts(frame: pd.DataFrame) -> list[str]:
    return [
        c for c in frame.columns if isinstance(frame[c].dtype, pd.CategoricalDtype) and c != "role"
    ]


def predict(
    data: AuditData,
    rule_set: str,
    calls: Sequence[tuple[str, Target]],
    *,
    before: pd.DataFrame | None = None,
) -> Prediction:
    """Play ``calls`` (operation, target), in order, on ``data`` and resolve after each.

    Parameters
    ----------
    data : AuditData
        The audit's raw tables (not modified).
    rule_set : str
        The audit's rule set (``audit.model``).
    calls : sequence of (str, Target)
        The plan's calls, in the order they are sent.
    before : DataFrame, optional
        :func:`effective_of` ``data`` already computed (it is computed otherwise).

    Returns
    -------
    Prediction
    """
    gaps = find_gaps(data)
    if before is None:
        before = effective_of(data, gaps, rule_set)
    if not calls:
        return Prediction(before, before, [])
    reach = _Reach(data)
    changes: list[list[Change]] = []
    state = data
    reached: set[str] | None = set()
    known: tuple[frozenset[str] | None, dict[tuple[str, str], Access]] | None = None
    for operation, target in calls:
        spaces = reach.spaces(operation, target)
        key = None if spaces is None else frozenset(spaces)
        if known is not None and known[0] == key:
            old = known[1]  # the previous call reached the same spaces: resolved already
        else:
            old = _accesses(effective_of(_only(state, spaces), gaps, rule_set))
        state = OPERATIONS[operation].change(state, target)
        new = _accesses(effective_of(_only(state, spaces), gaps, rule_set))
        changes.append(_differences(old, new))
        known = (key, new)
        reached = None if spaces is None or reached is None else reached | spaces
    final = effective_of(_only(state, reached), gaps, rule_set)
    after = final if reached is None else _combined(before, final, reached)
    return Prediction(before, after, changes)


def _differences(
    before: dict[tuple[str, str], Access], after: dict[tuple[str, str], Access]
) -> list[Change]:
    found = []
    for key in before.keys() | after.keys():
        old, new = before.get(key), after.get(key)
        if (old is None) != (new is None) or (
            old is not None and new is not None and old.role != new.role
        ):
            found.append(Change(key[0], key[1], old, new))
    return found
