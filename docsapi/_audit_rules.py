"""The permission audit's vocabulary and rules: role order, thresholds and the checks.

Every check is a pure function of a :class:`RuleContext` (access paths plus lookups built
from the crawled tables) and returns finding rows as plain dicts, so the rules are tested
offline on hand-made DataFrames.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, fields

import pandas as pd

from docsapi.errors import ValidationError

__all__ = [
    "FINDING_COLUMNS",
    "ROLES",
    "ROLE_DTYPE",
    "RULES",
    "SEVERITY_DTYPE",
    "WRITE_ROLES",
    "AuditThresholds",
    "RuleContext",
    "evaluate_rules",
    "role_rank",
]

#: Space roles from lowest to highest; ``"guest"`` spells the API's ``None``.
ROLES: tuple[str, ...] = ("guest", "read", "comment", "edit", "review", "create", "admin")

#: Ordered categorical for role columns: ``effective.role >= "edit"`` and sorting just work.
ROLE_DTYPE = pd.CategoricalDtype(list(ROLES), ordered=True)

#: Roles that can change a space's content or settings.
WRITE_ROLES = frozenset({"admin", "create", "edit"})

#: Ordered categorical for severities (``low < medium < high``).
SEVERITY_DTYPE = pd.CategoricalDtype(["low", "medium", "high"], ordered=True)

#: Rule name → (severity, one-line description), in report order.
RULES: dict[str, tuple[str, str]] = {
    "guest_write": ("high", "a guest or non-member has admin, create or edit access to a space"),
    "former_member": ("high", "a user who left the organization still holds a grant on a space"),
    "admin_sprawl": ("medium", "a user is admin on more than admin_share of the spaces"),
    "no_admin": ("medium", "a space has no admin, directly or through a team"),
    "too_many_admins": ("low", "a space has more than max_admins admins, counting team members"),
    "redundant_grant": ("low", "a direct grant gives nothing a team of the user does not already"),
    "empty_team": ("low", "a team without members has access to a space"),
}

FINDING_COLUMNS = [
    "severity",
    "rule",
    "space_id",
    "space_title",
    "principal_id",
    "principal_name",
    "detail",
]


def role_rank(role: str | None) -> int:
    """Return the position of ``role`` in :data:`ROLES` (``None`` counts as guest).

    Examples
    --------
    >>> role_rank("admin") > role_rank("review") > role_rank("edit")
    True
    """
    if role is None or (isinstance(role, float) and role != role):
        return 0
    try:
        return ROLES.index(role)
    except ValueError:
        raise ValidationError("role", f"unknown role {role!r}; expected one of {ROLES}") from None


@dataclass(frozen=True)
class AuditThresholds:
    """The tunable limits of the audit's rules.

    Parameters
    ----------
    admin_share : float
        ``admin_sprawl`` fires for a user who is admin on more than this share of the
        organization's spaces (0 to 1, default 0.5).
    max_admins : int
        ``too_many_admins`` fires for a space with more admins than this (default 5).

    Examples
    --------
    >>> AuditThresholds.from_kwargs(max_admins=3)
    AuditThresholds(admin_share=0.5, max_admins=3)
    """

    admin_share: float = 0.5
    max_admins: int = 5

    @classmethod
    def from_kwargs(cls, **thresholds: object) -> AuditThresholds:
        """Build thresholds from keyword arguments, checking names and ranges.

        Raises
        ------
        ValidationError
            For an unknown name or a value out of range.
        """
        known = {f.name for f in fields(cls)}
        for name in thresholds:
            if name not in known:
                raise ValidationError(
                    name, f"unknown audit threshold; accepted: {', '.join(sorted(known))}"
                )
        share = thresholds.get("admin_share", cls.admin_share)
        if isinstance(share, bool) or not isinstance(share, int | float) or not 0 <= share <= 1:
            raise ValidationError("admin_share", f"must be a number from 0 to 1, got {share!r}")
        most = thresholds.get("max_admins", cls.max_admins)
        if isinstance(most, bool) or not isinstance(most, int) or most < 1:
            raise ValidationError("max_admins", f"must be an integer of at least 1, got {most!r}")
        return cls(admin_share=float(share), max_admins=most)


@dataclass
class RuleContext:
    """What the rules look at, built from the crawled tables.

    Attributes
    ----------
    paths : DataFrame
        One row per way a user reaches a space: space_id, user_id, role (a name of
        :data:`ROLES`), rank, source (``"direct"`` or ``"team:<id>"``), team_id (None if direct).
    team_grants : DataFrame
        One row per team grant: space_id, team_id, role.
    space_titles : dict
        Space id → title, for every space of the organization.
    user_names, team_titles : dict
        Display names of users and titles of teams.
    member_roles : dict
        User id → organization role, ``"guest"`` for a guest member; absent for non-members.
    team_sizes : dict
        Team id → number of members found.
    incomplete_spaces : set
        Spaces whose permissions could not all be read; ``no_admin`` skips them.
    """

    paths: pd.DataFrame
    team_grants: pd.DataFrame
    space_titles: dict[str, str]
    user_names: dict[str, str]
    team_titles: dict[str, str]
    member_roles: dict[str, str]
    team_sizes: dict[str, int]
    incomplete_spaces: set[str] = field(default_factory=set)

    def finding(
        self,
        rule: str,
        detail: str,
        *,
        space_id: str | None = None,
        user_id: str | None = None,
        team_id: str | None = None,
    ) -> dict[str, object]:
        """One finding row for ``rule`` about a space and a user or a team."""
        principal_id: str | None
        name: str | None
        if team_id is not None:
            principal_id, name = team_id, self.team_titles.get(team_id, team_id)
        elif user_id is not None:
            principal_id, name = user_id, self.user_names.get(user_id, user_id)
        else:
            principal_id, name = None, None
        return {
            "severity": RULES[rule][0],
            "rule": rule,
            "space_id": space_id,
            "space_title": self.space_titles.get(space_id) if space_id else None,
            "principal_id": principal_id,
            "principal_name": name,
            "detail": detail,
        }

    def best_roles(self) -> pd.DataFrame:
        """The highest role per (space, user) over every path, with its rank."""
        if self.paths.empty:
            return pd.DataFrame(columns=["space_id", "user_id", "rank", "role"])
        best = self.paths.groupby(["space_id", "user_id"], as_index=False)["rank"].max()
        best["role"] = [ROLES[r] for r in best["rank"]]
        return best

    def admins_per_space(self) -> dict[str, int]:
        """Number of distinct admins of each space that has any."""
        best = self.best_roles()
        admins = best[best["role"] == "admin"]
        return admins.groupby("space_id")["user_id"].nunique().to_dict()


Finding = dict[str, object]


def _guest_write(ctx: RuleContext, _: AuditThresholds) -> Iterable[Finding]:
    best = ctx.best_roles()
    for row in best[best["role"].isin(WRITE_ROLES)].itertuples(index=False):
        status = ctx.member_roles.get(row.user_id)
        if status not in (None, "guest"):
            continue
        who = "a guest of the organization" if status == "guest" else "not a member of it"
        title = ctx.space_titles.get(row.space_id, row.space_id)
        yield ctx.finding(
            "guest_write",
            f"{ctx.user_names.get(row.user_id, row.user_id)} is {who} but has {row.role} "
            f"access to '{title}'. Lower the role to read or comment, or give them an "
            "organization role first.",
            space_id=row.space_id,
            user_id=row.user_id,
        )


def _former_member(ctx: RuleContext, _: AuditThresholds) -> Iterable[Finding]:
    direct = ctx.paths[ctx.paths["source"] == "direct"]
    for row in direct.itertuples(index=False):
        if row.user_id in ctx.member_roles:
            continue
        title = ctx.space_titles.get(row.space_id, row.space_id)
        yield ctx.finding(
            "former_member",
            f"{ctx.user_names.get(row.user_id, row.user_id)} is no longer a member of the "
            f"organization but still holds {row.role} access to '{title}'. Remove the grant.",
            space_id=row.space_id,
            user_id=row.user_id,
        )


def _admin_sprawl(ctx: RuleContext, limits: AuditThresholds) -> Iterable[Finding]:
    total = len(ctx.space_titles)
    if total == 0:
        return
    best = ctx.best_roles()
    counts = best[best["role"] == "admin"].groupby("user_id")["space_id"].nunique()
    for user_id, count in counts.sort_index().items():
        if count / total <= limits.admin_share:
            continue
        yield ctx.finding(
            "admin_sprawl",
            f"{ctx.user_names.get(user_id, user_id)} is admin on {count} of {total} spaces "
            f"({count / total:.0%}, above {limits.admin_share:.0%}). Keep admin where they "
            "manage the space and lower the others to create or edit.",
            user_id=user_id,
        )


def _no_admin(ctx: RuleContext, _: AuditThresholds) -> Iterable[Finding]:
    admins = ctx.admins_per_space()
    for space_id, title in ctx.space_titles.items():
        if admins.get(space_id) or space_id in ctx.incomplete_spaces:
            continue
        yield ctx.finding(
            "no_admin",
            f"'{title}' has no admin, directly or through a team. Make one responsible "
            "person admin so someone can manage its access.",
            space_id=space_id,
        )


def _too_many_admins(ctx: RuleContext, limits: AuditThresholds) -> Iterable[Finding]:
    for space_id, count in sorted(ctx.admins_per_space().items()):
        if count <= limits.max_admins:
            continue
        title = ctx.space_titles.get(space_id, space_id)
        yield ctx.finding(
            "too_many_admins",
            f"'{title}' has {count} admins counting team members (more than "
            f"{limits.max_admins}). Lower the role of those who only write content.",
            space_id=space_id,
        )


def _redundant_grant(ctx: RuleContext, _: AuditThresholds) -> Iterable[Finding]:
    via_team = ctx.paths[ctx.paths["source"] != "direct"]
    strongest: dict[tuple[str, str], tuple[int, str, str]] = {}
    for row in via_team.itertuples(index=False):
        key, held = (row.space_id, row.user_id), (row.rank, row.team_id, row.role)
        best = strongest.get(key)
        if best is None or (held[0], best[1]) > (best[0], held[1]):
            strongest[key] = held
    direct = ctx.paths[ctx.paths["source"] == "direct"]
    for row in direct.itertuples(index=False):
        team = strongest.get((row.space_id, row.user_id))
        if team is None or row.rank > team[0]:
            continue
        title = ctx.space_titles.get(row.space_id, row.space_id)
        team_title = ctx.team_titles.get(team[1], team[1])
        yield ctx.finding(
            "redundant_grant",
            f"{ctx.user_names.get(row.user_id, row.user_id)} has a direct {row.role} grant on "
            f"'{title}' but already gets {team[2]} there through team '{team_title}'. "
            "Remove the direct grant.",
            space_id=row.space_id,
            user_id=row.user_id,
        )


def _empty_team(ctx: RuleContext, _: AuditThresholds) -> Iterable[Finding]:
    for row in ctx.team_grants.itertuples(index=False):
        if ctx.team_sizes.get(row.team_id, 0) > 0:
            continue
        title = ctx.space_titles.get(row.space_id, row.space_id)
        team_title = ctx.team_titles.get(row.team_id, row.team_id)
        yield ctx.finding(
            "empty_team",
            f"Team '{team_title}' has {row.role} access to '{title}' but no members. "
            "Add members or remove the team from the space.",
            space_id=row.space_id,
            team_id=row.team_id,
        )


_CHECKS: dict[str, Callable[[RuleContext, AuditThresholds], Iterable[Finding]]] = {
    "guest_write": _guest_write,
    "former_member": _former_member,
    "admin_sprawl": _admin_sprawl,
    "no_admin": _no_admin,
    "too_many_admins": _too_many_admins,
    "redundant_grant": _redundant_grant,
    "empty_team": _empty_team,
}


def evaluate_rules(ctx: RuleContext, thresholds: AuditThresholds) -> pd.DataFrame:
    """Run every rule and return the findings, most severe first.

    Parameters
    ----------
    ctx : RuleContext
        Access paths and lookups of one organization.
    thresholds : AuditThresholds
        Limits of ``admin_sprawl`` and ``too_many_admins``.

    Returns
    -------
    DataFrame
        Columns :data:`FINDING_COLUMNS`; ``severity`` is an ordered categorical; rows sorted
        by severity (high first), then rule in :data:`RULES` order, space title and principal.
    """
    rows = [row for check in _CHECKS.values() for row in check(ctx, thresholds)]
    findings = pd.DataFrame(rows, columns=FINDING_COLUMNS, dtype=object)
    findings["severity"] = findings["severity"].astype(SEVERITY_DTYPE)
    findings["rule"] = findings["rule"].astype(pd.CategoricalDtype(list(RULES), ordered=True))
    findings = findings.sort_values(
        ["severity", "rule", "space_title", "principal_name"],
        ascending=[False, True, True, True],
        na_position="first",
        kind="stable",
    )
    findings["rule"] = findings["rule"].astype(str)
    return findings.reset_index(drop=True)
