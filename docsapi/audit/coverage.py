"""What the audit could and could not see, and whether it may call itself complete.

How completeness is judged
--------------------------
An audit is complete only when all of these hold:

1. The token's user is an organization **admin**. Only an admin sees every space (and
   every collection, site and permission); with any other token, spaces the token cannot
   access are simply absent from the lists, and nothing in the answers says so. A token
   whose role cannot be told (an integration, a user who is not a member) cannot vouch for
   completeness either.
2. The spaces listed are as many as the API says the list holds (its ``count``), when it
   says.
3. Every part of :data:`~docsapi.audit.data.PARTS` was read, and no single read failed
   (``errors`` is empty).
4. Every collection a space sits in was listed (no chain of parents breaks off).

Anything computed from a read that failed is marked, not guessed: spaces whose access
depends on it get ``complete == False`` in ``effective``, and the rules skip them where
missing data could produce a finding.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from docsapi.audit.data import BOOLEAN, PARTS, STAGES, STRING, AuditData
from docsapi.audit.log_events import LOG_CONTENT_STAGE
from docsapi.core.audit_actions import ACTIONS, action_settings

__all__ = ["COVERAGE_COLUMNS", "Gaps", "coverage_table", "find_gaps"]

COVERAGE_COLUMNS = ["item", "seen", "total", "complete", "detail"]

#: Stage → target type whose id the failed read names.
_PER_TARGET = {
    "team_members": "team",
    "space_permissions": "space",
    "collection_permissions": "collection",
    "site_spaces": "site",
    "share_links": "site",
    "site_permissions": "site",
    "aggregate": "space",
}


@dataclass(frozen=True)
class Gaps:
    """The reads an audit is missing.

    Attributes
    ----------
    lost : frozenset of str
        Parts not read at all: declared unread by the crawl, or whose list read failed.
    failed : dict of str to frozenset of str
        Part → ids of the targets whose read of that part failed (e.g. ``team_members`` →
        team ids).
    """

    lost: frozenset[str]
    failed: dict[str, frozenset[str]]

    def ids(self, part: str) -> frozenset[str]:
        """Targets whose read of ``part`` failed."""
        return self.failed.get(part, frozenset())

    def has(self, part: str) -> bool:
        """Whether ``part`` was read (even if some of its single reads failed)."""
        return part not in self.lost


def find_gaps(data: AuditData) -> Gaps:
    """Collect the parts and targets the audit could not read.

    Parameters
    ----------
    data : AuditData
        The raw tables, with ``not_read`` and ``errors``.

    Returns
    -------
    Gaps
    """
    errors = data.errors
    lost = set(data.not_read)
    failed: dict[str, set[str]] = {}
    for stage, target_type, target_id in zip(
        errors["stage"].astype(object),
        errors["target_type"].astype(object),
        errors["target_id"].astype(object),
        strict=True,
    ):  # one row per failed read: few, never per granted row
        part = STAGES.get(stage)
        if part is None:
            continue
        if target_type == "organization" or part not in _PER_TARGET:
            lost.add(part)
        elif isinstance(target_id, str):
            failed.setdefault(part, set()).add(target_id)
    return Gaps(lost=frozenset(lost), failed={k: frozenset(v) for k, v in failed.items()})


def _row(item: str, seen, total, complete: bool, detail: str) -> dict[str, object]:
    return {"item": item, "seen": seen, "total": total, "complete": complete, "detail": detail}


def _per_target(
    item: str, part: str, what: str, targets: pd.Series, gaps: Gaps, noun: str
) -> dict[str, object]:
    total = len(targets)
    if not gaps.has(part):
        return _row(item, 0, total, False, f"not read: {PARTS[part]} are unknown.")
    failed = gaps.ids(part) & set(targets.astype(object))
    seen = total - len(failed)
    if failed:
        named = ", ".join(sorted(failed)[:5]) + (" …" if len(failed) > 5 else "")
        return _row(item, seen, total, False, f"could not read {what} of {noun} {named}.")
    return _row(item, seen, total, True, f"{what} of every {noun} read.")


def _token_row(role: str | None) -> dict[str, object]:
    if role == "admin":
        return _row("token role", None, None, True, "admin: the token sees every space.")
    if role is None:
        return _row(
            "token role",
            None,
            None,
            False,
            "unknown: the token's organization role could not be told, so spaces it cannot "
            "access may be missing. Audit with an organization admin's token.",
        )
    return _row(
        "token role",
        None,
        None,
        False,
        f"{role}: not an organization admin, so spaces the token cannot access are missing "
        "from every list. Audit with an organization admin's token.",
    )


def _log_row(data: AuditData, gaps: Gaps) -> dict[str, object]:
    """The audit log: read (from when), not asked for, or not readable (a partial audit)."""
    if data.events_since is None:
        return _row(
            "audit log read",
            None,
            None,
            True,
            "not asked for: grants and paths carry no provenance (who made them, when).",
        )
    since = f"{data.events_since:%Y-%m-%d}"
    if not gaps.has("audit_log"):
        return _row(
            "audit log read",
            0,
            None,
            False,
            f"not read (from {since}): who made each grant and when is unknown. Audit with an "
            "organization admin's token, on a plan with an audit log.",
        )
    read = f"{len(data.events)} events from {since} on."
    set_aside = _log_content(data)
    if set_aside:
        return _row(
            "audit log read",
            len(data.events),
            None,
            False,
            f"{read} The log: {'; '.join(set_aside)}. Provenance comes from the other events.",
        )
    return _row("audit log read", len(data.events), None, True, read)


def _log_content(data: AuditData) -> list[str]:
    """What the crawl said of the log's events it did not trust (its ``errors`` rows of
    stage :data:`~docsapi.audit.log_events.LOG_CONTENT_STAGE`)."""
    rows = data.errors[(data.errors["stage"] == LOG_CONTENT_STAGE).fillna(False).to_numpy(bool)]
    return [str(message) for message in rows["message"].astype(object) if isinstance(message, str)]


def _stopped_row(data: AuditData) -> dict[str, object] | None:
    """The reads that stopped at a bound of :class:`~docsapi.core.config.ReadBounds`: which
    read, where it stopped and why (None when every read ended by itself)."""
    errors = data.errors
    stopped = errors[(errors["error_type"] == "ReadBoundError").fillna(False).to_numpy(bool)]
    if stopped.empty:
        return None
    named = [
        f"{stage} of {kind} {target}: {str(message).rstrip('.')}"
        for stage, kind, target, message in zip(
            stopped["stage"].astype(object).head(3),
            stopped["target_type"].astype(object).head(3),
            stopped["target_id"].astype(object).head(3),
            stopped["message"].astype(object).head(3),
            strict=True,
        )
    ]
    more = f" (and {len(stopped) - 3} more, see audit.errors)" if len(stopped) > 3 else ""
    count = len(stopped)
    reads = (
        "1 read stopped before the end of its list"
        if count == 1
        else (f"{count} reads stopped before the end of their lists")
    )
    return _row(
        "reads stopped at a bound",
        count,
        None,
        False,
        f"{reads}: {'; '.join(named)}{more}. What they did not read is unknown; raise the bounds "
        "(read_bounds=docsapi.ReadBounds(...), or --max-pages, --max-items, "
        "--max-read-seconds) if the organization is that large.",
    )


#: How many unused actions the coverage row names (the rest are counted), and how much of each
#: name it shows (a log is server data: an action may be any string).
_NAMED_ACTIONS = 8
_NAME_LENGTH = 80


def _short(name: str) -> str:
    return name if len(name) <= _NAME_LENGTH else name[: _NAME_LENGTH - 1] + "…"


def _actions_row(data: AuditData, settings: Mapping[str, str]) -> dict[str, object]:
    """The log's events whose action changes no setting provenance follows, by action."""
    actions = pd.Series(data.events["action"].astype(object).to_numpy(), dtype=object)
    used = actions.isin(list(settings)).to_numpy(dtype=bool)
    unused = actions[~used].map(lambda a: a if isinstance(a, str) else repr(a))
    counts = unused.value_counts(sort=False)
    counts = counts.iloc[np.lexsort((counts.index.to_numpy(dtype=str), -counts.to_numpy()))]
    if not len(counts):
        detail = f"the action of every event ({len(actions)}) is used for provenance."
    else:
        named = ", ".join(
            f"{_short(str(action))} ({count}"
            f"{'' if action in ACTIONS else ', not in the documented list'})"
            for action, count in counts.iloc[:_NAMED_ACTIONS].items()
        )
        more = f" and {len(counts) - _NAMED_ACTIONS} more" if len(counts) > _NAMED_ACTIONS else ""
        detail = (
            f"{len(unused)} events of {len(counts)} actions not used for provenance: "
            f"{named}{more}. An action that changes access: audit_permissions(log_actions="
            "{action: setting})."
        )
    return _row("audit log actions", int(used.sum()), len(actions), True, detail)


