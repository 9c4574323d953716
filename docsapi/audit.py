"""Permission audit of an organization: who can do what on which space, and what is wrong.

:func:`audit_permissions` crawls the organization (see :mod:`docsapi._audit_crawl`) and
:func:`analyze` turns the crawled tables into a :class:`PermissionAudit` without any
request, so the analysis is a pure function of DataFrames.

Tables of a :class:`PermissionAudit`:

``grants``
    The raw grants as the API lists them, one row per grant held on a space by a user or
    a team: space_id, space_title, principal_type (``"user"``/``"team"``), principal_id,
    principal_name, role. Team grants are *not* expanded here.
``effective``
    One row per (space, user) who can reach the space: space_id, space_title, user_id,
    display_name, member_role (organization role, ``"guest"`` or ``"non-member"``), role
    (the highest held directly or through any team), sources (``"; "``-joined
    ``"direct"`` and ``"team:<id>"``). With ``expand_teams=False`` only direct grants count.
``matrix``
    Users (rows, by display name) by spaces (columns, by title) of effective roles;
    missing where the user has no access.
``findings``
    One row per rule violation: severity, rule, space_id, space_title, principal_id,
    principal_name, detail. Most severe first.
``summary``
    Counts indexed by (category, item) with one column ``count``: category ``"totals"``,
    ``"role"`` (effective accesses per role), ``"principal_type"`` (grants per kind) and
    ``"severity"`` (findings per severity) and ``"rule"`` (findings per rule).
``errors``
    Spaces or teams that could not be read: space_id, team_id, stage, error_type, message.

Role columns use the ordered categorical :data:`ROLE_DTYPE` (guest < read < comment < edit
< review < create < admin), with ``"guest"`` for the API's ``None``: ``effective[effective.role
>= "edit"]`` selects everyone who can write.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from docsapi._audit_crawl import AuditData, crawl_organization
from docsapi._audit_rules import (
    ROLE_DTYPE,
    RULES,
    AuditThresholds,
    RuleContext,
    evaluate_rules,
    role_rank,
)
from docsapi.errors import ValidationError

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from docsapi.client import DocsClient

__all__ = [
    "ROLE_DTYPE",
    "AuditData",
    "AuditThresholds",
    "PermissionAudit",
    "analyze",
    "audit_permissions",
]

GRANT_COLUMNS = [
    "space_id",
    "space_title",
    "principal_type",
    "principal_id",
    "principal_name",
    "role",
    "source",
]
EFFECTIVE_COLUMNS = [
    "space_id",
    "space_title",
    "user_id",
    "display_name",
    "member_role",
    "role",
    "sources",
]


@dataclass(repr=False)
class PermissionAudit:
    """The result of a permission audit; see the module docstring for each table.

    Attributes
    ----------
    org_id : str
        The organization audited.
    grants, effective, matrix, findings, summary, errors : DataFrame
        The audit's tables.
    thresholds : AuditThresholds
        The limits the rules used.
    data : AuditData
        The raw crawled tables the audit was computed from.
    """

    org_id: str
    grants: pd.DataFrame
    effective: pd.DataFrame
    matrix: pd.DataFrame
    findings: pd.DataFrame
    summary: pd.DataFrame
    errors: pd.DataFrame
    thresholds: AuditThresholds
    data: AuditData

    def tables(self) -> dict[str, pd.DataFrame]:
        """The audit's tables by name, in report order."""
        return {
            "summary": self.summary,
            "findings": self.findings,
            "effective": self.effective,
            "grants": self.grants,
            "matrix": self.matrix,
            "errors": self.errors,
        }

    def plot(self) -> dict[str, Figure]:
        """Draw the audit's charts; see :func:`docsapi.plots.plot_audit`."""
        from docsapi.plots import plot_audit

        return plot_audit(self)

    def to_html(self, path: str | Path) -> Path:
        """Write a self-contained HTML report; see :func:`docsapi.report.write_html`."""
        from docsapi.report import write_html

        return write_html(self, path)

    def to_excel(self, path: str | Path) -> Path:
        """Write one sheet per table; see :func:`docsapi.report.write_excel`."""
        from docsapi.report import write_excel

        return write_excel(self, path)

    def to_csv(self, folder: str | Path) -> list[Path]:
        """Write one CSV per table into ``folder``; see :func:`docsapi.report.write_csv`."""
        from docsapi.report import write_csv

        return write_csv(self, folder)

    def count(self, item: str, category: str = "totals") -> int:
        """One number of the summary, 0 when absent: ``audit.count("high", "severity")``."""
        try:
            return int(self.summary.loc[(category, item), "count"])
        except KeyError:
            return 0

    def __repr__(self) -> str:
        return (
            f"PermissionAudit(org_id={self.org_id!r}, spaces={self.count('spaces')}, "
            f"users={self.count('users')}, grants={self.count('grants')}, "
            f"findings={self.count('findings')}, errors={self.count('errors')})"
        )

    def _repr_html_(self) -> str:
        from docsapi.report import notebook_html

        return notebook_html(self)


