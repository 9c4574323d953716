"""The permission audit, one package whose modules are the pipeline's steps.

Data flows one way, and each step imports only the steps below it:

``data`` (the raw tables, :class:`AuditData`) ← ``crawl`` (reads the organization into them)
← ``coverage`` (what the token could not see) ← ``resolve`` (every path, effective access)
← ``tables`` (the public tables) ← ``rules`` (findings) ← the outputs: ``report/`` (HTML,
Excel, CSV, charts), ``snapshot/`` (Parquet folders), ``diff/`` (changes between two audits)
← ``facade`` (:class:`PermissionAudit`, :func:`audit_permissions`), which composes them and
which no step imports.
"""

from docsapi.audit.facade import (
    EXPLAIN_COLUMNS,
    ROLE_DTYPE,
    AuditData,
    AuditThresholds,
    PermissionAudit,
    analyze,
    audit_permissions,
    load_audit,
)

__all__ = [
    "EXPLAIN_COLUMNS",
    "ROLE_DTYPE",
    "AuditData",
    "AuditThresholds",
    "PermissionAudit",
    "analyze",
    "audit_permissions",
    "load_audit",
]
