"""The RPCs: request proto -> table logic -> response proto. Nothing else happens here.

Tokens travel in call metadata (`kafana-seat-token`, `kafana-admin-token`: `auth.seat_token`,
`auth.admin_token`), never in request bodies.
"""

from __future__ import annotations

import asyncio
import time
from importlib import metadata
from typing import Any

import grpc  # type: ignore[import-untyped, unused-ignore]

from kafana.errors import InvalidInputError, ServerStopping, StaleSequenceError, TableNotFoundError
from kafana.games.cards import Card
from kafana.games.tablic.capture import CAPTURE_LIMIT
from kafana.service import bot_tables, convert
from kafana.service.advice import Advisor, advise
from kafana.service.auth import OPEN, AuthPolicy, admin_token, caller_of, seat_token
from kafana.service.bot_tables import BotKeeper
from kafana.service.challenges import challenge
from kafana.service.errors import unary
from kafana.service.feed import Feed
from kafana.service.games import build_rules, captures
from kafana.service.guard import caller_key
from kafana.service.inputs import page_token, read_page_token
from kafana.service.limits import Limits
from kafana.service.notices import Notices
from kafana.service.ratelimit import RateLimit
from kafana.service.server_info import server_info
from kafana.service.session import Session
from kafana.service.tables import Tables
from kafana.store.accounts import AccountStore
from kafana.store.accounts_redis import accounts_for
from kafana.store.base import FINISHED, PLAYING
from kafana.v1 import events_pb2, service_pb2, service_pb2_grpc, state_pb2

Context = grpc.aio.ServicerContext[Any, Any]
STATE_METADATA = "kafana-state-bin"
WATCH_POLL_S = 1.0
EXPIRY_CHECK_S = 30.0
"""An idle stream checks this often that its table has not expired."""
HEARTBEAT_S = 5.0
"""A WatchEvents stream idle this long gets a Heartbeat (`ServerLimits.heartbeat_millis`;
`create_server(heartbeat_s=...)` sets another period)."""
DEFAULT_PAGE_SIZE = 50
"""ListTables' page when `page_size` is 0."""
MAX_PAGE_SIZE = 500
"""ListTables' largest page: a larger `page_size` is coerced down to it (AIP-158)."""
STATUS_NAMES = {v: k for k, v in convert.STATUS.items()}


def version() -> str:
    """The `kafana` distribution's version ("unknown" when it is not installed)."""
    try:
        return metadata.version("kafana")
    except metadata.PackageNotFoundError:
        return "unknown"


