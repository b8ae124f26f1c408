"""Table logic: decide in the service, append atomically in the store, cache the replay.

Every decision is made on a replayed session at sequence number `seq` and appended with
`expected_seq=seq` and the digest of the log it replayed, so several processes can serve one
table: whoever is behind, or holds events the store lost (a failover, a crash), is refused by
the store and reloads from it. A process caches sessions; a move on a current cache costs one
store round trip.
"""

from __future__ import annotations

import hmac
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise

from kafana import metrics
from kafana.errors import (
    AuthenticationError,
    IllegalMoveError,
    InvalidInputError,
    KafanaError,
    LastSeqMissing,
    MatchNotOverError,
    MatchNotStartedError,
    MatchOverError,
    MoveIdMissing,
    MoveIdReused,
    NotFoundError,
    NotYourTurnError,
    PermissionDeniedError,
    SeatTakenError,
    SeqAhead,
    StaleSequenceError,
    TableFullError,
    TableNotFoundError,
)
from kafana.service import convert, faults, tokens
from kafana.service.accounts import account_name
from kafana.service.embargo import Embargoes, check_label
from kafana.service.games import build_rules, game_of
from kafana.service.inputs import check_name
from kafana.service.limits import (
    MAX_CLIENT_MOVE_ID,
    MAX_DECKS,
    MAX_SEAT_NAME,
    MAX_TABLE_NAME,
    Limits,
)
from kafana.service.presence import Presence, checks_presence
from kafana.service.quotas import TableQuotas
from kafana.service.records import encode
from kafana.service.session import ABANDONED, Session, table_record
from kafana.service.session_cache import CACHE_BYTES, CACHE_ENTRIES, SessionCache
from kafana.store.base import (
    FINISHED,
    KEEP_TTL,
    OPEN,
    PLAYING,
    Append,
    Listed,
    Outcome,
    TableStore,
)
from kafana.v1 import events_pb2, rules_pb2, service_pb2, state_pb2, storage_pb2

Kind = events_pb2.EventKind
MOVE = events_pb2.EVENT_KIND_MOVE
log = logging.getLogger(__name__)
HOUR_MS = 3_600_000
MAX_MOVE_MILLIS = 24 * HOUR_MS
JOIN_DEADLINE_MS = 600_000
"""How long an open table waits for its seats to be taken before it expires (10 minutes)."""
LIST_SCAN = 100
"""Tables a ListTables page looks at beyond its size: filtered out ones, expired ones."""
ABANDON_AFTER = 2
"""A match ends as abandoned when the clock has played this many moves of every seat, counted
per seat, with no move played by a seat (`faults.abandoned`): no server-played loop runs for
ever, and one away seat is played for while another plays."""


def wall_ms() -> int:
    """Unix time in milliseconds."""
    return int(time.time() * 1000)


@dataclass(frozen=True)
class Played:
    """The answer to a move: the session afterwards and the event's sequence number."""

    session: Session
    seq: int
    seat: int
    duplicate: bool = False
    before: Session | None = None  # the session just before a freshly applied move
    event: storage_pb2.StoredEvent | None = None  # and that move (the log need not be read)


def bind_seats(stored: storage_pb2.StoredTable, accounts: Sequence[str], creator: str) -> None:
    """Record who created the table and which seats are bound to which accounts."""
    if any(accounts):
        players = Session.start("", stored).players
        if len(accounts) > players:
            raise InvalidInputError(f"seat_accounts names {len(accounts)} seats of {players}")
        for name in accounts:
            if name:
                account_name(name)
        stored.seat_accounts.extend(accounts)
    stored.creator_account = creator


def check_clock(clock: rules_pb2.ClockSpec) -> None:
    """Refuse a clock whose times are over 24 hours."""
    for name in ("move_millis", "disconnect_grace_millis", "no_show_millis"):
        if getattr(clock, name) > MAX_MOVE_MILLIS:
            raise InvalidInputError(
                f"{name} is at most {MAX_MOVE_MILLIS} (24 hours)", field=f"config.clock.{name}"
            )


