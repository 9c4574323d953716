"""ReviewPanel: decide on accesses, see the plan, dry-run and apply it, in a notebook.

The panel works on an :class:`~docsapi.review.AccessReview`: filters (space, user, role,
path, finding) narrow the list of accesses; rows are picked one by one or all that match
("Select all shown"); Keep, Revoke and Lower to record the decision with the comment on
every picked row; Plan shows the API calls and their blast radius; Dry run shows what
Apply would send; Apply sends it (through the review's client) and shows the results.
Nothing is sent when the panel is built or displayed: only Apply sends requests.
"""

from __future__ import annotations

from typing import Any

import ipywidgets as widgets
import pandas as pd

from docsapi.audit.data import ROLES
from docsapi.errors import ValidationError
from docsapi.review._decisions import FILTERS, LOWER_TO
from docsapi.review._view import ReviewActions
from docsapi.widgets._base import LABEL_STYLE, FormBase

__all__ = ["ANY", "MAX_ROWS", "ReviewPanel"]

#: The filter choice that matches everything.
ANY = "(any)"
#: At most this many accesses are listed at once (narrow the filters to see others).
MAX_ROWS = 500
_PATH_KINDS = (
    "direct",
    "team",
    "collection",
    "collection-team",
    "site",
    "site-team",
    "site-default",
    "default",
    "creator",
    "org-admin",
)
_PLAN_SHOWN = [
    "step",
    "method",
    "path",
    "change",
    "notify",
    "also_revokes_count",
    "also_lowers_count",
    "hands_to",
]


def _options(values: pd.Series) -> list[str]:
    return [ANY, *sorted({str(v) for v in values.dropna()})]


def _findings(decisions: pd.DataFrame) -> list[str]:
    rules = {r for text in decisions["findings"].dropna() for r in str(text).split("; ")}
    return [ANY, *sorted(rules)]