def audit_permissions(
    client: DocsClient,
    org_id: str,
    *,
    expand_teams: bool = True,
    max_workers: int = 8,
    progress: bool = True,
    **thresholds: float,
) -> PermissionAudit:
    """Audit who can access every space of an organization, and flag what is wrong.

    Parameters
    ----------
    client : DocsClient
        A client whose token can read the organization's members, teams and permissions.
    org_id : str
        The organization's id.
    expand_teams : bool
        Include access users get through teams in ``.effective`` and ``.matrix``. The
        findings always account for teams.
    max_workers : int
        Number of concurrent requests (at least 1).
    progress : bool
        Show a progress bar ("Auditing spaces").
    **thresholds
        Rule limits: ``admin_share`` (default 0.5) and ``max_admins`` (default 5).

    Returns
    -------
    PermissionAudit
        The tables, findings and report writers.

    Raises
    ------
    ValidationError
        For a bad argument, before any request is sent.
    docsapi.errors.APIStatusError
        When the organization itself cannot be read (401, 403, 404). A single space that
        cannot be read is recorded in ``.errors`` instead.

    Examples
    --------
    >>> from docsapi.sandbox import Sandbox
    >>> with Sandbox() as sb:                                   # doctest: +SKIP
    ...     audit = audit_permissions(sb.client(), sb.org_id, progress=False)
    ...     audit.findings.groupby("rule").size()
    """
    if not isinstance(org_id, str) or not org_id.strip():
        raise ValidationError("org_id", "pass the organization's id as a non-empty string")
    if isinstance(max_workers, bool) or not isinstance(max_workers, int) or max_workers < 1:
        raise ValidationError(
            "max_workers", f"must be an integer of at least 1, got {max_workers!r}"
        )
    limits = AuditThresholds.from_kwargs(**thresholds)
    data = crawl_organization(client, org_id, max_workers=max_workers, progress=bool(progress))
    return analyze(data, expand_teams=expand_teams, thresholds=limits)


def analyze(
    data: AuditData, *, expand_teams: bool = True, thresholds: AuditThresholds | None = None
) -> PermissionAudit:
    """Compute an audit from crawled tables, without any request.

    Parameters
    ----------
    data : AuditData
        The organization's raw tables (client DataFrame schemas).
    expand_teams : bool
        Include access through teams in ``.effective`` and ``.matrix``.
    thresholds : AuditThresholds, optional
        Rule limits; the defaults when omitted.

    Returns
    -------
    PermissionAudit

    Examples
    --------
    >>> audit = analyze(data)                                   # doctest: +SKIP
    >>> audit.findings[audit.findings.rule == "no_admin"]       # doctest: +SKIP
    """
    limits = thresholds or AuditThresholds()
    ctx = _rule_context(data)
    paths = ctx.paths if expand_teams else ctx.paths[ctx.paths["source"] == "direct"]
    grants = _grants_table(data, ctx)
    effective = _effective_table(paths, ctx)
    findings = evaluate_rules(ctx, limits)
    return PermissionAudit(
        org_id=data.org_id,
        grants=grants,
        effective=effective,
        matrix=_matrix_table(effective, ctx),
        findings=findings,
        summary=_summary_table(data, grants, effective, findings, data.errors),
        errors=data.errors,
        thresholds=limits,
        data=data,
    )


