"""The domain layer's one door to tables: what the servicer, the director, the league referee
and the in-process bots call. Each job is a module of its own, composed here:

- `table_repository`: sessions through the cache, the one optimistic-concurrency loop;
- `seating`: create, join, leave, close, decline; who a token is;
- `playing`: moves, their retries and refusals;
- `clock_policy`: presence, deadlines, the faults the clock answers;
- `archive`: records and embargoes; `listing`: pages of tables.

It returns domain values (sessions, `Played`): the servicer converts them (`convert`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from operator import attrgetter
from typing import Any

from kafana.service import listing
from kafana.service.archive import Archive
from kafana.service.clock_policy import ClockPolicy
from kafana.service.playing import Moves, Played, legal
from kafana.service.quotas import TableQuotas
from kafana.service.seating import Seated, Seating, check_clock, seat_account, seat_of, viewer
from kafana.service.session import Session
from kafana.service.settings import ABANDON_AFTER, JOIN_DEADLINE_MS, Settings
from kafana.service.table_repository import TableRepository, wall_ms
from kafana.store.base import Listed, TableStore
from kafana.v1 import rules_pb2

__all__ = [
    "ABANDON_AFTER",
    "JOIN_DEADLINE_MS",
    "Played",
    "Tables",
    "check_clock",
    "seat_account",
    "wall_ms",
]


def _setting(name: str, doc: str) -> Any:
    """A read-only `Tables` attribute: its `Settings` field `name` (see `Settings`)."""
    return property(attrgetter(f"settings.{name}"), doc=doc)


class Tables:
    """Create, join, play and watch tables on a store, from any number of processes."""

    def __init__(
        self,
        store: TableStore,
        settings: Settings | None = None,
        *,
        clock: Callable[[], int] = wall_ms,
    ) -> None:
        self.settings = settings or Settings()
        self.repository = TableRepository(store, self.settings, clock)
        self.clock = ClockPolicy(self.repository)
        self.quotas = TableQuotas(store, self.settings.limits)
        self.seats = Seating(self.repository, self.clock, self.quotas)
        self.archive = Archive(self.repository)
        self.store = store
        self.now = clock
        self.listeners = self.repository.listeners  # told (table id, seq) news
        self.seating: list[Seated] = self.seats.hooks  # awaited before an account's seat
        self.presence = self.clock.presence
        self.embargoes = self.archive.embargoes
        self._cache = self.repository.cache
        self.moves = Moves(self.repository, self.clock)
        # Doors that only pass the call on are the job's own methods (one signature each).
        self.join = self.seats.join  # take a seat: the seat, its token and the session
        self.play = self.moves.play  # one move decided at `last_seq`, applied once

    # What the settings say, read by the layers above.
    idle_ttl_ms: int = _setting("idle_ttl_ms", "A table's time to live after the last move.")
    finished_ttl_ms: int = _setting(
        "finished_ttl_ms", "How long a finished table and its record are kept."
    )
    join_deadline_ms: int = _setting(
        "join_deadline_ms", "An open table's time to live from its creation."
    )
    abandon_after: int = _setting(
        "abandon_after", "Every seat's timeouts in a row that abandon a match."
    )

    # Sessions.
    def cached(self, table_id: str) -> Session | None:
        """The cached session, possibly behind the store."""
        return self.repository.cached(table_id)

    async def session(self, table_id: str) -> Session:
        """The table, brought up to date with the store (one round trip)."""
        return await self.repository.session(table_id)

    # Tokens and presence.
    def seat_of(self, session: Session, token: str) -> int:
        """The seat whose token this is; errors say what is wrong."""
        return seat_of(session, token)

    def viewer(self, session: Session, token: str) -> int | None:
        """The seat of a token, or None (a spectator) for an empty one."""
        return viewer(session, token)

    async def seen(self, session: Session, seat: int | None) -> None:
        """A call or stream with `seat`'s token: the seat is present."""
        await self.clock.seen(session, seat)

    # Seats.
    async def create(
        self, config: rules_pb2.TableConfig, creator: str = "", *, owner: str = ""
    ) -> tuple[str, str, Session]:
        """A new table: its id, the admin token and the session (`Seating.create`)."""
        return await self.seats.create(config, creator, owner=owner)

    async def leave(self, table_id: str, token: str) -> Session:
        """Free the seat before the match; during it, the seat's side forfeits."""
        return await self.seats.leave(table_id, token)

    async def close(self, table_id: str, admin_token: str) -> Session:
        """End the table now (admin only)."""
        return await self.seats.close(table_id, admin_token)

    async def decline(self, table_id: str, account: str) -> Session:
        """Close an open table with a free seat bound to `account` (a declined challenge)."""
        return await self.seats.decline(table_id, account)

    # Moves and the clock.
    def legal(self, session: Session, seat: int) -> Sequence[object]:
        """The legal moves of `seat` now (none before the start, once over, off turn)."""
        return legal(session, seat)

    async def timeout(self, table_id: str) -> bool:
        """Apply the clock's fault policy if it is due; True when applied."""
        return await self.clock.timeout(table_id)

    # Records, embargoes, listing.
    async def record(self, table_id: str, *, past_embargo: bool = False) -> Session:
        """The finished table, past its embargo (`Archive.record`; `convert.record`)."""
        return await self.archive.record(table_id, past_embargo=past_embargo)

    async def embargo(self, label: str, ttl_ms: int) -> None:
        """Embargo the tables labelled `label` for `ttl_ms` on every process."""
        await self.archive.embargo(label, ttl_ms)

    async def release(self, label: str) -> None:
        """Lift the embargo of `label`."""
        await self.archive.release(label)

    async def check_view(self, session: Session, seat: int | None) -> None:
        """Refuse a spectator of an embargoed table."""
        await self.archive.check_view(session, seat)

    async def list(
        self, game: int, status: str, limit: int, after: Listed | None = None
    ) -> tuple[list[Session], Listed | None]:
        """A page of tables, newest first, and the cursor after it (`listing.page`)."""
        return await listing.page(self.repository, game, status, limit, after)
