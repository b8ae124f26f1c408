"""Tables made, seats taken and left, tables closed; who a token is at a table."""

from __future__ import annotations

import hmac
import logging
import secrets
from collections.abc import Awaitable, Callable, Sequence

from kafana import metrics
from kafana.errors import (
    AuthenticationError,
    InvalidInputError,
    MatchOverError,
    PermissionDeniedError,
    SeatTakenError,
    TableFullError,
)
from kafana.service import convert, tokens
from kafana.service.accounts import account_name
from kafana.service.clock_policy import ClockPolicy, next_deadline
from kafana.service.embargo import check_label
from kafana.service.games import build_rules, game_of
from kafana.service.inputs import check_name
from kafana.service.limits import MAX_DECKS, MAX_SEAT_NAME, MAX_TABLE_NAME
from kafana.service.quotas import TableQuotas
from kafana.service.session import Session, table_record
from kafana.service.table_repository import TableRepository
from kafana.store.base import FINISHED, KEEP_TTL, OPEN, Append, AppendResult, Outcome
from kafana.v1 import events_pb2, rules_pb2, storage_pb2

Kind = events_pb2.EventKind
MAX_MOVE_MILLIS = 24 * 3_600_000
log = logging.getLogger(__name__)
Seated = Callable[[Session, int, bytes, str], Awaitable[None]]
"""Awaited before a seat is taken for an account: (session, seat, token hash, account)."""


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


def seat_account(stored: storage_pb2.StoredTable, seat: int) -> str:
    """The account seat `seat` is bound to ("": anyone may take it)."""
    bound = stored.seat_accounts
    return bound[seat] if 0 <= seat < len(bound) else ""


def seat_of(session: Session, token: str) -> int:
    """The seat whose token this is; errors say what is wrong."""
    if not token:
        raise AuthenticationError("a seat token is required for this call")
    digest = tokens.presented_hash(token)  # once, compared with each seat's in constant time
    for seat, stored_hash in session.token_hashes.items():
        if hmac.compare_digest(digest, stored_hash):
            return seat
    if hmac.compare_digest(digest, session.stored.admin_token_hash):
        raise PermissionDeniedError("the admin token cannot act for a seat: join a seat")
    raise AuthenticationError(f"the token is not a seat token of table {session.table_id}")


def viewer(session: Session, token: str) -> int | None:
    """The seat of a token, or None (a spectator) for an empty one."""
    return None if not token else seat_of(session, token)


