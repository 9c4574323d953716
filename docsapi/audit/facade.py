"""Permission audit of an organization: who can reach which space, by which path, and what is wrong.

:func:`audit_permissions` crawls the organization (:mod:`docsapi.audit.crawl`) into raw
tables (:class:`AuditData`, declared in :mod:`docsapi.audit.data`), and :func:`analyze`
turns them into a :class:`PermissionAudit` without any request:

- :mod:`docsapi.audit.resolve` resolves every path of ``docs/access-model.md`` (organization
  admins, default levels up collection chains, direct, team, collection and collection-team
  permissions, sites' permissions and default levels, creators of "No access" content) on
  integer codes, with array operations only, and combines them under a rule set
  (``precedence``, the default, or ``highest``);
- :mod:`docsapi.audit.rule_set_check` compares both rule sets with the platform's aggregate;
- :mod:`docsapi.audit.coverage` judges what the token could not see and marks what depends
  on it;
- :mod:`docsapi.audit.provenance` joins the organization's audit log to the settings it
  changed: who made each grant and path, and when;
- :mod:`docsapi.audit.rules` holds the rules, registered once;
- :mod:`docsapi.audit.tables` builds the public tables.

The tables and their columns are the contract of ``docs/audit-tables.md``: ``grants``,
``paths``, ``effective``, ``exposure``, ``findings``, ``coverage``, ``errors``,
``aggregate_mismatches``, ``rule_set_matches``, ``summary``, ``matrix``, ``provenance`` and
``events``. Role columns use the ordered categorical :data:`ROLE_DTYPE` (guest < read < comment
< edit < review <
create < admin):
``audit.effective[audit.effective.role >= "edit"]`` selects everyone who can write.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from datetime import datetime, timedelta
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import pandas as pd

from docsapi.audit import tables as tables_
from docsapi.audit.coverage import Gaps, coverage_table, find_gaps, is_complete
from docsapi.audit.crawl import client_now, crawl_organization
from docsapi.audit.data import ROLE_DTYPE, AuditData
from docsapi.audit.log_window import known_creators, log_start_after, with_earlier_events
from docsapi.audit.provenance import PROVENANCE_COLUMNS, Provenance
from docsapi.audit.resolve import (
    COLLECTION_TEAM,
    DEFAULT_RULE_SET,
    SITE_TEAM,
    TEAM,
    Effective,
    Resolution,
    check_rule_set,
    effective_access,
    path_keys,
    resolve,
)
from docsapi.audit.rule_set_check import empty_rule_set_matches, rule_set_matches, verdict
from docsapi.audit.rules import RULES, AuditThresholds, RuleContext, evaluate_rules
from docsapi.core.audit_actions import action_settings
from docsapi.core.checks import check_entity_id, check_moment
from docsapi.core.config import ReadBounds
from docsapi.core.reprs import safe_display
from docsapi.errors import ValidationError

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from docsapi.audit.diff.access_diff import AccessDiff
    from docsapi.audit.snapshot.files import SnapshotInfo
    from docsapi.audit.snapshot.store import StoredAudit
    from docsapi.client import DocsClient

__all__ = [
    "EVENT_WINDOW",
    "ROLE_DTYPE",
    "AuditData",
    "AuditThresholds",
    "PermissionAudit",
    "analyze",
    "audit_permissions",
    "load_audit",
]


#: How far back the audit log is read when neither ``events_since`` nor ``previous`` says.
EVENT_WINDOW = timedelta(days=365)

#: The columns of :meth:`PermissionAudit.explain`, in order.
EXPLAIN_COLUMNS = [
    "space_id",
    "space_title",
    "user_id",
    "display_name",
    "member_role",
    "role",
    "kind",
    "source",
    "source_name",
    "collection_id",
    "collection_title",
    "team_id",
    "team_title",
    "site_id",
    "site_title",
    "level",
    "status",
    *PROVENANCE_COLUMNS,
]


class _Names(NamedTuple):
    """Ids and names of an audit's spaces, users, collections and teams."""

    spaces: pd.DataFrame  # id, name
    users: pd.DataFrame  # id, name, email, member_role
    collections: dict[str, str]  # id -> title
    teams: dict[str, str]  # id -> title
    sites: dict[str, str]  # id -> title


