"""The event feed: resumed mid-match, across a server restart, without loss or repeats."""

from __future__ import annotations

import asyncio
import random

import grpc
from kafana.store.keys import live_channel
from kafana.store.redis_store import RedisStore
from kafana.v1 import events_pb2, service_pb2
from kafana.v1.service_pb2_grpc import KafanaServiceStub
from kafana_play import config, events, open_table, play_one, play_to_end
from kit import Service, info_metadata, reason_of, running, seat_md


async def collect(
    stub: KafanaServiceStub, table_id: str, after: int, count: int
) -> list[events_pb2.Event]:
    """Read `count` events after `after`, then hang up."""
    out: list[events_pb2.Event] = []
    call = stub.WatchEvents(service_pb2.WatchEventsRequest(table_id=table_id, after_seq=after))
    async for event in events(call):
        out.append(event)
        if len(out) == count:
            call.cancel()
            break
    return out


async def test_resume_mid_match_and_live_events(service: Service) -> None:
    stub = service.stub
    table = await open_table(stub, config(seed=21))
    rng = random.Random(21)
    for _ in range(10):
        await play_one(stub, table, rng)
    first = await collect(stub, table.table_id, 0, 5)
    resumed = await collect(stub, table.table_id, first[-1].seq, table.seq - 5)
    seqs = [e.seq for e in first + resumed]
    assert seqs == list(range(1, table.seq + 1))
    assert first[1].match_started and first[1].kind == events_pb2.EVENT_KIND_SEAT_TAKEN

    # A live watcher sees the rest of the match as it is played, then the stream ends.
    watched: list[events_pb2.Event] = []

    async def watch() -> None:
        request = service_pb2.WatchEventsRequest(table_id=table.table_id, after_seq=table.seq)
        async for event in events(stub.WatchEvents(request)):
            watched.append(event)

    watcher = asyncio.create_task(watch())
    await asyncio.sleep(0.2)
    start = table.seq
    await play_to_end(stub, table, rng)
    await asyncio.wait_for(watcher, 10)
    assert [e.seq for e in watched] == list(range(start + 1, table.seq + 1))
    assert watched[-1].match_over and not any(e.match_over for e in watched[:-1])


async def test_resume_across_server_restart(redis_url: str) -> None:
    store = RedisStore.from_url(redis_url)
    seen: list[events_pb2.Event] = []
    rng = random.Random(5)
    async with running(store) as first:
        table = await open_table(first.stub, config(seed=5))
        for _ in range(6):
            await play_one(first.stub, table, rng)
        seen += await collect(first.stub, table.table_id, 0, table.seq - 2)
    await store.close()
    store = RedisStore.from_url(redis_url)
    async with running(store) as second:
        for _ in range(4):
            await play_one(second.stub, table, rng)
        seen += await collect(second.stub, table.table_id, seen[-1].seq, table.seq - seen[-1].seq)
    await store.close()
    assert [e.seq for e in seen] == list(range(1, table.seq + 1))


async def test_watch_unknown_table_is_not_found(service: Service) -> None:
    call = service.stub.WatchEvents(service_pb2.WatchEventsRequest(table_id="nope"))
    try:
        async for _event in call:
            raise AssertionError("no events expected")
    except grpc.aio.AioRpcError as error:
        assert error.code() == grpc.StatusCode.NOT_FOUND
        assert reason_of(error) == "TABLE_NOT_FOUND"


async def test_many_watchers_share_one_reader(service: Service) -> None:
    stub = service.stub
    table = await open_table(stub, config(seed=22))
    start = table.seq
    got: list[list[events_pb2.Event]] = [[] for _ in range(40)]

    async def watch(out: list[events_pb2.Event]) -> None:
        request = service_pb2.WatchEventsRequest(table_id=table.table_id, after_seq=start)
        call = stub.WatchEvents(request)
        async for event in events(call):
            out.append(event)
            if len(out) == 2:
                call.cancel()
                return

    watchers = [asyncio.create_task(watch(out)) for out in got]
    assert isinstance(service.store, RedisStore)
    channel = live_channel(table.table_id)
    subscribers = 0
    for _ in range(50):  # until the watchers are all waiting (a busy machine may take a while)
        await asyncio.sleep(0.1)
        answer = await service.store.client.call(channel, "PUBSUB", "SHARDNUMSUB", channel)
        assert isinstance(answer, list)
        subscribers = int(answer[1])
        if subscribers and service.server.servicer.feed.watchers(table.table_id) == len(got):
            break
    assert subscribers == 1, f"{subscribers} subscriptions for 40 watchers of one table"
    rng = random.Random(22)
    await play_one(stub, table, rng)
    await play_one(stub, table, rng)
    await asyncio.wait_for(asyncio.gather(*watchers), 10)
    assert all([e.seq for e in out] == [start + 1, start + 2] for out in got)


