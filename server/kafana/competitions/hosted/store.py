"""Where hosted events live: the interface `redis_store.RedisEvents` implements in Redis, so
events survive the process and another process can take over directing them (the lease).
Answers of `enter` and `start`: "ok", "missing" (no such event), "closed" (not open for
entries), "taken" (name in use), "full" (too many entrants), "many" (the caller entered as many
as the event allows one caller), "few" (fewer than two entrants).

Every event expires `retention_ms` after it was created or last written (at the latest after it
finished): its keys carry that TTL in Redis.
The service-wide **rating book** (`ratings`, `save_ratings`) keeps each entrant's rating per
pool across events (for seeding Swiss round 1); it is not an event's and does not expire.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from dataclasses import dataclass

MAX_ENTRANTS = 1024
DAY_MS = 86_400_000
RETENTION_MS = 30 * DAY_MS
"""How long events and their data are kept by default (30 days)."""


def now_ms() -> int:
    """Wall-clock milliseconds."""
    return int(time.time() * 1000)


@dataclass(frozen=True)
class StoredEvent:
    """What the store keeps of one event, as read at once."""

    event_id: str
    meta: dict[str, str]  # {}: no such event
    entrants: dict[str, str]  # name -> "<entry number> <value>"
    control: tuple[str, str]  # the organiser's status ("" if never set) and note
    marks: dict[str, str]
    state: str | None  # the director's snapshot, when asked for and written


class EventStore(ABC):
    """Events, entrants, the director's snapshot and lease, organiser controls."""

    kind = "memory"
    retention_ms = RETENTION_MS

    @abstractmethod
    async def create(self, event_id: str, meta: dict[str, str]) -> bool:
        """Store a new event (phase "open"); False if the id exists."""

    @abstractmethod
    async def meta(self, event_id: str) -> dict[str, str]:
        """The event's meta fields ({} when there is no such event)."""

    @abstractmethod
    async def enter(
        self, event_id: str, name: str, value: str, caller: str = "", most: int = 1
    ) -> str:
        """Add an entrant while the event is open (atomically); a `caller` (its key, "" for
        none) enters at most `most` ("many" past it)."""

    @abstractmethod
    async def withdraw(self, event_id: str, name: str, caller: str) -> str:
        """Take an entrant out while the event is open (`caller`: the one that entered it);
        "gone" when there is no such entrant."""

    @abstractmethod
    async def entrants(self, event_id: str) -> dict[str, str]:
        """Entrant -> "<entry number> <value>"."""

    @abstractmethod
    async def start(self, event_id: str) -> str:
        """Close entries: phase "started" (atomically, with two entrants or more)."""

    @abstractmethod
    async def finish(self, event_id: str, reason: str = "") -> None:
        """Phase "finished" (`reason`: why it ended before it began, if it did)."""

    @abstractmethod
    async def event_ids(self, limit: int) -> list[str]:
        """Event ids, newest first."""

    @abstractmethod
    async def started(self) -> list[str]:
        """The index of started events: every event started and not finished (written before
        entries close, so none is missed; an id whose event did not start, finished or expired
        is dropped with `unlist`)."""

    @abstractmethod
    async def list_started(self, event_id: str) -> None:
        """Put an event in the index of started events (`start` does it)."""

    @abstractmethod
    async def unlist(self, event_id: str) -> None:
        """Drop an event from the index of started events."""

    @abstractmethod
    async def schedule(self, event_id: str, at_ms: int) -> None:
        """Keep an event to be listed as started at `at_ms` (its scheduled start): until then
        the directors do not look at it."""

    @abstractmethod
    async def list_due(self, now_ms: int, limit: int) -> list[str]:
        """Up to `limit` scheduled events whose time has come, moved to the started index."""

    @abstractmethod
    async def newest(self, limit: int, before: tuple[int, str] | None) -> list[tuple[str, int]]:
        """Up to `limit` (event id, created ms), newest first (ties: greater id first), after
        the cursor `before` = (created ms, event id) of the previous page's last one."""

    @abstractmethod
    async def state(self, event_id: str) -> str | None:
        """The director's snapshot, if any."""

    @abstractmethod
    async def save(self, event_id: str, owner: str, text: str) -> bool:
        """Write the snapshot if `owner` holds the lease; False if it does not."""

    @abstractmethod
    async def lease(self, event_id: str, owner: str, ttl_ms: int) -> bool:
        """Take or renew the directing lease for `ttl_ms`; False if another owner holds it."""

    @abstractmethod
    async def release(self, event_id: str, owner: str) -> None:
        """Give up the lease (if held by `owner`)."""

    @abstractmethod
    async def set_control(self, event_id: str, status: str, note: str) -> None:
        """The organiser's status (running, paused, ended) and note."""

    @abstractmethod
    async def control(self, event_id: str) -> tuple[str, str]:
        """The organiser's status ("" if never set) and note."""

    @abstractmethod
    async def adjudicate(self, event_id: str, game_id: str, value: str) -> None:
        """An organiser's decision: "<winner seat or draw> <note>"."""

    @abstractmethod
    async def adjudications(self, event_id: str) -> dict[str, str]:
        """Game -> decision."""

    @abstractmethod
    async def mark(self, event_id: str, name: str, value: str) -> None:
        """Note something of an entrant: `in:<entrant>` (checked in, the time), `out:<entrant>`
        ("withdrawn <note>" or "disqualified <note>")."""

    @abstractmethod
    async def marks(self, event_id: str) -> dict[str, str]:
        """Every mark of `mark`."""

    async def record(self, event_id: str, *, state: bool = True) -> StoredEvent:
        """Everything kept of an event (meta {} when there is none), the snapshot only with
        `state`: one call (a store may read it at once)."""
        return StoredEvent(
            event_id,
            await self.meta(event_id),
            await self.entrants(event_id),
            await self.control(event_id),
            await self.marks(event_id),
            await self.state(event_id) if state else None,
        )

    async def records(self, event_ids: list[str]) -> list[StoredEvent]:
        """`record` of each event, without snapshots (a page of a listing): one call."""
        return [await self.record(e, state=False) for e in event_ids]

    @abstractmethod
    async def forget(self, event_id: str) -> None:
        """Drop an expired event from the index."""

    @abstractmethod
    async def ratings(self, pool: str, players: list[str]) -> dict[str, str]:
        """The rating book's entries (JSON of a `Rating`) of `players` in `pool` (unrated: none)."""

    @abstractmethod
    async def save_ratings(self, pool: str, ratings: dict[str, str]) -> None:
        """Write players' ratings (player -> JSON of a `Rating`) into the book's `pool`."""
