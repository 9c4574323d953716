"""From decisions to the exact API calls that carry them out, with what each call changes.

A decision is about one access (a space and a user); the access comes by one or more paths
(``audit.paths``), and each path that counts is cut (revoke) or capped (lower) where it is
granted:

- ``direct``: revoke removes the user's permission on the space; lower sets it to R.
- ``team:T``: revoke takes the user out of team T (``team_change="membership"``) or removes
  team T's permission on the space (``"grant"``); lower sets the team's role on the space.
- ``collection:C``: revoke removes the user's permission on collection C; lower sets it.
- ``collection-team:C/T``: revoke takes the user out of team T, or removes T's permission
  on C; lower sets T's role on C.
- ``site:S``: revoke removes the user's permission on site S; lower sets it.
- ``site-team:S/T``: revoke takes the user out of team T, or removes T's permission on S;
  lower sets T's role on S.
- ``site-default:S``: revoke sets site S's default level to none; lower sets it to R. Every
  member on every space the site links in inherited mode is affected.
- ``default:…`` (the space's own default level or one it inherits from its collections):
  revoke sets the space's default level to none (no default access); lower sets it to R.
  Every member who gets the default is affected, and the space leaves inherited mode.
- ``org-admin``: revoke makes the member an organization guest (no default access either);
  lower makes them an organization R.
- ``creator``: the platform has no call that removes or lowers a creator's access to what
  they created; such a decision is refused, saying what to do instead.

Calls that several decisions share are sent once (a role set twice keeps the lower), and
organization role changes come last (one may demote the admin sending the plan).

What the plan does is predicted by the audit's own resolver and rule set
(:mod:`docsapi.review._predict`): the calls are played, in order, on the audit's raw tables,
and the organization is resolved as it will be after each. When, after the whole plan, a
decided access is still there (or above the role it was to be lowered to) because a farther
level takes over, the paths that now decide are cut or capped too; a decision that no call
can carry out is refused with the reason before any plan is made. Every access a call
takes away, lowers or raises that no decision asked for is its blast radius
(``also_revokes``, ``also_lowers``, ``also_raises``); ``hands_to`` names the farther level
that decides where a removal hands the decision to it. An access the reviewer decided to
keep is marked ``DECIDED KEEP`` there, and one decided lower that a call takes away
altogether (an organization admin lowered on a space with no default access)
``DECIDED LOWER``.
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
from docsapi.review._operations import OPERATIONS, TARGET_FIELDS, Target
from docsapi.review._predict import Access, Change, Prediction, predict

if TYPE_CHECKING:
    from docsapi.audit import PermissionAudit

__all__ = [
    "IMPACT_COLUMNS",
    "PLAN_COLUMNS",
    "TEAM_CHANGES",
    "Planned",
    "build_plan",
    "call_id",
    "plan_calls",
]

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
    "site_id": _STRING,
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
    "hands_to": _STRING,
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
    "decided_by_after": _STRING,
}
#: How many times the paths that decide after the plan are cut or capped in turn.
_ROUNDS = 4


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
        self.sites = _lookup(data.sites, "id", "title")
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
        elif operation in ("updateSpaceById", "updateSiteById"):
            return None
        else:
            target = next(i for i in (t.space_id, t.collection_id, t.site_id) if i is not None)
            principal = t.team_id if t.team_id is not None else t.user_id
            key = ("grant", str(target), str(principal))
        return self.granted_by.get(key)

    def change(self, operation: str, t: Target) -> str:
        user = self.users.get(str(t.user_id), t.user_id)
        space = self.spaces.get(str(t.space_id), t.space_id)
        team = self.teams.get(str(t.team_id), t.team_id)
        collection = self.collections.get(str(t.collection_id), t.collection_id)
        site = self.sites.get(str(t.site_id), t.site_id)
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
            "removeUserFromSite": f"remove {user}'s permission on site {site}",
            "updateUserPermissionInSite": f"set {user}'s role on site {site} to {t.role}",
            "removeTeamFromSite": f"remove team {team}'s permission on site {site}",
            "updateTeamPermissionInSite": f"set team {team}'s role on site {site} to {t.role}",
            "updateSiteById": (
                f"set the default level of site {site} to {t.role or 'none (no default access)'}"
            ),
            "updateSpaceById": (
                f"set the default level of space {space} to {t.role or 'none (no default access)'}"
            ),
            "updateMemberInOrganizationById": (f"make {user} an organization {t.role or 'guest'}"),
        }
        return texts[operation]

    def user(self, user_id: str) -> str:
        return self.users.get(user_id, user_id)

    def space(self, space_id: str) -> str:
        return self.spaces.get(space_id, space_id)

    def access(self, space_id: str, user_id: str) -> str:
        return f"{self.user(user_id)} on {self.space(space_id)}"


def _work_paths(audit: PermissionAudit) -> pd.DataFrame:
    paths = audit.paths
    columns = ("space_id", "user_id", "kind", "source", "collection_id", "team_id", "site_id")
    frame = pd.DataFrame(
        {
            column: (
                paths[column].astype(object).where(paths[column].notna(), None)
                if column in paths.columns
                else None
            )
            for column in columns
        }
    )
    frame["code"] = paths["role"].cat.codes.to_numpy(dtype=np.int64)
    status = paths["status"].astype(object) if "status" in paths.columns else None
    frame["counts"] = True if status is None else (status != "overridden").to_numpy(dtype=bool)
    return frame.reset_index(drop=True)


def _calls_for(paths: pd.DataFrame, decision: Any, org_id: str, team_change: str) -> list[_Call]:
    """The calls that cut or cap ``paths`` (of one decision's access)."""
    lower = decision.decision == "lower"
    role = str(decision.lower_to) if lower else None
    if lower:
        paths = paths[paths["code"].to_numpy() > ROLES.index(role)]
    kinds = set(paths["kind"])
    calls: list[_Call] = []
    row: Any
    for row in paths.itertuples(index=False):
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
                    "member who gets the default, and the space leaves inherited mode (its "
                    "sites and collections no longer reach it)",
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
        elif kind == "site":
            operation = "updateUserPermissionInSite" if lower else "removeUserFromSite"
            target = Target(org_id=org_id, site_id=row.site_id, user_id=user, role=role)
            calls.append(
                _Call(
                    operation,
                    target,
                    "a site permission reaches every space the site links in inherited mode",
                )
            )
        elif kind == "site-default":
            calls.append(
                _Call(
                    "updateSiteById",
                    Target(org_id=org_id, site_id=row.site_id, role=role),
                    "a site's default level reaches every member on every space the site "
                    "links in inherited mode",
                )
            )
        elif kind in ("team", "collection-team", "site-team"):
            calls.append(_team_call(row, decision, org_id, role, team_change))
        # "creator": no call changes a creator's access; the prediction's check refuses it
    return calls


def _team_call(row: Any, decision: Any, org_id: str, role: str | None, team_change: str) -> _Call:
    where = {"team": "space", "collection-team": "collection", "site-team": "site"}[row.kind]
    Where = where.capitalize()
    on = {
        "space": {"space_id": decision.space_id},
        "collection": {"collection_id": row.collection_id},
        "site": {"org_id": org_id, "site_id": row.site_id},
    }[where]
    if role is not None:
        return _Call(
            f"updateTeamPermissionIn{Where}",
            Target(team_id=row.team_id, role=role, **on),
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
    reaches = {
        "space": "every member of the team loses this permission",
        "collection": "every member of the team loses the collection's spaces",
        "site": "every member of the team loses the site's spaces in inherited mode",
    }[where]
    return _Call(
        f"removeTeamFrom{Where}",
        Target(team_id=row.team_id, **on),
        f"team_change='grant': {reaches}",
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


@dataclass(frozen=True)
class Planned:
    """A plan with what it does: its calls (one row each), the accesses each changes, and
    the effective access predicted after the whole plan."""

    plan: pd.DataFrame
    impact: pd.DataFrame
    prediction: Prediction


class _Decided:
    """The decisions of a review as the plan needs them."""

    def __init__(self, decisions: pd.DataFrame, names: _Names) -> None:
        self.acted = decisions[decisions["decision"].isin(["revoke", "lower"]).fillna(False)]
        decided_rows = decisions[decisions["decision"].notna()]
        self.intended = {
            (str(d.space_id), str(d.user_id)): str(d.decision)
            for d in decided_rows.itertuples(index=False)
        }
        self.names = names

    def label(self, decision: Any) -> str:
        label = f"{decision.decision} {self.names.access(decision.space_id, decision.user_id)}"
        return label + (f" to {decision.lower_to}" if decision.decision == "lower" else "")


def _pair_paths(
    paths: pd.DataFrame, wanted: set[tuple[str, str]]
) -> dict[tuple[str, str], pd.DataFrame]:
    """The paths of each ``wanted`` (space, user) pair."""
    keys = zip(paths["space_id"], paths["user_id"], strict=True)
    groups: dict[tuple[str, str], list[int]] = {}
    for position, key in enumerate(keys):
        if key in wanted:
            groups.setdefault(key, []).append(position)
    return {key: paths.iloc[rows] for key, rows in groups.items()}


def _undone(decision: Any, after: Access | None) -> bool:
    """Whether ``after`` (the access after the plan) does less than ``decision`` asks."""
    if after is None:
        return False
    return decision.decision == "revoke" or after.role > ROLES.index(str(decision.lower_to))


def plan_calls(
    audit: PermissionAudit, decisions: pd.DataFrame, team_change: str = "membership"
) -> Planned:
    """The calls that carry out the revoke and lower decisions, and what they do.

    Raises
    ------
    ValidationError
        For an unknown ``team_change``, or a decision that no call can carry out (the
        message names it and says why).
    """
    if team_change not in TEAM_CHANGES:
        raise ValidationError(
            "team_change", f"must be one of {', '.join(TEAM_CHANGES)}; got {team_change!r}"
        )
    names = _Names(audit)
    decided = _Decided(decisions, names)
    paths = _work_paths(audit)
    wanted = {(str(d.space_id), str(d.user_id)) for d in decided.acted.itertuples(index=False)}
    by_pair = _pair_paths(paths, wanted)
    org_id = str(audit.org_id)
    empty = paths.iloc[:0]
    calls: list[_Call] = []
    decision: Any
    for decision in decided.acted.itertuples(index=False):
        mine = by_pair.get((decision.space_id, decision.user_id), empty)
        counting = mine[mine["counts"].to_numpy(dtype=bool)]
        calls += _labelled(_calls_for(counting, decision, org_id, team_change), decided, decision)
    merged = _merge(calls)
    prediction = predict(audit.data, audit.model, [(c.operation, c.target) for c in merged])
    for _ in range(_ROUNDS):
        undone = _undone_decisions(decided, prediction)
        if not undone:
            break
        more: list[_Call] = []
        for decision, access in undone:
            mine = by_pair.get((decision.space_id, decision.user_id), empty)
            sources = access.sources.split("; ")
            # a default level another call changed names its new level: match it by kind
            by_default = any(source.startswith("default:") for source in sources)
            deciding = mine[
                mine["source"].isin(sources).to_numpy(dtype=bool)
                | (by_default & (mine["kind"] == "default").to_numpy(dtype=bool))
            ]
            more += _labelled(
                _calls_for(deciding, decision, org_id, team_change), decided, decision
            )
        grown = _merge(merged + more)
        if _signature(grown) == _signature(merged):
            break  # no call to add, none to make lower: what remains cannot be changed
        merged = grown
        prediction = predict(
            audit.data,
            audit.model,
            [(c.operation, c.target) for c in merged],
            before=prediction.before,
        )
    undone = _undone_decisions(decided, prediction)
    if undone:
        raise ValidationError("decisions", _refusal(undone, names))
    return _tables(merged, prediction, decided, names, Expectations(audit))


def _signature(calls: list[_Call]) -> list[tuple[tuple[str, str], str | None]]:
    return [(call.key, call.target.role) for call in calls]


def _labelled(calls: list[_Call], decided: _Decided, decision: Any) -> list[_Call]:
    findings = [] if pd.isna(decision.findings) else str(decision.findings).split("; ")
    for call in calls:
        call.decisions.append(decided.label(decision))
        call.findings.extend(f for f in findings if f not in call.findings)
    return calls


def _undone_decisions(decided: _Decided, prediction: Prediction) -> list[tuple[Any, Access]]:
    after = prediction.after
    wanted = {(str(d.space_id), str(d.user_id)) for d in decided.acted.itertuples(index=False)}
    if not wanted:
        return []
    keys = zip(after["space_id"].astype(object), after["user_id"].astype(object), strict=True)
    hits = np.fromiter((key in wanted for key in keys), dtype=bool, count=len(after))
    rows = after[hits]
    accesses = {
        (str(s), str(u)): Access(int(code), str(sources), str(source_names))
        for s, u, code, sources, source_names in zip(
            rows["space_id"].astype(object),
            rows["user_id"].astype(object),
            rows["role"].cat.codes.to_numpy(),
            rows["sources"].astype(object),
            rows["source_names"].astype(object),
            strict=True,
        )
    }
    found = []
    for decision in decided.acted.itertuples(index=False):
        access = accesses.get((str(decision.space_id), str(decision.user_id)))
        if access is not None and _undone(decision, access):
            found.append((decision, access))
    return found


def _refusal(undone: list[tuple[Any, Access]], names: _Names) -> str:
    """Why each decision cannot be carried out, and what to do instead."""
    reasons = []
    for decision, access in undone[:5]:
        user, space = names.user(decision.user_id), names.space(decision.space_id)
        role = ROLES[access.role]
        asked = f"{decision.decision} {user} on {space}" + (
            f" to {decision.lower_to}" if decision.decision == "lower" else ""
        )
        if any(s.split(":", 1)[0] == "creator" for s in access.sources.split("; ")):
            what = "removes" if decision.decision == "revoke" else "lowers"
            where = next(
                n
                for s, n in zip(
                    access.sources.split("; "), access.source_names.split("; "), strict=False
                )
                if s.split(":", 1)[0] == "creator"
            )
            own = where == "creator of the space"
            content = "the space" if own else where[len("creator of ") :]
            instead = f"give {content} a default level other than No access" + (
                "" if own else f", or move {space} out of it"
            )
            reasons.append(
                f"{asked}: {user} reaches {space} as the {where} ({content} has the default "
                f"level No access), with their organization role {role}; the platform has no "
                f"call that {what} a creator's access: {instead}, then review again; or "
                "decide keep"
            )
        else:
            reasons.append(
                f"{asked}: after every call the plan can make, {user} would still reach "
                f"{space} as {role} through {access.source_names}, which no call of a review "
                f"changes: change that setting yourself, or decide keep"
            )
    more = f" (and {len(undone) - 5} more)" if len(undone) > 5 else ""
    return (
        f"{len(undone)} decision(s) cannot be carried out, so no plan was made{more}: "
        + "; ".join(reasons)
    )


def _tables(
    merged: list[_Call],
    prediction: Prediction,
    decided: _Decided,
    names: _Names,
    expectations: Expectations,
) -> Planned:
    rows, impact = [], []
    for step, (call, changes) in enumerate(zip(merged, prediction.changes, strict=True), start=1):
        operation = OPERATIONS[call.operation]
        path = operation.path(call.target)
        body = operation.body(call.target)
        expect = expectations.expect(call.operation, call.target)
        identifier = call_id(call.operation, path, body, expect)
        changes = sorted(
            changes,
            key=lambda c: (names.space(c.space_id), names.user(c.user_id), c.space_id, c.user_id),
        )
        revoked: list[str] = []
        lowered: list[str] = []
        raised: list[str] = []
        for change in changes:
            key = (change.space_id, change.user_id)
            decision = decided.intended.get(key)
            impact.append(_impact_row(identifier, change, decision, names))
            kept = {"keep": ", DECIDED KEEP", "lower": ", DECIDED LOWER"}.get(str(decision), "")
            before = "no access" if change.before is None else ROLES[change.before.role]
            if change.after is None and decision != "revoke":
                revoked.append(f"{names.access(*key)} ({before}{kept})")
            elif change.after is not None and decision not in ("revoke", "lower"):
                moved = f"{names.access(*key)} ({before} to {ROLES[change.after.role]}{kept})"
                (lowered if change.kind == "lowered" else raised).append(moved)
        rows.append(
            {
                "call_id": identifier,
                "step": step,
                "operation": call.operation,
                "method": operation.method,
                "path": path,
                "body": body,
                "expect": expect,
                **{name: getattr(call.target, name) for name in TARGET_FIELDS},
                "change": names.change(call.operation, call.target),
                "decisions": "; ".join(call.decisions),
                "findings": "; ".join(call.findings) or None,
                "also_revokes": "; ".join(revoked) or None,
                "also_revokes_count": len(revoked),
                "also_lowers": "; ".join(lowered) or None,
                "also_lowers_count": len(lowered),
                "also_raises": "; ".join(raised) or None,
                "also_raises_count": len(raised),
                "hands_to": _handovers(changes, names) or None,
                "note": call.note or None,
                "notify": names.notify(call.operation, call.target),
            }
        )
    plan = pd.DataFrame(rows, columns=list(PLAN_COLUMNS)).astype(PLAN_COLUMNS)
    effects = pd.DataFrame(impact, columns=list(IMPACT_COLUMNS)).astype(IMPACT_COLUMNS)
    return Planned(plan, effects, prediction)


def _impact_row(identifier: str, change: Change, decision: str | None, names: _Names) -> dict:
    return {
        "call_id": identifier,
        "space_id": change.space_id,
        "space_title": names.space(change.space_id),
        "user_id": change.user_id,
        "display_name": names.user(change.user_id),
        "role_before": None if change.before is None else ROLES[change.before.role],
        "role_after": None if change.after is None else ROLES[change.after.role],
        "change": change.kind,
        "decided": decision,
        "decided_by_after": None if change.after is None else change.after.source_names,
    }


def _handovers(changes: list[Change], names: _Names, shown: int = 10) -> str:
    """Where a call hands the decision to another level: ``<level> now decides on <space>
    for <people (role)>``, one text per level and space."""
    taken: dict[tuple[str, str], list[str]] = {}
    for change in changes:
        if change.after is None or change.before is None:
            continue
        before = set(change.before.sources.split("; "))
        deciding = [
            name
            for source, name in zip(
                change.after.sources.split("; "),
                change.after.source_names.split("; "),
                strict=False,
            )
            if source not in before
        ]
        if deciding:
            who = f"{names.user(change.user_id)} ({ROLES[change.after.role]})"
            taken.setdefault((deciding[0], names.space(change.space_id)), []).append(who)
    texts = []
    for (level, space), people in taken.items():
        listed = ", ".join(people[:shown])
        if len(people) > shown:
            listed += f" and {len(people) - shown} more"
        texts.append(f"the {level} now decides on {space} for {listed}")
    return "; ".join(texts)


def build_plan(
    audit: PermissionAudit, decisions: pd.DataFrame, team_change: str = "membership"
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The plan (one row per call, in order) and its impact (every access it changes).

    Raises
    ------
    ValidationError
        For an unknown ``team_change``, or a decision no call can carry out.
    """
    planned = plan_calls(audit, decisions, team_change)
    return planned.plan, planned.impact