async def test_idle_stream_gets_heartbeats_then_the_rest(redis_url: str) -> None:
    """An idle feed sends a Heartbeat every period (0.2 s here) with the table's seq; events
    still come the moment they happen, and the stream ends OK after the match-over event."""
    store = RedisStore.from_url(redis_url)
    async with running(store, heartbeat_s=0.2) as svc:
        info = await svc.stub.GetServerInfo(service_pb2.GetServerInfoRequest())
        assert info.limits.heartbeat_millis == 200
        table = await open_table(svc.stub, config(seed=23))
        request = service_pb2.WatchEventsRequest(table_id=table.table_id, after_seq=table.seq)
        call = svc.stub.WatchEvents(request)
        loop = asyncio.get_running_loop()
        started = loop.time()
        beats: list[events_pb2.Heartbeat] = []
        async for item in call:
            assert item.HasField("heartbeat"), item
            beats.append(item.heartbeat)
            if len(beats) == 3:
                break
        took = loop.time() - started
        assert 0.5 <= took < 3.0, f"3 heartbeats of 0.2 s took {took:.2f} s"
        assert all(b.seq == table.seq and b.time_ms > 0 for b in beats)
        rng = random.Random(23)
        await play_one(svc.stub, table, rng)
        async for item in call:
            if item.HasField("event"):
                assert item.event.seq == table.seq
                break
        await play_to_end(svc.stub, table, rng)
        rest = [item async for item in call]
        seqs = [item.event.seq for item in rest if item.HasField("event")]
        assert seqs[-1] == table.seq and rest[-1].event.match_over
        assert await call.code() == grpc.StatusCode.OK
    await store.close()


async def test_server_stop_ends_streams_unavailable_and_resume_sees_every_event(
    redis_url: str,
) -> None:
    """A server that stops mid-match ends its feeds with UNAVAILABLE, reason SERVER_STOPPING
    (never OK: the match is not over); the watcher resumes on the next server from the last
    seq it saw and gets every event exactly once, to the end."""
    store = RedisStore.from_url(redis_url)
    seen: list[events_pb2.Event] = []
    rng = random.Random(6)
    async with running(store) as first:
        table = await open_table(first.stub, config(seed=6))
        for _ in range(4):
            await play_one(first.stub, table, rng)
        call = first.stub.WatchEvents(service_pb2.WatchEventsRequest(table_id=table.table_id))
        async for event in events(call):
            seen.append(event)
            if event.seq == table.seq:
                break
        stopping = asyncio.create_task(first.server.stop(2.0))
        try:
            async for event in events(call):
                seen.append(event)
            raise AssertionError("the stream ended OK though the match is not over")
        except grpc.aio.AioRpcError as error:
            assert error.code() == grpc.StatusCode.UNAVAILABLE, error
            assert reason_of(error) == "SERVER_STOPPING"
            assert info_metadata(error) == {"after_seq": str(seen[-1].seq)}
            assert "after_seq" in (error.details() or "")
        await stopping
    await store.close()
    store = RedisStore.from_url(redis_url)
    async with running(store) as second:
        for _ in range(3):
            await play_one(second.stub, table, rng)
        request = service_pb2.WatchEventsRequest(table_id=table.table_id, after_seq=seen[-1].seq)
        watched: list[events_pb2.Event] = []

        async def watch() -> None:
            async for event in events(second.stub.WatchEvents(request)):
                watched.append(event)

        watcher = asyncio.create_task(watch())
        await play_to_end(second.stub, table, rng)
        await asyncio.wait_for(watcher, 10)  # ends OK: after the match-over event
        seen += watched
    await store.close()
    assert [e.seq for e in seen] == list(range(1, table.seq + 1))
    assert seen[-1].match_over


async def test_events_carry_the_table_only_with_state(service: Service) -> None:
    stub = service.stub
    table = await open_table(stub, config(seed=24))
    await play_one(stub, table, random.Random(24))
    plain = await collect(stub, table.table_id, 0, table.seq)
    assert not any(e.HasField("state") for e in plain)
    request = service_pb2.WatchEventsRequest(table_id=table.table_id, with_state=True)
    call = stub.WatchEvents(request, metadata=seat_md(table.tokens[1]))
    full: list[events_pb2.Event] = []
    async for event in events(call):
        full.append(event)
        if len(full) == table.seq:
            call.cancel()
            break
    assert [e.state.seq for e in full] == [e.seq for e in plain] == list(range(1, table.seq + 1))
    assert all(e.state.tablic.seat == 1 for e in full)  # as the seat of the token sees it
    assert list(full[-1].state.tablic.hand)
    assert full[-1].state.current_seat == full[-1].current_seat == plain[-1].current_seat
