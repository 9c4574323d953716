"""The seeded demo organization: people, teams, collections, spaces, sites and their access.

The organization exercises every path of the access model (``docs/access-model.md``) and
holds one deliberate instance of each problem a permission audit looks for, at places
recorded in the returned facts, and no other instance (see :func:`build_demo`). Grants and
sites are laid out by :mod:`._grants` and :mod:`._sites`.

Timestamps that an audit compares with today (when members were last seen, when share links
were made) are drawn back from ``now`` (the sandbox clock's time when it is built), whole
days plus less than half a day (an hour for share links), so their ages in days are the same
at any hour; every other timestamp is drawn before :data:`._plan.EPOCH`,
so names, ids and findings never depend on the day the demo is built.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from docsapi.sandbox.core._state import State
from docsapi.sandbox.demo import _grants, _history, _sites
from docsapi.sandbox.demo._builder import Builder
from docsapi.sandbox.demo._size import DemoSize


def build_demo(
    seed: int = 0,
    size: DemoSize | None = None,
    now: datetime | None = None,
    *,
    shared_sites: bool = False,
) -> tuple[State, dict[str, Any]]:
    """Build the demo organization for ``seed``.

    Parameters
    ----------
    seed
        Same seed, same ids, names and numbers.
    size
        Counts of spaces, users, teams and direct grants per space (default: the demo size).
    now
        The instant "last seen" and share-link ages count back from (default: the current
        time). Ages in whole days counted within 12 hours of it do not depend on the hour.
    shared_sites
        Put spaces under several sites (:func:`._sites.shared_spaces`): a site space of one
        site becomes a section's space of another. Off by default (the demo's numbers stay).

    Returns
    -------
    (State, dict)
        The data, and facts about it for tests and demos (listed in
        ``docs/sandbox-demo.md``): ids of the people, teams, collections, spaces, sites,
        share links and invite links that play a part, ``path_examples``, and one list per
        audit rule with exactly the places the rule must report.

    Examples
    --------
    >>> state, facts = build_demo(0)
    >>> len(state.spaces), facts["no_admin"] == build_demo(0)[1]["no_admin"]
    (30, True)
    """
    size = size or DemoSize()
    size.check()
    if now is None:
        now = datetime.now(UTC).replace(microsecond=0)
    builder = Builder(seed, size, now)
    builder.organization()
    builder.users()
    builder.roles()
    builder.teams()
    builder.collections()
    builder.spaces()
    _grants.collection_grants(builder)
    _grants.space_grants(builder)
    _sites.sites(builder)
    _sites.structure(builder)
    if shared_sites:
        _sites.shared_spaces(builder)
    _sites.invites(builder)
    _grants.facts(builder)
    _history.history(builder)
    return builder.state, builder.facts