def check_move_request(client_move_id: str, last_seq: int) -> None:
    """Refuse a PlayMove without its client_move_id (1..64 characters) or its last_seq."""
    if not client_move_id:
        raise MoveIdMissing(
            "PlayMove needs a client_move_id (1..64 characters, new for every move): a retry "
            "with the same id applies nothing twice",
            field="client_move_id",
        )
    if len(client_move_id) > MAX_CLIENT_MOVE_ID:
        raise InvalidInputError(
            f"a client_move_id has at most {MAX_CLIENT_MOVE_ID} characters, not "
            f"{len(client_move_id)}",
            field="client_move_id",
        )
    if last_seq < 1:
        raise LastSeqMissing(
            "PlayMove needs last_seq (>= 1): the sequence number of the state the move was "
            "chosen at (GetState, GetLegalMoves or the last event)",
            field="last_seq",
        )


def _canonical(session: Session, move_text: str, seat: int) -> str:
    """The move as the log stores it ("" when it is no move at all)."""
    try:
        return str(session.game.parse_move(move_text, seat))
    except KafanaError:
        return ""


def seat_account(stored: storage_pb2.StoredTable, seat: int) -> str:
    """The account seat `seat` is bound to ("": anyone may take it)."""
    bound = stored.seat_accounts
    return bound[seat] if 0 <= seat < len(bound) else ""


