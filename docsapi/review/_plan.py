"""From decisions to the exact API calls that carry them out, with each call's blast radius.

A decision is about one access (a space and a user); the access comes by one or more paths
(``audit.paths``), and each path is cut (revoke) or capped (lower) where it is granted:

- ``direct``: revoke removes the user's permission on the space; lower sets it to R.
- ``team:T``: revoke takes the user out of team T (``team_change="membership"``) or removes
  team T's permission on the space (``"grant"``); lower sets the team's role on the space.
- ``collection:C``: revoke removes the user's permission on collection C; lower sets it.
- ``collection-team:C/T``: revoke takes the user out of team T, or removes T's permission
  on C; lower sets T's role on C.
- ``default:…``: revoke sets the space's default level to none (no default access); lower
  sets it to R. Every member who gets the default is affected.
- ``org-admin``: revoke makes the member an organization guest (no default access either);
  lower makes them an organization R.

Calls that several decisions share are sent once (a role set twice keeps the lower), and
organization role changes come last (one may demote the admin sending the plan). The
calls are then played, in order, on the audit's ``paths`` table: every access a call takes
away, lowers or raises that no decision asked for is its blast radius (``also_revokes``,
``also_lowers``, ``also_raises``: a default level set to R raises members whose own
organization role is below R), known before anything is sent; an access the reviewer
decided to keep is marked ``DECIDED KEEP`` there.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from docsapi.audit.data import ROLES
from docsapi.errors import ValidationError
from docsapi.review._expect import Expectations
from docsapi.review._operations import OPERATIONS, Target, simulate

if TYPE_CHECKING:
    from docsapi.audit import PermissionAudit

__all__ = ["IMPACT_COLUMNS", "PLAN_COLUMNS", "TEAM_CHANGES", "build_plan", "call_id"]

#: How a revoke through a team is done: the user leaves the team, or the team's grant goes.
TEAM_CHANGES: tuple[str, ...] = ("membership", "grant")

_STRING = pd.StringDtype("python")
#: The plan's columns and dtypes.
PLAN_COLUMNS: dict[str, Any] = {
    "call_id": _STRING,
    "step": "Int64",
    "operation": _STRING,
    "method": _STRING,
    "path": _STRING,
    "body": object,
    "expect": object,  # the target's state as reviewed (see docsapi.review._expect)
    "org_id": _STRING,
    "space_id": _STRING,
    "collection_id": _STRING,
    "team_id": _STRING,
    "user_id": _STRING,
    "role": _STRING,
    "change": _STRING,
    "decisions": _STRING,
    "findings": _STRING,
    "also_revokes": _STRING,
    "also_revokes_count": "Int64",
    "also_lowers": _STRING,
    "also_lowers_count": "Int64",
    "also_raises": _STRING,
    "also_raises_count": "Int64",
    "note": _STRING,
    "notify": _STRING,
}
#: The columns of the blast radius table (every access a plan changes, by call).
IMPACT_COLUMNS: dict[str, Any] = {
    "call_id": _STRING,
    "space_id": _STRING,
    "space_title": _STRING,
    "user_id": _STRING,
    "display_name": _STRING,
    "role_before": _STRING,
    "role_after": _STRING,
    "change": _STRING,
    "decided": _STRING,
}


def call_id(operation: str, path: str, body: object, expect: object) -> str:
    """A call's stable id: the same call always gets the same id (a plan is resumable)."""
    text = json.dumps([operation, path, body, expect], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


@dataclass
class _Call:
    operation: str
    target: Target
    note: str
    decisions: list[str] = field(default_factory=list)
    findings: list[str] = field(default_factory=list)

    @property
    def key(self) -> tuple[str, str]:
        return self.operation, OPERATIONS[self.operation].path(self.target)


def _lookup(frame: pd.DataFrame, key: str, name: str) -> dict[str, str]:
    keys = frame[key].astype(object).to_numpy()
    names = frame[name].astype(object).to_numpy()
    return {str(k): str(n) for k, n in zip(keys, names, strict=True) if not pd.isna(n)}


class _Names:
    """Names beside ids, from the audit."""

    def __init__(self, audit: PermissionAudit) -> None:
        effective = audit.effective
        data = audit.data
        self.spaces = _lookup(data.spaces, "id", "title")
        self.spaces.update(_lookup(effective, "space_id", "space_title"))
        self.users = _lookup(data.members, "user_id", "display_name")
        self.users.update(_lookup(effective, "user_id", "display_name"))
        self.teams = _lookup(data.teams, "id", "title")
        self.collections = _lookup(data.collections, "id", "title")
        settings = audit.provenance
        granted = settings[settings["granted_by"].notna().to_numpy(dtype=bool)]
        self.granted_by = {
            (str(s), str(t), str(p)): str(g)
            for s, t, p, g in zip(
                granted["setting"],
                granted["target_id"],
                granted["principal_id"],
                granted["granted_by"],
                strict=True,
            )
        }

    def notify(self, operation: str, t: Target) -> str | None:
        """Who made the setting a call changes (to be told it changes), when the log says."""
        if operation == "deleteMemberFromOrganizationTeamById":
            key = ("team-member", str(t.team_id), str(t.user_id))
        elif operation == "updateMemberInOrganizationById":
            key = ("org-role", str(t.org_id), str(t.user_id))
        elif operation == "updateSpaceById":
            return None
        else:
            target = t.space_id if t.space_id is not None else t.collection_id
            principal = t.team_id if t.team_id is not None else t.user_id
            key = ("grant", str(target), str(principal))
        return self.granted_by.get(key)

    def change(self, operation: str, t: Target) -> str:
        user = self.users.get(str(t.user_id), t.user_id)
        space = self.spaces.get(str(t.space_id), t.space_id)
        team = self.teams.get(str(t.team_id), t.team_id)
        collection = self.collections.get(str(t.collection_id), t.collection_id)
        texts = {
            "removeUserFromSpace": f"remove {user}'s permission on space {space}",
            "updateUserPermissionInSpace": f"set {user}'s role on space {space} to {t.role}",
            "removeTeamFromSpace": f"remove team {team}'s permission on space {space}",
            "updateTeamPermissionInSpace": f"set team {team}'s role on space {space} to {t.role}",
            "deleteMemberFromOrganizationTeamById": f"take {user} out of team {team}",
            "removeUserFromCollection": f"remove {user}'s permission on collection {collection}",
            "updateUserPermissionInCollection": (
                f"set {user}'s role on collection {collection} to {t.role}"
            ),
            "removeTeamFromCollection": (
                f"remove team {team}'s permission on collection {collection}"
            ),
            "updateTeamPermissionInCollection": (
                f"set team {team}'s role on collection {collection} to {t.role}"
            ),
            "updateSpaceById": (
                f"set the default level of space {space} to {t.role or 'none (no default access)'}"
            ),
            "updateMemberInOrganizationById": (f"make {user} an organization {t.role or 'guest'}"),
        }
        return texts[operation]

    def access(self, space_id: str, user_id: str) -> str:
        return f"{self.users.get(user_id, user_id)} on {self.spaces.get(space_id, space_id)}"


def _work_paths(audit: PermissionAudit) -> pd.DataFrame:
    paths = audit.paths
    frame = pd.DataFrame(
        {
            column: paths[column].astype(object).where(paths[column].notna(), None)
            for column in ("space_id", "user_id", "kind", "source", "collection_id", "team_id")
        }
    )
    frame["code"] = paths["role"].cat.codes.to_numpy(dtype=np.int64)
    return frame.reset_index(drop=True)


def _calls_for(paths: pd.DataFrame, decision: Any, org_id: str, team_change: str) -> list[_Call]:
    """The calls that carry out one decision (one access)."""
    mine = paths[
        (paths["space_id"].to_numpy(dtype=object) == decision.space_id)
        & (paths["user_id"].to_numpy(dtype=object) == decision.user_id)
    ]
    lower = decision.decision == "lower"
    role = str(decision.lower_to) if lower else None
    if lower:
        mine = mine[mine["code"].to_numpy() > ROLES.index(role)]
    kinds = set(mine["kind"])
    calls: list[_Call] = []
    for row in mine.itertuples(index=False):
        user, space = decision.user_id, decision.space_id
        kind = row.kind
        if kind == "org-admin":
            calls.append(
                _Call(
                    "updateMemberInOrganizationById",
                    Target(org_id=org_id, user_id=user, role=role),
                    "an organization admin reaches every space: only a lower organization "
                    "role takes that away (it changes their access everywhere)",
                )
            )
        elif kind == "default":
            if not lower and "org-admin" in kinds:
                continue  # an organization guest has no default access
            calls.append(
                _Call(
                    "updateSpaceById",
                    Target(space_id=space, role=role),
                    "default access is the space's default level: changing it changes every "
                    "member who gets the default",
                )
            )
        elif kind == "direct":
            operation = "updateUserPermissionInSpace" if lower else "removeUserFromSpace"
            calls.append(_Call(operation, Target(space_id=space, user_id=user, role=role), ""))
        elif kind == "collection":
            operation = "updateUserPermissionInCollection" if lower else "removeUserFromCollection"
            target = Target(collection_id=row.collection_id, user_id=user, role=role)
            calls.append(
                _Call(operation, target, "a collection permission reaches every space below it")
            )
        elif kind in ("team", "collection-team"):
            calls.append(_team_call(row, decision, org_id, role, team_change))
    return calls


def _team_call(row: Any, decision: Any, org_id: str, role: str | None, team_change: str) -> _Call:
    on_space = row.kind == "team"
    if role is not None:
        operation = (
            "updateTeamPermissionInSpace" if on_space else "updateTeamPermissionInCollection"
        )
        target = (
            Target(space_id=decision.space_id, team_id=row.team_id, role=role)
            if on_space
            else Target(collection_id=row.collection_id, team_id=row.team_id, role=role)
        )
        return _Call(
            operation,
            target,
            "a team's role cannot be lowered for one member: "
            "every member of the team gets the lower role",
        )
    if team_change == "membership":
        return _Call(
            "deleteMemberFromOrganizationTeamById",
            Target(org_id=org_id, team_id=row.team_id, user_id=decision.user_id),
            "team_change='membership': the user leaves the team and loses everything it "
            "gives them; team_change='grant' removes the team's permission instead",
        )
    if on_space:
        return _Call(
            "removeTeamFromSpace",
            Target(space_id=decision.space_id, team_id=row.team_id),
            "team_change='grant': every member of the team loses this permission",
        )
    return _Call(
        "removeTeamFromCollection",
        Target(collection_id=row.collection_id, team_id=row.team_id),
        "team_change='grant': every member of the team loses the collection's spaces",
    )


def _merge(calls: list[_Call]) -> list[_Call]:
    """One call per (operation, path); a role set twice keeps the lower. Organization role
    changes go last: one may take away the rights the other calls need."""
    merged: dict[tuple[str, str], _Call] = {}
    for call in calls:
        known = merged.get(call.key)
        if known is None:
            merged[call.key] = replace(
                call, decisions=list(call.decisions), findings=list(call.findings)
            )
            continue
        if ROLES.index(call.target.role or "guest") < ROLES.index(known.target.role or "guest"):
            known.target = call.target
        known.decisions += [d for d in call.decisions if d not in known.decisions]
        known.findings += [f for f in call.findings if f not in known.findings]
    return sorted(merged.values(), key=lambda c: c.operation == "updateMemberInOrganizationById")


def _access_roles(paths: pd.DataFrame) -> dict[tuple[str, str], int]:
    best = paths.groupby(["space_id", "user_id"], sort=False)["code"].max()
    return dict(zip(best.index, best.to_numpy(dtype=np.int64), strict=True))


def _changed(
    before: pd.DataFrame, after: pd.DataFrame, roles: dict[tuple[str, str], int]
) -> list[tuple[tuple[str, str], int, int | None]]:
    """(access, role code before, code after or None) for every access whose role a call
    changed, from the paths it dropped or changed; ``roles`` is brought up to date.

    A call never adds an access or a path, so only the accesses of those paths can change."""
    kept = before.index.isin(after.index)
    old_codes = before["code"].to_numpy()
    new_codes = after["code"].reindex(before.index).to_numpy()
    touched = ~kept | (old_codes != new_codes)
    keys = set(zip(before["space_id"][touched], before["user_id"][touched], strict=True))
    if not keys:
        return []
    users = after[after["user_id"].isin({user for _, user in keys})]
    pairs = zip(users["space_id"], users["user_id"], strict=True)
    mine = users[np.fromiter((pair in keys for pair in pairs), dtype=bool, count=len(users))]
    now = _access_roles(mine)
    found = []
    for key in keys:
        code, new = roles[key], now.get(key)
        if new != code:
            found.append((key, code, new))
            if new is None:
                del roles[key]
            else:
                roles[key] = new
    return found


def build_plan(
    audit: PermissionAudit, decisions: pd.DataFrame, team_change: str = "membership"
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The plan (one row per call, in order) and its impact (every access it changes).

    Raises
    ------
    ValidationError
        For an unknown ``team_change``.
    """
    if team_change not in TEAM_CHANGES:
        raise ValidationError(
            "team_change", f"must be one of {', '.join(TEAM_CHANGES)}; got {team_change!r}"
        )
    names = _Names(audit)
    paths = _work_paths(audit)
    acted = decisions[decisions["decision"].isin(["revoke", "lower"]).fillna(False)]
    calls: list[_Call] = []
    decision: Any
    for decision in acted.itertuples(index=False):
        label = f"{decision.decision} {names.access(decision.space_id, decision.user_id)}"
        if decision.decision == "lower":
            label += f" to {decision.lower_to}"
        findings = [] if pd.isna(decision.findings) else decision.findings.split("; ")
        for call in _calls_for(paths, decision, str(audit.org_id), team_change):
            call.decisions.append(label)
            call.findings.extend(f for f in findings if f not in call.findings)
            calls.append(call)
    decided_rows = decisions[decisions["decision"].notna()]
    intended = {(d.space_id, d.user_id): d.decision for d in decided_rows.itertuples(index=False)}
    rows, impact = [], []
    roles = _access_roles(paths)
    expectations = Expectations(audit)
    for step, call in enumerate(_merge(calls), start=1):
        operation = OPERATIONS[call.operation]
        path = operation.path(call.target)
        body = operation.body(call.target)
        expect = expectations.expect(call.operation, call.target)
        identifier = call_id(call.operation, path, body, expect)
        changed_paths = simulate(paths, call.operation, call.target)
        changes = sorted(
            _changed(paths, changed_paths, roles),
            key=lambda c: (names.spaces.get(c[0][0], ""), names.users.get(c[0][1], ""), c[0]),
        )
        paths = changed_paths
        revoked: list[str] = []
        lowered: list[str] = []
        raised: list[str] = []
        for key, code, now in changes:
            decided = intended.get(key)
            change = "revoked" if now is None else ("lowered" if now < code else "raised")
            impact.append(
                {
                    "call_id": identifier,
                    "space_id": key[0],
                    "space_title": names.spaces.get(key[0], key[0]),
                    "user_id": key[1],
                    "display_name": names.users.get(key[1], key[1]),
                    "role_before": ROLES[code],
                    "role_after": None if now is None else ROLES[now],
                    "change": change,
                    "decided": decided,
                }
            )
            kept = ", DECIDED KEEP" if decided == "keep" else ""
            if now is None and decided != "revoke":
                revoked.append(f"{names.access(*key)} ({ROLES[code]}{kept})")
            elif now is not None and decided not in ("revoke", "lower"):
                moved = f"{names.access(*key)} ({ROLES[code]} to {ROLES[now]}{kept})"
                (lowered if now < code else raised).append(moved)
        rows.append(
            {
                "call_id": identifier,
                "step": step,
                "operation": call.operation,
                "method": operation.method,
                "path": path,
                "body": body,
                "expect": expect,
                **{
                    name: getattr(call.target, name)
                    for name in ("org_id", "space_id", "collection_id", "team_id", "user_id")
                },
                "role": call.target.role,
                "change": names.change(call.operation, call.target),
                "decisions": "; ".join(call.decisions),
                "findings": "; ".join(call.findings) or None,
                "also_revokes": "; ".join(revoked) or None,
                "also_revokes_count": len(revoked),
                "also_lowers": "; ".join(lowered) or None,
                "also_lowers_count": len(lowered),
                "also_raises": "; ".join(raised) or None,
                "also_raises_count": len(raised),
                "note": call.note or None,
                "notify": names.notify(call.operation, call.target),
            }
        )
    plan = pd.DataFrame(rows, columns=list(PLAN_COLUMNS)).astype(PLAN_COLUMNS)
    effects = pd.DataFrame(impact, columns=list(IMPACT_COLUMNS)).astype(IMPACT_COLUMNS)
    return plan, effects
