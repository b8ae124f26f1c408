"""Every Redis key of a league, in one place, under the league's hash tag ``{lg:<league>}``.

>>> LeagueKeys("spring").board(3)
'{lg:spring}:s:3:board'
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kafana.competitions.hash_tag import TaggedKey, hash_tag

LEAGUES = "kafana:leagues"
"""Set: every league's name (its own key: on a cluster it lives on one node)."""


@dataclass(frozen=True)
class LeagueKeys:
    """Key names of league `league` (a name without braces or spaces)."""

    league: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "tag", hash_tag("lg", self.league, "league"))

    tag: str = field(init=False, repr=False, compare=False)
    """The hash tag: ``{lg:<league>}``."""

    meta = TaggedKey("meta")
    """Hash: spec (the LeagueSpec, hex of its bytes), organiser, created_ms, counters."""

    season = TaggedKey("season")
    """String: the current season number."""

    queue_since = TaggedKey("queue:since")
    """Sorted set: waiting player -> the time they joined (ms)."""

    queue_rating = TaggedKey("queue:rating")
    """Sorted set: waiting player -> the rating used for pairing (mu)."""

    match_counter = TaggedKey("match:n")
    """String: the last match number handed out."""

    active = TaggedKey("active")
    """Hash: player -> the match they are in, until it is settled."""

    due = TaggedKey("due")
    """Sorted set: unsettled match -> when a referee looks at it next (ms); claiming one
    moves it a lease ahead, so one referee at a time looks at a match."""

    recent = TaggedKey("recent")
    """Hash: player -> the other players of its last 8 matches, newest first ("b c;d;"):
    the rematch limit."""

    lease = TaggedKey("lease:pair")
    """String: the referee process pairing the queue now (expires)."""

    def match(self, number: int) -> str:
        """Hash: one match's players, table, secret, commitment, state and result."""
        return f"{self.tag}:match:{number}"

    def ratings(self, season: int) -> str:
        """Hash: player -> JSON {mu, sigma, games} for the season."""
        return f"{self.tag}:s:{season}:ratings"

    def board(self, season: int) -> str:
        """Sorted set: player -> displayed rating (mu - 3 sigma) for the season."""
        return f"{self.tag}:s:{season}:board"

    def history(self, season: int, player: str) -> str:
        """List: JSON {game, mu, sigma} after each rated game of the player, oldest first."""
        return f"{self.tag}:s:{season}:hist:{player}"

    def matches(self, season: int, player: str) -> str:
        """List: the player's settled matches of the season, newest first."""
        return f"{self.tag}:s:{season}:matches:{player}"

    games = TaggedKey("games")
    """String: rated games in the league so far (numbers history points)."""