class PermissionAudit:
    """The result of a permission audit; the tables are described in ``docs/audit-tables.md``.

    Attributes
    ----------
    org_id, org_name : str
        The organization audited.
    generated_at : Timestamp
        When the crawl finished (UTC).
    thresholds : AuditThresholds
        The limits the rules used.
    complete : bool
        True only if every read succeeded and the token could see the whole organization;
        ``coverage`` says what is missing otherwise.
    model : str
        The rule set the access was combined with: ``precedence`` or ``highest``.
    data : AuditData
        The raw crawled tables the audit was computed from.
    grants, paths, effective, exposure, findings, coverage, errors, aggregate_mismatches,
    rule_set_matches, summary, matrix, provenance, events : DataFrame
        The audit's tables. ``paths``, ``matrix`` and ``provenance`` are computed on first
        access. ``grants``, ``paths`` and ``findings`` say who made each (``granted_by``,
        ``granted_at``, ``granted_via``, ``event_id``, ``provenance``); ``provenance`` lists
        every access setting with its last event, ``events`` the audit log as read.
    snapshot : SnapshotInfo or None
        The snapshot the audit was loaded from or last saved to (see :meth:`save`).
    """

    snapshot: SnapshotInfo | None = None
    #: The earlier audit given to :func:`audit_permissions` (its report says what changed).
    previous: PermissionAudit | None = None

    def __init__(
        self,
        data: AuditData,
        *,
        thresholds: AuditThresholds,
        resolution: Resolution | None,
        full: Effective | None,
        shown: Effective | None,
        grants: pd.DataFrame,
        effective: pd.DataFrame,
        exposure: pd.DataFrame,
        findings: pd.DataFrame,
        coverage: pd.DataFrame,
        aggregate_mismatches: pd.DataFrame,
        summary: pd.DataFrame,
        model: str = DEFAULT_RULE_SET,
        rule_set_matches: pd.DataFrame | None = None,
        provenance: Provenance | None = None,
    ) -> None:
        self.data = data
        self.org_id = data.org_id
        self.org_name = data.org_name
        self.generated_at = data.generated_at
        self.thresholds = thresholds
        self.grants = grants
        self.effective = effective
        self.exposure = exposure
        self.findings = findings
        self.coverage = coverage
        self.errors = data.errors
        self.aggregate_mismatches = aggregate_mismatches
        self.summary = summary
        self.model = model
        self.rule_set_matches = (
            rule_set_matches if rule_set_matches is not None else empty_rule_set_matches()
        )
        self.complete = is_complete(coverage)
        self._resolution = resolution
        self._full = full
        self._shown = shown
        self._log = provenance or Provenance.of(data, failed="audit_log" in find_gaps(data).lost)

    @classmethod
    def _from_stored(cls, stored: StoredAudit) -> PermissionAudit:
        """The audit a snapshot holds, its stored tables as they are (none recomputed)."""
        tables = stored.tables
        audit = cls(
            stored.data,
            thresholds=stored.thresholds,
            resolution=None,  # the stored tables need no resolution
            full=None,
            shown=None,
            grants=tables["grants"],
            effective=tables["effective"],
            exposure=tables["exposure"],
            findings=tables["findings"],
            coverage=tables["coverage"],
            aggregate_mismatches=tables["aggregate_mismatches"],
            summary=tables["summary"],
            model=stored.model,
            rule_set_matches=tables["rule_set_matches"],
        )
        audit.errors = tables["errors"]
        audit.__dict__["paths"] = tables["paths"]  # the values of the cached properties
        audit.__dict__["matrix"] = tables["matrix"]
        audit.__dict__["provenance"] = tables["provenance"]
        audit.snapshot = stored.info
        return audit

    @cached_property
    def paths(self) -> pd.DataFrame:
        """Every way a user reaches a space (computed on first access)."""
        assert self._resolution is not None and self._full is not None  # set unless stored
        return tables_.paths_table(self._resolution, self._full, self._log)

    @cached_property
    def matrix(self) -> pd.DataFrame:
        """Users x spaces of effective roles (computed on first access)."""
        assert self._resolution is not None and self._shown is not None  # set unless stored
        return tables_.matrix_table(self._resolution, self._shown)

    @cached_property
    def provenance(self) -> pd.DataFrame:
        """Every access setting with the last event that made it (computed on first access).

        One row per grant, member's organization role, default level, published site, share
        link, invite link and team membership: ``setting``, what and who it is about, its
        ``value``, and ``granted_by``, ``granted_at``, ``granted_via``, ``event_id``,
        ``provenance``, ``action`` (see :mod:`docsapi.audit.provenance`).
        """
        return self._log.settings(self.grants)

    @property
    def events(self) -> pd.DataFrame:
        """The organization's audit log as read, newest first, with the setting each event
        changed (``setting``, ``key``, ``removal``); empty when the log was not read."""
        return self._log.events

    def timeline(self, freq: str = "W", by: str = "action") -> pd.DataFrame:
        """Changes of access per week (``freq="W"``) or month (``"M"``), one column per
        ``action`` or ``actor``; see :func:`docsapi.audit.report.plots.timeline_counts`.

        Examples
        --------
        >>> monthly = audit.timeline("M", by="actor")  # one row a month, one column a person
        >>> int(monthly.to_numpy().sum()) == int(audit.events["setting"].notna().sum())
        True
        """
        from docsapi.audit.report.plots import timeline_counts

        return timeline_counts(self.events, freq=freq, by=by)

    @property
    def incomplete(self) -> pd.DataFrame:
        """The coverage items that are not complete (empty for a complete audit)."""
        return self.coverage[~self.coverage["complete"].to_numpy(dtype=bool)]

    def tables(self) -> dict[str, pd.DataFrame]:
        """The audit's tables by name, in report order."""
        return {
            "summary": self.summary,
            "coverage": self.coverage,
            "findings": self.findings,
            "effective": self.effective,
            "paths": self.paths,
            "exposure": self.exposure,
            "grants": self.grants,
            "aggregate_mismatches": self.aggregate_mismatches,
            "rule_set_matches": self.rule_set_matches,
            "matrix": self.matrix,
            "provenance": self.provenance,
            "events": self.events,
            "errors": self.errors,
        }

    @property
    def verdict(self) -> str:
        """One sentence: which rule set the platform's own aggregate matches (see
        :func:`docsapi.audit.rule_set_check.verdict`)."""
        return verdict(self.rule_set_matches, self.model)

    def plot(self) -> dict[str, Figure]:
        """Draw the audit's charts; see :func:`docsapi.audit.report.plots.plot_audit`."""
        from docsapi.audit.report.plots import plot_audit

        return plot_audit(self)

    def to_html(
        self,
        path: str | Path,
        *,
        previous: PermissionAudit | str | os.PathLike[str] | None = None,
    ) -> Path:
        """Write a self-contained HTML report; see :func:`docsapi.audit.report.html.write_html`.

        Parameters
        ----------
        path : str or Path
            The file to write.
        previous : PermissionAudit or path, optional
            An earlier audit of the organization (or its snapshot folder): the report's
            first screen then says what changed since. Default: the ``previous`` given to
            :func:`audit_permissions`, if any.
        """
        from docsapi.audit.report.html import write_html

        earlier = self.previous if previous is None else _previous(previous, self.org_id)
        return write_html(self, path, None if earlier is None else self.diff(earlier))

    def to_excel(self, path: str | Path) -> Path:
        """Write one sheet per table; see :func:`docsapi.audit.report.html.write_excel`."""
        from docsapi.audit.report.html import write_excel

        return write_excel(self, path)

    def to_csv(self, folder: str | Path) -> list[Path]:
        """Write one CSV per table into ``folder``; see :func:`.report.html.write_csv`."""
        from docsapi.audit.report.html import write_csv

        return write_csv(self, folder)

    def save(self, path: str | Path, *, overwrite: bool = False) -> Path:
        """Write a snapshot folder that ``docsapi.load_audit`` reads back into an equal audit.

        See :func:`docsapi.audit.snapshot.store.save_audit`; afterwards ``.snapshot`` describes it.
        """
        from docsapi.audit.snapshot.store import read_info, save_audit

        teams = self._shown is self._full if self.snapshot is None else self.snapshot.expand_teams
        folder = save_audit(self, path, overwrite=overwrite, expand_teams=teams)
        self.snapshot = read_info(folder)
        return folder

    def diff(self, previous: PermissionAudit) -> AccessDiff:
        """What changed since ``previous``, an earlier audit of the same organization.

        See :func:`docsapi.audit.diff.access_diff.diff_audits`.
        """
        from docsapi.audit.diff.access_diff import diff_audits

        return diff_audits(previous, self)

    def explain(self, space: str, user: str) -> pd.DataFrame:
        """Every path by which ``user`` reaches ``space``, with names beside ids.

        The answer to "why can this person do that here?": one row per path of ``paths``
        (organization admin, default level, direct, team, collection, collection-team, site,
        site-team, site default level, creator), each with the role it gives, its ``level``
        (space, site, collection, organization), its ``status`` under the audit's rule set
        (``decides``, ``lower``: another path of the deciding level gives more,
        ``overridden``: a nearer level decided), the grant a change would touch
        (``collection_id`` / ``team_id`` / ``site_id`` and their titles) and who opened it,
        when (``granted_by``, ``granted_at``, ``granted_via``, ``event_id``, ``provenance``:
        see :mod:`docsapi.audit.provenance`), the paths that decide first. When every path is
        overridden, a first row names the default level that decided, giving ``guest`` (no
        access).

        Parameters
        ----------
        space : str
            The space's id or its title (a title shared by several spaces is refused: pass
            the id).
        user : str
            The user's id, display name or email (a name shared by several users is
            refused: pass the id).

        Returns
        -------
        DataFrame
            Columns ``space_id``, ``space_title``, ``user_id``, ``display_name``,
            ``member_role``, ``role``, ``kind``, ``source``, ``source_name``,
            ``collection_id``, ``collection_title``, ``team_id``, ``team_title``,
            ``site_id``, ``site_title``, ``level``, ``status`` and the provenance columns.
            Empty when the user reaches the space by no path (a disabled member reaches
            nothing: their grants are in ``grants``).

        Raises
        ------
        ValidationError
            When ``space`` is not an active space of the audited organization, or ``user``
            is no user the audit saw (a member, or someone holding a permission), or either
            is ambiguous.

        Examples
        --------
        >>> why = audit.explain("Onboarding handbook", guest_id)  # titles, names, ids, emails
        >>> why[["kind", "source_name", "role"]]
             kind source_name  role
        0  direct      direct  edit
        """
        names = self._names
        space_id, space_title = _pick("space", space, names.spaces)
        user_id, display_name = _pick("user", user, names.users)
        paths = self.paths
        mask = (paths["space_id"] == space_id).to_numpy(dtype=bool) & (
            paths["user_id"] == user_id
        ).to_numpy(dtype=bool)
        text = [column for column in paths.columns if column not in ("role", "granted_at")]
        rows = paths[mask].astype(dict.fromkeys(text, "string")).reset_index(drop=True)
        member_role = names.users.set_index("id")["member_role"].get(user_id)

        def repeated(value: str | None) -> pd.Series:
            return pd.Series(value, index=rows.index, dtype="string")

        if len(rows) and (rows["status"] == "overridden").all():
            rows = pd.concat([self._no_access_row(space_id, user_id), rows], ignore_index=True)
        frame = rows.assign(
            space_title=repeated(space_title),
            display_name=repeated(display_name),
            member_role=repeated(member_role),
            collection_title=rows["collection_id"].map(names.collections).astype("string"),
            team_title=rows["team_id"].map(names.teams).astype("string"),
            site_title=rows["site_id"].map(names.sites).astype("string"),
        )
        return frame[EXPLAIN_COLUMNS]

    def _no_access_row(self, space_id: str, user_id: str) -> pd.DataFrame:
        """The default level that decided for a user none of whose paths counts, as a row of
        ``paths`` giving ``guest`` (no access)."""
        resolution = self._resolution if self._resolution is not None else resolve(self.data)
        decided = tables_.deciding_default(resolution, space_id) or {}
        row: dict[str, object] = dict.fromkeys(self.paths.columns)
        row.update(decided, space_id=space_id, user_id=user_id, role="guest", status="decides")
        return pd.DataFrame([row]).astype("string").astype({"role": ROLE_DTYPE})

    @cached_property
    def _names(self) -> _Names:
        """The names :meth:`explain` looks ids up by (computed on first use)."""
        data = self.data
        spaces = data.spaces[data.spaces["deleted_at"].isna().to_numpy(dtype=bool)]
        members = data.members
        # Users who are no longer members are known by their permissions only.
        granted = data.user_permissions[["user_id", "display_name", "email"]].drop_duplicates(
            "user_id"
        )
        users = pd.concat(
            [
                pd.DataFrame(
                    {
                        "id": members["user_id"],
                        "name": members["display_name"],
                        "email": members["email"],
                        "member_role": members["role"].astype("string").fillna("guest"),
                    }
                ).astype("string"),
                pd.DataFrame(
                    {
                        "id": granted["user_id"],
                        "name": granted["display_name"],
                        "email": granted["email"],
                        "member_role": "non-member",
                    }
                ).astype("string"),
            ],
            ignore_index=True,
        )
        teams = data.team_permissions[["team_id", "title"]].drop_duplicates("team_id")
        return _Names(
            spaces=pd.DataFrame({"id": spaces["id"], "name": spaces["title"]}).astype("string"),
            users=users.dropna(subset=["id"]).drop_duplicates("id").reset_index(drop=True),
            collections=_titles(data.collections["id"], data.collections["title"]),
            teams=_titles(
                pd.concat([data.teams["id"], teams["team_id"].astype("string")]),
                pd.concat([data.teams["title"], teams["title"].astype("string")]),
            ),
            sites=_titles(data.sites["id"], data.sites["title"]),
        )

    def count(self, item: str, category: str = "totals") -> int:
        """One number of the summary, 0 when absent: ``audit.count("high", "severity")``."""
        try:
            return int(self.summary["count"].to_dict()[(category, item)])
        except KeyError:
            return 0

    @safe_display
    def __repr__(self) -> str:
        state = "complete" if self.complete else "PARTIAL"
        return (
            f"PermissionAudit(org_id={self.org_id!r}, {state}, spaces={self.count('spaces')}, "
            f"users={self.count('users')}, grants={self.count('grants')}, "
            f"findings={self.count('findings')}, errors={self.count('errors')})"
        )

    @safe_display
    def _repr_html_(self) -> str:
        from docsapi.audit.report.html import notebook_html

        return notebook_html(self)