def _roles(series: pd.Series) -> pd.Series:
    """API roles (None for guest) as role names of ROLE_DTYPE's categories."""
    return series.astype(object).where(series.notna(), "guest")


def _first_names(*pairs: tuple[pd.Series, pd.Series]) -> dict[str, str]:
    names: dict[str, str] = {}
    for ids, labels in pairs:
        for key, label in zip(ids, labels, strict=True):
            if isinstance(label, str) and label and key not in names:
                names[key] = label
    return names


def _access_paths(data: AuditData) -> pd.DataFrame:
    """Every way a user reaches a space: directly, or as a member of a team with a grant."""
    direct = pd.DataFrame(
        {
            "space_id": data.user_grants["space_id"].astype(object),
            "user_id": data.user_grants["user_id"].astype(object),
            "role": _roles(data.user_grants["role"]),
            "source": "direct",
            "team_id": None,
        }
    )
    memberships = data.team_members[["team_id", "user_id"]].astype(object).drop_duplicates()
    teams = data.team_grants[["space_id", "team_id", "role"]].astype(object)
    via_team = teams.merge(memberships, on="team_id", how="inner")
    via_team = pd.DataFrame(
        {
            "space_id": via_team["space_id"],
            "user_id": via_team["user_id"],
            "role": _roles(via_team["role"]),
            "source": "team:" + via_team["team_id"].astype(str),
            "team_id": via_team["team_id"],
        }
    )
    paths = pd.concat(
        [frame for frame in (direct, via_team) if not frame.empty] or [direct], ignore_index=True
    )
    paths["rank"] = [role_rank(role) for role in paths["role"]]
    return paths


def _rule_context(data: AuditData) -> RuleContext:
    members = data.members
    member_roles = dict(zip(members["user_id"], _roles(members["role"]), strict=True))
    team_sizes = data.team_members.groupby("team_id")["user_id"].nunique().to_dict()
    incomplete = set(data.errors["space_id"].dropna()) if not data.errors.empty else set()
    return RuleContext(
        paths=_access_paths(data),
        team_grants=data.team_grants[["space_id", "team_id", "role"]].assign(
            role=lambda frame: _roles(frame["role"])
        ),
        space_titles=dict(zip(data.spaces["id"], data.spaces["title"], strict=True)),
        user_names=_first_names(
            (members["user_id"], members["display_name"]),
            (data.user_grants["user_id"], data.user_grants["display_name"]),
            (data.team_members["user_id"], data.team_members["display_name"]),
        ),
        team_titles=_first_names(
            (data.teams["id"], data.teams["title"]),
            (data.team_grants["team_id"], data.team_grants["title"]),
        ),
        member_roles=member_roles,
        team_sizes=team_sizes,
        incomplete_spaces=incomplete,
    )


def _grants_table(data: AuditData, ctx: RuleContext) -> pd.DataFrame:
    users = pd.DataFrame(
        {
            "space_id": data.user_grants["space_id"].astype(object),
            "principal_type": "user",
            "principal_id": data.user_grants["user_id"].astype(object),
            "role": _roles(data.user_grants["role"]),
            "source": "direct",
        }
    )
    teams = pd.DataFrame(
        {
            "space_id": data.team_grants["space_id"].astype(object),
            "principal_type": "team",
            "principal_id": data.team_grants["team_id"].astype(object),
            "role": _roles(data.team_grants["role"]),
            "source": "team:" + data.team_grants["team_id"].astype(str),
        }
    )
    grants = pd.concat([f for f in (users, teams) if not f.empty] or [users], ignore_index=True)
    names = {**ctx.user_names, **ctx.team_titles}
    grants["space_title"] = grants["space_id"].map(ctx.space_titles)
    grants["principal_name"] = grants["principal_id"].map(names)
    grants["role"] = grants["role"].astype(ROLE_DTYPE)
    grants = grants.sort_values(
        ["space_title", "principal_type", "principal_name"],
        ascending=[True, False, True],
        kind="stable",
    )
    return grants[GRANT_COLUMNS].reset_index(drop=True)


