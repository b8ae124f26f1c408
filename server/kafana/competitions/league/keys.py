"""Every Redis key of a league, in one place, under the league's hash tag ``{lg:<league>}``.

>>> LeagueKeys("spring").board(3)
'{lg:spring}:s:3:board'
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kafana.competitions.hash_tag import TaggedKey, hash_tag


@dataclass(frozen=True)
class LeagueKeys:
    """Key names of league `league` (a name without braces or spaces)."""

    league: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "tag", hash_tag("lg", self.league, "league"))

    tag: str = field(init=False, repr=False, compare=False)
    """The hash tag: ``{lg:<league>}``."""

    season = TaggedKey("season")
    """String: the current season number."""

    queue_since = TaggedKey("queue:since")
    """Sorted set: waiting player -> the time they joined (ms)."""

    queue_rating = TaggedKey("queue:rating")
    """Sorted set: waiting player -> the rating used for pairing (mu)."""

    match_counter = TaggedKey("match:n")
    """String: the last match number handed out."""

    assigned = TaggedKey("assigned")
    """Hash: player -> the match (and table) they were paired into."""

    def match(self, number: int) -> str:
        """Hash: one match's players, table, commitment, created time."""
        return f"{self.tag}:match:{number}"

    seeds = TaggedKey("seeds")
    """Hash: match number -> its seed, kept by the organiser until the match is over."""

    def ratings(self, season: int) -> str:
        """Hash: player -> JSON {mu, sigma, games} for the season."""
        return f"{self.tag}:s:{season}:ratings"

    def board(self, season: int) -> str:
        """Sorted set: player -> displayed rating (mu - 3 sigma) for the season."""
        return f"{self.tag}:s:{season}:board"

    def history(self, season: int, player: str) -> str:
        """List: JSON {game, mu, sigma} after each rated game of the player, oldest first."""
        return f"{self.tag}:s:{season}:hist:{player}"

    games = TaggedKey("games")
    """String: rated games in the league so far (numbers history points)."""
