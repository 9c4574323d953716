"""Which event of the audit log explains each change between two audits.

A change between two audits (a path that appeared or went, a permission given, changed or
taken, a way in without an account) is explained by the events of the current audit's log
between the two audits' times that changed one of the settings able to cause it: its own
permission, the membership of the team it goes through, the default level of its space or
of a collection above, the user's organization role, where the space sits, the site or the
share link. The latest such event names who made the change (``changed_by``,
``changed_by_id``), when (``changed_at``), through what (``changed_via``, the event's
``source``) and which event (``event_id``). ``explained`` is False for a change no event
explains (made behind the platform's back, or by an action the log does not record), and
missing when the current audit's log does not reach back to the previous audit (then
nothing can be told).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd

from docsapi.audit.data import BOOLEAN, STRING, AuditData
from docsapi.audit.provenance import grant_key
from docsapi.audit.view import AuditView

__all__ = ["ATTRIBUTION_COLUMNS", "Attribution"]

#: Columns every table of changes gains.
ATTRIBUTION_COLUMNS = [
    "changed_by",
    "changed_by_id",
    "changed_at",
    "changed_via",
    "event_id",
    "explained",
]


class Attribution:
    """The events between two audits, and the settings each change could come from.

    Parameters
    ----------
    previous, current : AuditView
        The audits compared; the current one's log is read.
    """

    def __init__(self, previous: AuditView, current: AuditView) -> None:
        self.previous, self.current = previous, current
        start = pd.Timestamp(previous.generated_at)
        data = current.data
        log = current.coverage[current.coverage["item"] == "audit log read"]
        read = bool(len(log)) and bool(log["complete"].iloc[0]) and data.events_since is not None
        #: Whether the current audit's log covers the time between the two audits.
        self.covered = bool(read and data.events_since is not None and data.events_since <= start)
        events = current.events
        # Every event the current audit read happened before it ended: only the start cuts.
        within = (events["occurred_at"] > start).fillna(False)
        events = events[within.to_numpy(dtype=bool) & events["key"].notna().to_numpy(dtype=bool)]
        self._events = events.drop_duplicates("key")  # newest first: the latest per key
        self._index = pd.Index(self._events["key"].astype(object), dtype=object)
        self._parents = _parents(previous.data, data)

    @property
    def note(self) -> str | None:
        """Why changes cannot be attributed, when the log was read but does not tell (an
        audit that did not ask for the log has ``explained`` missing, and no note)."""
        since = self.current.data.events_since
        if self.covered or since is None:
            return None
        reach = (
            "could not be read"
            if since <= pd.Timestamp(self.previous.generated_at)
            else (f"starts {since:%Y-%m-%d %H:%M} UTC")
        )
        return (
            f"The current audit's audit log {reach}, after the previous audit: who made the "
            "changes is not known (explained is missing). Audit with previous=<the earlier "
            "audit> or an events_since before it."
        )

    # -- the settings able to cause a change ---------------------------------------------
    def _above(self, kind: str, item: str | None) -> list[str]:
        """Keys of where ``item`` sits and of the default levels of the collections above."""
        keys: list[str] = []
        seen: set[str] = set()
        while item and item not in seen:
            seen.add(item)
            keys.append(f"parent|{kind}|{item}")
            item = self._parents.get(item)
            kind = "collection"
            if item:
                keys.append(f"default-level|collection|{item}")
        return keys

    def path_candidates(self, row: dict[str, Any]) -> list[str]:
        """The settings whose change can add or remove one path (a row of ``paths``)."""
        space, user = str(row["space_id"]), str(row["user_id"])
        source = str(row["source"])
        team = row.get("team_id")
        collection = row.get("collection_id")
        keys: list[str] = []
        if source == "org-admin":
            keys.append(f"org-role|{user}")
        elif source.startswith("default:"):
            keys += [f"default-level|space|{space}", f"org-role|{user}"]
            keys += self._above("space", space)
        elif source == "direct":
            keys.append(grant_key("space", space, "user", user))
        elif source.startswith("team:"):
            keys += [grant_key("space", space, "team", str(team)), f"team-member|{team}|{user}"]
        elif source.startswith("collection:"):
            keys.append(grant_key("collection", str(collection), "user", user))
            keys += self._above("space", space)
        elif source.startswith("collection-team:"):
            keys += [
                grant_key("collection", str(collection), "team", str(team)),
                f"team-member|{team}|{user}",
            ]
            keys += self._above("space", space)
        elif source.startswith("site-default:"):
            keys.append(f"default-level|site|{source.split(':', 1)[1]}")
        elif source.startswith("site-team:"):
            site, _, site_team = source.split(":", 1)[1].partition("/")
            keys += [grant_key("site", site, "team", site_team), f"team-member|{site_team}|{user}"]
        elif source.startswith("site:"):
            keys.append(grant_key("site", source.split(":", 1)[1], "user", user))
        return keys

    @staticmethod
    def grant_candidates(row: dict[str, Any]) -> list[str]:
        """The setting of one permission (a row of ``grants``)."""
        return [
            grant_key(
                str(row["target_type"]),
                str(row["target_id"]),
                str(row["principal_type"]),
                str(row["principal_id"]),
            )
        ]

    @staticmethod
    def exposure_candidates(row: dict[str, Any]) -> list[str]:
        """The settings whose change can open or close one way in without an account."""
        keys = []
        if isinstance(row.get("share_link_id"), str):
            keys.append(f"share-link|{row['share_link_id']}")
        if isinstance(row.get("site_id"), str):
            keys += [f"published|{row['site_id']}", f"visibility|{row['site_id']}"]
        return keys

    # -- the answer ------------------------------------------------------------------------
    def columns(self, candidates: Iterable[list[str]]) -> dict[str, Any]:
        """The :data:`ATTRIBUTION_COLUMNS` of changes, each given its candidate settings."""
        events = self._events
        chosen = []
        for keys in candidates:  # one per change: few
            found = self._index.get_indexer(pd.Index(keys, dtype=object)) if keys else []
            found = [i for i in found if i >= 0]
            chosen.append(min(found) if found else -1)  # newest first: the smallest is latest
        rows = np.asarray(chosen, dtype=np.int64)
        hit = rows >= 0

        def pick(column: str) -> list[Any]:
            values = events[column].astype(object).to_numpy()
            return [values[r] if r >= 0 and not pd.isna(values[r]) else None for r in rows]

        who = [
            label if label is not None else actor
            for label, actor in zip(pick("actor_label"), pick("actor_id"), strict=True)
        ]
        times = events["occurred_at"].array
        explained = hit if self.covered else np.full(len(rows), None, dtype=object)
        return {
            "changed_by": pd.array(who, dtype=STRING),
            "changed_by_id": pd.array(pick("actor_id"), dtype=STRING),
            "changed_at": pd.array(
                [times[r] if r >= 0 else pd.NaT for r in rows], dtype="datetime64[ns, UTC]"
            ),
            "changed_via": pd.array(pick("source"), dtype=STRING),
            "event_id": pd.array(pick("id"), dtype=STRING),
            "explained": pd.array(list(explained), dtype=BOOLEAN),
        }

    def attribute(self, table: pd.DataFrame, kind: str) -> pd.DataFrame:
        """``table`` with the attribution columns; ``kind``: paths, grants or exposure."""
        candidates = {
            "paths": self.path_candidates,
            "grants": self.grant_candidates,
            "exposure": self.exposure_candidates,
        }[kind]
        records = table.astype(object).where(table.notna(), None).to_dict("records")
        return table.assign(
            **self.columns(candidates({str(k): v for k, v in row.items()}) for row in records)
        )


def _parents(*sides: AuditData) -> dict[str, str]:
    """Id -> parent collection id of every space and collection either audit saw."""
    parents: dict[str, str] = {}
    for data in sides:
        for frame in (data.collections, data.spaces):
            for item, parent in zip(
                frame["id"].astype(object), frame["parent"].astype(object), strict=True
            ):
                if isinstance(item, str) and isinstance(parent, str):
                    parents.setdefault(item, parent)
    return parents
