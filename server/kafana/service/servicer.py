"""The RPCs: request proto -> table logic -> response proto. Nothing else happens here."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc  # type: ignore[import-untyped, unused-ignore]

from kafana.errors import InvalidInputError, NotFoundError, StaleSequenceError
from kafana.service import convert
from kafana.service.auth import caller_of
from kafana.service.errors import unary
from kafana.service.feed import Feed
from kafana.service.games import captures
from kafana.service.session import Session
from kafana.service.tables import Tables
from kafana.store.base import FINISHED
from kafana.v1 import service_pb2, service_pb2_grpc, state_pb2

Context = grpc.aio.ServicerContext[Any, Any]
STATE_METADATA = "kafana-state-bin"
WATCH_POLL_S = 1.0
STATUS_NAMES = {v: k for k, v in convert.STATUS.items()}


class KafanaServiceServicer(service_pb2_grpc.KafanaServiceServicer):  # type: ignore[misc, unused-ignore]
    """The Kafana service over one `Tables`."""

    def __init__(self, tables: Tables) -> None:
        self.tables = tables
        self.feed = Feed(tables.store)
        tables.listeners.append(self.feed.notify)
        self.stopping = asyncio.Event()  # set on shutdown: event feeds end

    @unary
    async def CreateTable(
        self, request: service_pb2.CreateTableRequest, context: Context
    ) -> service_pb2.CreateTableResponse:
        """Create a table."""
        creator = caller_of(context).account or ""
        table_id, admin_token, session = await self.tables.create(
            request.config, creator, owner=caller_of(context).key
        )
        return service_pb2.CreateTableResponse(
            table_id=table_id, admin_token=admin_token, info=convert.info(session)
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
        session = await self.tables.leave(request.table_id, request.seat_token)
        return service_pb2.LeaveTableResponse(seq=session.seq)

    @unary
    async def CloseTable(
        self, request: service_pb2.CloseTableRequest, context: Context
    ) -> service_pb2.CloseTableResponse:
        """Close a table (admin)."""
        session = await self.tables.close(request.table_id, request.admin_token)
        return service_pb2.CloseTableResponse(seq=session.seq)

    @unary
    async def ListTables(
        self, request: service_pb2.ListTablesRequest, context: Context
    ) -> service_pb2.ListTablesResponse:
        """Recent tables."""
        limit = min(request.limit or 50, 500)
        status = STATUS_NAMES.get(request.status, "")
        sessions = await self.tables.list(request.game, status, limit)
        return service_pb2.ListTablesResponse(tables=[convert.info(s) for s in sessions])

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
        session = await self.tables.session(request.table_id)
        seat = self.tables.viewer(session, request.seat_token)
        await self.tables.check_view(session, seat)  # embargoed: no spectator
        await self.tables.seen(session, seat)
        return convert.table_state(session, seat)

    @unary
    async def GetLegalMoves(
        self, request: service_pb2.GetLegalMovesRequest, context: Context
    ) -> service_pb2.GetLegalMovesResponse:
        """The legal moves of the seat (Tač: calls too, from any seat)."""
        session = await self.tables.session(request.table_id)
        seat = self.tables.seat_of(session, request.seat_token)
        await self.tables.seen(session, seat)
        moves = self.tables.legal(session, seat)
        return service_pb2.GetLegalMovesResponse(
            seq=session.seq, moves=convert.moves(session, moves)
        )

    @unary
    async def PlayMove(
        self, request: service_pb2.PlayMoveRequest, context: Context
    ) -> service_pb2.PlayMoveResponse:
        """Play a move: its event and scores, the mover's table only when asked for.

        Stale requests get the current state in trailing metadata.
        """
        try:
            played = await self.tables.play(
                request.table_id,
                request.seat_token,
                request.move,
                request.client_move_id,
                request.last_seq,
            )
        except StaleSequenceError:
            session = self.tables.cached(request.table_id)
            if session is not None:
                seat = self.tables.viewer(session, request.seat_token)
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
        convert.event(
            before, after, played.seat, with_state=False, stored=played.event, out=answer.event
        )
        if after.status == FINISHED:
            answer.result.CopyFrom(convert.result(after))
        if request.with_state:
            answer.state.CopyFrom(convert.table_state(session, played.seat))
        return answer

    @unary
    async def WatchEvents(  # type: ignore[override]  # streams with context.write
        self, request: service_pb2.WatchEventsRequest, context: Context
    ) -> None:
        """Every event after `after_seq`, then live ones, until the match is over.

        Written with `context.write` rather than as an async generator, so the stream never
        depends on the event loop finalising generators.
        """
        session = await self.tables.session(request.table_id)
        seat = self.tables.viewer(session, request.seat_token)
        await self.tables.check_view(session, seat)  # embargoed: no spectator
        if request.after_seq > session.seq:
            raise InvalidInputError(
                f"after_seq {request.after_seq} is ahead of the table (at {session.seq})"
            )
        replayed = Session.start(session.table_id, session.stored)
        delivered = request.after_seq
        quiet = 0
        while True:
            await self.tables.seen(session, seat)  # an open stream: its seat is present
            for entry in session.log[replayed.seq :]:
                after = replayed.apply(entry)
                if entry.seq > delivered:
                    await context.write(convert.event(replayed, after, seat))
                    delivered = entry.seq
                replayed = after
            if replayed.status == FINISHED or self.stopping.is_set() or context.done():
                # Checked each round: redis-py may swallow the cancellation of a gone client.
                return
            if await self.feed.wait(request.table_id, replayed.seq, WATCH_POLL_S):
                session = await self.tables.session(request.table_id)
            else:
                quiet += 1
                if (
                    quiet % 30 == 0
                    and await self.tables.store.load(request.table_id, 1 << 62) is None
                ):
                    raise NotFoundError(f"table {request.table_id} expired")

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
        return captures(request)


def _initial(session: Session) -> Session:
    return Session.start(session.table_id, session.stored)
