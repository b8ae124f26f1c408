"""The RPCs: request proto -> table logic -> response proto. Nothing else happens here.

Tokens travel in call metadata (`kafana-seat-token`, `kafana-admin-token`: `auth.seat_token`,
`auth.admin_token`), never in request bodies.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from importlib import metadata
from typing import Any

import grpc  # type: ignore[import-untyped, unused-ignore]

from kafana.errors import InvalidInputError, StaleSequenceError
from kafana.games.cards import Card
from kafana.games.tablic.capture import CAPTURE_LIMIT
from kafana.service import bot_tables, convert
from kafana.service.advice import Advisor, advise
from kafana.service.auth import OPEN, admin_token, caller_of, seat_token
from kafana.service.bot_tables import BotKeeper
from kafana.service.challenges import challenge
from kafana.service.errors import unary
from kafana.service.feed import Feed
from kafana.service.follow import watch
from kafana.service.games import build_rules, captures
from kafana.service.guard import caller_key
from kafana.service.inputs import page_token, read_page_token
from kafana.service.lru import LRU
from kafana.service.notices import Notices
from kafana.service.ratelimit import charge
from kafana.service.server_info import server_info
from kafana.service.session import Session
from kafana.service.settings import HEARTBEAT_S
from kafana.service.tables import Tables
from kafana.store.accounts import AccountStore
from kafana.store.accounts_redis import accounts_for
from kafana.store.base import PLAYING, Entry
from kafana.v1 import events_pb2, service_pb2, service_pb2_grpc, state_pb2

Context = grpc.aio.ServicerContext[Any, Any]
STATE_METADATA = "kafana-state-bin"
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


RECORD_EVENTS_A_TOKEN = 10
"""Events of a record that cost a call's token: GetRecord replays the match to build them,
about 39 us an event against 460 us of an ordinary call (a 7,106-event match took 277 ms)."""
RECORDS_KEPT = 4096
RECORD_BYTES = 32 * 2**20
"""GetRecord's answers a process keeps, at most (a 7,106-event match's is ~200 KB, a
500-event one's ~15 KB; replaying it again took 277 ms and 20 ms)."""
STATE_EVENTS_A_TOKEN = 1
"""Events that cost a token when a stream catches up with a state each (`with_state`): 3,007
ms for the 7,106 events of one match, ~420 us an event (448 ms without states). A stream is
charged for the events before the live ones as it starts (`ratelimit.charge`)."""


def _by_table_id(
    name: str,
    act: str,
    answer: Callable[[Any], Any],
    doc: str,
    token: Callable[[Context], str] | None = None,
) -> Any:
    """The RPC `name` that is `Tables.<act>` of its request's table id (and, given `token`,
    the call's token), answered with `answer` of what that gives: the RPCs whose body would
    be only that line (GetTable, GetRecord, LeaveTable, CloseTable)."""

    async def call(self: KafanaServiceServicer, request: Any, context: Context) -> Any:
        args = (request.table_id,) if token is None else (request.table_id, token(context))
        return answer(await getattr(self.tables, act)(*args))

    call.__name__ = call.__qualname__ = name
    call.__doc__ = doc
    return unary(call)


def _seq_of(answer: Callable[..., Any]) -> Callable[[Session], Any]:
    """`answer` with the seq of a session."""
    return lambda session: answer(seq=session.seq)


class KafanaServiceServicer(service_pb2_grpc.KafanaServiceServicer):  # type: ignore[misc, unused-ignore]
    """The Kafana service over one `Tables`.

    What the server enforces (`tables.settings`: limits, rate limit, auth) the servicer only
    reports (GetServerInfo); it paces its streams' heartbeats (`settings.heartbeat_s`).
    """

    def __init__(self, tables: Tables, *, accounts: AccountStore | None = None) -> None:
        settings = tables.settings
        self.tables = tables
        self.feed = Feed(tables.store)
        tables.listeners.append(self.feed.notify)
        self.notices = Notices(tables)  # account notices: published on news, WatchAccount
        self.stopping = asyncio.Event()  # set on shutdown: event feeds end (SERVER_STOPPING)
        self.heartbeat_s = settings.heartbeat_s
        self.limits = settings.limits
        self.rate_limit = settings.rate_limit
        self.auth = settings.auth
        self.advisor = Advisor()  # Analyze: bounded CPU, off the event loop
        self.bots = BotKeeper(tables, self.feed)  # built-in bots seated by CreateTable
        self.accounts = accounts or accounts_for(tables.store)  # who may be challenged
        self.records: LRU[tuple[str, int, str], service_pb2.GetRecordResponse] = LRU(
            RECORDS_KEPT, RECORD_BYTES
        )  # GetRecord's answers, by table and history

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

    LeaveTable = _by_table_id(
        "LeaveTable",
        "leave",
        _seq_of(service_pb2.LeaveTableResponse),
        "Leave (or forfeit).",
        seat_token,
    )
    CloseTable = _by_table_id(
        "CloseTable",
        "close",
        _seq_of(service_pb2.CloseTableResponse),
        "Close a table (admin).",
        admin_token,
    )

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

    GetTable = _by_table_id("GetTable", "session", convert.info, "One table's summary.")

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
            played = await self.tables.moves.play(
                request.table_id, token, request.move, request.client_move_id, request.last_seq
            )
        except StaleSequenceError:
            session = self.tables.cached(request.table_id)
            if session is not None:
                seat = self.tables.viewer(session, token)
                state = convert.table_state(session, seat).SerializeToString()
                context.set_trailing_metadata(((STATE_METADATA, state),))
            raise
        return convert.move_answer(played, with_state=request.with_state)

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
        session = await self.tables.session(request.table_id)
        seat = self.tables.viewer(session, token)
        await self.tables.check_view(session, seat)  # embargoed: no spectator
        if request.after_seq > session.seq:
            raise InvalidInputError(
                f"after_seq {request.after_seq} is ahead of the table (at {session.seq})",
                field="after_seq",
            )
        per_token = STATE_EVENTS_A_TOKEN if request.with_state else RECORD_EVENTS_A_TOKEN
        charge((session.seq - request.after_seq) / per_token)  # the catch-up, as it starts

        async def send(before: Session, after: Session, entry: Entry) -> None:
            event = convert.event(before, after, seat, entry=entry, with_state=request.with_state)
            await context.write(service_pb2.WatchEventsResponse(event=event))

        async def beat(time_ms: int, seq: int) -> None:
            heartbeat = events_pb2.Heartbeat(time_ms=time_ms, seq=seq)
            await context.write(service_pb2.WatchEventsResponse(heartbeat=heartbeat))

        await watch(
            self.tables,
            self.feed,
            session,
            seat,
            request.after_seq,
            send,
            beat,
            stopping=self.stopping,
            heartbeat_s=self.heartbeat_s,
            done=context.done,
        )

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
        """Result, record and events of a finished match (its events are replayed to build
        them: charged a token per `RECORD_EVENTS_A_TOKEN` events; the answer is kept, by its
        history, for the next call)."""
        session = await self.tables.record(request.table_id)
        key = (session.table_id, session.log.count, session.log.digest)  # this history
        answer = self.records.get(key)
        if answer is None:
            charge(session.seq / RECORD_EVENTS_A_TOKEN)
            answer = convert.record(session)
            self.records.store(key, answer, answer.ByteSize())
        return answer

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


__all__ = ["HEARTBEAT_S", "STATE_METADATA", "KafanaServiceServicer", "captures_field", "version"]
