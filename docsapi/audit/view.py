"""What the audit's outputs read of an audit: one protocol, so no output imports the facade.

The report, the charts, snapshots and diffs take any object with these attributes;
:class:`~docsapi.audit.PermissionAudit` is the one the toolkit builds (fresh from a crawl, or
loaded from a snapshot). The tables and their columns are described in
``docs/audit-tables.md``.
"""

from __future__ import annotations

from typing import Protocol, cast

import pandas as pd

from docsapi.audit.data import AuditData
from docsapi.audit.rules import AuditThresholds
from docsapi.errors import ValidationError

__all__ = ["AuditView", "check_audit"]


class AuditView(Protocol):
    """An audit's organization, moment, thresholds, completeness, raw data and tables."""

    org_id: str
    org_name: str | None
    generated_at: pd.Timestamp
    thresholds: AuditThresholds
    complete: bool
    data: AuditData
    grants: pd.DataFrame
    effective: pd.DataFrame
    exposure: pd.DataFrame
    findings: pd.DataFrame
    coverage: pd.DataFrame
    errors: pd.DataFrame
    aggregate_mismatches: pd.DataFrame
    rule_set_matches: pd.DataFrame
    summary: pd.DataFrame
    model: str

    @property
    def verdict(self) -> str:
        """Which rule set the platform's aggregate matches, in one sentence."""

    @property
    def paths(self) -> pd.DataFrame:
        """Every way a user reaches a space."""

    @property
    def matrix(self) -> pd.DataFrame:
        """Users x spaces of effective roles."""

    @property
    def provenance(self) -> pd.DataFrame:
        """Every access setting with the last event that made it."""

    @property
    def events(self) -> pd.DataFrame:
        """The audit log as read, with the setting each event changed."""

    @property
    def incomplete(self) -> pd.DataFrame:
        """The coverage items that are not complete."""

    def tables(self) -> dict[str, pd.DataFrame]:
        """The tables by name, in report order."""

    def count(self, item: str, category: str = "totals") -> int:
        """One number of the summary, 0 when absent."""


def check_audit(value: object, argument: str) -> AuditView:
    """``value`` itself when it is an audit, else a :class:`ValidationError` naming ``argument``.

    An audit carries its raw tables (:class:`AuditData`) and its table writers; reading
    only those two attributes keeps the lazily computed tables (``paths``, ``matrix``) lazy.

    Examples
    --------
    >>> check_audit("report.html", "audit")
    Traceback (most recent call last):
    ...
    docsapi.errors.ValidationError: audit: must be a PermissionAudit, got str
    """
    if not isinstance(getattr(value, "data", None), AuditData) or not callable(
        getattr(value, "tables", None)
    ):
        raise ValidationError(argument, f"must be a PermissionAudit, got {type(value).__name__}")
    return cast(AuditView, value)