def audit_permissions(
    client: DocsClient,
    org_id: str,
    *,
    expand_teams: bool = True,
    max_workers: int = 8,
    progress: bool = True,
    model: str = DEFAULT_RULE_SET,
    read_log: bool = True,
    events_since: datetime | str | timedelta | None = None,
    previous: PermissionAudit | str | os.PathLike[str] | None = None,
    log_actions: Mapping[str, str] | None = None,
    read_bounds: ReadBounds | None = None,
    **thresholds: float,
) -> PermissionAudit:
    """Audit who can access every space of an organization, who opened it, and what is wrong.

    Parameters
    ----------
    client : DocsClient
        A client whose token can read the organization's members, teams and permissions;
        only an organization admin's token sees everything (otherwise the audit says it
        is partial: see ``.complete`` and ``.coverage``).
    org_id : str
        The organization's id.
    expand_teams : bool
        Include access users get through teams (on spaces and on collections) in
        ``.effective`` and ``.matrix``. The findings always account for every path.
    max_workers : int
        Number of concurrent requests (at least 1).
    progress : bool
        Show one progress bar per phase, named for what it reads ("access of 30 spaces",
        "members of 5 teams", ..., "the audit log in 5 reads").
    model : str
        How the levels of access combine (``docs/access-model.md``): ``"precedence"`` (the
        platform's documentation since 2026-05-31: the nearest level with a say decides) or
        ``"highest"`` (its earlier version: the highest role over every path). Both are
        compared with the platform's aggregate either way (``.rule_set_matches``,
        ``.verdict``).
    read_log : bool
        Read the organization's audit log (once, paged, alongside the other reads) and say
        who made each grant and path, and when (:mod:`docsapi.audit.provenance`); and read
        who created each space and collection (content set to No access keeps its creator).
        A token that cannot read the log makes the audit partial (``coverage`` says so).
        False reads no log: provenance and creators are then "unknown".
    events_since : datetime, str or timedelta, optional
        Where the log read starts: a moment with a time zone (datetime or ISO 8601 text),
        or how far back from now. Default: ``previous``'s newest event when given, else
        :data:`EVENT_WINDOW` (365 days) back.
    previous : PermissionAudit or path, optional
        An earlier audit of the organization (or its snapshot folder): the log is read only
        from the newest event it holds, its events are kept (provenance reaches back as far
        as its did), and its creators are kept instead of reading the log's create actions
        before that again (:mod:`docsapi.audit.log_window`). An earlier audit whose log
        could not be read lends nothing. The audit keeps it as ``.previous``, and its report
        says what changed since.
    log_actions : mapping of str to str, optional
        More audit-log action IDs for provenance, each with the kind of access setting its
        events change (``"grant"``, ``"org-role"``, ``"default-level"``, ``"published"``,
        ``"visibility"``, ``"share-link"``, ``"invite-link"``, ``"team-member"``,
        ``"parent"``; see ``docs/provenance.md``), such as ``{"space.member.invited":
        "grant"}``: for actions the platform logs that docsapi's list lacks (the coverage row
        ``audit log actions`` names the actions seen and not used). They extend, or replace,
        the mapping of ``docsapi.core.audit_actions``.
    read_bounds : ReadBounds, optional
        How far each paged read (the log's and every list's) may go: pages and items per
        read, and seconds for the whole crawl (default ``docsapi.ReadBounds()``, which covers
        20,000 spaces and a year of a large organization's log). A read that reaches one
        stops, and the audit is partial: ``coverage``'s row ``reads stopped at a bound``
        names the read, where it stopped and why. Raise them for a larger organization, e.g.
        ``read_bounds=docsapi.ReadBounds(pages=100_000)``.
    **thresholds
        Rule limits (see :class:`AuditThresholds`): ``admin_share`` (0.5), ``max_admins``
        (5), ``inactive_days`` (90), ``share_link_max_age_days`` (90),
        ``guest_collection_spaces`` (5).

    Returns
    -------
    PermissionAudit
        The tables, findings and report writers.

    Raises
    ------
    ValidationError
        For a bad argument (a moment without a time zone, a ``previous`` of another
        organization), before any request is sent.
    docsapi.errors.APIStatusError
        When the organization's spaces, members or teams cannot be read (401, 403, 404).
        A single space or team that cannot be read is recorded in ``.errors`` instead, and
        what depends on it is marked incomplete.

    Examples
    --------
    >>> from docsapi.sandbox import Sandbox
    >>> with Sandbox() as sb:
    ...     audit = audit_permissions(sb.client(), sb.org_id, progress=False)
    >>> audit.complete  # an organization admin's token sees everything
    True
    >>> per_rule = audit.findings.groupby("rule").size()
    >>> int(per_rule["guest_write"]) > 0
    True
    """
    check_entity_id(org_id, "org_id")  # as client.spaces.list(org_id=...) checks it
    if isinstance(max_workers, bool) or not isinstance(max_workers, int) or max_workers < 1:
        raise ValidationError(
            "max_workers", f"must be an integer of at least 1, got {max_workers!r}"
        )
    limits = AuditThresholds.from_kwargs(**thresholds)
    rule_set = check_rule_set(model)
    _check_log_actions(log_actions)
    earlier = _previous(previous, org_id)
    before = None if earlier is None else earlier.data
    since = _log_start(read_log, events_since, before, client_now(client))
    if read_bounds is not None and not isinstance(read_bounds, ReadBounds):
        raise ValidationError(
            "read_bounds",
            "must be a docsapi.ReadBounds (pages, items, seconds), got "
            f"{type(read_bounds).__name__}",
        )
    data = crawl_organization(
        client,
        org_id,
        max_workers=max_workers,
        progress=bool(progress),
        events_since=since,
        bounds=read_bounds,
        creators_before=known_creators(before, since),
    )
    if before is not None and since is not None:
        data = with_earlier_events(data, before)
    audit = analyze(
        data, expand_teams=expand_teams, thresholds=limits, model=rule_set, log_actions=log_actions
    )
    audit.previous = earlier
    return audit


