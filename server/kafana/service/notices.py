"""Account notices: what one WatchAccount stream tells an account about all its tables.

Publishing. `Notices` listens to its `Tables` as the feed does (`Tables.listeners`: a table's
news, in whatever process learns of it) and tells each account seated at the table:

- SEATED when a seat is taken for it (JoinTable with its API key, or a seat the table binds
  to it in `seat_accounts`);
- YOUR_TURN after every event that leaves the match running with its seat to move (`seq` to
  answer at, the milliseconds left on the clock);
- GAME_OVER to every seated account when the match ends (the `Result` as GetRecord gives it).

News is told in batches: the tables with news within `FLUSH_S` go in one store write
(`publish_many`), a table that moved twice meanwhile told once at its latest seq.

Which account holds a seat: `seat_accounts`, or a binding `Tables.seating` records (through
`bind`) *before* the seat is appended, so every process that sees the seat finds it. Several
processes may tell the same news (each one that loads the table sees it): each notice carries
a mark per (table, seat) and the store keeps it once. A process tells nothing of a table the
first time it sees it (it was told, if at all, by the process that made the change), and
nothing older than `RECENT_MS`. A notice holds no token, seed or card: only ids, a seat, a
seq, a time left and the public result. League tickets (`ticket`) are stored without their
seat token; `reveal` hooks put it back as the notice goes out on the account's own stream.

Watching. `watch` streams an account's notices after an id, then live ones (woken through
the store: any process's notice), a Heartbeat when idle, and ends UNAVAILABLE
(SERVER_STOPPING) when the server stops: resume with `after` = the last id seen.
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from kafana.errors import ApiKeyMissing, InvalidInputError, ServerStopping
from kafana.logs import Repeated
from kafana.service import convert
from kafana.service.session import SEAT_TAKEN, Session
from kafana.service.tables import Tables, seat_account
from kafana.store.base import FINISHED, OPEN, PLAYING, Rider
from kafana.store.errors import StoreUnavailable
from kafana.store.notices import Mark, NoticeStore, Publish, parse_id
from kafana.store.redis_notices import notices_for
from kafana.v1 import events_pb2, leagues_pb2, service_pb2

log = logging.getLogger(__name__)
SEATED = service_pb2.NOTICE_KIND_SEATED
YOUR_TURN = service_pb2.NOTICE_KIND_YOUR_TURN
GAME_OVER = service_pb2.NOTICE_KIND_GAME_OVER
TICKET = service_pb2.NOTICE_KIND_TICKET
CHALLENGED = service_pb2.NOTICE_KIND_CHALLENGED
RECENT_MS = 5 * 60_000
"""A seat taken or a match ended longer ago than this is not news any more (a process that
loads an old table tells nobody)."""
TABLES_SEEN = 10_000
"""Tables a process remembers having seen (the least recently seen go first)."""
PAGE = 100
"""Notices read from the store at once."""
POLL_S = 1.0
"""A stream re-reads the store at least this often (a lost wake-up costs this much)."""
HOLDER_HEX = 16
"""Hex digits of a seat token's hash that name its holder in marks and bindings."""
UINT32 = (1 << 32) - 1
FLUSH_S = 0.002
"""How long news waits for more to go with it in one store write (each write is a send
system call: ~20 µs of this server's CPU under load, as much as the notice's own Python)."""
KEEP_EVERY = 24
"""A table's bindings are kept alive by one notice per `ttl_ms / KEEP_EVERY` at most (an
hour of the 24): they outlive the table's last notice by 23 hours or more."""
Write = Callable[[service_pb2.WatchAccountResponse], Awaitable[None]]
Reveal = Callable[[str, leagues_pb2.Ticket], Awaitable[str]]


_OF: weakref.WeakKeyDictionary[Tables, Notices] = weakref.WeakKeyDictionary()


