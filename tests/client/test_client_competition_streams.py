"""The SDK's competition streams against a scripted server: a league's tickets (`Leagues.tickets`)
and an entry's games (`Tournaments.watch_entry`) reopened after a drop, an end or UNAVAILABLE,
the reopening told, heartbeats handled, tokens in metadata, and a stream that keeps failing
given up.

As in test_client_stream.py, the server is a stand-in whose every answer the test chooses. It
also says (GetServerInfo) that the table service sends heartbeats every 100 ms: the competition
streams beat at their own pace, so a quiet one is not taken for a dead one.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

import grpc
import pytest
from kafana.v1 import competitions_pb2 as cpb
from kafana.v1 import (
    competitions_pb2_grpc,
    events_pb2,
    leagues_pb2_grpc,
    service_pb2,
    service_pb2_grpc,
)
from kafana.v1 import leagues_pb2 as lpb
from kafana_client import AsyncClient, Retry
from kafana_client.errors import PermissionDeniedRpcError, UnavailableError
from kafana_client.leagues import Leagues
from kafana_client.tournaments import Tournaments

Context = grpc.aio.ServicerContext[Any, Any]
Script = Callable[[Any, Context], AsyncIterator[Any]]
BEAT = events_pb2.Heartbeat(time_ms=1)


class _Info(service_pb2_grpc.KafanaServiceServicer):
    """The table service's GetServerInfo: heartbeats every 100 ms on its own streams."""

    async def GetServerInfo(self, request: Any, context: Context) -> service_pb2.ServerInfo:
        limits = service_pb2.ServerLimits(heartbeat_millis=100)
        return service_pb2.ServerInfo(api="kafana.v1", limits=limits)


class _Streams(
    leagues_pb2_grpc.LeaguesServiceServicer, competitions_pb2_grpc.CompetitionsServiceServicer
):
    """WatchTickets and WatchEntry from `scripts`, one per opening; records each opening."""

    def __init__(self, scripts: list[Script]) -> None:
        self.scripts = scripts
        self.openings: list[tuple[Any, dict[str, Any]]] = []

    async def _open(self, request: Any, context: Context) -> AsyncIterator[Any]:
        metadata = {key: value for key, value in context.invocation_metadata() or ()}
        self.openings.append((request, metadata))
        async for item in self.scripts[len(self.openings) - 1](request, context):
            yield item

    async def WatchTickets(self, request: Any, context: Context) -> AsyncIterator[Any]:
        async for item in self._open(request, context):
            yield item

    async def WatchEntry(self, request: Any, context: Context) -> AsyncIterator[Any]:
        async for item in self._open(request, context):
            yield item


