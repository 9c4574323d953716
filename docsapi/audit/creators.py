"""Who created each space and collection, read from the organization's audit log.

The platform hides "No access" content from everyone except admins and whoever created the
space or collection (``docs/access-model.md``). Neither ``Space`` nor ``Collection`` says
who created it; the audit log does: each creation is an event whose target is the new space
or collection and whose actor made it: ``space.created`` and ``collection.created`` (the
platform's vocabulary, :mod:`docsapi.core.audit_actions`), and the sandbox's older
``space.create`` and ``collection.create`` (snapshots made before hold them).

A space or collection created before the log begins has no such event: its creator is
unknown, and the audit says so (see :mod:`docsapi.audit.coverage`) instead of guessing.
The crawl (:mod:`docsapi.audit.crawl`) reads the events: its window of the log, and each
create action of :data:`CREATE_ACTIONS` up to where the window starts. Reading the log needs
an organization admin's token (and, on the platform, an Enterprise plan): when it cannot be
read, every creator is unknown.

Examples
--------
>>> events = pd.DataFrame({"action": ["space.created"], "target_type": ["space"],
...     "target_id": ["s1"], "actor_type": ["user"], "actor_id": ["u1"],
...     "occurred_at": [pd.Timestamp("2026-01-05", tz="UTC")]})
>>> creators_from_events(events)[["target_id", "user_id"]].values.tolist()
[['s1', 'u1']]
"""

from __future__ import annotations

import pandas as pd

from docsapi.audit.data import conform

__all__ = ["CREATE_ACTIONS", "CREATE_ACTION_NAMES", "creators_from_events"]

#: The audit log's actions that create content, by the content type they create.
CREATE_ACTIONS: dict[str, tuple[str, ...]] = {
    "space": ("space.create", "space.created"),
    "collection": ("collection.create", "collection.created"),
}
#: Every create action, in the order they are read.
CREATE_ACTION_NAMES: tuple[str, ...] = tuple(a for names in CREATE_ACTIONS.values() for a in names)


def creators_from_events(events: pd.DataFrame) -> pd.DataFrame:
    """The raw ``creators`` table from audit events (columns of ``client.orgs.audit_events``).

    Only the create actions of :data:`CREATE_ACTIONS` count; a creator is a user when the
    event's actor is one (an integration's creation has no user to keep access). When the
    log holds two creations of one id (it cannot, but a log is data), the first is kept.

    Parameters
    ----------
    events : DataFrame
        Audit events with ``action``, ``target_type``, ``target_id``, ``actor_type``,
        ``actor_id`` and ``occurred_at``.

    Returns
    -------
    DataFrame
        ``target_type``, ``target_id``, ``user_id``, ``created_at``.
    """
    kinds = {action: kind for kind, actions in CREATE_ACTIONS.items() for action in actions}
    kind = events["action"].astype(object).map(kinds)
    chosen = events[kind.notna().to_numpy(dtype=bool)].assign(target_type=kind)
    chosen = chosen.sort_values("occurred_at", kind="stable")
    by_user = (chosen["actor_type"] == "user").fillna(False).to_numpy(dtype=bool)
    return conform(
        "creators",
        pd.DataFrame(
            {
                "target_type": chosen["target_type"].to_numpy(dtype=object),
                "target_id": chosen["target_id"].to_numpy(dtype=object),
                "user_id": chosen["actor_id"].where(by_user, None).to_numpy(dtype=object),
                "created_at": chosen["occurred_at"].to_numpy(),
            }
        ),
    )
