"""How big a demo organization to build: :class:`DemoSize`, the default and minimum counts."""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_SPACES, DEFAULT_USERS, DEFAULT_TEAMS = 30, 60, 8
MIN_SPACES, MIN_USERS, MIN_TEAMS = 30, 40, 6
#: The largest organization built (far above any benchmark: 10,000 spaces x 20,000 people).
MAX_SPACES, MAX_USERS, MAX_TEAMS, MAX_GRANTS_PER_SPACE = 100_000, 500_000, 50_000, 10_000
#: Share of spaces whose own default level is ``inherit`` at the demo size, and when big.
DEMO_INHERIT_SHARE, BIG_INHERIT_SHARE = 0.5, 0.02


@dataclass(frozen=True)
class DemoSize:
    """How big a demo organization to build.

    Parameters
    ----------
    spaces, users, teams
        Counts (at least 30 spaces, 40 users, 6 teams; at most 100,000, 500,000 and 50,000).
    grants_per_space
        Direct user grants per space (default: 2 to 6, drawn per space; at most 10,000).
    inherit_share
        Share of the spaces (other than those with a fixed part) whose own default level is
        ``inherit``; the others get ``null`` (private: only explicit grants reach them), or
        ``read`` for a fifth of them at the demo size. Default 0.5 at the demo size and 0.02
        for big organizations, whose further collections are mostly private too, so that
        access there is dominated by the explicit grants of each space.
    """

    spaces: int = DEFAULT_SPACES
    users: int = DEFAULT_USERS
    teams: int = DEFAULT_TEAMS
    grants_per_space: int | None = None
    inherit_share: float | None = None

    def check(self) -> None:
        """Raise ValueError when the organization would be too small to hold every case."""
        counts = [
            ("spaces", self.spaces, MIN_SPACES, MAX_SPACES),
            ("users", self.users, MIN_USERS, MAX_USERS),
            ("teams", self.teams, MIN_TEAMS, MAX_TEAMS),
        ]
        if self.grants_per_space is not None:
            counts.append(("grants_per_space", self.grants_per_space, 0, MAX_GRANTS_PER_SPACE))
        for label, value, minimum, maximum in counts:
            if (
                not isinstance(value, int)
                or isinstance(value, bool)
                or not minimum <= value <= maximum
            ):
                raise ValueError(
                    f"{label} must be an integer from {minimum:,} to {maximum:,}, got {value!r:.60}"
                )
        share = self.inherit_share
        if share is not None and (
            isinstance(share, bool) or not isinstance(share, int | float) or not 0 <= share <= 1
        ):
            raise ValueError(f"inherit_share must be a number from 0 to 1, got {share!r:.60}")

    @property
    def big(self) -> bool:
        """True for organizations far above the demo size (content is then kept small)."""
        return self.spaces > 100 or self.users > 500

    @property
    def share_inheriting(self) -> float:
        """The share of free spaces whose default level is ``inherit``."""
        if self.inherit_share is not None:
            return float(self.inherit_share)
        return BIG_INHERIT_SHARE if self.big else DEMO_INHERIT_SHARE