def notices_of(tables: Tables) -> Notices | None:
    """The `Notices` publishing for `tables` (a server's: the servicer makes it), if any:
    where a plug-in (the league referee) tells an account of its tickets (`Notices.ticket`)."""
    return _OF.get(tables)


def holder(token_hash: bytes) -> str:
    """The name of a seat's holder in the store: a prefix of its token's hash (never the token)."""
    return token_hash.hex()[:HOLDER_HEX]


def wall_ms() -> int:
    """Unix time in milliseconds."""
    return int(time.time() * 1000)


@dataclass(slots=True)
class _Seen:
    """What this process told of a table: up to `seq`; whether its seats are all taken;
    `quiet`: started with no seat an account's, so nothing will ever be told."""

    seq: int
    started: bool = False
    quiet: bool = False


@dataclass(frozen=True, slots=True)
class _Seat:
    """A seat held for an account: the account, the holder's name, the notices' mark field and
    the seat's YOUR_TURN notice without its time, seq and time left (`turn`)."""

    account: str
    holder: str
    field: str
    turn: bytes = b""  # AccountNotice(kind=YOUR_TURN, table_id, seat), serialized


_TAIL = service_pb2.AccountNotice()
"""The move path's YOUR_TURN notice's per-move fields, set and serialized after `_Seat.turn`
(a message's fields may come in any order; readers parse the notice before sending it)."""


def your_turn(held: _Seat, now: int, seq: int, left: int) -> bytes:
    """The YOUR_TURN notice of `held`'s seat at `seq`, as `Notices._notice` makes it, from
    the parts of it a seat keeps (one message set and serialized, not one made a move)."""
    _TAIL.time_ms = now
    _TAIL.seq = seq
    _TAIL.remaining_millis = left
    return held.turn + _TAIL.SerializeToString()


@dataclass(slots=True)
class _Holders:
    """Who holds a table's seats, worked out once per set of seat tokens (`hashes`, the
    session's own dict: a move keeps it) and kept with `key`, their set; `kept_ms`: when a
    notice last kept the table's bindings alive."""

    hashes: dict[int, bytes]
    key: frozenset[bytes]
    seats: dict[int, _Seat]
    kept_ms: int = 0