async def _serve(scripts: list[Script]) -> tuple[grpc.aio.Server, str, _Streams]:
    streams = _Streams(scripts)  # type: ignore[abstract]
    server = grpc.aio.server()
    service_pb2_grpc.add_KafanaServiceServicer_to_server(_Info(), server)  # type: ignore[abstract]
    leagues_pb2_grpc.add_LeaguesServiceServicer_to_server(streams, server)
    competitions_pb2_grpc.add_CompetitionsServiceServicer_to_server(streams, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    return server, f"127.0.0.1:{port}", streams


def _ticket(match: int) -> lpb.TicketUpdate:
    return lpb.TicketUpdate(ticket=lpb.Ticket(league="spring", match=match))


def _game(game_id: str) -> cpb.EntryUpdate:
    return cpb.EntryUpdate(assignment=cpb.Assignment(game_id=game_id, table_id="t" + game_id))


RETRY = Retry(backoff=0.01, stream_attempts=3)


async def test_tickets_reopen_after_an_end_and_unavailable_and_tell_the_reopening() -> None:
    async def ends(request: Any, context: Context) -> AsyncIterator[Any]:
        yield _ticket(1)
        yield lpb.TicketUpdate(heartbeat=BEAT)

    async def quiet_then_stops(request: Any, context: Context) -> AsyncIterator[Any]:
        yield _ticket(2)
        await asyncio.sleep(0.5)  # quiet: five of the table service's heartbeat periods
        yield _ticket(3)
        await context.abort(grpc.StatusCode.UNAVAILABLE, "the server is stopping")

    async def lasts(request: Any, context: Context) -> AsyncIterator[Any]:
        yield _ticket(4)
        await asyncio.sleep(30)

    server, target, streams = await _serve([ends, quiet_then_stops, lasts])
    reopened: list[int] = []
    seen: list[str] = []
    try:
        async with AsyncClient.connect(target, retry=RETRY) as client:
            async for update in Leagues(client).tickets(
                "spring", lambda: reopened.append(len(seen))
            ):
                kind = update.WhichOneof("update")
                seen.append(f"ticket {update.ticket.match}" if kind == "ticket" else str(kind))
                if update.ticket.match == 4:
                    break
    finally:
        await server.stop(0)
    assert seen == ["ticket 1", "heartbeat", "ticket 2", "ticket 3", "ticket 4"]
    assert reopened == [2, 4]  # at the first message of each reopened stream
    assert [request.league for request, _ in streams.openings] == ["spring"] * 3


async def test_tickets_that_keep_ending_give_up() -> None:
    async def ends(request: Any, context: Context) -> AsyncIterator[Any]:
        return
        yield  # an async generator that ends at once

    server, target, streams = await _serve([ends] * 3)
    try:
        async with AsyncClient.connect(target, retry=RETRY) as client:
            with pytest.raises(UnavailableError):
                [u async for u in Leagues(client).tickets("spring")]
    finally:
        await server.stop(0)
    assert len(streams.openings) == 3


async def test_tickets_refused_are_raised_at_once() -> None:
    async def refused(request: Any, context: Context) -> AsyncIterator[Any]:
        await context.abort(grpc.StatusCode.PERMISSION_DENIED, "not yours")
        yield _ticket(1)  # never reached

    server, target, streams = await _serve([refused] * 3)
    try:
        async with AsyncClient.connect(target, retry=RETRY) as client:
            with pytest.raises(PermissionDeniedRpcError):
                [u async for u in Leagues(client).tickets("spring")]
    finally:
        await server.stop(0)
    assert len(streams.openings) == 1


async def test_an_entry_stream_skips_heartbeats_resumes_and_ends_with_the_event() -> None:
    async def stops(request: Any, context: Context) -> AsyncIterator[Any]:
        yield _game("g1")
        yield cpb.EntryUpdate(heartbeat=BEAT)
        await asyncio.sleep(0.5)  # quiet, and not taken for a dead stream
        yield _game("g2")
        await context.abort(grpc.StatusCode.UNAVAILABLE, "the server is stopping")

    async def over(request: Any, context: Context) -> AsyncIterator[Any]:
        yield _game("g2")  # told again after a reopening: keyed on game_id by the caller
        yield cpb.EntryUpdate(event_over=True)
        await asyncio.sleep(30)  # the client stops at event_over, not at the stream's end

    server, target, streams = await _serve([stops, over])
    try:
        async with AsyncClient.connect(target, retry=RETRY) as client:
            updates = [u async for u in Tournaments(client).watch_entry("e1", "entry-secret")]
    finally:
        await server.stop(0)
    assert [u.assignment.game_id for u in updates] == ["g1", "g2", "g2", ""]
    assert updates[-1].event_over
    assert [request.event_id for request, _ in streams.openings] == ["e1", "e1"]
    assert all(meta["kafana-entry-token"] == "entry-secret" for _, meta in streams.openings)


async def test_an_entry_stream_that_ends_early_is_not_reopened() -> None:
    async def ends(request: Any, context: Context) -> AsyncIterator[Any]:
        yield _game("g1")

    server, target, streams = await _serve([ends] * 3)
    try:
        async with AsyncClient.connect(target, retry=RETRY) as client:
            updates = [u async for u in Tournaments(client).watch_entry("e1", "t")]
    finally:
        await server.stop(0)
    assert [u.assignment.game_id for u in updates] == ["g1"]
    assert len(streams.openings) == 1


async def test_an_entry_stream_that_keeps_failing_gives_up() -> None:
    async def fails(request: Any, context: Context) -> AsyncIterator[Any]:
        await context.abort(grpc.StatusCode.UNAVAILABLE, "the server is stopping")
        yield _game("g1")  # never reached

    server, target, streams = await _serve([fails] * 3)
    try:
        async with AsyncClient.connect(target, retry=RETRY) as client:
            with pytest.raises(UnavailableError):
                [u async for u in Tournaments(client).watch_entry("e1", "t")]
    finally:
        await server.stop(0)
    assert len(streams.openings) == 3


async def test_a_reset_entry_stream_is_resumed_as_the_table_feed_is() -> None:
    async def reset(request: Any, context: Context) -> AsyncIterator[Any]:
        yield _game("g1")
        await context.abort(grpc.StatusCode.INTERNAL, "stream reset")  # no ErrorInfo: a drop

    async def over(request: Any, context: Context) -> AsyncIterator[Any]:
        yield cpb.EntryUpdate(event_over=True)

    server, target, streams = await _serve([reset, over])
    try:
        async with AsyncClient.connect(target, retry=RETRY) as client:
            updates = [u async for u in Tournaments(client).watch_entry("e1", "t")]
    finally:
        await server.stop(0)
    assert [u.assignment.game_id for u in updates] == ["g1", ""] and updates[-1].event_over
    assert len(streams.openings) == 2
