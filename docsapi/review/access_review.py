"""``AccessReview``: a reviewer's decisions on an audit's accesses, the plan that carries them
out, applying it, and the evidence.

Examples
--------
>>> review = docsapi.AccessReview(audit, reviewer="Ada Cerf", client=client)
>>> review.decide({"finding": "former_member"}, "revoke", comment="left in May") > 0
True
>>> "removeUserFromSpace" in set(review.plan().operation)  # the calls to carry them out
True
>>> review.apply(dry_run=True).action.unique().tolist()
['would send']
>>> set(review.apply(progress=False).status)
{'done'}
>>> review.save("reviews/2026-Q4")  # the audit's snapshot, with the decisions and results
PosixPath('reviews/2026-Q4')
>>> review.to_html("review.html")
PosixPath('review.html')
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from docsapi.core.reprs import safe_display
from docsapi.errors import ValidationError
from docsapi.review import _decisions, _files
from docsapi.review._apply import (
    RESULT_COLUMNS,
    apply_plan,
    done_calls,
    dry_run_calls,
    empty_results,
)
from docsapi.review._plan import TEAM_CHANGES, Planned, plan_calls
from docsapi.review._plan_seal import (
    approval_of,
    decided_accesses,
    plan_digest,
    write_plan_manifest,
)

if TYPE_CHECKING:
    from docsapi.audit import PermissionAudit
    from docsapi.client import DocsClient
    from docsapi.review.panel import ReviewPanel

__all__ = ["AccessReview"]

#: The tables a review saves with its snapshot.
DECISIONS_TABLE = "review_decisions"
RESULTS_TABLE = "review_results"
SIGN_OFFS_TABLE = "review_sign_offs"
_SIGN_OFF_COLUMNS = {
    "name": "string[python]",
    "role": "string[python]",
    "note": "string[python]",
    "signed_at": "datetime64[ns, UTC]",
    "plan_digest": "string[python]",
}


class AccessReview:
    """A periodic access review of one audit: decisions, plan, apply, evidence.

    Parameters
    ----------
    audit : PermissionAudit
        The audit under review (fresh, or loaded with ``docsapi.load_audit``).
    reviewer : str
        Who decides; recorded with every decision made in this session.
    client : DocsClient, optional
        The client :meth:`apply` sends with (an organization admin's token). Not needed to
        decide, plan or write evidence.
    team_change : {"membership", "grant"}
        How a revoke through a team is carried out: the user leaves the team
        (``"membership"``, the default: only that person is affected, on every space the
        team gives them), or the team's permission is removed (``"grant"``: every member
        loses it). The plan's ``also_revokes`` shows the difference.

    Attributes
    ----------
    decisions : DataFrame
        One row per access (``audit.effective``): ``space_id``, ``space_title``,
        ``user_id``, ``display_name``, ``email``, ``member_role``, ``role``, ``sources``,
        ``source_names``, ``findings`` (rules about this access), ``decision`` (``keep``,
        ``revoke``, ``lower``; missing until decided), ``lower_to``, ``comment``,
        ``reviewer``, ``decided_at``.
    results : DataFrame
        Every call sent by :meth:`apply`, in every sitting.
    sign_offs : DataFrame
        Sign-offs recorded by :meth:`sign_off`: ``name``, ``role``, ``note``, ``signed_at``,
        ``plan_digest`` (the plan approved, see :meth:`plan_digest`).

    Raises
    ------
    ValidationError
        For an audit that is not one, or an empty reviewer.

    Warns
    -----
    UserWarning
        For a partial audit (``audit.complete`` is false): what it could not read is not
        reviewed, and a plan cannot see the paths there.
    """

    def __init__(
        self,
        audit: PermissionAudit,
        *,
        reviewer: str,
        client: DocsClient | None = None,
        team_change: str = "membership",
    ) -> None:
        from docsapi.audit import PermissionAudit

        if not isinstance(audit, PermissionAudit):
            raise ValidationError("audit", f"must be a PermissionAudit, got {type(audit).__name__}")
        if not isinstance(reviewer, str) or not reviewer.strip():
            raise ValidationError("reviewer", "name who reviews, e.g. reviewer='Ada Cerf'")
        _decisions.check_person(reviewer, "reviewer")
        if team_change not in TEAM_CHANGES:
            raise ValidationError(
                "team_change", f"must be one of {', '.join(TEAM_CHANGES)}; got {team_change!r}"
            )
        if not audit.complete:
            warnings.warn(
                "the audit is partial (see audit.incomplete): accesses through what it could "
                "not read are missing from the decisions, the plan and its blast radius",
                UserWarning,
                stacklevel=2,
            )
        self.audit = audit
        self.reviewer = reviewer.strip()
        self.client = client
        self.team_change = team_change
        self.decisions = _decisions.decisions_table(audit)
        self.results = empty_results()
        self.sign_offs = pd.DataFrame(columns=list(_SIGN_OFF_COLUMNS)).astype(_SIGN_OFF_COLUMNS)
        self._planned: tuple[tuple[object, ...], Planned] | None = None

    def _plan_of_decisions(self) -> Planned:
        """The plan of the decisions as they are now (made again only when they changed)."""
        acted = self.decisions[["space_id", "user_id", "decision", "lower_to", "findings"]]
        state = (
            self.team_change,
            tuple(pd.util.hash_pandas_object(acted.astype(object), index=True)),
        )
        if self._planned is None or self._planned[0] != state:
            self._planned = (state, plan_calls(self.audit, self.decisions, self.team_change))
        return self._planned[1]

    @safe_display
    def __repr__(self) -> str:
        counts = self.decisions["decision"].value_counts()
        decided = ", ".join(f"{k}={counts.get(k, 0)}" for k in _decisions.DECISIONS)
        return (
            f"AccessReview(org_id={self.audit.org_id!r}, reviewer={self.reviewer!r}, "
            f"accesses={len(self.decisions)}, {decided}, "
            f"calls_done={len(done_calls(self.results))})"
        )

    # -- deciding ----------------------------------------------------------------------------
    def select(
        self,
        *,
        space: str | list[str] | None = None,
        user: str | list[str] | None = None,
        role: str | list[str] | None = None,
        path: str | list[str] | None = None,
        finding: str | list[str] | None = None,
    ) -> pd.DataFrame:
        """The decisions' rows matching every filter (each a text or a list of texts).

        Parameters
        ----------
        space : str or list, optional
            Space ids or titles.
        user : str or list, optional
            User ids, display names or emails.
        role : str or list, optional
            Effective roles.
        path : str or list, optional
            Sources (``team:<id>``) or kinds of source (``direct``, ``team``,
            ``collection``, ``collection-team``, ``site``, ``site-team``, ``site-default``,
            ``default``, ``creator``, ``org-admin``).
        finding : str or list, optional
            Rule names of findings about the access (``guest_write``, ...).

        Examples
        --------
        >>> through_teams = review.select(path="team", role=["admin", "create"])
        >>> guests_writing = review.select(finding="guest_write")
        >>> guest_id in set(guests_writing.user_id)
        True
        """
        return _decisions.select(
            self.decisions, space=space, user=user, role=role, path=path, finding=finding
        )

    def decide(
        self,
        rows: object,
        decision: str,
        *,
        lower_to: str | None = None,
        comment: str | None = None,
    ) -> int:
        """Record a decision on some accesses (a later decision replaces an earlier one).

        Parameters
        ----------
        rows : DataFrame, boolean Series, row labels or dict
            The accesses: rows of :attr:`decisions` (e.g. from :meth:`select`), or a
            filter dict such as ``{"space": "Guides", "path": "team"}``.
        decision : {"keep", "revoke", "lower"}
            What to do.
        lower_to : str, optional
            With ``"lower"``: the role to lower to, below each access's role.
        comment : str, optional
            Why.

        Returns
        -------
        int
            How many accesses were decided.

        Raises
        ------
        ValidationError
            For an unknown decision or role, rows that match nothing, ``lower_to`` not
            below an access's role. Nothing is recorded then.

        Examples
        --------
        >>> review.decide({"finding": "former_member"}, "revoke", comment="left") > 0
        True
        >>> review.decide({"user": guest_id, "space": space_id}, "lower", lower_to="read")
        1
        """
        return _decisions.decide(
            self.decisions,
            rows,
            decision,
            lower_to=lower_to,
            comment=comment,
            reviewer=self.reviewer,
            now=pd.Timestamp.now(tz="UTC"),
        )

    @property
    def undecided(self) -> pd.DataFrame:
        """The accesses without a decision yet."""
        return self.decisions[self.decisions["decision"].isna()]

    # -- planning and applying ---------------------------------------------------------------
    def plan(self) -> pd.DataFrame:
        """The exact API calls that carry out the revoke and lower decisions, in order.

        See :mod:`docsapi.review._plan` for how each access path is changed.

        Returns
        -------
        DataFrame
            One row per call: ``call_id`` (stable: the same call has the same id), ``step``,
            ``operation`` (the API's operationId), ``method``, ``path``, ``body``, the ids it
            acts on (``org_id``, ``space_id``, ``collection_id``, ``site_id``, ``team_id``,
            ``user_id``) and ``role`` it sets, ``change`` (in words), ``decisions`` and
            ``findings`` it carries out, ``also_revokes`` / ``also_lowers`` / ``also_raises``
            (the blast radius: accesses no decision asked to change that the call takes
            away, lowers or raises, predicted by the audit's resolver and rule set) with
            their counts, ``hands_to`` (the farther level that decides where the call hands
            the decision to it), ``note`` (why this operation) and ``notify`` (who made the
            setting it changes).

        Raises
        ------
        ValidationError
            When a decision cannot be carried out (e.g. a creator's access to what they
            created: the platform has no call that removes it); the message names the
            decision, why, and what to do instead. No plan is made then.

        Examples
        --------
        >>> review.decide({"finding": "former_member"}, "revoke") > 0
        True
        >>> plan = review.plan()
        >>> list(plan.columns)[:5]
        ['call_id', 'step', 'operation', 'method', 'path']
        >>> int(plan.also_revokes_count.sum())  # no one else loses access
        0
        """
        return self._plan_of_decisions().plan.copy()

    def blast_radius(self) -> pd.DataFrame:
        """Every access the plan changes, by call, as the audit's own resolver and rule set
        predict it (the calls played in order on the audit's raw tables).

        Returns
        -------
        DataFrame
            One row per (call, space, user) change: ``role_before``, ``role_after``
            (missing: no access), ``change`` (``revoked``, ``lowered``, ``raised``,
            ``granted``), ``decided`` (the decision on that access, missing when it is
            collateral) and ``decided_by_after`` (what gives the access after the call).
        """
        return self._plan_of_decisions().impact.copy()

    def after(self) -> pd.DataFrame:
        """The effective access predicted after the whole plan, with the columns of
        ``audit.effective``: the audit's raw tables as the plan's calls leave them, resolved
        by the audit's resolver under its rule set (``audit.model``).

        Examples
        --------
        >>> review.decide({"finding": "former_member"}, "revoke") > 0
        True
        >>> after = review.after()
        >>> list(after.columns) == list(review.audit.effective.columns)
        True
        """
        return self._plan_of_decisions().prediction.after.copy()

    def plan_digest(self) -> str:
        """The SHA-256 that identifies the plan: its calls (every column, in order) with the
        organization, ``team_change`` and the decisions that make them.

        :meth:`sign_off` records it, :meth:`save_plan` writes it into the plan's manifest,
        and ``docsapi review apply`` sends a plan only when a sign-off approved its digest.
        """
        return plan_digest(
            self.plan(), str(self.audit.org_id), self.team_change, decided_accesses(self.decisions)
        )

    def save_plan(self, path: str | os.PathLike[str]) -> Path:
        """Write the plan to a ``.csv`` or ``.json`` file for ``docsapi review apply PLAN``,
        with its manifest beside it (``<file>.manifest.json``).

        The manifest records the snapshot and the decisions the plan comes from, its digest,
        its calls and the sign-offs (see :mod:`docsapi.review._plan_seal`); it is sealed, and
        signed when a signing key is set. ``docsapi review apply`` sends the plan only when
        a sign-off approved it, so sign off first: ``review.sign_off(name)``, then
        ``review.save_plan(path)``.

        Returns
        -------
        Path
            The plan file.

        Examples
        --------
        >>> review.decide({"finding": "former_member"}, "revoke") > 0
        True
        >>> review.sign_off("Grace Owner")
        >>> review.save_plan("plan.json")
        PosixPath('plan.json')
        """
        plan = self.plan()
        target = _files.write_plan(plan, path)
        write_plan_manifest(
            target,
            plan,
            audit=self.audit,
            decisions=self.decisions,
            team_change=self.team_change,
            sign_offs=self.sign_offs,
        )
        return target

    def apply(
        self, *, dry_run: bool = False, progress: bool = True, allow_self_demotion: bool = False
    ) -> pd.DataFrame:
        """Carry out the plan through :attr:`client`, or show what that would do.

        Calls already done (in :attr:`results`, from an earlier sitting too) are skipped,
        so after a failure ``apply()`` again resumes. A call answered 204 ("already
        absent") counts as done. The first unexpected error stops the run; its row says
        what failed. Afterwards :meth:`save` keeps the results with the snapshot.

        Parameters
        ----------
        dry_run : bool
            Send nothing: return each call with ``action`` ``would send`` or
            ``skip (done)`` and its blast radius.
        progress : bool
            Show a progress bar.
        allow_self_demotion : bool
            Send a call that takes the admin role from the client's own user (sent last,
            with a warning); without it such a plan is refused before anything is sent.
            A plan that would leave the organization without an enabled admin is always
            refused.

        Returns
        -------
        DataFrame
            The dry run's actions, or the results of the calls sent now (``status``
            ``done`` or ``failed``; see :attr:`results` for all of them).

        Raises
        ------
        ValidationError
            When the review has no client (and ``dry_run`` is false), or the plan's
            organization role changes are refused (see ``allow_self_demotion``).

        Examples
        --------
        >>> review.decide({"finding": "former_member"}, "revoke") > 0
        True
        >>> review.apply(dry_run=True).action.unique().tolist()  # what it would send
        ['would send']
        >>> set(review.apply(progress=False).status)
        {'done'}
        >>> review.complete
        True
        """
        plan = self.plan()
        if dry_run:
            return dry_run_calls(plan, self.results)
        if self.client is None:
            raise ValidationError(
                "client", "apply() sends requests: create the review with client=DocsClient(...)"
            )
        sign_offs = _files.json_records(self.sign_offs)
        approval = approval_of(sign_offs, self.plan_digest()) or (
            f"not signed off: applied from the review in Python by {self.reviewer}"
        )
        ran = apply_plan(
            self.client,
            plan,
            self.results,
            progress=progress,
            allow_self_demotion=allow_self_demotion,
            approval=approval,
        )
        earlier = self.results
        self.results = pd.concat([earlier, ran], ignore_index=True) if len(earlier) else ran
        return ran

    @property
    def complete(self) -> bool:
        """Whether every call of the plan is done."""
        return set(self.plan()["call_id"].astype(str)) <= done_calls(self.results)

    # -- keeping -----------------------------------------------------------------------------
    def save(self, path: str | os.PathLike[str] | None = None) -> Path:
        """Keep the decisions and results with the audit's snapshot (another sitting
        continues with :meth:`load`).

        Parameters
        ----------
        path : str or path-like, optional
            The snapshot folder. Default: the one the audit was loaded from or saved to.
            A new folder gets a snapshot of the audit first.

        Returns
        -------
        Path
            The snapshot folder.

        Raises
        ------
        ValidationError
            When no path is given and the audit has no snapshot.
        """
        from docsapi.audit.snapshot.store import MANIFEST, save_table

        if path is None:
            if self.audit.snapshot is None:
                raise ValidationError(
                    "path",
                    "the audit has no snapshot yet: give a folder, review.save('reviews/Q3')",
                )
            folder = Path(self.audit.snapshot.path)
        else:
            folder = Path(path)
            if not (folder / MANIFEST).is_file():
                self.audit.save(folder)
        save_table(folder, DECISIONS_TABLE, self.decisions)
        save_table(folder, RESULTS_TABLE, self.results)
        save_table(folder, SIGN_OFFS_TABLE, self.sign_offs)
        return folder

    @classmethod
    def load(
        cls,
        path: str | os.PathLike[str],
        *,
        reviewer: str,
        client: DocsClient | None = None,
        team_change: str = "membership",
    ) -> AccessReview:
        """Open a review saved with a snapshot by :meth:`save` (or start one on a snapshot).

        Parameters
        ----------
        path : str or path-like
            The snapshot folder.
        reviewer, client, team_change
            As for :class:`AccessReview`; earlier decisions keep their reviewer.

        Raises
        ------
        SnapshotError
            When the folder is not a snapshot this docsapi reads.
        """
        from docsapi.audit import load_audit
        from docsapi.audit.snapshot.store import list_tables, load_table

        audit = load_audit(path)
        review = cls(audit, reviewer=reviewer, client=client, team_change=team_change)
        saved = list_tables(path)
        if DECISIONS_TABLE in saved:
            review.decisions = _decisions.conform_saved(
                load_table(path, DECISIONS_TABLE), review.decisions
            )
        if RESULTS_TABLE in saved:
            review.results = _with_columns(load_table(path, RESULTS_TABLE), RESULT_COLUMNS)
        if SIGN_OFFS_TABLE in saved:
            review.sign_offs = _with_columns(load_table(path, SIGN_OFFS_TABLE), _SIGN_OFF_COLUMNS)
        return review

    # -- evidence ----------------------------------------------------------------------------
    def sign_off(self, name: str, *, role: str | None = None, note: str | None = None) -> None:
        """Record that ``name`` signed the review off (shown in the evidence), approving the
        plan as it is now: its digest (:meth:`plan_digest`) is recorded with the sign-off,
        so a plan saved afterwards (:meth:`save_plan`) can be applied from a terminal. A
        decision made later changes the plan: sign off again.

        Parameters
        ----------
        name : str
            Who signs.
        role : str, optional
            Their role, e.g. ``"Head of Security"``.
        note : str, optional
            Anything they add.

        Raises
        ------
        ValidationError
            For an empty name, or a role or note that is not text.
        """
        if not isinstance(name, str) or not name.strip():
            raise ValidationError("name", "name who signs off, e.g. sign_off('Ada Cerf')")
        _decisions.check_person(name, "name")
        if role is not None:
            _decisions.check_person(role, "role")
        if note is not None:
            _decisions.check_note(note, "note")
        row = pd.DataFrame(
            [
                {
                    "name": name.strip(),
                    "role": role,
                    "note": note,
                    "signed_at": pd.Timestamp.now(tz="UTC"),
                    "plan_digest": self.plan_digest(),
                }
            ]
        ).astype(_SIGN_OFF_COLUMNS)
        earlier = self.sign_offs
        self.sign_offs = pd.concat([earlier, row], ignore_index=True) if len(earlier) else row

    def summary(self) -> pd.DataFrame:
        """The review in numbers: accesses, decisions, calls planned and done, sign-offs."""
        from docsapi.review._evidence import summary_table

        return summary_table(self)

    def to_excel(self, path: str | os.PathLike[str]) -> Path:
        """Write the evidence workbook (sheets summary, decisions, plan, results, sign-off)
        with its manifest beside it; see :func:`docsapi.review._evidence.write_excel`."""
        from docsapi.review._evidence import write_excel

        return write_excel(self, path)

    def to_html(self, path: str | os.PathLike[str]) -> Path:
        """Write the evidence as one self-contained HTML page with its manifest beside it;
        see :func:`docsapi.review._evidence.write_html`."""
        from docsapi.review._evidence import write_html

        return write_html(self, path)

    def panel(self) -> ReviewPanel:
        """The ipywidgets panel to filter, decide, plan, dry-run and apply in a notebook;
        see :class:`docsapi.review.panel.ReviewPanel`."""
        from docsapi.review.panel import ReviewPanel

        return ReviewPanel(self)


def _with_columns(saved: pd.DataFrame, columns: dict[str, Any]) -> pd.DataFrame:
    """A table saved by an earlier docsapi, with the columns added since (missing values)."""
    table = saved.copy()
    for name, dtype in columns.items():
        if name not in table.columns:
            table[name] = pd.Series(pd.NA, index=table.index).astype(dtype)
    return table