def _check_log_actions(log_actions: object) -> None:
    """Refuse a ``log_actions`` that is not a mapping of action ID to a kind of setting."""
    if log_actions is None:
        return
    try:
        action_settings(log_actions)  # type: ignore[arg-type]
    except ValueError as exc:
        raise ValidationError("log_actions", str(exc)) from None


def _previous(previous: object, org_id: str) -> PermissionAudit | None:
    """The earlier audit ``previous`` names (an audit or a snapshot folder), checked."""
    if previous is None:
        return None
    if isinstance(previous, str | os.PathLike):
        previous = load_audit(previous)
    if not isinstance(previous, PermissionAudit):
        raise ValidationError(
            "previous",
            f"must be a PermissionAudit or a snapshot folder, got {type(previous).__name__}",
        )
    if previous.org_id != org_id:
        raise ValidationError(
            "previous", f"is an audit of organization {previous.org_id!r}, not {org_id!r}"
        )
    return previous


def _log_start(
    read_log: object, events_since: object, previous: AuditData | None, now: pd.Timestamp
) -> pd.Timestamp | None:
    """Where the audit log read starts (None: no read), ``now`` by the client's clock."""
    if not isinstance(read_log, bool):
        raise ValidationError("read_log", f"must be True or False, got {read_log!r}")
    if not read_log:
        if events_since is not None:
            raise ValidationError("events_since", "has no use with read_log=False")
        return None
    if events_since is None:
        after = None if previous is None else log_start_after(previous)
        if after is not None:
            return after  # the earlier audit's events are kept: only what follows is read
        return (now - EVENT_WINDOW).floor("D")  # one address a day: a cache can answer it
    if isinstance(events_since, timedelta):
        if events_since <= timedelta(0):
            raise ValidationError(
                "events_since", f"must be a positive duration, got {events_since}"
            )
        return max(now - min(events_since, now - _EARLIEST), _EARLIEST)
    return pd.Timestamp(check_moment(events_since, "events_since"))


