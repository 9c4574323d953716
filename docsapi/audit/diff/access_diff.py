"""An :class:`AccessDiff`: the changes between two audits, with its charts and HTML page.

:mod:`~docsapi.audit.diff.changes` computes the change tables and :mod:`~docsapi.audit.diff.report`
draws and writes them; this module puts both behind one object, ``current.diff(previous)``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from docsapi.audit.diff import report
from docsapi.audit.diff.changes import Changes, compare
from docsapi.audit.view import AuditView

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["AccessDiff", "diff_audits"]


class AccessDiff(Changes):
    """What changed between two audits of one organization (see :func:`diff_audits`).

    The tables and attributes are those of :class:`~docsapi.audit.diff.changes.Changes`;
    this class adds the charts, the changes to look at first and the HTML page.
    """

    def top_changes(self, limit: int = 10) -> pd.DataFrame:
        """The changes to look at first: new findings (most severe first), then access
        granted or raised (highest role first), exposure added, then the rest.

        Returns
        -------
        DataFrame
            ``change``, ``space``, ``who``, ``what`` (one sentence), at most ``limit`` rows.
        """
        return report.top_changes(self, limit)

    def plot(self) -> dict[str, Figure]:
        """Draw the diff's charts; see :func:`docsapi.audit.diff.report.plot_diff`.

        Returns
        -------
        dict of str to Figure
            ``"access_by_role"`` (effective access per role, before and after) and
            ``"changes"`` (the number of changes of each kind).
        """
        return report.plot_diff(self)

    def to_html(self, path: str | Path) -> Path:
        """Write a self-contained HTML page of the changes (no network: inline CSS, charts
        as PNG data); see :func:`docsapi.audit.diff.report.write_html`."""
        return report.write_html(self, path)

    def _repr_html_(self) -> str:
        return report.notebook_html(self)


def diff_audits(previous: AuditView, current: AuditView) -> AccessDiff:
    """Compare two audits of one organization (``current.diff(previous)``).

    Parameters
    ----------
    previous : AuditView
        The earlier audit (for instance ``docsapi.load_audit(last_quarter)``).
    current : AuditView
        The later audit.

    Returns
    -------
    AccessDiff
        The changes; its ``notes`` say when either audit is partial.

    Raises
    ------
    ValidationError
        When an argument is not an audit, or the audits are of different organizations.

    Examples
    --------
    >>> last_quarter = docsapi.load_audit(previous.save("snapshots/2026-Q3"))
    >>> changes = audit.diff(last_quarter)
    >>> writers = changes.granted[changes.granted.role_after >= "edit"]
    >>> writers[["space_id", "user_id"]].values.tolist() == [[space_id, guest_id]]
    True
    """
    return compare(previous, current, AccessDiff)
