"""What the review's panel and evidence read of a review: protocols, so neither imports it.

:class:`~docsapi.review.AccessReview` satisfies both; the panel drives the review
(:class:`ReviewActions`) and the evidence writers only read it (:class:`ReviewRecord`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

import pandas as pd

if TYPE_CHECKING:
    from docsapi.audit import PermissionAudit
    from docsapi.client import DocsClient

__all__ = ["ReviewActions", "ReviewRecord"]


class ReviewRecord(Protocol):
    """A review as its evidence shows it: the audit, the decisions, the plan, what was done."""

    audit: PermissionAudit
    reviewer: str
    decisions: pd.DataFrame
    results: pd.DataFrame
    sign_offs: pd.DataFrame

    def plan(self) -> pd.DataFrame:
        """The calls that carry out the decisions."""

    def plan_digest(self) -> str:
        """The SHA-256 that identifies the plan (what a sign-off approves)."""


class ReviewActions(ReviewRecord, Protocol):
    """A review as its panel drives it: select accesses, decide, plan, apply."""

    client: DocsClient | None

    def select(
        self,
        *,
        space: str | list[str] | None = None,
        user: str | list[str] | None = None,
        role: str | list[str] | None = None,
        path: str | list[str] | None = None,
        finding: str | list[str] | None = None,
    ) -> pd.DataFrame:
        """The decisions' rows matching every filter."""

    def decide(
        self,
        rows: object,
        decision: str,
        *,
        lower_to: str | None = None,
        comment: str | None = None,
    ) -> int:
        """Record a decision on some accesses; how many."""

    def apply(self, *, dry_run: bool = False, progress: bool = True) -> pd.DataFrame:
        """Send the plan's calls (or show them, with ``dry_run``)."""