def coverage_table(
    data: AuditData,
    gaps: Gaps,
    *,
    spaces: pd.DataFrame,
    teams: pd.DataFrame,
    checked_spaces: int,
    log_actions: Mapping[str, str] | None = None,
) -> pd.DataFrame:
    """One row per item the audit needed: how much of it was seen, and whether all.

    Parameters
    ----------
    data : AuditData
        The raw tables.
    gaps : Gaps
        What could not be read.
    spaces : DataFrame
        The active spaces with their ``complete`` and ``chain_known`` flags.
    teams : DataFrame
        The teams with their ``members_read`` flag.
    checked_spaces : int
        Spaces whose effective access was compared with the platform's aggregate.
    log_actions : mapping of str to str, optional
        The audit's extra action IDs for provenance (see ``action_settings``).

    Returns
    -------
    DataFrame
        item, seen, total, complete, detail; ``coverage["complete"].all()`` is the audit's
        completeness.
    """
    rows = [_token_row(data.token_role)]
    listed, reported = len(data.spaces), data.spaces_reported
    if not gaps.has("spaces"):
        rows.append(_row("spaces listed", listed, reported, False, "not read."))
    elif reported is not None and reported > listed:
        rows.append(
            _row(
                "spaces listed",
                listed,
                reported,
                False,
                f"the API counts {reported} spaces but listed {listed}.",
            )
        )
    else:
        rows.append(_row("spaces listed", listed, reported, True, "every space listed."))
    rows.append(
        _per_target(
            "space permissions read",
            "space_permissions",
            "permissions",
            spaces["id"],
            gaps,
            "space",
        )
    )
    broken = int((~spaces["chain_known"].to_numpy(dtype=bool)).sum())
    if not gaps.has("collections"):
        rows.append(_row("collections listed", 0, None, False, "not read."))
    else:
        rows.append(
            _row(
                "collections listed",
                len(data.collections),
                None,
                broken == 0,
                (
                    f"{broken} spaces sit in collections that were not listed."
                    if broken
                    else "every collection holding a space listed."
                ),
            )
        )
    rows.append(
        _per_target(
            "collection permissions read",
            "collection_permissions",
            "permissions",
            data.collections["id"],
            gaps,
            "collection",
        )
    )
    rows.append(
        _per_target("team members read", "team_members", "members", teams["id"], gaps, "team")
    )
    if gaps.has("sites"):
        rows.append(_row("sites listed", len(data.sites), None, True, "every site listed."))
    else:
        rows.append(_row("sites listed", 0, None, False, "not read: exposure is unknown."))
    for item, part, what in (
        ("site spaces read", "site_spaces", "published spaces"),
        ("share links read", "share_links", "share links"),
        ("site permissions read", "site_permissions", "permissions"),
    ):
        rows.append(_per_target(item, part, what, data.sites["id"], gaps, "site"))
    if gaps.has("invite_links"):
        off = data.invite_links_enabled is False
        detail = (
            "invite links are turned off for the organization: none is active."
            if off
            else "every invite link to the organization read (links to a space or a "
            "collection are not listed by the API)."
        )
        rows.append(_row("invite links", len(data.invite_links), None, True, detail))
    else:
        rows.append(_row("invite links", 0, None, False, "not read."))
    rows.append(
        _per_target(
            "aggregate read", "aggregate", "the platform's access list", spaces["id"], gaps, "space"
        )
    )
    rows.append(_creators_row(spaces, gaps))
    complete_spaces = int(spaces["complete"].to_numpy(dtype=bool).sum())
    rows.append(
        _row(
            "spaces with complete access",
            complete_spaces,
            len(spaces),
            complete_spaces == len(spaces),
            "who reaches each space is fully known."
            if complete_spaces == len(spaces)
            else f"{len(spaces) - complete_spaces} spaces depend on reads that failed or "
            "could not be made.",
        )
    )
    rows.append(
        _row(
            "aggregate cross-checks",
            checked_spaces,
            len(spaces),
            True,
            "spaces whose effective access was compared with the platform's own list.",
        )
    )
    rows.append(_log_row(data, gaps))
    if data.events_since is not None and gaps.has("audit_log"):
        rows.append(_actions_row(data, action_settings(log_actions)))
    stopped = _stopped_row(data)
    if stopped is not None:
        rows.append(stopped)
    failures = len(data.errors) - len(_log_content(data))
    rows.append(
        _row(
            "failed reads",
            failures,
            None,
            failures == 0,
            "none." if failures == 0 else "see audit.errors.",
        )
    )
    table = pd.DataFrame(rows, columns=COVERAGE_COLUMNS)
    for column in ("seen", "total"):
        table[column] = pd.array(table[column].to_numpy(dtype=object), dtype=pd.Int64Dtype())
    table["complete"] = pd.array(table["complete"].to_numpy(dtype=bool), dtype=BOOLEAN)
    for column in ("item", "detail"):
        table[column] = table[column].astype(STRING)
    return table