class ReviewPanel(FormBase):
    """An access review in a notebook: filter, pick, decide, plan, dry-run, apply.

    Parameters
    ----------
    review : AccessReview
        The review the panel records decisions in (``review.decisions``) and applies.
    **kwargs
        Passed to ``ipywidgets.VBox``.

    Attributes
    ----------
    space_dropdown, user_dropdown, role_dropdown, path_dropdown, finding_dropdown : Dropdown
        The filters (``"(any)"`` matches everything).
    rows_select : SelectMultiple
        The accesses matching the filters (at most :data:`MAX_ROWS`); its value is the
        picked row labels of ``review.decisions``.
    select_all_button : Button
        Picks every access shown (bulk select by filter).
    comment_text : Text
        The comment recorded with the next decision.
    keep_button, revoke_button, lower_button : Button
        Record the decision on the picked rows (Lower lowers to ``lower_dropdown``).
    lower_dropdown : Dropdown
        The role Lower lowers to.
    plan_button, dry_run_button, apply_button : Button
        Show the plan, show what Apply would send, send it.
    counts_html : HTML
        How many accesses are shown, picked and decided.
    status_output : Output
        Status lines, and the plan or results as a table.

    Notes
    -----
    The inputs and buttons carry CSS classes for browser tests: ``docsapi-rows``,
    ``docsapi-select-all``, ``docsapi-comment``, ``docsapi-keep``, ``docsapi-revoke``,
    ``docsapi-lower``, ``docsapi-plan``, ``docsapi-dry-run``, ``docsapi-apply``,
    ``docsapi-status``.

    Examples
    --------
    >>> panel = review.panel()  # a cell's last line shows it
    >>> type(panel).__name__
    'ReviewPanel'
    """

    heading = "Access review"

    def __init__(self, review: ReviewActions, **kwargs: Any) -> None:
        self.review = review
        super().__init__(review.client, **kwargs)
        self._report(self._show_loaded(None))
        self.loaded = True  # everything it shows is in memory: nothing to load

    def __repr__(self) -> str:
        counts = self.review.decisions["decision"].value_counts()
        decided = ", ".join(f"{k}={counts.get(k, 0)}" for k in ("keep", "revoke", "lower"))
        return (
            f"ReviewPanel(reviewer={self.review.reviewer!r}, "
            f"accesses={len(self.review.decisions)}, shown={len(self.rows_select.options)}, "
            f"picked={len(self.rows_select.value)}, "
            f"{decided})"
        )

    # -- building ----------------------------------------------------------------------------
    def _build(self) -> None:
        decisions = self.review.decisions
        self.space_dropdown = widgets.Dropdown(
            description="Space", options=_options(decisions["space_title"]), style=LABEL_STYLE
        )
        self.user_dropdown = widgets.Dropdown(
            description="User", options=_options(decisions["display_name"]), style=LABEL_STYLE
        )
        present = set(decisions["role"].astype(object).dropna())
        self.role_dropdown = widgets.Dropdown(
            description="Role",
            options=[ANY, *(r for r in ROLES if r in present)],
            style=LABEL_STYLE,
        )
        self.path_dropdown = widgets.Dropdown(
            description="Path", options=[ANY, *_PATH_KINDS], style=LABEL_STYLE
        )
        self.finding_dropdown = widgets.Dropdown(
            description="Finding", options=_findings(decisions), style=LABEL_STYLE
        )
        self.rows_select = widgets.SelectMultiple(
            description="Accesses", rows=12, layout=widgets.Layout(width="98%"), style=LABEL_STYLE
        )
        self.select_all_button = widgets.Button(description="Select all shown", icon="check-square")
        self.comment_text = widgets.Text(
            description="Comment", placeholder="why (recorded with the decision)", style=LABEL_STYLE
        )
        self.keep_button = widgets.Button(description="Keep", button_style="success")
        self.revoke_button = widgets.Button(description="Revoke", button_style="danger")
        self.lower_button = widgets.Button(description="Lower to", button_style="warning")
        self.lower_dropdown = widgets.Dropdown(
            options=list(LOWER_TO), value="read", layout={"width": "120px"}
        )
        self.plan_button = widgets.Button(description="Plan", icon="list")
        self.dry_run_button = widgets.Button(description="Dry run", icon="eye")
        self.apply_button = widgets.Button(description="Apply", icon="play", button_style="primary")
        self.counts_html = widgets.HTML()
        for name in (
            "rows_select",
            "select_all_button",
            "comment_text",
            "keep_button",
            "revoke_button",
            "lower_button",
            "plan_button",
            "dry_run_button",
            "apply_button",
            "status_output",
        ):
            getattr(self, name).add_class(f"docsapi-{name.rsplit('_', 1)[0].replace('_', '-')}")
        self._show_rows()

    def _filters(self) -> tuple[widgets.Dropdown, ...]:
        return (
            self.space_dropdown,
            self.user_dropdown,
            self.role_dropdown,
            self.path_dropdown,
            self.finding_dropdown,
        )

    def _wire(self) -> None:
        for dropdown in self._filters():
            dropdown.observe(self._show_rows, names="value")
        self.rows_select.observe(self._count, names="value")
        self.select_all_button.on_click(lambda _b: self.select_all())
        self.keep_button.on_click(lambda _b: self.decide("keep"))
        self.revoke_button.on_click(lambda _b: self.decide("revoke"))
        self.lower_button.on_click(lambda _b: self.decide("lower"))
        self.plan_button.on_click(lambda _b: self.show_plan())
        self.dry_run_button.on_click(lambda _b: self.dry_run())
        self.apply_button.on_click(lambda _b: self.apply())

    def _rows(self) -> tuple[widgets.Widget, ...]:
        return (
            widgets.HBox([self.space_dropdown, self.user_dropdown, self.role_dropdown]),
            widgets.HBox([self.path_dropdown, self.finding_dropdown, self.select_all_button]),
            self.rows_select,
            self.counts_html,
            self.comment_text,
            widgets.HBox(
                [self.keep_button, self.revoke_button, self.lower_button, self.lower_dropdown]
            ),
            widgets.HBox([self.plan_button, self.dry_run_button, self.apply_button]),
        )

    def _show_loaded(self, loaded: Any) -> str:
        return f"{len(self.review.decisions)} accesses to review; pick some and decide."

    # -- listing -----------------------------------------------------------------------------
    def matching(self) -> pd.DataFrame:
        """The decisions' rows matching the filters."""
        chosen = {
            name: dropdown.value
            for name, dropdown in zip(FILTERS, self._filters(), strict=True)
            if dropdown.value != ANY
        }
        return self.review.select(**chosen)

    @staticmethod
    def _label(row: Any) -> str:
        decided = "" if pd.isna(row.decision) else f"  [{row.decision}"
        if decided and row.decision == "lower":
            decided += f" to {row.lower_to}"
        decided += "]" if decided else ""
        opened = "" if pd.isna(row.granted_by) else f" · granted by {row.granted_by}"
        if opened and not pd.isna(row.granted_at):
            opened += f" on {row.granted_at:%Y-%m-%d}"
        return (
            f"{row.space_title} · {row.display_name} · {row.role} · {row.sources}{opened}{decided}"
        )

    def _show_rows(self, _change: Any = None) -> None:
        shown = self.matching().head(MAX_ROWS)
        picked = set(self.rows_select.value)
        rows = zip(shown.index, shown.itertuples(index=False), strict=True)
        options = [(self._label(row), label) for label, row in rows]
        self.rows_select.options = options
        self.rows_select.value = tuple(label for _, label in options if label in picked)
        self._count()

    def _count(self, _change: Any = None) -> None:
        decisions = self.review.decisions
        total = len(self.matching())
        shown = len(self.rows_select.options)
        more = f" (first {shown} shown: narrow the filters)" if total > shown else ""
        counts = decisions["decision"].value_counts()
        decided = ", ".join(f"{counts.get(k, 0)} {k}" for k in ("keep", "revoke", "lower"))
        self.counts_html.value = (
            f"{total} accesses match{more}; {len(self.rows_select.value)} picked. "
            f"Decided: {decided}; {int(decisions['decision'].isna().sum())} undecided."
        )

    # -- actions -----------------------------------------------------------------------------
    def select_all(self) -> int:
        """Pick every access shown; how many."""
        self.rows_select.value = tuple(label for _, label in self.rows_select.options)
        return len(self.rows_select.value)

    def decide(self, decision: str) -> int:
        """Record ``decision`` (with the comment) on the picked rows; how many (0 if refused)."""
        picked = list(self.rows_select.value)
        if not picked:
            self._report("Pick one or more accesses first (or Select all shown).", "error")
            return 0
        lower_to = self.lower_dropdown.value if decision == "lower" else None
        try:
            count = self.review.decide(
                picked, decision, lower_to=lower_to, comment=self.comment_text.value or None
            )
        except ValidationError as exc:
            self._report(f"Not recorded: {exc}", "error")
            return 0
        self._show_rows()
        what = f"lower to {lower_to}" if lower_to else decision
        self._report(f"Recorded {what} on {count} access{'es' if count != 1 else ''}.", "success")
        return count

    def show_plan(self) -> pd.DataFrame:
        """Show the plan's calls and blast radius; the plan."""
        plan = self.review.plan()
        if plan.empty:
            self._report("Nothing to change: no revoke or lower decision yet.")
            return plan
        collateral = int(plan["also_revokes_count"].sum())
        told = sorted({name for names in plan["notify"].dropna() for name in names.split("; ")})
        tell = f" Tell who granted what changes: {', '.join(told)}." if told else ""
        handed = "; ".join(plan["hands_to"].dropna())
        if handed:
            tell += f" Where a removal hands the decision to a farther level: {handed}."
        self._report(
            f"Plan: {len(plan)} call(s); they also revoke {collateral} other access(es) "
            f"(see also_revokes).{tell}",
            "error" if collateral else "info",
            details=plan[_PLAN_SHOWN],
        )
        return plan

    def dry_run(self) -> pd.DataFrame:
        """Show what Apply would send, sending nothing."""
        shown = self.review.apply(dry_run=True)
        sending = int((shown["action"] == "would send").sum())
        self._report(
            f"Dry run: {sending} call(s) would be sent; nothing was sent.",
            details=shown[["action", "method", "path", "change"]],
        )
        return shown

    def apply(self) -> pd.DataFrame | None:
        """Send the plan through the review's client and show the results."""
        if self.review.client is None:
            self._report("Apply needs a client: AccessReview(audit, ..., client=client).", "error")
            return None
        ok, ran = self._run(lambda: self.review.apply(progress=False), doing="Applying")
        if not ok or ran is None:
            return None
        columns = ["step", "method", "path", "status", "outcome", "error"]
        if len(ran) and (ran["status"] == "failed").any():
            failed = ran[ran["status"] == "failed"].iloc[0]
            self._report(
                f"Stopped at step {failed['step']}: {failed['error']} Press Apply again to resume.",
                "error",
                details=ran[columns],
            )
        else:
            done = int((ran["status"] == "done").sum())
            shown = ran[columns[:-1]]  # no error to show
            self._report(f"Applied: {done} call(s) done.", "success", details=shown)
        return ran