class Notices:
    """Publishes the notices of one `Tables`' tables and serves WatchAccount streams."""

    def __init__(self, tables: Tables, store: NoticeStore | None = None) -> None:
        self.tables = tables
        self.store = store or notices_for(tables.store)
        self.reveal: list[Reveal] = []  # give a ticket its seat token back ("" if unknown)
        self._seen: OrderedDict[str, _Seen] = OrderedDict()
        self._holders: OrderedDict[str, _Holders] = OrderedDict()
        self._pending: dict[str, None] = {}  # tables with news since the last flush began
        self._flush_due = False  # a flush task is made and has not begun yet
        self._flushes: set[asyncio.Task[None]] = set()
        self._errors = Repeated(log, "telling accounts of their tables", quiet=(StoreUnavailable,))
        tables.listeners.append(self.notify)
        tables.seating.append(self.bind)
        tables.repository.rider = self  # a move's YOUR_TURN rides on its append
        _OF[tables] = self

    async def close(self) -> None:
        """Let the notices being told finish (at most a second), then stop."""
        tasks = list(self._flushes)
        if tasks:
            _done, pending = await asyncio.wait(tasks, timeout=1.0)
            for task in pending:
                task.cancel()

    # -- publishing --------------------------------------------------------------------

    async def bind(self, session: Session, seat: int, token_hash: bytes, account: str) -> None:
        """Before `seat` is taken for `account`: record whose it is (unless the table's
        `seat_accounts` says so already)."""
        if seat_account(session.stored, seat) == account:
            return
        keep = [holder(h) for h in session.token_hashes.values()]
        await self.store.bind(session.table_id, holder(token_hash), account, keep)

    def notify(self, table_id: str, seq: int) -> None:
        """A `Tables` listener: `table_id` is at `seq` in this process; tell what is news.

        The news of every table notified within `FLUSH_S` goes in one flush (one store
        write); a table notified twice before its flush begins is told once, at its latest
        seq."""
        seen = self._seen.get(table_id)
        if seen is None:
            self._seen[table_id] = _Seen(seq)
            while len(self._seen) > TABLES_SEEN:
                gone, _ = self._seen.popitem(last=False)
                self._holders.pop(gone, None)
            return
        self._seen.move_to_end(table_id)
        if seq <= seen.seq:
            return
        if seen.quiet:
            seen.seq = seq
            return
        self._pending[table_id] = None
        if self._flush_due:
            return
        try:
            task = asyncio.get_running_loop().create_task(self._flush())
        except RuntimeError:  # no event loop (a synchronous caller): nobody to tell
            self._pending.pop(table_id, None)
            return
        self._flush_due = True
        self._flushes.add(task)
        task.add_done_callback(self._flushes.discard)

    def riders(
        self, session: Session, match: Any, seat: int, seq: int, deadline_ms: int, tag: str
    ) -> tuple[Rider, ...] | None:
        """The news of `seat`'s move that takes `session` to `seq`, packed to ride on the
        move's append (`Rider`): the YOUR_TURN notice of the seat to move then (none when no
        account holds it). None when it cannot ride and the listener tells it after the
        append: the news before the move not all told yet, the match over (GAME_OVER), the
        holders not known without a store read, the bindings due to be kept alive, or a store
        that cannot (a cluster)."""
        table_id = session.table_id
        seen = self._seen.get(table_id)
        if (
            seen is None
            or seen.seq != session.seq
            or not seen.started
            or table_id in self._pending
            or match.is_over
        ):
            return None
        if seen.quiet:
            return ()
        known = self._holders.get(table_id)
        now = self.tables.now()
        hashes = session.token_hashes
        if known is None or now - known.kept_ms >= self.store.ttl_ms // KEEP_EVERY:
            return None
        if known.hashes is not hashes:  # a session loaded again: the same seats?
            if known.key != frozenset(hashes.values()):
                return None
            known.hashes = hashes
        to_move = match.current_seat
        held = None if to_move is None else known.seats.get(to_move)
        if held is None:
            return ()
        left = min(max(0, deadline_ms - now), UINT32) if deadline_ms else 0
        data = your_turn(held, now, seq, left)
        notice = Publish(held.account, data, Mark(held.field, held.holder, seq * 4 + 2))
        rider = self.store.rider(notice)
        return None if rider is None else (rider,)

    def told(self, table_id: str, seq: int) -> None:
        """A move's append to `seq` applied with its riders: nothing more to tell of it."""
        seen = self._seen.get(table_id)
        if seen is not None and seen.seq < seq:
            seen.seq = seq

    async def _flush(self) -> None:
        """`FLUSH_S` after the first news, tell the news of every table notified since the
        last flush began, in one write. On an error nothing counts as told: the table's next
        news tells it again (marks keep each notice once)."""
        await asyncio.sleep(FLUSH_S)
        self._flush_due = False
        tables, self._pending = self._pending, {}
        out: list[Publish] = []
        told: list[tuple[_Seen, _Seen, _Holders, int]] = []  # to undo: seen, before, kept
        try:
            for table_id in tables:
                seen = self._seen.get(table_id)
                session = self.tables.cached(table_id)
                if seen is None or session is None or session.seq <= seen.seq:
                    continue
                holders = await self._seats(session)
                if session.seq <= seen.seq:  # told meanwhile by another flush
                    continue
                told.append(
                    (seen, _Seen(seen.seq, seen.started, seen.quiet), holders, holders.kept_ms)
                )
                self._news(session, seen, holders, out)
            await self.store.publish_many(out)
            self._errors.succeeded()
        except Exception as error:
            for seen, before, holders, kept_ms in told:
                seen.seq, seen.started, seen.quiet = before.seq, before.started, before.quiet
                holders.kept_ms = kept_ms
            self._errors.failed(error)

    def _news(self, session: Session, seen: _Seen, holders: _Holders, out: list[Publish]) -> None:
        """Add to `out` every notice of the events after `seen.seq` up to `session`; mark
        them told."""
        seats = holders.seats
        now = self.tables.now()
        first = len(out)
        if not seen.started:
            for seq, _record, event in session.log.events():
                if (
                    seq > seen.seq
                    and event.kind == SEAT_TAKEN
                    and event.seat in seats
                    and now - event.time_ms <= RECENT_MS
                ):
                    out.append(self._notice(session, event.seat, seats[event.seat], SEATED, 1, now))
        if session.status == PLAYING:
            seat = session.match.current_seat
            if seat is not None and seat in seats:
                left = max(0, session.deadline_ms - now) if session.deadline_ms else 0
                out.append(
                    self._notice(
                        session,
                        seat,
                        seats[seat],
                        YOUR_TURN,
                        session.seq * 4 + 2,
                        now,
                        seq=session.seq,
                        remaining_millis=min(left, UINT32),
                    )
                )
        elif session.status == FINISHED and now - session.log.last_ms <= RECENT_MS:
            result = convert.result(session)
            for seat, held in sorted(seats.items()):
                out.append(
                    self._notice(
                        session, seat, held, GAME_OVER, session.seq * 4 + 3, now, result=result
                    )
                )
        if len(out) > first and now - holders.kept_ms >= self.store.ttl_ms // KEEP_EVERY:
            told = out[first]  # its write keeps the table's bindings alive too
            out[first] = Publish(told.account, told.data, told.mark, keep_table=session.table_id)
            holders.kept_ms = now
        seen.seq = session.seq
        seen.started = session.status != OPEN
        seen.quiet = seen.started and not seats

    async def _seats(self, session: Session) -> _Holders:
        """The seats held now for an account, read from the store only when the table's
        seat tokens changed since the last time."""
        table_id = session.table_id
        hashes = session.token_hashes
        known = self._holders.get(table_id)
        if known is not None and (
            known.hashes is hashes or known.key == frozenset(hashes.values())
        ):
            known.hashes = hashes
            self._holders.move_to_end(table_id)
            return known
        unbound = any(not seat_account(session.stored, s) for s in hashes)
        bound = await self.store.bound(table_id) if unbound else {}
        seats = {}
        for seat, digest in hashes.items():
            name = holder(digest)
            account = seat_account(session.stored, seat) or bound.get(name, "")
            if account:
                turn = service_pb2.AccountNotice(kind=YOUR_TURN, table_id=table_id, seat=seat)
                seats[seat] = _Seat(account, name, f"{table_id}:{seat}", turn.SerializeToString())
        kept_ms = known.kept_ms if known is not None else 0
        known = _Holders(hashes, frozenset(hashes.values()), seats, kept_ms)
        self._holders[table_id] = known
        self._holders.move_to_end(table_id)
        while len(self._holders) > TABLES_SEEN:
            self._holders.popitem(last=False)
        return known

    def _notice(
        self,
        session: Session,
        seat: int,
        held: _Seat,
        kind: service_pb2.NoticeKind.ValueType,
        rank: int,
        now: int,
        **fields: object,
    ) -> Publish:
        notice = service_pb2.AccountNotice(
            kind=kind,
            time_ms=now,
            table_id=session.table_id,
            seat=seat,
            **fields,  # type: ignore[arg-type]
        )
        return Publish(
            held.account, notice.SerializeToString(), Mark(held.field, held.holder, rank)
        )

    async def ticket(self, account: str, update: leagues_pb2.TicketUpdate) -> str | None:
        """Tell `account` of a league ticket update (a match to play, or one settled); its id,
        or None when that update was told already. The seat token is not stored: `reveal`
        gives it back as the notice is sent."""
        kept = leagues_pb2.TicketUpdate()
        kept.CopyFrom(update)
        if kept.HasField("ticket"):
            kept.ticket.seat_token = ""
            field = f"ticket:{kept.ticket.league}:{kept.ticket.match}"
            rank = 1
        elif kept.HasField("settled"):
            field = f"ticket:{kept.settled.league}:{kept.settled.match}"
            rank = 2
        else:
            raise InvalidInputError("a ticket notice is a ticket or a settled match")
        notice = service_pb2.AccountNotice(kind=TICKET, time_ms=self.tables.now(), ticket=kept)
        mark = Mark(field, "", rank)
        return await self.store.publish(account, notice.SerializeToString(), mark)

    async def challenged(self, account: str, table_id: str, seat: int, by: str) -> None:
        """Tell `account` that the account `by` challenges it at `table_id`, on `seat`."""
        notice = service_pb2.AccountNotice(
            kind=CHALLENGED,
            time_ms=self.tables.now(),
            table_id=table_id,
            seat=seat,
            from_account=by,
        )
        mark = Mark(f"challenge:{table_id}", "", 1)
        await self.store.publish(account, notice.SerializeToString(), mark, keep_table=table_id)

    # -- watching ----------------------------------------------------------------------

    async def watch(
        self,
        account: str | None,
        after: str,
        write: Write,
        stopping: asyncio.Event,
        heartbeat_s: float,
        done: Callable[[], bool] = lambda: False,
    ) -> None:
        """Write `account`'s notices after id `after` ("": from now on), then live ones,
        heartbeats while idle, until the caller goes (`done`) or the server stops."""
        if not account:
            raise ApiKeyMissing(
                "WatchAccount needs an API key (authorization: Bearer <key>): notices are "
                "an account's"
            )
        if after:
            try:
                parse_id(after)
            except ValueError as error:
                raise InvalidInputError(
                    f"WatchAccountRequest.after: {error}", field="after"
                ) from None
        page = await self.store.read(account, after, PAGE)
        cursor = after or page.last
        if parse_id(cursor) > parse_id(page.last):  # kept no longer (expired): from now on
            cursor = page.last
        loop = asyncio.get_running_loop()
        sent = loop.time()
        while True:
            for stored in page.notices:
                notice = service_pb2.AccountNotice.FromString(stored.data)
                notice.id = stored.id
                if notice.HasField("ticket") and notice.ticket.HasField("ticket"):
                    await self._revealed(account, notice.ticket.ticket)
                await write(service_pb2.WatchAccountResponse(notice=notice))
                cursor = stored.id
                sent = loop.time()
            if done():
                return
            if stopping.is_set():
                raise ServerStopping(
                    f"the server is stopping: resume with after {cursor!r} (on another "
                    "process, or once it is back)",
                    after=cursor,
                )
            if len(page.notices) < PAGE:  # caught up: wait for the next one
                wait_s = max(0.0, min(POLL_S, heartbeat_s - (loop.time() - sent)))
                await self.store.wait(account, page.count, int(wait_s * 1000))
                if loop.time() - sent >= heartbeat_s and not stopping.is_set():
                    beat = events_pb2.Heartbeat(time_ms=wall_ms())
                    await write(service_pb2.WatchAccountResponse(heartbeat=beat))
                    sent = loop.time()
            page = await self.store.read(account, cursor, PAGE)

    async def _revealed(self, account: str, ticket: leagues_pb2.Ticket) -> None:
        """Give a ticket its seat token back from the first `reveal` hook that knows it."""
        for reveal in self.reveal:
            try:
                token = await reveal(account, ticket)
            except Exception:  # the notice still goes out, without the token
                log.exception("revealing the seat token of league match %d", ticket.match)
                continue
            if token:
                ticket.seat_token = token
                return