class Tables:
    """Create, join, play and watch tables on a store, from any number of processes."""

    def __init__(
        self,
        store: TableStore,
        *,
        idle_ttl_ms: int = 24 * HOUR_MS,
        finished_ttl_ms: int = 24 * HOUR_MS,
        join_deadline_ms: int = JOIN_DEADLINE_MS,
        abandon_after: int = ABANDON_AFTER,
        cache_size: int = CACHE_ENTRIES,
        cache_bytes: int = CACHE_BYTES,
        clock: Callable[[], int] = wall_ms,
    ) -> None:
        if abandon_after < 1:
            raise ValueError("abandon_after is at least 1")
        self.store = store
        self.quotas = TableQuotas(store, Limits())  # a server sets the limits it serves
        self.idle_ttl_ms = idle_ttl_ms  # counted from the last move a seat played
        self.finished_ttl_ms = finished_ttl_ms
        self.join_deadline_ms = join_deadline_ms  # an open table's time to live, from creation
        self.abandon_after = abandon_after
        self._cache = SessionCache(cache_size, cache_bytes)  # bounded: see session_cache
        self.now = clock
        self.embargoes = Embargoes(store.counters, clock)  # shared by the store's processes
        self.listeners: list[Callable[[str, int], None]] = []  # told (table id, seq) news
        # Awaited before a seat is taken for an account: (session, seat, token hash, account).
        self.seating: list[Callable[[Session, int, bytes, str], Awaitable[None]]] = []
        self.presence = Presence(store.counters)  # seats seen, for the fault policy

    # -- sessions ---------------------------------------------------------------------

    def cached(self, table_id: str) -> Session | None:
        """The cached session, possibly behind the store."""
        return self._cache.get(table_id)

    def _remember(self, session: Session) -> Session:
        """Keep `session` unless the cache holds a later one; tell the listeners if kept."""
        old = self._cache.get(session.table_id)
        if old is None or old.seq <= session.seq:
            self._cache.put(session)
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
        cached = self._cache.get(table_id)
        after = cached.seq if cached is not None else 0
        offset = len(cached.log.data) if cached is not None else None
        snapshot = await self.store.load(table_id, after_seq=after, offset=offset)
        if snapshot is None:
            self._cache.pop(table_id)
            raise TableNotFoundError(
                f"no table {table_id!r} (it may have ended and expired)", table_id=table_id
            )
        if cached is not None:
            if snapshot.seq >= cached.seq:
                try:
                    return self._remember(cached.update(snapshot))
                except ValueError as error:  # another history (a rollback, an id made again)
                    why = str(error)
            else:
                why = f"the store is at {snapshot.seq}"
            if self._cache.get(table_id) is cached:  # not replaced by a newer load meanwhile
                self._cache.pop(table_id)
                log.warning(
                    "table %s: this process held seq %d, %s: the store lost events; the "
                    "table goes on from the store's state",
                    table_id,
                    cached.seq,
                    why,
                )
            snapshot = await self.store.load(table_id)
            if snapshot is None:
                raise TableNotFoundError(f"no table {table_id!r}", table_id=table_id)
        return self._remember(Session.from_snapshot(table_id, snapshot))

    async def _current(self, table_id: str, at_least: int) -> Session:
        cached = self._cache.get(table_id)
        if cached is not None and cached.seq >= at_least:
            return cached
        return await self.session(table_id)

    def _move_millis(self, session: Session) -> int:
        return int(session.stored.clock.move_millis)

    def _next_deadline(self, session: Session, over: bool, now: int) -> int:
        millis = self._move_millis(session)
        return 0 if over or not millis else now + millis

    def _ending(self, session: Session, event: bytes) -> Append:
        """The append that ends the match at `session` with `event` (a forfeit, a close)."""
        return Append(
            event=session.log.pack(event),
            ttl_ms=self.finished_ttl_ms,
            expected_seq=session.seq,
            expected_digest=session.log.digest,
            new_status=FINISHED,
            deadline_ms=0,
        )

    # -- tokens -------------------------------------------------------------------------

    def seat_of(self, session: Session, token: str) -> int:
        """The seat whose token this is; errors say what is wrong."""
        if not token:
            raise AuthenticationError("a seat token is required for this call")
        digest = tokens.token_hash(token)  # once, compared with each seat's in constant time
        for seat, stored_hash in session.token_hashes.items():
            if hmac.compare_digest(digest, stored_hash):
                return seat
        if hmac.compare_digest(digest, session.stored.admin_token_hash):
            raise PermissionDeniedError("the admin token cannot act for a seat: join a seat")
        raise AuthenticationError(f"the token is not a seat token of table {session.table_id}")

    def viewer(self, session: Session, token: str) -> int | None:
        """The seat of a token, or None (a spectator) for an empty one."""
        return None if not token else self.seat_of(session, token)

    async def seen(self, session: Session, seat: int | None) -> None:
        """A call or stream with `seat`'s token: the seat is present (the fault policy's
        disconnect and no-show checks; throttled, and nothing on tables without them)."""
        clock = session.stored.clock
        if seat is not None and checks_presence(clock) and session.status != FINISHED:
            await self.presence.mark(session.table_id, seat, session.players, clock, self.now())

    # -- creating and seats -----------------------------------------------------------------

    async def create(
        self, config: rules_pb2.TableConfig, creator: str = "", *, owner: str = ""
    ) -> tuple[str, str, Session]:
        """A new table (`creator`: the caller's account, if any); returns its id, the admin
        token and the session."""
        game = game_of(config.rules)
        rules = build_rules(config.rules)
        check_clock(config.clock)
        check_name(config.name, "a table name", MAX_TABLE_NAME)
        self._check_size(config, game.max_decks(rules))
        admin_token = tokens.new_token()
        now = self.now()
        stored = storage_pb2.StoredTable(
            name=config.name,
            spec=config.rules,
            rules_json=rules.to_json(),
            decks=config.decks,
            clock=config.clock,
            admin_token_hash=tokens.token_hash(admin_token),
            created_ms=now,
        )
        if config.embargo:
            stored.embargo = check_label(config.embargo)
        if config.HasField("seed"):
            stored.seed = config.seed
        elif not config.decks:
            stored.seed = secrets.randbits(63)
        stored.deal_chosen_by_creator = config.HasField("seed") or bool(config.decks)
        stored.hints = config.hints  # Analyze serves its seats while they play
        if config.bots:  # seated by BotKeeper, with tokens any process derives from the key
            stored.bots.extend(config.bots)
            stored.bot_secret = secrets.token_bytes(32)
        game.start(stored)  # validates the decks and the seed
        bind_seats(stored, config.seat_accounts, creator)
        data = table_record(stored)
        table_id = secrets.token_hex(8)
        if owner:  # a caller of the service (the domain layer's own tables are not charged)
            await self.quotas.admit(owner, table_id, now + self.idle_ttl_ms, now)
        for _attempt in range(5):
            if await self.store.create(table_id, data, self.join_deadline_ms, now):
                session = self._remember(Session.start(table_id, stored))
                log.info("table %s created: %s, %d seats", table_id, game.name, session.players)
                if config.clock.no_show_millis:
                    await self.store.schedule(table_id, now + config.clock.no_show_millis)
                return table_id, admin_token, session
            table_id = secrets.token_hex(8)  # taken: the quota's place for it is freed when full
        raise RuntimeError("could not find a free table id")

    def _check_size(self, config: rules_pb2.TableConfig, most: int) -> None:
        """Refuse a config too big to keep (no wait helps: INVALID_ARGUMENT)."""
        limit = self.quotas.limits.config_bytes
        size = config.ByteSize()
        if limit and size > limit:
            metrics.REFUSALS.labels("config_bytes").inc()
            raise InvalidInputError(
                f"a table config has at most {limit} bytes, not {size} (a limit of this server)"
            )
        most = min(most, MAX_DECKS) if most else MAX_DECKS
        if len(config.decks) > most:
            raise InvalidInputError(
                f"at most {most} explicit decks: this match cannot last more hands, not "
                f"{len(config.decks)}"
            )

    async def join(
        self,
        table_id: str,
        seat: int | None,
        name: str,
        account: str | None = None,
        token: str | None = None,
    ) -> tuple[int, str, Session]:
        """Take `seat` (None: the first free one `account` may take); returns the seat, its
        token (`token`, else a new one) and the session. A seat bound to another account is
        PermissionDeniedError."""
        check_name(name, "a seat name", MAX_SEAT_NAME)
        for _attempt in range(8):
            session = await self.session(table_id)
            if session.status != OPEN:
                raise TableFullError(f"table {table_id} is {session.status}: no seat is open")
            free = [s for s in range(session.players) if s not in session.names]
            bound = seat_account(session.stored, seat) if seat is not None else ""
            if bound and bound != account:
                raise PermissionDeniedError(f"seat {seat} of table {table_id} is for {bound!r}")
            free = [s for s in free if seat_account(session.stored, s) in ("", account)]
            if seat is not None and not 0 <= seat < session.players:
                raise InvalidInputError(
                    f"seat {seat} does not exist: seats are 0..{session.players - 1}",
                    field="seat",
                )
            wanted = seat if seat is not None else (free[0] if free else None)
            if wanted is None:
                raise TableFullError(f"every seat of table {table_id} is taken")
            if wanted not in free:
                raise SeatTakenError(
                    f"seat {wanted} of table {table_id} is taken; free seats: "
                    + (", ".join(map(str, free)) or "none")
                )
            token = token or tokens.new_token()
            now = self.now()
            data = storage_pb2.StoredSeat(name=name, token_hash=tokens.token_hash(token))
            start_deadline = self._next_deadline(session, False, now)
            event = convert.stored_event(Kind.EVENT_KIND_SEAT_TAKEN, wanted, now, name=name)
            fills = len(free) == 1  # the match starts: the idle time counts from now
            for hook in self.seating if account else ():
                await hook(session, wanted, data.token_hash, account or "")
            result = await self.store.append(
                table_id,
                Append(
                    event=session.log.pack(event),
                    ttl_ms=self.idle_ttl_ms if fills else KEEP_TTL,  # else the join deadline
                    expected_seq=session.seq,  # the record's time counts from the last event
                    expected_digest=session.log.digest,
                    require_status=OPEN,
                    take_seat=wanted,
                    seat_data=data.SerializeToString(),
                    start_at_seats=session.players,
                    start_deadline_ms=start_deadline,
                ),
            )
            if result.outcome is Outcome.APPLIED:
                joined = await self.session(table_id)
                if fills and joined.stored.clock.disconnect_grace_millis:
                    await self._check_at(joined, now, start_deadline)
                return wanted, token, joined
            if result.outcome is Outcome.MISSING:
                raise TableNotFoundError(f"no table {table_id!r}", table_id=table_id)
            if seat is not None and result.outcome is Outcome.SEAT_TAKEN:
                raise SeatTakenError(f"seat {seat} of table {table_id} was just taken")
        raise SeatTakenError(f"table {table_id} is busy: try again")

    async def leave(self, table_id: str, token: str) -> Session:
        """Free the seat before the match; during it, the seat's side forfeits."""
        for _attempt in range(8):
            session = await self.session(table_id)
            seat = self.seat_of(session, token)
            now = self.now()
            if session.status == FINISHED:
                raise MatchOverError(f"the match at table {table_id} is over")
            if session.status == OPEN:
                kind = Kind.EVENT_KIND_SEAT_LEFT
                append = Append(
                    event=session.log.pack(convert.stored_event(kind, seat, now)),
                    ttl_ms=KEEP_TTL,  # an open table still expires at its join deadline
                    expected_seq=session.seq,
                    expected_digest=session.log.digest,
                    free_seat=seat,
                )
            else:
                kind = Kind.EVENT_KIND_FORFEIT
                append = self._ending(session, convert.stored_event(kind, seat, now, reason="left"))
            result = await self.store.append(table_id, append)
            if result.outcome is Outcome.APPLIED:
                return await self.session(table_id)
            if result.outcome is Outcome.MISSING:
                raise TableNotFoundError(f"no table {table_id!r}", table_id=table_id)
        raise StaleSequenceError(f"table {table_id} is busy: try again")

    async def close(self, table_id: str, admin_token: str) -> Session:
        """End the table now (admin only)."""

        def check(session: Session) -> None:
            if not tokens.matches(admin_token, session.stored.admin_token_hash):
                if any(tokens.matches(admin_token, h) for h in session.token_hashes.values()):
                    raise PermissionDeniedError("a seat token cannot close the table")
                raise AuthenticationError(f"not the admin token of table {table_id}")
            if session.status == FINISHED:
                raise MatchOverError(f"the match at table {table_id} is already over")

        return await self._close(table_id, check, "admin")

    async def decline(self, table_id: str, account: str) -> Session:
        """Close an open table one of whose free seats is bound to `account` (a challenge the
        account declines)."""

        def check(session: Session) -> None:
            bound = [
                s
                for s in range(session.players)
                if seat_account(session.stored, s) == account and s not in session.names
            ]
            if not account or not bound:
                raise PermissionDeniedError(
                    f"table {table_id} holds no open seat for account {account or '(none)'}"
                )
            if session.status != OPEN:
                raise MatchOverError(f"table {table_id} is {session.status}: nothing to decline")

        return await self._close(table_id, check, "declined")

    async def _close(self, table_id: str, check: Callable[[Session], None], reason: str) -> Session:
        """End the table with a CLOSED event for `reason`, once `check` allows it."""
        for _attempt in range(8):
            session = await self.session(table_id)
            check(session)
            event = convert.stored_event(Kind.EVENT_KIND_CLOSED, 0, self.now(), reason=reason)
            result = await self.store.append(table_id, self._ending(session, event))
            if result.outcome is Outcome.APPLIED:
                return await self.session(table_id)
        raise StaleSequenceError(f"table {table_id} is busy: try again")

    # -- moves --------------------------------------------------------------------------

    def legal(self, session: Session, seat: int) -> Sequence[object]:
        """The legal moves of `seat` now, the same rule for every game: none before the start,
        once over, or while another seat is to move (a Tač call may be legal out of turn)."""
        if session.status != PLAYING:
            return []
        try:
            return session.match.legal_moves_for(seat)
        except NotYourTurnError:
            return []

    def _check_playing(self, session: Session) -> None:
        if session.status == OPEN:
            missing = [s for s in range(session.players) if s not in session.names]
            waiting = ", ".join(map(str, missing))
            raise MatchNotStartedError(f"the match has not started: waiting for seat(s) {waiting}")
        if session.status == FINISHED:
            raise MatchOverError(f"the match at table {session.table_id} is over")

    async def play(
        self,
        table_id: str,
        token: str,
        move: str | state_pb2.Move,
        client_move_id: str,
        last_seq: int,
    ) -> Played:
        """Play one move decided at `last_seq`; a retry of an applied move answers the same.

        `move`: its text or the wire Move (text or structured); `client_move_id`
        (1..MAX_CLIENT_MOVE_ID characters) and `last_seq` (>= 1) are
        required; the same id with another move is MoveIdReused, a `last_seq` ahead of the
        table SeqAhead, one behind it (not a retry) StaleSequenceError.
        """
        check_move_request(client_move_id, last_seq)
        session = await self._current(table_id, last_seq)
        seat = self.seat_of(session, token)
        await self.seen(session, seat)
        move_text = move if isinstance(move, str) else session.game.move_text(move, seat)
        tag = tokens.dedupe_tag(seat, client_move_id)
        if session.seq != last_seq:
            return await self._not_current(session, seat, tag, last_seq, move_text)
        self._check_reuse(session, seat, tag, last_seq, move_text)
        self._check_playing(session)
        try:
            chosen = session.game.parse_move(move_text, seat)
            after = session.match.apply(chosen, seat)
        except (IllegalMoveError, InvalidInputError) as error:
            fresh = await self.session(table_id)  # illegal where the store holds the table?
            if (fresh.seq, fresh.log.digest) != (session.seq, session.log.digest):
                return await self._refused(session, fresh, seat, tag, last_seq, move_text)
            if session.stored.clock.illegal_limit and session.match.current_seat == seat:
                await self._illegal(session, seat, error)
            if isinstance(error, IllegalMoveError):
                raise
            raise IllegalMoveError(str(error), field="move") from None  # not a move: ILLEGAL_MOVE
        move = str(chosen)
        over = after.is_over
        now = self.now()
        millis = session.stored.clock.move_millis
        deadline = 0 if over or not millis else now + millis
        # No reason stored for a normal move: "played" (bytes add up over a match).
        event = storage_pb2.StoredEvent(kind=MOVE, seat=seat, move=move, time_ms=now)
        record = encode(event, session.log.last_ms)
        append = Append(
            event=record,
            ttl_ms=self.finished_ttl_ms if over else self.idle_ttl_ms,
            expected_seq=last_seq,
            expected_digest=session.log.digest,
            dedupe=tag,
            dedupe_slot=seat,
            new_status=FINISHED if over else "",
            deadline_ms=deadline if millis else None,
        )
        result = await self.store.append(table_id, append)
        if result.outcome is Outcome.APPLIED:
            metrics.move_applied(session.game.name)
            if over:
                log.info("table %s: match over at seq %d", table_id, result.seq)
            new = self._remember(session.moved(result.seq, event, record, after, deadline, tag))
            return Played(new, result.seq, seat, before=session, event=event)
        if result.outcome is Outcome.MISSING:
            raise TableNotFoundError(f"no table {table_id!r}", table_id=table_id)
        fresh = await self.session(table_id)
        return await self._refused(session, fresh, seat, tag, last_seq, move_text)

    async def _refused(
        self, session: Session, fresh: Session, seat: int, tag: str, last_seq: int, move_text: str
    ) -> Played:
        """A move decided on `session` that the store's table (`fresh`) does not continue."""
        if fresh.seq == last_seq and fresh.log.digest != session.log.digest:
            raise StaleSequenceError(
                f"table {fresh.table_id} is at {last_seq} with other events than the move was "
                f"chosen after (the store lost events): choose again at seq {last_seq}",
                field="last_seq",
            )
        return await self._not_current(fresh, seat, tag, last_seq, move_text)

    async def _not_current(
        self, session: Session, seat: int, tag: str, last_seq: int, move_text: str
    ) -> Played:
        """A request made at another seq than the table's: a retry, reused, stale or ahead."""
        if session.seq < last_seq:
            session = await self.session(session.table_id)
        if session.seq < last_seq:
            raise SeqAhead(
                f"last_seq {last_seq} is ahead of table {session.table_id} (at {session.seq}): "
                "no state with that sequence number was sent",
                field="last_seq",
            )
        if self._check_reuse(session, seat, tag, last_seq, move_text):
            return Played(session, last_seq + 1, seat, duplicate=True)
        if last_seq < session.seq:
            session = await self.session(session.table_id)
            if self._check_reuse(session, seat, tag, last_seq, move_text):
                return Played(session, last_seq + 1, seat, duplicate=True)
        raise StaleSequenceError(
            f"stale sequence number {last_seq}: table {session.table_id} is at {session.seq}",
            field="last_seq",
        )

    def _check_reuse(
        self, session: Session, seat: int, tag: str, last_seq: int, move_text: str
    ) -> bool:
        """Whether this is a retry of `seat`'s last tagged move (the same id, seq and move);
        MoveIdReused when that id was used for another move (or at another seq)."""
        mark = session.marks.get(seat)
        if not tag or mark is None or mark[1] != tag:
            return False
        played = storage_pb2.StoredEvent.FromString(session.log[mark[0] - 1].data).move
        if mark[0] == last_seq + 1 and _canonical(session, move_text, seat) == played:
            return True
        raise MoveIdReused(
            f"client_move_id was used for seat {seat}'s move {played!r} at seq {mark[0]}: "
            "choose a new id for every move (a retry sends the same move and last_seq)",
            field="client_move_id",
        )

    # -- the clock ------------------------------------------------------------------------

    async def _illegal(self, session: Session, seat: int, error: KafanaError) -> None:
        """Count a refused illegal move of `seat` (in the store: every process counts); at the
        clock's `illegal_limit` the seat forfeits (reason "illegal_move") and this raises."""
        limit = session.stored.clock.illegal_limit
        key = f"illegal:{session.table_id}:{seat}"
        now = self.now()
        if not await self.store.counters.count(key, limit - 1, self.idle_ttl_ms, now):
            return
        ending = faults.Fault(Kind.EVENT_KIND_FORFEIT, seat, faults.ILLEGAL_MOVE)
        if await self._commit(session, ending, now):
            raise IllegalMoveError(
                f"{error}; seat {seat} forfeits the match after {limit} illegal moves"
            ) from error

    async def _check_at(self, session: Session, now: int, deadline: int) -> None:
        """Index the table's next check: its move deadline or its next presence check."""
        seen = await self.presence.seen(session.table_id, now)
        check = faults.presence_fault(session, seen, now)
        when = now if isinstance(check, faults.Fault) else check
        moments = [m for m in (when, deadline) if m]
        await self.store.schedule(session.table_id, min(moments) if moments else 0)

    async def _commit(self, session: Session, fault: faults.Fault, now: int) -> bool:
        """Append the policy's `fault` at `session`; True when applied."""
        seat, reason = fault.seat, fault.reason
        if fault.kind == Kind.EVENT_KIND_MOVE:
            return await self._default_move(session, seat, now, reason)
        event = convert.stored_event(fault.kind, seat, now, reason=reason)
        result = await self.store.append(session.table_id, self._ending(session, event))
        if result.outcome is not Outcome.APPLIED:
            return False
        how = "closed" if fault.kind == Kind.EVENT_KIND_CLOSED else f"seat {seat} forfeits"
        log.info("table %s: %s (%s)", session.table_id, how, reason)
        await self.session(session.table_id)
        return True

    async def timeout(self, table_id: str) -> bool:
        """Apply the clock's fault policy if it is due (the seat to move out of time, an
        absent seat); True when applied. Otherwise index the table's next check."""
        try:
            session = await self.session(table_id)
        except NotFoundError:
            await self.store.forget(table_id)
            return False
        now = self.now()
        if session.status == FINISHED:
            await self.store.schedule(table_id, 0)
            return False
        clock = session.stored.clock
        check = 0
        if checks_presence(clock):
            found = faults.presence_fault(session, await self.presence.seen(table_id, now), now)
            if isinstance(found, faults.Fault):
                return await self._applied(session, await self._commit(session, found, now), now)
            check = found
        deadline = session.deadline_ms if session.status == PLAYING else 0
        if not deadline or deadline > now:
            moments = [m for m in (check, deadline) if m]
            await self.store.schedule(table_id, min(moments) if moments else 0)
            return False
        seat = session.match.current_seat
        if seat is None:
            return False
        limit = clock.forfeit_after_timeouts
        if limit and faults.timeouts_of(session, seat) + 1 >= limit:
            fault = faults.Fault(Kind.EVENT_KIND_FORFEIT, seat, faults.TIMEOUTS)
        elif clock.policy == rules_pb2.TIMEOUT_POLICY_FORFEIT:
            fault = faults.Fault(Kind.EVENT_KIND_FORFEIT, seat, faults.TIMEOUT)
        else:
            fault = faults.Fault(Kind.EVENT_KIND_MOVE, seat, faults.TIMEOUT)
        return await self._applied(session, await self._commit(session, fault, now), now)

    async def _applied(self, session: Session, applied: bool, now: int) -> bool:
        """After the policy acted on a table that checks presence: check it again soon."""
        if applied and checks_presence(session.stored.clock):
            await self.store.schedule(session.table_id, now + faults.MIN_CHECK_MS)
        return applied

    async def _default_move(self, session: Session, seat: int, now: int, reason: str) -> bool:
        """Play the clock's move for `seat` (reason "timeout" or "disconnect"); the seat
        forfeits when no default move can be found. True when applied."""
        table_id = session.table_id
        match = session.match
        if faults.abandoned(session, seat, self.abandon_after):
            return await self._abandon(session, now)
        move: object | None = None
        try:
            move = match.default_move()
        except KafanaError:  # no default move can be found: the seat forfeits instead
            log.exception("no default move at table %s; forfeiting", table_id)
        if move is None:
            event = convert.stored_event(Kind.EVENT_KIND_FORFEIT, seat, now, reason=reason)
            append = self._ending(session, event)
        else:
            over = match.apply(move, seat).is_over
            event = convert.stored_event(
                Kind.EVENT_KIND_MOVE, seat, now, move_text=str(move), reason=reason
            )
            deadline = self._next_deadline(session, over, now)
            append = Append(
                event=session.log.pack(event),
                # A timeout does not keep the table alive: its time to live still counts
                # from the last move a seat played.
                ttl_ms=self.finished_ttl_ms if over else KEEP_TTL,
                expected_seq=session.seq,
                expected_digest=session.log.digest,
                new_status=FINISHED if over else "",
                deadline_ms=deadline,
            )
        result = await self.store.append(table_id, append)
        if result.outcome is Outcome.APPLIED:
            metrics.move_applied(session.game.name, move is not None)
            await self.session(table_id)
            return True
        return False

    async def _abandon(self, session: Session, now: int) -> bool:
        """End a match nobody plays: every seat ran out of time `abandon_after` turns in a row."""
        event = convert.stored_event(Kind.EVENT_KIND_CLOSED, 0, now, reason=ABANDONED)
        append = self._ending(session, event)
        result = await self.store.append(session.table_id, append)
        if result.outcome is not Outcome.APPLIED:
            return False
        log.info(
            "table %s abandoned after %d timeouts in a row", session.table_id, session.timeouts + 1
        )
        metrics.TABLES_ABANDONED.inc()
        await self.session(session.table_id)
        return True

    # -- the record ---------------------------------------------------------------------

    async def record(
        self, table_id: str, *, past_embargo: bool = False
    ) -> service_pb2.GetRecordResponse:
        """Result, record and events of a finished match (MatchOverError while it runs;
        EmbargoedError while its embargo label is embargoed, unless `past_embargo`: the
        organiser that set the embargo reads it)."""
        session = await self.session(table_id)
        if session.status != FINISHED:
            raise MatchNotOverError(
                f"the match at table {table_id} is not over: the record (with the "
                "seed and the decks) is published when it ends"
            )
        if not past_embargo:
            await self.embargoes.check(session.stored.embargo, table_id, "record (seed, decks)")
        replays = [Session.start(session.table_id, session.stored), *session.replays()]
        events = [convert.event(before, after, None) for before, after in pairwise(replays)]
        return service_pb2.GetRecordResponse(
            result=convert.result(session), record=session.record_text(), events=events
        )

    # -- embargoes ---------------------------------------------------------------------

    async def embargo(self, label: str, ttl_ms: int) -> None:
        """Embargo the tables labelled `label` (`TableConfig.embargo`) for `ttl_ms`: their
        records and spectator views are refused on every process of this store."""
        await self.embargoes.embargo(label, ttl_ms)

    async def release(self, label: str) -> None:
        """Lift the embargo of `label`: its tables' records are served again."""
        await self.embargoes.release(label)

    async def check_view(self, session: Session, seat: int | None) -> None:
        """Refuse a spectator (`seat` None) of an embargoed table: the cards it shows played
        are the deals of the games still running (a seat sees its own game)."""
        if seat is None:
            await self.embargoes.check(session.stored.embargo, session.table_id, "play")

    # -- listing ------------------------------------------------------------------------

    async def list(
        self, game: int, status: str, limit: int, after: Listed | None = None
    ) -> tuple[list[Session], Listed | None]:
        """Up to `limit` tables, newest first, of `game` (a `Game` value; 0: any) and `status`
        ("": any), from just after the cursor `after`; and the cursor to go on from (None:
        no more). At most `limit` + `LIST_SCAN` tables are looked at: a rare filter may give
        a short page, and the cursor goes on from the last table looked at."""
        budget = limit + LIST_SCAN
        found = await self.store.list_tables(budget, before=after)
        out: list[Session] = []
        cursor: Listed | None = None
        for at, entry in enumerate(found):
            if len(out) >= limit:
                return out, cursor
            cursor = entry
            try:
                session = await self.session(entry[1])
            except NotFoundError:
                await self.store.forget(entry[1])
                continue
            except (KafanaError, ValueError, RuntimeError) as error:  # a log that does not replay
                log.error("table %s does not replay, left out of the list: %s", entry[1], error)
                continue
            if game and (session.stored.spec.game or rules_pb2.GAME_TABLIC) != game:
                continue
            if status and session.status != status:
                continue
            out.append(session)
            if len(out) >= limit and at == len(found) - 1 and len(found) < budget:
                return out, None  # the index's last table: no page after this one
        return out, cursor if len(found) >= budget else None
