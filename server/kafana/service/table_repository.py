"""Sessions through the cache, and the one way to change a table: decide on a replay at `seq`,
append with `expected_seq=seq` and the digest of the log replayed, reload.

Several processes can serve one table: whoever is behind, or holds events the store lost (a
failover, a crash), is refused by the store and reloads from it. A process caches sessions;
a move on a current cache costs one store round trip.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from kafana.errors import KafanaError, StaleSequenceError, TableNotFoundError
from kafana.service.session import Session
from kafana.service.session_cache import SessionCache
from kafana.service.settings import Settings
from kafana.store.base import FINISHED, Append, AppendResult, Outcome, TableStore
from kafana.store.base import Rider as StoreRider

log = logging.getLogger(__name__)
ATTEMPTS = 8
"""Tries of one change on a table other processes change too, before it is "busy"."""

Decide = Callable[[Session], Awaitable[Append]]
"""What to append to a table, decided on its session (raises to refuse the change)."""


class Rider(Protocol):
    """Tells the news a move makes in the move's own append (account notices), so no later
    write is needed for it."""

    def riders(
        self, session: Session, match: Any, seat: int, seq: int, deadline_ms: int, tag: str
    ) -> tuple[StoreRider, ...] | None:
        """What to send with the append of `seat`'s move (client move `tag`) that takes
        `session` to `seq` with `match` and the deadline `deadline_ms`; None: nothing rides
        (the listeners tell the news afterwards, as for any other change)."""

    def told(self, table_id: str, seq: int) -> None:
        """The append to `seq` applied with its riders: its news is told."""


def wall_ms() -> int:
    """Unix time in milliseconds."""
    return int(time.time() * 1000)


def missing(table_id: str) -> TableNotFoundError:
    """The error of a table the store does not hold."""
    return TableNotFoundError(f"no table {table_id!r}", table_id=table_id)


class TableRepository:
    """Tables' sessions on a store, cached in this process; `change` applies one decision."""

    def __init__(
        self, store: TableStore, settings: Settings, clock: Callable[[], int] = wall_ms
    ) -> None:
        self.store = store
        self.settings = settings
        self.now = clock
        self.cache = SessionCache(settings.cache_size, settings.cache_bytes)  # bounded
        self.listeners: list[Callable[[str, int], None]] = []  # told (table id, seq) news
        self.rider: Rider | None = None  # news told in a move's own append (`Moves.play`)

    def cached(self, table_id: str) -> Session | None:
        """The cached session, possibly behind the store."""
        return self.cache.get(table_id)

    def remember(self, session: Session) -> Session:
        """Keep `session` unless the cache holds a later one; tell the listeners if kept."""
        if self.cache.keep(session):
            for listener in self.listeners:
                listener(session.table_id, session.seq)
        return session

    async def session(self, table_id: str) -> Session:
        """The table, brought up to date with the store (one round trip).

        The cached copy is only ever continued with what the store holds after it: when the
        store is behind it or holds another history up to it (it lost acknowledged events: a
        failover with lag, a crash with `appendfsync everysec`), the copy is dropped and the
        table replayed from the store alone.
        """
        cached = self.cache.get(table_id)
        after = cached.seq if cached is not None else 0
        offset = len(cached.log.data) if cached is not None else None
        snapshot = await self.store.load(table_id, after_seq=after, offset=offset)
        if snapshot is None:
            self.cache.pop(table_id)
            raise TableNotFoundError(
                f"no table {table_id!r} (it may have ended and expired)", table_id=table_id
            )
        if cached is not None:
            if snapshot.seq >= cached.seq:
                try:
                    return self.remember(cached.update(snapshot))
                except ValueError as error:  # another history (a rollback, an id made again)
                    why = str(error)
            else:
                why = f"the store is at {snapshot.seq}"
            if self.cache.get(table_id) is cached:  # not replaced by a newer load meanwhile
                self.cache.pop(table_id)
                log.warning(
                    "table %s: this process held seq %d, %s: the store lost events; the "
                    "table goes on from the store's state",
                    table_id,
                    cached.seq,
                    why,
                )
            snapshot = await self.store.load(table_id)
            if snapshot is None:
                raise missing(table_id)
        return self.remember(Session.from_snapshot(table_id, snapshot))

    async def current(self, table_id: str, at_least: int) -> Session:
        """The cached session when it is at `at_least` or later, else `session`."""
        cached = self.cache.get(table_id)
        if cached is not None and cached.seq >= at_least:
            return cached
        return await self.session(table_id)

    async def append(self, session: Session, append: Append) -> AppendResult:
        """Append at `session`; MISSING is TableNotFoundError."""
        result = await self.store.append(session.table_id, append)
        if result.outcome is Outcome.MISSING:
            raise missing(session.table_id)
        return result

    async def commit(self, session: Session, append: Append) -> bool:
        """Append once at `session` and reload when applied; False when refused (the table
        moved on: whoever decided there acts again on the new state)."""
        result = await self.store.append(session.table_id, append)
        if result.outcome is not Outcome.APPLIED:
            return False
        await self.session(session.table_id)
        return True

    async def change(
        self,
        table_id: str,
        decide: Decide,
        refused: Callable[[AppendResult], None] | None = None,
        *,
        busy: type[KafanaError] = StaleSequenceError,
    ) -> Session:
        """The optimistic-concurrency loop: load, `decide` the append, append at that seq;
        the session afterwards. A refusal loads again and decides again (`refused` may raise
        instead), up to `ATTEMPTS` times: `busy` ("try again") then."""
        for _attempt in range(ATTEMPTS):
            session = await self.session(table_id)
            result = await self.append(session, await decide(session))
            if result.outcome is Outcome.APPLIED:
                return await self.session(table_id)
            if refused is not None:
                refused(result)
        raise busy(f"table {table_id} is busy: try again")

    def ending(self, session: Session, event: bytes) -> Append:
        """The append that ends the match at `session` with `event` (a forfeit, a close)."""
        return Append(
            event=session.log.pack(event),
            ttl_ms=self.settings.finished_ttl_ms,
            expected_seq=session.seq,
            expected_digest=session.log.digest,
            new_status=FINISHED,
            deadline_ms=0,
        )
