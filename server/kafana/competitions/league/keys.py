"""Every Redis key of a league, in one place: the league's own under its hash tag
``{lg:<league>}``, each rating band's (`bands`) under the band's, each player's under theirs.

>>> LeagueKeys("spring").board(3)
'{lg:spring}:s:3:board'
>>> BandKeys("spring", 0, 1).queue_since, BandKeys("spring", 2, 3).match(5)
('{lg:spring}:queue:since', '{lg:spring:b2}:match:5')
>>> home("spring", "ana")
'{lg:spring:p:ana}:band'
"""

from __future__ import annotations

from dataclasses import dataclass

from kafana.competitions.hash_tag import TaggedKey, hash_tag

LEAGUES = "kafana:leagues"
"""Set: every league's name (its own key: on a cluster it lives on one node)."""


def home(league: str, player: str) -> str:
    """String: "<band> <epoch>", the band the player queues in (a league of several bands),
    under the player's own hash tag."""
    return hash_tag("lg", f"{league}:p:{player}", "player") + ":band"


def bench(league: str, player: str) -> str:
    """String: "<no-shows> <until ms>": a player who did not take their seat may not queue
    again until then (`LeagueStore.bench`), under the player's own hash tag."""
    return hash_tag("lg", f"{league}:p:{player}", "player") + ":bench"


@dataclass(frozen=True)
class BandKeys:
    """Key names of band `band` of league `league`, of `count` bands (one band: the league's
    own tag, so a league keeps its keys whatever it had before bands)."""

    league: str
    band: int = 0
    count: int = 1

    @property
    def tag(self) -> str:
        """``{lg:<league>}`` for one band, ``{lg:<league>:b<band>}`` for several."""
        name = self.league if self.count == 1 else f"{self.league}:b{self.band}"
        return hash_tag("lg", name, "league")

    queue_since = TaggedKey("queue:since")
    """Sorted set: waiting player -> the time they joined (ms)."""

    queue_rating = TaggedKey("queue:rating")
    """Sorted set: waiting player -> the rating used for pairing (mu)."""

    match_counter = TaggedKey("match:n")
    """String: the band's last match (`Bands.number` makes it the league's number)."""

    active = TaggedKey("active")
    """Hash: player -> the match they are in, until it is settled."""

    due = TaggedKey("due")
    """Sorted set: unsettled match -> when a referee looks at it next (ms); claiming one
    moves it a lease ahead, so one referee at a time looks at a match."""

    recent = TaggedKey("recent")
    """Hash: player -> the other players of its last 8 matches, newest first ("b c;d;"):
    the rematch limit."""

    lease = TaggedKey("lease:pair")
    """String: the referee process pairing the band's queue now (expires)."""

    fence = TaggedKey("fence")
    """Hash (several bands): player -> the epoch of its `home` from which it may queue here
    again (set as it moves to another band: a join begun before is refused)."""

    def match(self, number: int) -> str:
        """Hash: one match's players, table, secret, commitment, state and result."""
        return f"{self.tag}:match:{number}"

    def held(self) -> list[str]:
        """The keys that live as long as the league does (renewed while it is used)."""
        return [self.queue_since, self.queue_rating, self.match_counter, self.active,
                self.due, self.recent, self.fence]  # fmt: skip


@dataclass(frozen=True)
class LeagueKeys:
    """Key names of league `league` (a name without braces or spaces) under its own tag."""

    league: str

    @property
    def tag(self) -> str:
        """The hash tag: ``{lg:<league>}``."""
        return hash_tag("lg", self.league, "league")

    meta = TaggedKey("meta")
    """Hash: spec (the LeagueSpec, hex of its bytes: its band edges too), organiser,
    created_ms, counters."""

    season = TaggedKey("season")
    """String: the current season number."""

    def ratings(self, season: int) -> str:
        """Hash: player -> JSON {mu, sigma, games} for the season."""
        return f"{self.tag}:s:{season}:ratings"

    def board(self, season: int) -> str:
        """Sorted set: player -> displayed rating (mu - 3 sigma) for the season."""
        return f"{self.tag}:s:{season}:board"

    def rated(self, season: int) -> str:
        """Hash: match -> its game number, while the match is rated and not yet marked
        settled (so it is rated once when settling it is taken up again)."""
        return f"{self.tag}:s:{season}:rated"

    def history(self, season: int, player: str) -> str:
        """List: JSON {game, mu, sigma} after each rated game of the player, oldest first."""
        return f"{self.tag}:s:{season}:hist:{player}"

    def matches(self, season: int, player: str) -> str:
        """List: the player's settled matches of the season, newest first."""
        return f"{self.tag}:s:{season}:matches:{player}"

    games = TaggedKey("games")
    """String: rated games in the league so far (numbers history points)."""
