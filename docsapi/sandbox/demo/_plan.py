"""The demo's fixed plan: its reference instant, and where the spaces with a part stand.

Positions in the demo's space list: 0 to 7 and the last one hold the permission cases (see
``_grants``); the others below are published, exposed or reached through the fixed
collection tree.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

#: Demo timestamps are drawn before this instant, so they never depend on the real clock.
EPOCH = datetime(2025, 1, 6, 9, 0, tzinfo=UTC)


def moment(rng: random.Random, days_back: float, before: datetime = EPOCH) -> datetime:
    """A random instant up to ``days_back`` days (at least one) before ``before``."""
    return before - timedelta(days=rng.uniform(1, days_back), seconds=rng.randint(0, 86_399))


def days_before(rng: random.Random, days_back: float, before: datetime) -> datetime:
    """A random instant a whole number of days (one to ``days_back``) and less than half a day
    before ``before``.

    An age counted in whole days from any time less than half a day after ``before`` is then
    the drawn number of days, whatever the hour: the demo's "last seen N days ago" does not
    change while a notebook or a test runs. It draws what :func:`moment` draws, so the rest
    of the demo stays the same.

    Examples
    --------
    >>> now = datetime(2026, 11, 25, 23, 59, 30, tzinfo=UTC)
    >>> then = days_before(random.Random(1), 30, now)
    >>> ages = {(now + timedelta(hours=h) - then).days for h in range(12)}
    >>> len(ages)
    1
    """
    days = int(rng.uniform(1, days_back))
    return before - timedelta(days=days, seconds=rng.randint(0, 86_399) // 2)


#: Positions in the space list of the spaces that play a fixed part (see ``PLACES``).
S_EXPOSED, S_UNLISTED, S_DISABLED, S_INACTIVE = 9, 10, (11, 12), (13, 14)
S_PARTNERS = (15, 16, 17, 18, 19)
S_PRODUCT, S_API, S_API_READ, S_ENGINEERING, S_INTERNAL, S_RUNBOOKS = 20, 21, 22, 23, 24, 25
#: A space published on its own, which members can read anyway (exposed, but no problem).
S_PUBLIC = 26
#: The private space published only on the unpublished site.
S_UNPUBLISHED = 7
#: The style guide space (an empty one): sites may attach it (``styleguide``).
S_STYLEGUIDE = 8
#: Position -> (collection key or None, default level, visibility) of the fixed spaces.
PLACES: dict[int, tuple[str | None, str | None, str]] = {
    0: (None, "inherit", "private"),
    1: ("internal", "inherit", "in-collection"),
    **{i: (None, None, "private") for i in range(2, 8)},
    S_EXPOSED: (None, None, "private"),
    S_UNLISTED: (None, None, "unlisted"),
    **{i: (None, None, "private") for i in (*S_DISABLED, *S_INACTIVE)},
    **{i: ("partners", "inherit", "in-collection") for i in S_PARTNERS},
    S_PRODUCT: ("product", "inherit", "in-collection"),
    S_API: ("api", "inherit", "in-collection"),
    S_API_READ: ("api", "read", "in-collection"),
    S_ENGINEERING: ("engineering", "inherit", "in-collection"),
    S_INTERNAL: ("internal", "inherit", "in-collection"),
    S_RUNBOOKS: ("runbooks", "inherit", "in-collection"),
    S_PUBLIC: (None, "inherit", "public"),
}

#: The spaces each fixed site links (positions), and the default levels of the sites that set
#: one (the others ``inherit``): the unlisted site sets members to ``comment`` on its spaces,
#: which inherit ``read`` from their collection.
SITE_SPACES: dict[str, tuple[int, ...]] = {
    "public": (S_PRODUCT, S_API, S_EXPOSED),
    "unlisted": (S_ENGINEERING, S_RUNBOOKS),
    "share-link": S_PARTNERS[:2],
    "visitor-auth": (S_INTERNAL,),
    "unpublished": (S_UNPUBLISHED,),
}
SITE_LEVELS: dict[str, str | None] = {"unlisted": "comment", "unpublished": None}