#: No audit log holds an event before this: a longer look back reads from here.
_EARLIEST = pd.Timestamp("1970-01-01", tz="UTC")


def load_audit(path: str | os.PathLike[str]) -> PermissionAudit:
    """Load a snapshot written by ``audit.save(path)`` back into a :class:`PermissionAudit`.

    Everything is checked before the audit is built (the format version, each file's
    SHA-256, each table's columns; see :func:`~docsapi.audit.snapshot.store.read_snapshot`),
    so a damaged snapshot is refused whole, never half loaded. The audit returned equals the
    one saved: every table with its dtypes, the organization, time, thresholds, completeness
    and the raw tables (``.data``), from which it can be analysed, compared or planned again
    without a request. Its ``.snapshot`` says where it came from.

    Parameters
    ----------
    path : str or path-like
        The snapshot's folder.

    Returns
    -------
    PermissionAudit

    Raises
    ------
    SnapshotError
        For a folder that is not a snapshot, a snapshot written in a format this docsapi
        does not read (the message names both versions), a missing, changed or truncated
        file, or a table without its columns.

    Examples
    --------
    >>> folder = audit.save("snapshots/2026-Q4")
    >>> loaded = docsapi.load_audit(folder)
    >>> loaded.findings.equals(audit.findings), loaded.snapshot.path == folder
    (True, True)
    """
    from docsapi.audit.snapshot.store import read_snapshot

    return PermissionAudit._from_stored(read_snapshot(path))