class KafanaServiceServicer(service_pb2_grpc.KafanaServiceServicer):  # type: ignore[misc, unused-ignore]
    """The Kafana service over one `Tables`.

    `heartbeat_s`, `limits`, `rate_limit` and `auth` are what the server enforces; the
    servicer only reports them (GetServerInfo) and paces its streams' heartbeats.
    """

    def __init__(
        self,
        tables: Tables,
        *,
        heartbeat_s: float = HEARTBEAT_S,
        limits: Limits | None = None,
        rate_limit: RateLimit | None = None,
        auth: AuthPolicy | None = None,
        accounts: AccountStore | None = None,
    ) -> None:
        if heartbeat_s <= 0:
            raise ValueError(f"the heartbeat period is over 0 seconds, not {heartbeat_s}")
        self.tables = tables
        self.feed = Feed(tables.store)
        tables.listeners.append(self.feed.notify)
        self.notices = Notices(tables)  # account notices: published on news, WatchAccount
        self.stopping = asyncio.Event()  # set on shutdown: event feeds end (SERVER_STOPPING)
        self.heartbeat_s = heartbeat_s
        self.limits = limits or Limits()
        self.rate_limit = rate_limit or RateLimit()
        self.auth = auth or AuthPolicy()
        self.advisor = Advisor()  # Analyze: bounded CPU, off the event loop
        self.bots = BotKeeper(tables, self.feed)  # built-in bots seated by CreateTable
        self.accounts = accounts or accounts_for(tables.store)  # who may be challenged

    @unary
    async def GetServerInfo(
        self, request: service_pb2.GetServerInfoRequest, context: Context
    ) -> service_pb2.ServerInfo:
        """Version, games and limits of this server."""
        return server_info(
            version(),
            default_page_size=DEFAULT_PAGE_SIZE,
            max_page_size=MAX_PAGE_SIZE,
            max_captures=CAPTURE_LIMIT,
            heartbeat_millis=round(self.heartbeat_s * 1000),
            rate_per_second=self.rate_limit.rate,
            rate_burst=int(self.rate_limit.burst),
            max_streams=self.rate_limit.max_streams,
            max_request_bytes=self.limits.message_bytes,
            auth_required=self.auth.mode != OPEN,
            self_register=self.auth.self_register,
            max_analysis_millis=self.advisor.max_ms,
            default_analysis_millis=self.advisor.default_ms,
        )

    @unary
    async def CreateTable(
        self, request: service_pb2.CreateTableRequest, context: Context
    ) -> service_pb2.CreateTableResponse:
        """Create a table."""
        creator = caller_of(context).account or ""
        if request.config.bots:  # refused before anything is written
            bot_tables.check(request.config, build_rules(request.config.rules).players)
        table_id, admin, session = await self.tables.create(
            request.config, creator, owner=caller_of(context).key
        )
        if request.config.bots:
            session = await self.bots.seat(session)
        return service_pb2.CreateTableResponse(
            table_id=table_id, admin_token=admin, info=convert.info(session)
        )

    @unary
    async def JoinTable(
        self, request: service_pb2.JoinTableRequest, context: Context
    ) -> service_pb2.JoinTableResponse:
        """Take a seat."""
        wanted = request.seat if request.HasField("seat") else None
        account = caller_of(context).account
        seat, token, session = await self.tables.join(
            request.table_id, wanted, request.name, account
        )
        return service_pb2.JoinTableResponse(
            seat=seat, seat_token=token, state=convert.table_state(session, seat)
        )

    @unary
    async def LeaveTable(
        self, request: service_pb2.LeaveTableRequest, context: Context
    ) -> service_pb2.LeaveTableResponse:
        """Leave (or forfeit)."""
        session = await self.tables.leave(request.table_id, seat_token(context))
        return service_pb2.LeaveTableResponse(seq=session.seq)

    @unary
    async def CloseTable(
        self, request: service_pb2.CloseTableRequest, context: Context
    ) -> service_pb2.CloseTableResponse:
        """Close a table (admin)."""
        session = await self.tables.close(request.table_id, admin_token(context))
        return service_pb2.CloseTableResponse(seq=session.seq)

    @unary
    async def ListTables(
        self, request: service_pb2.ListTablesRequest, context: Context
    ) -> service_pb2.ListTablesResponse:
        """Tables, newest first, a page at a time (AIP-158)."""
        size = min(request.page_size or DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE)
        filters = f"game={request.game};status={request.status}"
        after = read_page_token(request.page_token, filters) if request.page_token else None
        status = STATUS_NAMES.get(request.status, "")
        sessions, cursor = await self.tables.list(request.game, status, size, after)
        return service_pb2.ListTablesResponse(
            tables=[convert.info(s) for s in sessions],
            next_page_token=page_token(cursor, filters) if cursor is not None else "",
        )

    @unary
    async def GetTable(
        self, request: service_pb2.GetTableRequest, context: Context
    ) -> state_pb2.TableInfo:
        """One table's summary."""
        return convert.info(await self.tables.session(request.table_id))

    @unary
    async def GetState(
        self, request: service_pb2.GetStateRequest, context: Context
    ) -> state_pb2.TableState:
        """The state as a seat or a spectator sees it."""
        token = seat_token(context)
        session = await self.tables.session(request.table_id)
        seat = self.tables.viewer(session, token)
        await self.tables.check_view(session, seat)  # embargoed: no spectator
        await self.tables.seen(session, seat)
        return convert.table_state(session, seat)

    @unary
    async def GetLegalMoves(
        self, request: service_pb2.GetLegalMovesRequest, context: Context
    ) -> service_pb2.GetLegalMovesResponse:
        """The seat's legal moves now (none while another seat is to move, before the start
        and once over; Tač: a call may be legal out of turn)."""
        token = seat_token(context)
        session = await self.tables.session(request.table_id)
        seat = self.tables.seat_of(session, token)
        await self.tables.seen(session, seat)
        moves = self.tables.legal(session, seat)
        answer = service_pb2.GetLegalMovesResponse(
            seq=session.seq, moves=convert.moves(session, moves)
        )
        current = session.match.current_seat if session.status == PLAYING else None
        if current is not None:
            answer.current_seat = current
        return answer

    @unary
    async def PlayMove(
        self, request: service_pb2.PlayMoveRequest, context: Context
    ) -> service_pb2.PlayMoveResponse:
        """Play a move: its event and scores, the mover's table only when asked for.

        Stale requests get the current state in trailing metadata.
        """
        token = seat_token(context)
        try:
            played = await self.tables.play(
                request.table_id, token, request.move, request.client_move_id, request.last_seq
            )
        except StaleSequenceError:
            session = self.tables.cached(request.table_id)
            if session is not None:
                seat = self.tables.viewer(session, token)
                state = convert.table_state(session, seat).SerializeToString()
                context.set_trailing_metadata(((STATE_METADATA, state),))
            raise
        session = played.session
        if played.before is not None:
            before, after = played.before, session
        else:  # a retry: the tables around the move it already applied
            replays = session.replays()
            before = replays[played.seq - 2] if played.seq > 1 else _initial(session)
            after = replays[played.seq - 1]
        answer = service_pb2.PlayMoveResponse(
            duplicate=played.duplicate, scores=after.game.scores(after.match)
        )
        convert.event(before, after, played.seat, stored=played.event, out=answer.event)
        if after.status == FINISHED:
            answer.result.CopyFrom(convert.result(after))
        if request.with_state:
            answer.state.CopyFrom(convert.table_state(session, played.seat))
        return answer

    @unary
    async def WatchEvents(  # type: ignore[override]  # streams with context.write
        self, request: service_pb2.WatchEventsRequest, context: Context
    ) -> None:
        """Every event after `after_seq`, then live ones, heartbeats while idle; ends OK after
        the match-over event, UNAVAILABLE (SERVER_STOPPING) when the server stops.

        Written with `context.write` rather than as an async generator, so the stream never
        depends on the event loop finalising generators.
        """
        token = seat_token(context)
        table_id = request.table_id
        session = await self.tables.session(table_id)
        seat = self.tables.viewer(session, token)
        await self.tables.check_view(session, seat)  # embargoed: no spectator
        if request.after_seq > session.seq:
            raise InvalidInputError(
                f"after_seq {request.after_seq} is ahead of the table (at {session.seq})",
                field="after_seq",
            )
        replayed = Session.start(session.table_id, session.stored)
        delivered = request.after_seq
        loop = asyncio.get_running_loop()
        sent = checked = loop.time()  # when it last sent something; checked the table is there
        while True:
            await self.tables.seen(session, seat)  # an open stream: its seat is present
            for entry in session.log[replayed.seq :]:
                after = replayed.apply(entry)
                if entry.seq > delivered:
                    event = convert.event(
                        replayed, after, seat, entry=entry, with_state=request.with_state
                    )
                    await context.write(service_pb2.WatchEventsResponse(event=event))
                    delivered = entry.seq
                    sent = loop.time()
                replayed = after
            if replayed.status == FINISHED or context.done():
                # Checked each round: redis-py may swallow the cancellation of a gone client.
                return
            if self.stopping.is_set():
                raise ServerStopping(
                    f"the server is stopping: resume with after_seq {delivered} (on another "
                    "process, or once it is back)",
                    after_seq=delivered,
                )
            idle = loop.time() - sent
            wait_s = max(0.0, min(WATCH_POLL_S, self.heartbeat_s - idle))
            if await self.feed.wait(table_id, replayed.seq, wait_s):
                session = await self.tables.session(table_id)
                continue
            if loop.time() - sent >= self.heartbeat_s and not self.stopping.is_set():
                beat = events_pb2.Heartbeat(time_ms=int(time.time() * 1000), seq=replayed.seq)
                await context.write(service_pb2.WatchEventsResponse(heartbeat=beat))
                sent = loop.time()
            if loop.time() - checked >= EXPIRY_CHECK_S:
                checked = loop.time()
                if await self.tables.store.load(table_id, 1 << 62) is None:
                    raise TableNotFoundError(f"table {table_id} expired", table_id=table_id)

    @unary
    async def WatchAccount(  # type: ignore[override]  # streams with context.write
        self, request: service_pb2.WatchAccountRequest, context: Context
    ) -> None:
        """The caller's account notices after `after`, then live ones (`service/notices.py`)."""
        await self.notices.watch(
            caller_of(context).account,
            request.after,
            context.write,
            self.stopping,
            self.heartbeat_s,
            context.done,
        )

    @unary
    async def GetRecord(
        self, request: service_pb2.GetRecordRequest, context: Context
    ) -> service_pb2.GetRecordResponse:
        """Result, record and events of a finished match."""
        return await self.tables.record(request.table_id)

    @unary
    async def Captures(
        self, request: service_pb2.CapturesRequest, context: Context
    ) -> service_pb2.CapturesResponse:
        """Every legal capture of a card from a table, under the given rules (Tablić)."""
        try:
            return captures(request)
        except InvalidInputError as error:
            error.metadata.setdefault("field", captures_field(request))
            raise

    @unary
    async def Analyze(
        self, request: service_pb2.AnalyzeRequest, context: Context
    ) -> service_pb2.AnalyzeResponse:
        """The engine's advice: every legal move valued, and its choice (Tablić)."""
        session, where, found = await advise(
            self.tables,
            self.advisor,
            caller_key(context),
            request.table_id,
            seat_token(context),
            budget_ms=request.budget_millis,
            at_seq=request.at_seq if request.HasField("at_seq") else None,
            seat=request.seat if request.HasField("seat") else None,
        )
        wire = convert.moves(session, [m.move for m in found.moves])
        answer = service_pb2.AnalyzeResponse(
            seq=where.seq,
            seat=where.seat,
            method=found.method,
            worlds=found.worlds,
            best=wire[[m.move for m in found.moves].index(found.best)],
        )
        for message, valued in zip(wire, found.moves, strict=True):
            answer.moves.add(move=message, value=valued.value, cost=found.cost(valued.move))
        if where.played is not None:
            answer.played.CopyFrom(convert.moves(session, [where.played])[0])
        return answer

    @unary
    async def Challenge(
        self, request: service_pb2.ChallengeRequest, context: Context
    ) -> service_pb2.ChallengeResponse:
        """Challenge another account: a table with both seats bound, the opponent told."""
        caller = caller_of(context)
        made = await challenge(
            self.tables,
            self.notices,
            self.accounts,
            challenger=caller.account,
            owner=caller.key,
            opponent=request.opponent,
            config=request.config,
            seat=request.seat if request.HasField("seat") else None,
            opponent_seat=request.opponent_seat if request.HasField("opponent_seat") else None,
        )
        return service_pb2.ChallengeResponse(
            table_id=made.table_id,
            admin_token=made.admin_token,
            seat=made.seat,
            seat_token=made.token,
            info=convert.info(made.session),
        )

    @unary
    async def DeclineChallenge(
        self, request: service_pb2.DeclineChallengeRequest, context: Context
    ) -> service_pb2.DeclineChallengeResponse:
        """Decline a challenge made to the caller's account: its table closes."""
        session = await self.tables.decline(request.table_id, caller_of(context).account or "")
        return service_pb2.DeclineChallengeResponse(seq=session.seq)


def _initial(session: Session) -> Session:
    return Session.start(session.table_id, session.stored)


def captures_field(request: service_pb2.CapturesRequest) -> str:
    """Which field of a refused Captures request was wrong: `card`, `table[i]` (not a card),
    else `table` (a card twice, or the played card on it)."""
    try:
        Card.parse(request.card)
    except InvalidInputError:
        return "card"
    for index, text in enumerate(request.table):
        try:
            Card.parse(text)
        except InvalidInputError:
            return f"table[{index}]"
    return "table"
