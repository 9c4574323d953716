"""Hand-made organizations for the audit's offline tests, built fact by fact.

``Org`` collects members, teams, collections, spaces, grants, sites, links and failed reads
as plain rows and turns them into an :class:`~docsapi.audit.data.AuditData` with
:meth:`Org.data`. Ids double as display names (capitalised) so assertions stay readable.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from docsapi.audit import PermissionAudit, analyze
from docsapi.audit.data import AuditData

NOW = pd.Timestamp("2026-06-01", tz="UTC")


def name(entity_id: str) -> str:
    return entity_id.capitalize()


@dataclass
class Org:
    """An organization described row by row."""

    token_role: str | None = "admin"
    spaces_reported: int | None = None
    not_read: frozenset[str] = frozenset()
    rows: dict[str, list[dict]] = field(default_factory=dict)
    #: Who created what (None: an integration); content not named here was created by an
    #: integration too, unless listed in ``unknown_creators`` (the log does not say).
    creators: dict[str, str | None] = field(default_factory=dict)
    unknown_creators: set[str] = field(default_factory=set)

    def _add(self, table: str, **row: object) -> Org:
        self.rows.setdefault(table, []).append(row)
        return self

    def member(
        self,
        user_id: str,
        role: str | None = "read",
        *,
        disabled: bool = False,
        seen_days_ago: int | None = 1,
    ) -> Org:
        seen = None if seen_days_ago is None else NOW - pd.Timedelta(days=seen_days_ago)
        return self._add(
            "members",
            user_id=user_id,
            display_name=name(user_id),
            email=f"{user_id}@example.com",
            role=role,
            disabled=disabled,
            last_seen_at=seen,
        )

    def team(self, team_id: str, *members: str, listed: bool = True) -> Org:
        if listed:
            self._add("teams", id=team_id, title=name(team_id), members=len(members))
        for user_id in members:
            self._add("team_members", team_id=team_id, user_id=user_id, display_name=name(user_id))
        return self

    def collection(
        self, collection_id: str, *, parent: str | None = None, default: str | None = None
    ) -> Org:
        return self._add(
            "collections",
            id=collection_id,
            title=name(collection_id),
            parent=parent,
            default_level=default,
        )

    def space(
        self,
        space_id: str,
        *,
        parent: str | None = None,
        default: str | None = None,
        visibility: str = "private",
        url: str | None = None,
        trashed: bool = False,
    ) -> Org:
        return self._add(
            "spaces",
            id=space_id,
            title=name(space_id),
            parent=parent,
            default_level=default,
            visibility=visibility,
            deleted_at=NOW if trashed else None,
            url_published=url,
        )

    def grant(self, target: str, holder: str, role: str, *, kind: str | None = None) -> Org:
        """A permission; the target type is guessed from the id's first letter (s, c, w)."""
        target_type = kind or {"s": "space", "c": "collection", "w": "site"}[target[0]]
        if holder.startswith("t"):
            return self._add(
                "team_permissions",
                target_type=target_type,
                target_id=target,
                team_id=holder,
                title=name(holder),
                role=role,
            )
        return self._add(
            "user_permissions",
            target_type=target_type,
            target_id=target,
            user_id=holder,
            display_name=name(holder),
            role=role,
        )

    def site(
        self,
        site_id: str,
        visibility: str,
        *spaces: str,
        draft: bool = False,
        published: bool | None = True,
        default: str | None = "inherit",
    ) -> Org:
        self._add(
            "sites",
            id=site_id,
            title=name(site_id),
            visibility=visibility,
            published=published,
            default_level=default,
        )
        for space_id in spaces:
            self._add(
                "site_spaces",
                site_id=site_id,
                space_id=space_id,
                draft=draft,
                url_published=f"https://{site_id}.example/{space_id}",
            )
        return self

    def share_link(
        self, site_id: str, link_id: str, *, age_days: int, active: bool | None = True
    ) -> Org:
        return self._add(
            "share_links",
            site_id=site_id,
            id=link_id,
            name=name(link_id),
            active=active,
            created_at=NOW - pd.Timedelta(days=age_days),
            url_published=f"https://{site_id}.example/~share/secret-{link_id}",
        )

    def invite_link(
        self, link_id: str, role: str, *, target_type: str = "organization", target: str = ""
    ) -> Org:
        return self._add(
            "invite_links",
            id=link_id,
            target_type=target_type,
            target_id=target or None,
            role=role,
        )

    def created(self, content_id: str, user_id: str | None) -> Org:
        """``user_id`` created the space or collection (None: an integration did)."""
        self.creators[content_id] = user_id
        return self

    def creator_unknown(self, content_id: str) -> Org:
        """The audit log has no record of who created the space or collection."""
        self.unknown_creators.add(content_id)
        return self

    def _creator_rows(self) -> list[dict]:
        return [
            {
                "target_type": table[:-1],
                "target_id": row["id"],
                "user_id": self.creators.get(row["id"]),
                "created_at": NOW - pd.Timedelta(days=30),
            }
            for table in ("spaces", "collections")
            for row in self.rows.get(table, [])
            if row["id"] not in self.unknown_creators
        ]

    def platform(self, space_id: str, user_id: str, role: str) -> Org:
        """One row of the platform's aggregate for ``space_id``."""
        return self._add(
            "aggregate", space_id=space_id, user_id=user_id, display_name=name(user_id), role=role
        )

    def fail(self, target_type: str, target_id: str, stage: str, status: str = "503") -> Org:
        return self._add(
            "errors",
            target_type=target_type,
            target_id=target_id,
            stage=stage,
            error_type="ServerError",
            message=f"{status} (GET /{target_type}s/{target_id}): try again later",
        )

    def data(self, **overrides: object) -> AuditData:
        """The raw tables. Unless :meth:`platform` rows were given, the platform's aggregate
        agrees with the audit (it is the audit's own effective access)."""
        tables = {table: pd.DataFrame(rows) for table, rows in self.rows.items()}
        tables["creators"] = pd.DataFrame(self._creator_rows())
        if not ({"aggregate"} & (set(tables) | set(overrides) | set(self.not_read))):
            first = analyze(self.data(aggregate=pd.DataFrame({"space_id": []})))
            columns = ["space_id", "user_id", "display_name", "role"]
            tables["aggregate"] = first.effective[columns].astype(object)
        options = {
            "org_id": "org",
            "org_name": "Example",
            "generated_at": NOW,
            "token_role": self.token_role,
            "spaces_reported": self.spaces_reported,
            "not_read": self.not_read,
            **tables,
            **overrides,
        }
        return AuditData(**options)  # type: ignore[arg-type]

    def audit(self, **options: object) -> PermissionAudit:
        return analyze(self.data(), **options)  # type: ignore[arg-type]


def row(audit: PermissionAudit, space_id: str, user_id: str) -> pd.Series:
    """The effective row of (space, user); fails unless there is exactly one."""
    effective = audit.effective
    found = effective[(effective["space_id"] == space_id) & (effective["user_id"] == user_id)]
    assert len(found) == 1, f"{len(found)} effective rows for ({space_id}, {user_id})"
    return found.iloc[0]


def reaches(audit: PermissionAudit, space_id: str, user_id: str) -> bool:
    effective = audit.effective
    return bool(((effective["space_id"] == space_id) & (effective["user_id"] == user_id)).any())


def found(audit: PermissionAudit, rule: str, column: str = "principal_id") -> set[tuple]:
    """(target_id, <column>) of every finding of ``rule``."""
    rows = audit.findings[audit.findings["rule"] == rule]
    return {
        (target, None if pd.isna(other) else other)
        for target, other in zip(rows["target_id"], rows[column], strict=True)
    }