def _sources_by_pair(paths: pd.DataFrame) -> dict[tuple[str, str], str]:
    """``"; "``-joined sources per (space, user): ``"direct"`` first, then teams by id."""
    found: dict[tuple[str, str], set[str]] = {}
    for space_id, user_id, source in zip(
        paths["space_id"], paths["user_id"], paths["source"], strict=True
    ):
        found.setdefault((space_id, user_id), set()).add(source)
    return {
        pair: "; ".join(sorted(sources, key=lambda source: (source != "direct", source)))
        for pair, sources in found.items()
    }


def _effective_table(paths: pd.DataFrame, ctx: RuleContext) -> pd.DataFrame:
    if paths.empty:
        effective = pd.DataFrame(columns=EFFECTIVE_COLUMNS)
        effective["role"] = effective["role"].astype(ROLE_DTYPE)
        return effective
    effective = paths.groupby(["space_id", "user_id"], sort=False)["rank"].max().reset_index()
    sources = _sources_by_pair(paths)
    effective["sources"] = [
        sources[pair] for pair in zip(effective["space_id"], effective["user_id"], strict=True)
    ]
    effective["space_title"] = effective["space_id"].map(ctx.space_titles)
    effective["display_name"] = effective["user_id"].map(ctx.user_names)
    effective["member_role"] = [
        ctx.member_roles.get(user_id, "non-member") for user_id in effective["user_id"]
    ]
    effective["role"] = pd.Categorical.from_codes(effective["rank"], dtype=ROLE_DTYPE)
    effective = effective.sort_values(["space_title", "display_name", "user_id"], kind="stable")
    return effective[EFFECTIVE_COLUMNS].reset_index(drop=True)


def _unique_labels(ids: list[str], names: dict[str, str]) -> dict[str, str]:
    """A readable label per id: its name, with the id added when the name is not unique."""
    labels = {key: names.get(key) or key for key in ids}
    counts = pd.Series(list(labels.values())).value_counts()
    return {
        key: label if counts[label] == 1 else f"{label} ({key})" for key, label in labels.items()
    }


def _matrix_table(effective: pd.DataFrame, ctx: RuleContext) -> pd.DataFrame:
    space_labels = _unique_labels(list(ctx.space_titles), ctx.space_titles)
    user_labels = _unique_labels(list(dict.fromkeys(effective["user_id"])), ctx.user_names)
    columns = sorted(space_labels.values(), key=str.casefold)
    rows = sorted(user_labels.values(), key=str.casefold)
    codes = pd.DataFrame(
        {
            "user": effective["user_id"].map(user_labels),
            "space": effective["space_id"].map(space_labels),
            "code": effective["role"].cat.codes,
        }
    )
    grid = codes.pivot(index="user", columns="space", values="code")
    grid = grid.reindex(index=rows, columns=columns).fillna(-1).astype(int)
    matrix = pd.DataFrame(
        {label: pd.Categorical.from_codes(grid[label], dtype=ROLE_DTYPE) for label in columns},
        index=pd.Index(rows, name="user"),
    )
    matrix.columns.name = "space"
    return matrix


def _summary_table(
    data: AuditData,
    grants: pd.DataFrame,
    effective: pd.DataFrame,
    findings: pd.DataFrame,
    errors: pd.DataFrame,
) -> pd.DataFrame:
    totals = {
        "spaces": len(data.spaces),
        "users": effective["user_id"].nunique(),
        "members": len(data.members),
        "teams": len(data.teams),
        "grants": len(grants),
        "findings": len(findings),
        "errors": len(errors),
    }
    roles = effective["role"].value_counts().reindex(list(reversed(ROLE_DTYPE.categories)))
    kinds = grants["principal_type"].value_counts().reindex(["user", "team"], fill_value=0)
    severities = findings["severity"].value_counts().reindex(["high", "medium", "low"])
    rules = findings["rule"].value_counts().reindex(list(RULES), fill_value=0)
    parts = {
        "totals": pd.Series(totals),
        "role": roles.fillna(0),
        "principal_type": kinds,
        "severity": severities.fillna(0),
        "rule": rules,
    }
    summary = pd.concat(parts, names=["category", "item"]).astype(int).to_frame("count")
    return summary
