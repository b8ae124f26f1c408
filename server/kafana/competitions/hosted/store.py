"""Where hosted events live: an interface, and the in-memory store (one process only).

`redis_store.RedisEvents` keeps the same data in Redis, so events survive the process and
another process can take over directing them (the lease). Answers of `enter` and `start`:
"ok", "missing" (no such event), "closed" (not open for entries), "taken" (name in use),
"full" (too many entrants), "many" (the caller entered as many as the event allows one caller),
"few" (fewer than two entrants).

Every event expires `retention_ms` after it was created or last written (at the latest after it
finished): its keys carry that TTL in Redis, and the memory store forgets it as late.
The service-wide **rating book** (`ratings`, `save_ratings`) keeps each entrant's rating per
pool across events (for seeding Swiss round 1); it is not an event's and does not expire.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from typing import Any

MAX_ENTRANTS = 1024
DAY_MS = 86_400_000
RETENTION_MS = 30 * DAY_MS
"""How long events and their data are kept by default (30 days)."""


def now_ms() -> int:
    """Wall-clock milliseconds."""
    return int(time.time() * 1000)


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

    @abstractmethod
    async def forget(self, event_id: str) -> None:
        """Drop an expired event from the index."""

    @abstractmethod
    async def ratings(self, pool: str, players: list[str]) -> dict[str, str]:
        """The rating book's entries (JSON of a `Rating`) of `players` in `pool` (unrated: none)."""

    @abstractmethod
    async def save_ratings(self, pool: str, ratings: dict[str, str]) -> None:
        """Write players' ratings (player -> JSON of a `Rating`) into the book's `pool`."""