class Seating:
    """Create tables, take and leave seats, close tables."""

    def __init__(self, tables: TableRepository, clock: ClockPolicy, quotas: TableQuotas) -> None:
        self.tables = tables
        self.clock = clock
        self.quotas = quotas
        self.settings = tables.settings
        self.hooks: list[Seated] = []

    async def create(
        self, config: rules_pb2.TableConfig, creator: str = "", *, owner: str = ""
    ) -> tuple[str, str, Session]:
        """A new table (`creator`: the caller's account, if any); returns its id, the admin
        token and the session. `owner`: the caller of the service it is charged to; the
        domain layer's own tables (events, leagues) have none, and their seeds are the
        server's: only a caller's explicit seed or decks flag the deal as its creator's."""
        game = game_of(config.rules)
        rules = build_rules(config.rules)
        check_clock(config.clock)
        check_name(config.name, "a table name", MAX_TABLE_NAME)
        self._check_size(config, game.max_decks(rules))
        admin_token = tokens.new_token()
        now = self.tables.now()
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
        chosen = config.HasField("seed") or bool(config.decks)
        stored.deal_chosen_by_creator = bool(owner) and chosen
        stored.hints = config.hints  # Analyze serves its seats while they play
        if config.bots:  # seated by BotKeeper, with tokens any process derives from the key
            stored.bots.extend(config.bots)
            stored.bot_secret = secrets.token_bytes(32)
        game.start(stored)  # validates the decks and the seed
        bind_seats(stored, config.seat_accounts, creator)
        data = table_record(stored)
        table_id = secrets.token_hex(8)
        if owner:  # a caller of the service (the domain layer's own tables are not charged)
            bots_only = len(config.bots) == rules.players  # the server plays every seat
            until = now + self.settings.idle_ttl_ms
            await self.quotas.admit(owner, table_id, until, now, bots_only=bots_only)
        store = self.tables.store
        for _attempt in range(5):
            if await store.create(table_id, data, self.settings.join_deadline_ms, now):
                session = self.tables.remember(Session.start(table_id, stored))
                log.info("table %s created: %s, %d seats", table_id, game.name, session.players)
                if config.clock.no_show_millis:
                    await store.schedule(table_id, now + config.clock.no_show_millis)
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
        token = token or tokens.new_token()
        token_hash = tokens.token_hash(token)
        taken: list[tuple[int, int, bool]] = []  # the seat, when and whether it filled

        async def decide(session: Session) -> Append:
            wanted, fills = self._free_seat(session, seat, account)
            now = self.tables.now()
            data = storage_pb2.StoredSeat(name=name, token_hash=token_hash)
            event = convert.stored_event(Kind.EVENT_KIND_SEAT_TAKEN, wanted, now, name=name)
            for hook in self.hooks if account else ():
                await hook(session, wanted, token_hash, account or "")
            taken.append((wanted, now, fills))
            return Append(
                event=session.log.pack(event),
                # The match starts: the idle time counts from now; else the join deadline.
                ttl_ms=self.settings.idle_ttl_ms if fills else KEEP_TTL,
                expected_seq=session.seq,  # the record's time counts from the last event
                expected_digest=session.log.digest,
                require_status=OPEN,
                take_seat=wanted,
                seat_data=data.SerializeToString(),
                start_at_seats=session.players,
                start_deadline_ms=next_deadline(session, False, now),
            )

        def refused(result: AppendResult) -> None:
            if seat is not None and result.outcome is Outcome.SEAT_TAKEN:
                raise SeatTakenError(f"seat {seat} of table {table_id} was just taken")

        joined = await self.tables.change(table_id, decide, refused, busy=SeatTakenError)
        wanted, now, fills = taken[-1]
        if fills and joined.stored.clock.disconnect_grace_millis:
            await self.clock.check_at(joined, now, next_deadline(joined, False, now))
        return wanted, token, joined

    @staticmethod
    def _free_seat(session: Session, seat: int | None, account: str | None) -> tuple[int, bool]:
        """The seat a join takes at `session`, and whether it fills the table; errors say
        why none can be taken."""
        table_id = session.table_id
        if session.status != OPEN:
            raise TableFullError(f"table {table_id} is {session.status}: no seat is open")
        free = [s for s in range(session.players) if s not in session.names]
        bound = seat_account(session.stored, seat) if seat is not None else ""
        if bound and bound != account:
            raise PermissionDeniedError(f"seat {seat} of table {table_id} is for {bound!r}")
        others = [s for s in free if seat_account(session.stored, s) not in ("", account)]
        free = [s for s in free if s not in others]
        if seat is None and not free and others:  # open seats, each for another account
            held = others[0]
            who = seat_account(session.stored, held)
            raise PermissionDeniedError(f"seat {held} of table {table_id} is for {who!r}")
        if seat is not None and not 0 <= seat < session.players:
            raise InvalidInputError(
                f"seat {seat} does not exist: seats are 0..{session.players - 1}", field="seat"
            )
        wanted = seat if seat is not None else (free[0] if free else None)
        if wanted is None:
            raise TableFullError(f"every seat of table {table_id} is taken")
        if wanted not in free:
            raise SeatTakenError(
                f"seat {wanted} of table {table_id} is taken; free seats: "
                + (", ".join(map(str, free)) or "none")
            )
        return wanted, len(free) == 1

    async def leave(self, table_id: str, token: str) -> Session:
        """Free the seat before the match; during it, the seat's side forfeits."""

        async def decide(session: Session) -> Append:
            seat = seat_of(session, token)
            now = self.tables.now()
            if session.status == FINISHED:
                raise MatchOverError(f"the match at table {table_id} is over")
            if session.status != OPEN:
                event = convert.stored_event(Kind.EVENT_KIND_FORFEIT, seat, now, reason="left")
                return self.tables.ending(session, event)
            return Append(
                event=session.log.pack(convert.stored_event(Kind.EVENT_KIND_SEAT_LEFT, seat, now)),
                ttl_ms=KEEP_TTL,  # an open table still expires at its join deadline
                expected_seq=session.seq,
                expected_digest=session.log.digest,
                free_seat=seat,
            )

        return await self.tables.change(table_id, decide)

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

        async def decide(session: Session) -> Append:
            check(session)
            now = self.tables.now()
            event = convert.stored_event(Kind.EVENT_KIND_CLOSED, 0, now, reason=reason)
            return self.tables.ending(session, event)

        return await self.tables.change(table_id, decide)
