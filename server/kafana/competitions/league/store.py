"""Where leagues live: the interface, shared by Redis (`redis_store`) and memory (`memory`).

A league is its spec and organiser, a season number, a queue (join time and pairing rating of
every waiting player), its matches and, per season, ratings, a board, histories and match lists.
Every write that must not happen twice is one atomic step of the store: joining the queue
(refused while the player has a match not settled), claiming players for a match, claiming due
matches for a referee; settling a match is three, each once (its result fixed, its ratings
written, marked settled), so a player is rated once for it whoever takes settling it up again.
A league may split its queue into rating bands (`bands`): each band is paired, and its matches
kept, apart from the others.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field

from kafana.competitions.league.bands import Bands

PAIRED = "paired"
WAITING = "waiting"
IDLE = "idle"
SETTLED = "settled"
RATING = "rating"
"""A match whose result is fixed, being rated (settled in a moment)."""
PLAYING = "playing"


KEEP_MS = 30 * 86_400_000
"""What a league keeps unless told (its spec's default retention)."""


@dataclass(frozen=True)
class Waiting:
    """A player in the queue: since when (ms) and the rating they are paired on (mu)."""

    player: str
    since: int
    mu: float


@dataclass(frozen=True)
class RatingWrite:
    """One player's new rating, written only if the rating is still `read` (None: none)."""

    player: str
    read: str | None
    rating: str  # JSON {mu, sigma, games}
    board: float  # the displayed rating
    point: str  # the history point's JSON without its "{": numbered when written


@dataclass(frozen=True)
class Settlement:
    """What settling a match writes: its result fields, and the ratings if it is rated."""

    season: int
    players: tuple[str, ...]
    fields: dict[str, str]
    ratings: tuple[RatingWrite, ...] = field(default=())
    retention_ms: int = KEEP_MS


class LeagueStore(ABC):
    """Leagues, their queues, matches, ratings and boards."""

    kind = "memory"

    # -- leagues ------------------------------------------------------------------------

    @abstractmethod
    async def create(self, league: str, fields: dict[str, str]) -> bool:
        """Store a new league (season 1); False if the name is taken."""

    @abstractmethod
    async def meta(self, league: str) -> dict[str, str]:
        """The league's fields, with `season`, `made` and `settled` counts and, with bands,
        `band_made` (each band's matches made, space-separated) ({}: no league)."""

    @abstractmethod
    async def bands(self, league: str) -> Bands:
        """The league's rating bands (one band: a league without edges, or none)."""

    @abstractmethod
    async def leagues(self) -> list[str]:
        """Every league's name."""

    @abstractmethod
    async def new_season(self, league: str) -> int:
        """Start the next season; its number."""

    @abstractmethod
    async def keep(
        self, league: str, season: int, retention_ms: int, band: int | None = None
    ) -> None:
        """The league lives `retention_ms` from now: its meta, season, counters, the season's
        ratings and board, and its bands' queues, matches made and due (`band`: that band's
        only, the one in use). A league nobody uses for its retention is gone."""

    @abstractmethod
    async def forget(self, league: str) -> None:
        """Drop a league whose keys expired from the list of leagues."""

    # -- the queue ------------------------------------------------------------------------

    @abstractmethod
    async def join(
        self, league: str, player: str, mu: float, now: int, keep_ms: int = KEEP_MS
    ) -> tuple[str, int]:
        """Wait for a match in the band of rating `mu` (a player whose rating crossed an
        edge moves band now): (WAITING, 0), or (PAIRED, match) and nothing changed.
        `keep_ms`: how long the player's band is remembered."""

    @abstractmethod
    async def leave(self, league: str, player: str) -> bool:
        """Stop waiting; False if the player was not waiting."""

    @abstractmethod
    async def bench(self, league: str, player: str, now: int, first_ms: int, keep_ms: int) -> int:
        """Bar `player` from the queue after a no-show: `first_ms` after the first, twice as
        long after each one more while the last is remembered (`keep_ms` past its end); the
        time (ms) it ends."""

    @abstractmethod
    async def benched(self, league: str, player: str) -> int:
        """When the player's bench ends (ms; 0: never benched, or long ago)."""

    @abstractmethod
    async def status(self, league: str, player: str) -> tuple[str, int]:
        """(PAIRED, match), (WAITING, 0) or (IDLE, 0)."""

    @abstractmethod
    async def waiting(self, league: str) -> int:
        """Players in the queue (every band's)."""

    @abstractmethod
    async def oldest(self, league: str, limit: int, band: int = 0) -> list[Waiting]:
        """The `limit` longest-waiting players of a band."""

    @abstractmethod
    async def claim(
        self, league: str, players: list[str], fields: dict[str, str], due: int, band: int = 0
    ) -> int:
        """Take `players` out of the band's queue into a new match (fields stored with it,
        first look at `due`): its number, or 0 and nothing changed if one is not waiting."""

    async def last_opponents(
        self, league: str, players: list[str], band: int = 0
    ) -> dict[str, list[frozenset[str]]]:
        """Each player's opponents in its last matches, newest first (the rematch limit; a
        store that keeps none: no limit)."""
        return {}

    @abstractmethod
    async def pair_lease(self, league: str, owner: str, ttl_ms: int, band: int = 0) -> bool:
        """Take or renew the right to pair the band's queue for `ttl_ms`."""

    # -- matches --------------------------------------------------------------------------

    @abstractmethod
    async def match(
        self, league: str, number: int, only: Sequence[str] | None = None
    ) -> dict[str, str]:
        """A match's fields ({}: none, or expired); `only`: just those (not its record)."""

    @abstractmethod
    async def set_fields(self, league: str, number: int, fields: dict[str, str]) -> None:
        """Add fields to an unsettled match."""

    @abstractmethod
    async def set_once(self, league: str, number: int, name: str, value: str) -> str:
        """Set a field unless it is set: the field's value afterwards."""

    @abstractmethod
    async def due(self, league: str, now: int, limit: int, lease_ms: int) -> list[int]:
        """Claim up to `limit` unsettled matches due by `now` for `lease_ms` (another referee
        sees them again only then)."""

    @abstractmethod
    async def reschedule(self, league: str, number: int, at: int) -> None:
        """Look at an unsettled match again at `at` (sooner than its lease, or later)."""

    @abstractmethod
    async def fix(self, league: str, number: int, result: dict[str, str]) -> dict[str, str]:
        """Store the match's result unless one is (the first settler's wins): the match's
        fields then ({}: settled before, or gone)."""

    @abstractmethod
    async def settle(self, league: str, number: int, settlement: Settlement) -> str:
        """Settle the match: its result fixed (`fix`), its ratings written once, then marked
        settled: SETTLED, "retry" (a rating changed since it was read: none written) or "done"
        (settled before, or by another settler now)."""

    # -- ratings and boards ---------------------------------------------------------------

    @abstractmethod
    async def ratings(self, league: str, season: int, players: list[str]) -> list[str | None]:
        """The players' rating JSON (None: unrated)."""

    @abstractmethod
    async def page(
        self, league: str, season: int, start: int, size: int
    ) -> list[tuple[str, float]]:
        """Board rows `start`..`start+size-1` (0 is the best): (player, displayed rating)."""

    @abstractmethod
    async def board_size(self, league: str, season: int) -> int:
        """Players on the board."""

    @abstractmethod
    async def rank(self, league: str, season: int, player: str) -> int:
        """The player's rank (1 is best); 0 when not on the board."""

    @abstractmethod
    async def history(self, league: str, season: int, player: str, limit: int) -> list[str]:
        """The last `limit` history points (JSON {game, mu, sigma}), oldest first."""

    @abstractmethod
    async def recent(self, league: str, season: int, player: str, limit: int) -> list[int]:
        """The player's last `limit` settled matches, newest first."""
