"""The SDK against a scripted server: tokens in metadata, heartbeats skipped but kept as liveness,
a silent stream reopened, UNAVAILABLE resumed after the last event, ListTables paged through.

The server here is a stand-in whose every answer the test chooses, so each way a stream can go
wrong happens exactly when the test says.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

import grpc
import pytest
from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2  # type: ignore[import-untyped, unused-ignore]
from grpc_status import rpc_status  # type: ignore[import-untyped, unused-ignore]
from kafana.v1 import events_pb2, service_pb2, service_pb2_grpc, state_pb2
from kafana_client import AsyncClient, Retry
from kafana_client.errors import RpcError, UnavailableError

Context = grpc.aio.ServicerContext[Any, Any]
HEARTBEAT_MILLIS = 100


def _event(seq: int, *, over: bool = False) -> service_pb2.WatchEventsResponse:
    event = events_pb2.Event(seq=seq, kind=events_pb2.EVENT_KIND_MOVE, match_over=over)
    return service_pb2.WatchEventsResponse(event=event)


def _beat(seq: int) -> service_pb2.WatchEventsResponse:
    return service_pb2.WatchEventsResponse(heartbeat=events_pb2.Heartbeat(time_ms=1, seq=seq))


Script = Callable[[service_pb2.WatchEventsRequest, Context], AsyncIterator[Any]]


class Scripted(service_pb2_grpc.KafanaServiceServicer):
    """Streams from `scripts`, one per opening; records what each call carried."""

    def __init__(self, scripts: list[Script], *, info: bool = True) -> None:
        self.scripts = scripts
        self.info = info
        """Whether GetServerInfo answers (else UNIMPLEMENTED, as an older server)."""
        self.asked_info = 0
        self.openings: list[tuple[int, bool, dict[str, Any]]] = []
        self.calls: list[tuple[str, Any, dict[str, Any]]] = []

    async def GetServerInfo(self, request: Any, context: Context) -> service_pb2.ServerInfo:
        self.asked_info += 1
        if not self.info:
            await context.abort(grpc.StatusCode.UNIMPLEMENTED, "no GetServerInfo here")
        limits = service_pb2.ServerLimits(heartbeat_millis=HEARTBEAT_MILLIS)
        return service_pb2.ServerInfo(api="kafana.v1", limits=limits)

    async def WatchEvents(
        self, request: service_pb2.WatchEventsRequest, context: Context
    ) -> AsyncIterator[Any]:
        metadata = _metadata(context)
        self.openings.append((int(request.after_seq), request.with_state, metadata))
        script = self.scripts[len(self.openings) - 1]
        async for item in script(request, context):
            yield item

    async def GetState(self, request: Any, context: Context) -> state_pb2.TableState:
        self.calls.append(("GetState", request, _metadata(context)))
        return state_pb2.TableState(seq=3)

    async def PlayMove(self, request: Any, context: Context) -> service_pb2.PlayMoveResponse:
        self.calls.append(("PlayMove", request, _metadata(context)))
        return service_pb2.PlayMoveResponse(event=events_pb2.Event(seq=request.last_seq + 1))

    async def CloseTable(self, request: Any, context: Context) -> service_pb2.CloseTableResponse:
        self.calls.append(("CloseTable", request, _metadata(context)))
        return service_pb2.CloseTableResponse(seq=9)

    async def ListTables(
        self, request: service_pb2.ListTablesRequest, context: Context
    ) -> service_pb2.ListTablesResponse:
        self.calls.append(("ListTables", request, {}))
        start = int(request.page_token or 0)
        size = request.page_size or 2
        ids = [f"t{n}" for n in range(start, min(start + size, 5))]
        following = str(start + size) if start + size < 5 else ""
        tables = [state_pb2.TableInfo(table_id=i) for i in ids]
        return service_pb2.ListTablesResponse(tables=tables, next_page_token=following)


def _metadata(context: Context) -> dict[str, Any]:
    return {key: value for key, value in context.invocation_metadata() or ()}


def _scripted(scripts: list[Script], *, info: bool = True) -> Scripted:
    """A `Scripted` (the calls it does not script answer UNIMPLEMENTED, as generated)."""
    return Scripted(scripts, info=info)  # type: ignore[abstract]


async def _serve(servicer: Scripted) -> tuple[grpc.aio.Server, str]:
    server = grpc.aio.server()
    service_pb2_grpc.add_KafanaServiceServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    return server, f"127.0.0.1:{port}"


async def test_heartbeats_are_skipped_and_a_silent_stream_is_reopened() -> None:
    async def beats_then_silence(request: Any, context: Context) -> AsyncIterator[Any]:
        yield _event(1)
        for _ in range(5):  # heartbeats keep a stream alive well past 3 periods
            await asyncio.sleep(HEARTBEAT_MILLIS / 1000)
            yield _beat(1)
        yield _event(2)
        await asyncio.sleep(30)  # then nothing at all: a dead connection, as the client sees it

    async def the_end(request: Any, context: Context) -> AsyncIterator[Any]:
        yield _event(2)  # already seen: not told twice
        yield _event(3, over=True)
        await asyncio.sleep(30)  # the client stops at match_over, not at the stream's end

    servicer = _scripted([beats_then_silence, the_end])
    server, target = await _serve(servicer)
    try:
        async with AsyncClient.connect(target) as client:
            started = asyncio.get_running_loop().time()
            seqs = [e.seq async for e in client.events("t", seat_token="tok", with_state=True)]
            took = asyncio.get_running_loop().time() - started
    finally:
        await server.stop(0)
    assert seqs == [1, 2, 3]
    assert [(after, state) for after, state, _ in servicer.openings] == [(0, True), (2, True)]
    assert all(meta.get("kafana-seat-token") == "tok" for *_, meta in servicer.openings)
    assert 0.5 + 0.3 <= took < 10  # five beats, then about three silent periods


async def test_unavailable_is_resumed_after_the_last_event() -> None:
    async def stops(request: Any, context: Context) -> AsyncIterator[Any]:
        yield _event(request.after_seq + 1)
        await context.abort(grpc.StatusCode.UNAVAILABLE, "the server is stopping")

    async def ends(request: Any, context: Context) -> AsyncIterator[Any]:
        yield _event(request.after_seq + 1, over=True)

    servicer = _scripted([stops, stops, ends])
    server, target = await _serve(servicer)
    try:
        async with AsyncClient.connect(target, retry=Retry(backoff=0.01)) as client:
            seqs = [e.seq async for e in client.watch("t")]
    finally:
        await server.stop(0)
    assert seqs == [1, 2, 3]
    assert [after for after, *_ in servicer.openings] == [0, 1, 2]
    assert all("kafana-seat-token" not in meta for *_, meta in servicer.openings)


async def test_a_reset_is_resumed_but_a_server_bug_is_raised() -> None:
    async def reset(request: Any, context: Context) -> AsyncIterator[Any]:
        yield _event(1)
        await context.abort(grpc.StatusCode.INTERNAL, "stream reset")  # no ErrorInfo

    async def bug(request: Any, context: Context) -> AsyncIterator[Any]:
        info = error_details_pb2.ErrorInfo(reason="INTERNAL", domain="kafana")
        detail = any_pb2.Any()
        detail.Pack(info)
        status = status_pb2.Status(code=13, message="a bug", details=[detail])
        await context.abort_with_status(rpc_status.to_status(status))
        yield _event(2)  # never reached

    servicer = _scripted([reset, bug])
    server, target = await _serve(servicer)
    try:
        async with AsyncClient.connect(target, retry=Retry(backoff=0.01)) as client:
            seen: list[int] = []
            with pytest.raises(RpcError) as raised:
                async for event in client.watch("t"):
                    seen.append(event.seq)
    finally:
        await server.stop(0)
    assert seen == [1] and len(servicer.openings) == 2
    assert raised.value.code == grpc.StatusCode.INTERNAL and raised.value.reason == "INTERNAL"


async def test_without_server_info_a_quiet_stream_is_left_open() -> None:
    async def quiet(request: Any, context: Context) -> AsyncIterator[Any]:
        yield _event(request.after_seq + 1)
        await asyncio.sleep(0.5)  # quiet, no heartbeats: fine, nobody said there would be
        yield _event(request.after_seq + 2, over=request.after_seq > 0)
        await context.abort(grpc.StatusCode.UNAVAILABLE, "the server is stopping")

    servicer = _scripted([quiet, quiet], info=False)
    server, target = await _serve(servicer)
    try:
        async with AsyncClient.connect(target, retry=Retry(backoff=0.01)) as client:
            seqs = [e.seq async for e in client.watch("t")]
    finally:
        await server.stop(0)
    assert seqs == [1, 2, 3, 4] and len(servicer.openings) == 2
    assert servicer.asked_info == 1  # a server that cannot say is not asked again


async def _watch(client: AsyncClient, seen: asyncio.Event) -> None:
    async for _event in client.watch("t"):
        seen.set()


async def test_a_cancelled_watcher_stops_at_once_however_busy_its_stream() -> None:
    async def busy(request: Any, context: Context) -> AsyncIterator[Any]:
        for seq in range(1, 2001):
            yield _event(seq)
            await asyncio.sleep(0)  # a message ready at almost every read

    rounds = 20
    servicer = _scripted([busy] * rounds)
    server, target = await _serve(servicer)
    try:
        async with AsyncClient.connect(target) as client:
            for _ in range(rounds):
                first = asyncio.Event()
                task = asyncio.create_task(_watch(client, first))
                await first.wait()
                await asyncio.sleep(0.001)
                task.cancel()
                await asyncio.wait({task}, timeout=5)
                assert task.cancelled()  # not swallowed by a read that ended just then
    finally:
        await server.stop(0)
    assert len(servicer.openings) == rounds  # and never reopened after its cancellation


async def test_a_stream_that_keeps_failing_gives_up() -> None:
    async def fails(request: Any, context: Context) -> AsyncIterator[Any]:
        await context.abort(grpc.StatusCode.UNAVAILABLE, "the server is stopping")
        yield _event(1)  # never reached

    servicer = _scripted([fails] * 3)
    server, target = await _serve(servicer)
    try:
        retry = Retry(backoff=0.01, stream_attempts=3)
        async with AsyncClient.connect(target, retry=retry) as client:
            with pytest.raises(UnavailableError):
                [e async for e in client.watch("t")]
    finally:
        await server.stop(0)
    assert len(servicer.openings) == 3


async def test_a_stream_silent_at_every_opening_gives_up_after_stream_seconds() -> None:
    """A server that takes every opening and never says a word (stopped, or lost behind the
    network): each opening cost 3 heartbeats of silence, so `stream_attempts` (30) of them
    kept a watcher waiting 7.5 minutes at the default 5 s heartbeat."""

    async def silent(request: Any, context: Context) -> AsyncIterator[Any]:
        await asyncio.sleep(60)
        yield _event(1)  # never reached

    servicer = _scripted([silent] * 100)
    server, target = await _serve(servicer)
    try:
        retry = Retry(backoff=0.01, stream_attempts=100, stream_seconds=1.0)
        async with AsyncClient.connect(target, retry=retry) as client:
            started = asyncio.get_running_loop().time()
            with pytest.raises(UnavailableError):
                [e async for e in client.watch("t")]
            took = asyncio.get_running_loop().time() - started
    finally:
        await server.stop(0)
    silence = 3 * HEARTBEAT_MILLIS / 1000
    assert 1.0 <= took < 1.0 + silence + 2.0, took  # the second past 1 s, and no more
    assert len(servicer.openings) <= 1.0 / silence + 2


async def test_tokens_travel_in_metadata_never_in_bodies() -> None:
    servicer = _scripted([])
    server, target = await _serve(servicer)
    try:
        async with AsyncClient.connect(target) as client:
            await client.get_state("t", "seat-secret")
            await client.get_state("t")
            await client.play("t", "seat-secret", "7S", 3, client_move_id="m1")
            await client.close_table("t", "admin-secret")
    finally:
        await server.stop(0)
    (_, mine, with_token), (_, _, spectator), (_, move, mover), (_, _, admin) = servicer.calls
    assert with_token["kafana-seat-token"] == "seat-secret" and "kafana-seat-token" not in spectator
    assert mover["kafana-seat-token"] == "seat-secret"
    assert admin["kafana-admin-token"] == "admin-secret"
    assert move.move.text == "7S" and move.last_seq == 3 and move.client_move_id == "m1"
    assert "secret" not in str(mine) + str(move)  # no body carries a token


async def test_tables_pages_through_every_table() -> None:
    servicer = _scripted([])
    server, target = await _serve(servicer)
    try:
        async with AsyncClient.connect(target) as client:
            every = [t.table_id async for t in client.tables(page_size=2, game="tac")]
            first = await client.list_tables(limit=3)
    finally:
        await server.stop(0)
    assert every == ["t0", "t1", "t2", "t3", "t4"]
    assert [t.table_id for t in first] == ["t0", "t1", "t2"]
    pages = [request for name, request, _ in servicer.calls if name == "ListTables"]
    assert [p.page_token for p in pages[:3]] == ["", "2", "4"]
    assert pages[0].game == 2  # GAME_TAC
