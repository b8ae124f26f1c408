"""Account notices: what one WatchAccount stream tells an account about all its tables.

Publishing. `Notices` listens to its `Tables` as the feed does (`Tables.listeners`: a table's
news, in whatever process learns of it) and tells each account seated at the table:

- SEATED when a seat is taken for it (JoinTable with its API key, or a seat the table binds
  to it in `seat_accounts`);
- YOUR_TURN after every event that leaves the match running with its seat to move (`seq` to
  answer at, the milliseconds left on the clock);
- GAME_OVER to every seated account when the match ends (the `Result` as GetRecord gives it).

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

from kafana.errors import ApiKeyMissing, InvalidInputError, ServerStopping
from kafana.logs import Repeated
from kafana.service import convert
from kafana.service.session import SEAT_TAKEN, Session
from kafana.service.tables import Tables, seat_account
from kafana.store.base import FINISHED, OPEN, PLAYING
from kafana.store.errors import StoreUnavailable
from kafana.store.notices import Mark, NoticeStore, parse_id
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


@dataclass
class _Seen:
    """What this process told of a table: up to `seq`; whether its seats are all taken;
    `quiet`: started with no seat an account's, so nothing will ever be told."""

    seq: int
    started: bool = False
    quiet: bool = False


class Notices:
    """Publishes the notices of one `Tables`' tables and serves WatchAccount streams."""

    def __init__(self, tables: Tables, store: NoticeStore | None = None) -> None:
        self.tables = tables
        self.store = store or notices_for(tables.store)
        self.reveal: list[Reveal] = []  # give a ticket its seat token back ("" if unknown)
        self._seen: OrderedDict[str, _Seen] = OrderedDict()
        self._holders: OrderedDict[str, tuple[frozenset[bytes], dict[str, str]]] = OrderedDict()
        self._telling: dict[str, asyncio.Task[None]] = {}
        self._errors = Repeated(log, "telling accounts of their tables", quiet=(StoreUnavailable,))
        tables.listeners.append(self.notify)
        tables.seating.append(self.bind)
        _OF[tables] = self

    async def close(self) -> None:
        """Let the notices being told finish (at most a second), then stop."""
        tasks = list(self._telling.values())
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
        """A `Tables` listener: `table_id` is at `seq` in this process; tell what is news."""
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
        if table_id not in self._telling:
            try:
                task = asyncio.get_running_loop().create_task(self._tell(table_id))
            except RuntimeError:  # no event loop (a synchronous caller): nobody to tell
                return
            self._telling[table_id] = task

    async def _tell(self, table_id: str) -> None:
        """Tell the news of `table_id` until this process's session has none left."""
        try:
            while True:
                seen = self._seen.get(table_id)
                session = self.tables.cached(table_id)
                if seen is None or session is None or session.seq <= seen.seq:
                    return
                await self._tell_range(session, seen)
                self._errors.succeeded()
        except Exception as error:  # told again with the table's next news (marks dedupe)
            self._errors.failed(error)
        finally:
            self._telling.pop(table_id, None)

    async def _tell_range(self, session: Session, seen: _Seen) -> None:
        """Every notice of the events after `seen.seq` up to `session`."""
        accounts = await self._accounts(session)
        now = self.tables.now()
        if not seen.started:
            for seq, _record, event in session.log.events():
                if (
                    seq > seen.seq
                    and event.kind == SEAT_TAKEN
                    and event.seat in accounts
                    and now - event.time_ms <= RECENT_MS
                ):
                    await self._publish(session, event.seat, accounts[event.seat], SEATED, 1)
        if session.status == PLAYING:
            seat = session.match.current_seat
            if seat is not None and seat in accounts:
                left = max(0, session.deadline_ms - now) if session.deadline_ms else 0
                await self._publish(
                    session,
                    seat,
                    accounts[seat],
                    YOUR_TURN,
                    session.seq * 4 + 2,
                    seq=session.seq,
                    remaining_millis=min(left, UINT32),
                )
        elif session.status == FINISHED and now - session.log.last_ms <= RECENT_MS:
            result = convert.result(session)
            for seat, account in sorted(accounts.items()):
                await self._publish(
                    session, seat, account, GAME_OVER, session.seq * 4 + 3, result=result
                )
        seen.seq = session.seq
        seen.started = session.status != OPEN
        seen.quiet = seen.started and not accounts

    async def _accounts(self, session: Session) -> dict[int, str]:
        """The seats held now for an account: seat -> account."""
        table_id = session.table_id
        hashes = session.token_hashes
        key = frozenset(hashes.values())
        known = self._holders.get(table_id)
        if known is None or known[0] != key:
            unbound = any(not seat_account(session.stored, s) for s in hashes)
            known = (key, await self.store.bound(table_id) if unbound else {})
            self._holders[table_id] = known
            while len(self._holders) > TABLES_SEEN:
                self._holders.popitem(last=False)
        else:
            self._holders.move_to_end(table_id)
        out = {}
        for seat, digest in hashes.items():
            account = seat_account(session.stored, seat) or known[1].get(holder(digest), "")
            if account:
                out[seat] = account
        return out

    async def _publish(
        self,
        session: Session,
        seat: int,
        account: str,
        kind: service_pb2.NoticeKind.ValueType,
        rank: int,
        **fields: object,
    ) -> None:
        notice = service_pb2.AccountNotice(
            kind=kind,
            time_ms=self.tables.now(),
            table_id=session.table_id,
            seat=seat,
            **fields,  # type: ignore[arg-type]
        )
        mark = Mark(f"{session.table_id}:{seat}", holder(session.token_hashes[seat]), rank)
        await self.store.publish(
            account, notice.SerializeToString(), mark, keep_table=session.table_id
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