def analyze(
    data: AuditData,
    *,
    expand_teams: bool = True,
    thresholds: AuditThresholds | None = None,
    model: str = DEFAULT_RULE_SET,
    log_actions: Mapping[str, str] | None = None,
) -> PermissionAudit:
    """Compute an audit from crawled tables, without any request.

    Parameters
    ----------
    data : AuditData
        The organization's raw tables.
    expand_teams : bool
        Include access through teams (on spaces and on collections) in ``.effective`` and
        ``.matrix``. The findings always account for every path.
    thresholds : AuditThresholds, optional
        Rule limits; the defaults when omitted.
    model : str
        The rule set: ``"precedence"`` (default) or ``"highest"`` (see
        :func:`audit_permissions`).
    log_actions : mapping of str to str, optional
        More audit-log action IDs for provenance (see :func:`audit_permissions`).

    Returns
    -------
    PermissionAudit

    Examples
    --------
    >>> again = analyze(audit.data)  # the crawled tables: no request is sent
    >>> again.findings.equals(audit.findings)
    True
    >>> strict = analyze(audit.data, thresholds=AuditThresholds(max_admins=2))
    >>> len(strict.findings) >= len(audit.findings)
    True
    """
    limits = thresholds or AuditThresholds()
    rule_set = check_rule_set(model)
    _check_log_actions(log_actions)
    gaps = find_gaps(data)
    resolution = resolve(data, gaps)
    provenance = Provenance.of(data, failed=not gaps.has("audit_log"), log_actions=log_actions)
    paths = resolution.paths
    user_count = len(resolution.users)
    keys = path_keys(paths, resolution.spaces, rule_set)
    full = effective_access(paths, keys, resolution.sources, user_count)
    shown = full
    if not expand_teams:
        kinds = paths["kind"].to_numpy()
        own = (kinds != TEAM) & (kinds != COLLECTION_TEAM) & (kinds != SITE_TEAM)
        shown = effective_access(paths[own], keys[own], resolution.sources, user_count)

    checked = tables_.checked_spaces(data, resolution, gaps.has("aggregate"), gaps.ids("aggregate"))
    platform = tables_.platform_pairs(data, resolution, checked)
    codes = tables_.mismatch_codes(resolution, full.frame, platform)
    mismatches = tables_.aggregate_mismatches(resolution, codes)
    matches = rule_set_matches(resolution, full, rule_set, platform, codes[0])
    exposure = tables_.exposure_table(data, resolution, rule_set)
    grants = tables_.grants_table(data, resolution, provenance)
    coverage = coverage_table(
        data,
        gaps,
        spaces=resolution.spaces,
        teams=resolution.teams,
        checked_spaces=int(checked.sum()),
        log_actions=log_actions,
    )
    context = RuleContext(
        data=data,
        resolution=resolution,
        effective=full,
        exposure=exposure,
        mismatches=mismatches,
        gaps=gaps,
        listing_complete=_listing_complete(data, gaps),
        provenance=provenance,
    )
    findings = evaluate_rules(context, limits)
    effective = tables_.effective_table(resolution, shown)
    summary = tables_.summary_table(
        data,
        resolution,
        grants=grants,
        effective=effective,
        exposure=exposure,
        findings=findings,
        rules=list(RULES),
        rule_set_matches=matches,
    )
    return PermissionAudit(
        data,
        thresholds=limits,
        resolution=resolution,
        full=full,
        shown=shown,
        grants=grants,
        effective=effective,
        exposure=exposure,
        findings=findings,
        coverage=coverage,
        aggregate_mismatches=mismatches,
        summary=summary,
        model=rule_set,
        rule_set_matches=matches,
        provenance=provenance,
    )