def _creators_row(spaces: pd.DataFrame, gaps: Gaps) -> dict[str, object]:
    """Whether the audit log names who created each space or collection whose "No access"
    default level reaches a space (its creator keeps access). Not read (``read_log=False``,
    or a log the token cannot read) is complete only when nothing is set to No access."""
    needed = spaces[spaces["no_access_owner"].notna().to_numpy(dtype=bool)]
    owners = needed.drop_duplicates("no_access_owner")
    unknown = owners.loc[~owners["creator_known"].to_numpy(dtype=bool), "no_access_owner"]
    seen, total = len(owners) - len(unknown), len(owners)
    if not gaps.has("creators") and not total:
        detail = "not read (no audit log), and no space or collection is set to No access."
    elif not gaps.has("creators"):
        detail = (
            f"not read (no audit log): {PARTS['creators']} is unknown, so whoever created "
            f"the {total} spaces or collections set to No access may reach them unseen."
        )
    elif len(unknown):
        named = ", ".join(sorted(unknown.astype(str))[:5]) + (" …" if len(unknown) > 5 else "")
        detail = (
            f"the audit log does not say who created {len(unknown)} spaces or collections "
            f"set to No access ({named}): it may not reach back that far. Their creators "
            "keep access the audit cannot see."
        )
    else:
        detail = "the creator of every space or collection set to No access is known."
    complete = not len(unknown) if gaps.has("creators") else not total
    return _row("creators", seen, total, complete, detail)


def is_complete(coverage: pd.DataFrame) -> bool:
    """Whether every coverage item is complete."""
    return bool(np.all(coverage["complete"].to_numpy(dtype=bool)))