class MemoryEvents(EventStore):
    """Events in this process's memory: lost when it stops, never shared with another."""

    def __init__(self, retention_ms: int = RETENTION_MS) -> None:
        self.retention_ms = retention_ms
        self._meta: dict[str, dict[str, str]] = {}
        self._entrants: dict[str, dict[str, str]] = {}
        self._callers: dict[str, dict[str, int]] = {}
        self._state: dict[str, str] = {}
        self._lease: dict[str, tuple[str, float]] = {}
        self._control: dict[str, tuple[str, str]] = {}
        self._adjudications: dict[str, dict[str, str]] = {}
        self._marks: dict[str, dict[str, str]] = {}
        self._created: dict[str, int] = {}
        self._touched: dict[str, int] = {}
        self._book: dict[str, dict[str, str]] = {}
        self._started: set[str] = set()

    def _expire(self) -> None:
        """Forget every event not written for `retention_ms`."""
        old = now_ms() - self.retention_ms
        kept: list[dict[str, Any]] = [
            self._meta, self._entrants, self._callers, self._state, self._lease, self._control,
            self._adjudications, self._marks, self._created, self._touched,
        ]  # fmt: skip
        for event_id in [e for e, at in self._touched.items() if at < old]:
            for table in kept:
                table.pop(event_id, None)
            self._started.discard(event_id)

    def _touch(self, event_id: str) -> None:
        self._touched[event_id] = now_ms()

    async def create(self, event_id: str, meta: dict[str, str]) -> bool:
        if event_id in self._meta:
            return False
        self._expire()
        self._meta[event_id] = {**meta, "phase": "open"}
        self._entrants[event_id] = {}
        self._created[event_id] = now_ms()
        self._touch(event_id)
        return True

    async def meta(self, event_id: str) -> dict[str, str]:
        self._expire()
        return dict(self._meta.get(event_id, {}))

    async def enter(
        self, event_id: str, name: str, value: str, caller: str = "", most: int = 1
    ) -> str:
        meta = self._meta.get(event_id)
        if meta is None:
            return "missing"
        if meta["phase"] != "open":
            return "closed"
        entrants = self._entrants[event_id]
        if name in entrants:
            return "taken"
        if len(entrants) >= min(
            int(meta.get("max_entrants", "0") or 0) or MAX_ENTRANTS, MAX_ENTRANTS
        ):
            return "full"
        callers = self._callers.setdefault(event_id, {})
        if caller and callers.get(caller, 0) >= most:
            return "many"
        if caller:
            callers[caller] = callers.get(caller, 0) + 1
        number = max(int(meta.get("entries", "0")), len(entrants))
        meta["entries"] = str(number + 1)
        entrants[name] = f"{number} {value}"
        return "ok"

    async def withdraw(self, event_id: str, name: str, caller: str) -> str:
        meta = self._meta.get(event_id)
        if meta is None:
            return "missing"
        if meta["phase"] != "open":
            return "closed"
        if self._entrants[event_id].pop(name, None) is None:
            return "gone"
        callers = self._callers.get(event_id, {})
        if caller and caller in callers:
            callers[caller] -= 1
            if callers[caller] <= 0:
                del callers[caller]
        return "ok"

    async def entrants(self, event_id: str) -> dict[str, str]:
        return dict(self._entrants.get(event_id, {}))

    async def start(self, event_id: str) -> str:
        meta = self._meta.get(event_id)
        if meta is None:
            return "missing"
        if meta["phase"] != "open":
            return "closed"
        if len(self._entrants[event_id]) < 2:
            return "few"
        meta["phase"] = "started"
        self._started.add(event_id)
        return "ok"

    async def finish(self, event_id: str, reason: str = "") -> None:
        self._meta[event_id].update(phase="finished", reason=reason)
        self._started.discard(event_id)
        self._touch(event_id)

    async def started(self) -> list[str]:
        self._expire()
        return sorted(self._started)

    async def list_started(self, event_id: str) -> None:
        self._started.add(event_id)

    async def unlist(self, event_id: str) -> None:
        self._started.discard(event_id)

    async def event_ids(self, limit: int) -> list[str]:
        self._expire()
        newest = sorted(self._created, key=lambda e: -self._created[e])
        return newest[:limit]

    async def newest(self, limit: int, before: tuple[int, str] | None) -> list[tuple[str, int]]:
        self._expire()
        order = sorted(((c, e) for e, c in self._created.items()), reverse=True)
        return [(e, c) for c, e in order if before is None or (c, e) < before][:limit]

    async def state(self, event_id: str) -> str | None:
        return self._state.get(event_id)

    def _holder(self, event_id: str) -> str | None:
        held = self._lease.get(event_id)
        if held is None or held[1] < time.monotonic():
            return None
        return held[0]

    async def save(self, event_id: str, owner: str, text: str) -> bool:
        if self._holder(event_id) != owner:
            return False
        self._state[event_id] = text
        self._touch(event_id)
        return True

    async def lease(self, event_id: str, owner: str, ttl_ms: int) -> bool:
        if self._holder(event_id) not in (None, owner):
            return False
        self._lease[event_id] = (owner, time.monotonic() + ttl_ms / 1000)
        return True

    async def release(self, event_id: str, owner: str) -> None:
        if self._holder(event_id) == owner:
            del self._lease[event_id]

    async def set_control(self, event_id: str, status: str, note: str) -> None:
        self._control[event_id] = (status, note)

    async def control(self, event_id: str) -> tuple[str, str]:
        return self._control.get(event_id, ("", ""))

    async def adjudicate(self, event_id: str, game_id: str, value: str) -> None:
        self._adjudications.setdefault(event_id, {})[game_id] = value

    async def adjudications(self, event_id: str) -> dict[str, str]:
        return dict(self._adjudications.get(event_id, {}))

    async def mark(self, event_id: str, name: str, value: str) -> None:
        self._marks.setdefault(event_id, {})[name] = value

    async def marks(self, event_id: str) -> dict[str, str]:
        return dict(self._marks.get(event_id, {}))

    async def forget(self, event_id: str) -> None:
        self._created.pop(event_id, None)

    async def ratings(self, pool: str, players: list[str]) -> dict[str, str]:
        book = self._book.get(pool, {})
        return {p: book[p] for p in players if p in book}

    async def save_ratings(self, pool: str, ratings: dict[str, str]) -> None:
        self._book.setdefault(pool, {}).update(ratings)