def _listing_complete(data: AuditData, gaps: Gaps) -> bool:
    """Whether every space of the organization was listed (see the coverage rules)."""
    counted = data.spaces_reported is None or data.spaces_reported <= len(data.spaces)
    return data.token_role == "admin" and gaps.has("spaces") and counted


_PICK_HINTS = {
    "space": ("active space", "a space's id or title"),
    "user": ("user", "a user's id, display name or email"),
}


def _pick(argument: str, value: object, known: pd.DataFrame) -> tuple[str, str | None]:
    """The (id, name) that ``value`` names among ``known`` (columns id, name[, email])."""
    what, hint = _PICK_HINTS[argument]
    if not isinstance(value, str) or not value.strip():
        raise ValidationError(argument, f"pass {hint} as a non-empty string")
    by_id = known[(known["id"] == value).fillna(False).to_numpy(dtype=bool)]
    if by_id.empty:
        named = known["name"] == value
        if "email" in known:
            named = named | (known["email"] == value)
        by_id = known[named.fillna(False).to_numpy(dtype=bool)]
    if by_id.empty:
        raise ValidationError(
            argument, f"{value!r} names no {what} of the audited organization: pass {hint}"
        )
    if len(by_id) > 1:
        ids = ", ".join(sorted(by_id["id"].astype(str)))
        raise ValidationError(argument, f"{value!r} names several: pass one of the ids {ids}")
    row = by_id.iloc[0]
    return str(row["id"]), None if pd.isna(row["name"]) else str(row["name"])


def _titles(ids: pd.Series, titles: pd.Series) -> dict[str, str]:
    """Id → title (the first known title of each id)."""
    frame = pd.DataFrame({"id": ids.to_numpy(), "title": titles.to_numpy()}).dropna()
    frame = frame.drop_duplicates("id")
    return dict(zip(frame["id"].astype(str), frame["title"].astype(str), strict=True))
