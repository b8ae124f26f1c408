"""Where leagues live: the interface, shared by Redis (`redis_store`) and memory (`memory`).

A league is its spec and organiser, a season number, a queue (join time and pairing rating of
every waiting player), its matches and, per season, ratings, a board, histories and match lists.
Every write that must not happen twice is one atomic step of the store: joining the queue
(refused while the player has a match not settled), claiming players for a match, claiming due
matches for a referee, and settling a match (marked settled and rated together, once).
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, field

PAIRED = "paired"
WAITING = "waiting"
IDLE = "idle"
SETTLED = "settled"
PLAYING = "playing"


def now_ms() -> int:
    """Wall-clock milliseconds."""
    return int(time.time() * 1000)


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
    retention_ms: int = 30 * 86_400_000


class LeagueStore(ABC):
    """Leagues, their queues, matches, ratings and boards."""

    kind = "memory"

    # -- leagues ------------------------------------------------------------------------

    @abstractmethod
    async def create(self, league: str, fields: dict[str, str]) -> bool:
        """Store a new league (season 1); False if the name is taken."""

    @abstractmethod
    async def meta(self, league: str) -> dict[str, str]:
        """The league's fields, with `season`, `made` and `settled` counts ({}: no league)."""

    @abstractmethod
    async def leagues(self) -> list[str]:
        """Every league's name."""

    @abstractmethod
    async def new_season(self, league: str) -> int:
        """Start the next season; its number."""

    @abstractmethod
    async def keep(self, league: str, season: int, retention_ms: int) -> None:
        """The league lives `retention_ms` from now: its meta, season, counters, queue, the
        season's ratings and board (a league nobody uses for its retention is gone)."""

    @abstractmethod
    async def forget(self, league: str) -> None:
        """Drop a league whose keys expired from the list of leagues."""

    # -- the queue ------------------------------------------------------------------------

    @abstractmethod
    async def join(self, league: str, player: str, mu: float, now: int) -> tuple[str, int]:
        """Wait for a match: (WAITING, 0), or (PAIRED, match) and nothing changed."""

    @abstractmethod
    async def leave(self, league: str, player: str) -> bool:
        """Stop waiting; False if the player was not waiting."""

    @abstractmethod
    async def status(self, league: str, player: str) -> tuple[str, int]:
        """(PAIRED, match), (WAITING, 0) or (IDLE, 0)."""

    @abstractmethod
    async def waiting(self, league: str) -> int:
        """Players in the queue."""

    @abstractmethod
    async def oldest(self, league: str, limit: int) -> list[Waiting]:
        """The `limit` longest-waiting players."""

    @abstractmethod
    async def claim(self, league: str, players: list[str], fields: dict[str, str], due: int) -> int:
        """Take `players` out of the queue into a new match (fields stored with it, first look
        at `due`): its number, or 0 and nothing changed if one of them is not waiting."""

    async def last_opponents(
        self, league: str, players: list[str]
    ) -> dict[str, list[frozenset[str]]]:
        """Each player's opponents in its last matches, newest first (the rematch limit; a
        store that keeps none: no limit)."""
        return {}

    @abstractmethod
    async def pair_lease(self, league: str, owner: str, ttl_ms: int) -> bool:
        """Take or renew the right to pair the league's queue for `ttl_ms`."""

    # -- matches --------------------------------------------------------------------------

    @abstractmethod
    async def match(self, league: str, number: int) -> dict[str, str]:
        """A match's fields ({}: none, or expired)."""

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
    async def settle(self, league: str, number: int, settlement: Settlement) -> str:
        """Mark the match settled and write its ratings, atomically: SETTLED, "retry" (a
        rating changed since it was read: nothing written) or "done" (settled before)."""

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
