"""Abandonment: a match nobody plays ends, timeouts keep no table alive, open tables expire."""

from __future__ import annotations

import asyncio

import grpc
import pytest
from kafana.store.keys import table_keys
from kafana.store.redis_store import RedisStore
from kafana.v1 import events_pb2, service_pb2, state_pb2
from kafana_play import config, legal_moves, open_table, play_text, take_events
from kit import Service, finished, running


async def pttl(store: RedisStore, table_id: str) -> int:
    key = table_keys(table_id).state
    value = await store.client.call(key, "PTTL", key)
    assert isinstance(value, int)
    return value


async def test_a_match_nobody_plays_ends_as_abandoned(any_service: Service) -> None:
    stub = any_service.stub
    table = await open_table(stub, config(seed=51, move_millis=30))
    state = await finished(any_service, table.table_id)
    # Each of the 2 seats ran out of time twice in a row (the default): 3 default moves were
    # played, the 4th timeout ended the match instead.
    assert state.seq == table.seq + 4
    assert state.result.reason == state_pb2.RESULT_REASON_ABANDONED
    assert not state.result.HasField("winner_side") and "abandoned" in state.result.detail
    events = await take_events(stub, table.table_id, table.seq, 4)
    assert [e.reason for e in events[:3]] == [state_pb2.EVENT_REASON_TIMEOUT] * 3
    assert events[3].kind == events_pb2.EVENT_KIND_CLOSED
    assert events[3].reason == state_pb2.EVENT_REASON_ABANDONED
    assert events[3].match_over
    record = await stub.GetRecord(service_pb2.GetRecordRequest(table_id=table.table_id))
    assert "# ended: abandoned (timeouts)" in record.record
    assert record.result.reason == state_pb2.RESULT_REASON_ABANDONED


async def test_a_played_move_starts_the_count_again(service: Service) -> None:
    stub = service.stub
    table = await open_table(stub, config(seed=52, move_millis=400))
    # Seat 0 runs out of time, seat 1 plays, then nobody: the count starts after seat 1's move.
    await asyncio.sleep(0.55)
    moves = await legal_moves(stub, table.table_id, table.tokens[1])
    await play_text(stub, table.table_id, table.tokens[1], moves.moves[0].text, moves.seq)
    state = await finished(service, table.table_id)
    assert state.result.reason == state_pb2.RESULT_REASON_ABANDONED
    assert state.seq == table.seq + 2 + 4


async def test_timeouts_do_not_renew_the_time_to_live(redis_url: str) -> None:
    store = RedisStore.from_url(redis_url)
    try:
        options = {"idle_ttl_ms": 60_000, "finished_ttl_ms": 5_000, "abandon_after": 8}
        async with running(store, **options) as svc:
            table = await open_table(svc.stub, config(seed=53, move_millis=50))
            started = await pttl(store, table.table_id)
            assert 55_000 < started <= 60_000  # the match started: the idle time to live
            await asyncio.sleep(0.6)  # about 12 default moves, each one an append
            state = await svc.stub.GetState(service_pb2.GetStateRequest(table_id=table.table_id))
            assert state.seq >= table.seq + 5
            later = await pttl(store, table.table_id)
            assert later <= started - 500, (started, later)  # counted from the last real move
            for key in table_keys(table.table_id):  # every key of the table, the log too
                left = await store.client.call(key, "PTTL", key)
                assert isinstance(left, int) and 0 < left <= started
            state = await finished(svc, table.table_id)
            assert state.result.reason == state_pb2.RESULT_REASON_ABANDONED
            assert state.seq == table.seq + 16
            assert await pttl(store, table.table_id) <= 5_000  # over: the finished time to live
    finally:
        await store.close()


async def test_an_open_table_expires_at_its_join_deadline(redis_url: str) -> None:
    store = RedisStore.from_url(redis_url)
    try:
        async with running(store, join_deadline_ms=700, idle_ttl_ms=60_000) as svc:
            stub = svc.stub
            lonely = await stub.CreateTable(service_pb2.CreateTableRequest(config=config(seed=54)))
            await stub.JoinTable(  # one seat of two: still open, still the join deadline
                service_pb2.JoinTableRequest(table_id=lonely.table_id, seat=0, name="early")
            )
            full = await open_table(stub, config(seed=55))
            assert await pttl(store, lonely.table_id) <= 700
            assert await pttl(store, full.table_id) > 50_000  # the match started
            await asyncio.sleep(1.0)
            with pytest.raises(grpc.aio.AioRpcError) as missing:
                await stub.GetState(service_pb2.GetStateRequest(table_id=lonely.table_id))
            assert missing.value.code() == grpc.StatusCode.NOT_FOUND
            state = await stub.GetState(service_pb2.GetStateRequest(table_id=full.table_id))
            assert state.info.status == state_pb2.TABLE_STATUS_PLAYING
    finally:
        await store.close()
