"""Clocks: when a seat's time runs out, some live process applies the table's policy once."""

from __future__ import annotations

import asyncio
import itertools

from kafana.store.redis_store import RedisStore
from kafana.v1 import events_pb2, rules_pb2, service_pb2, state_pb2
from kafana_play import config, legal_moves, open_table, play_text, take_events
from kit import Service, running


async def wait_for_seq(svc: Service, table_id: str, seq: int, timeout: float = 10) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while asyncio.get_running_loop().time() < deadline:
        state = await svc.stub.GetState(service_pb2.GetStateRequest(table_id=table_id))
        if state.seq >= seq:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"table {table_id} did not reach seq {seq}")


async def test_default_move_on_timeout(any_service: Service) -> None:
    stub = any_service.stub
    table = await open_table(stub, config(seed=31, move_millis=300))
    state = await stub.GetState(service_pb2.GetStateRequest(table_id=table.table_id))
    assert state.current_seat == 0 and 0 < state.remaining_millis[0] <= 300
    moves = await legal_moves(stub, table.table_id, table.tokens[0])
    await wait_for_seq(any_service, table.table_id, table.seq + 2)
    first, second = await take_events(stub, table.table_id, table.seq, 2)
    assert (
        first.kind == events_pb2.EVENT_KIND_MOVE and first.reason == state_pb2.EVENT_REASON_TIMEOUT
    )
    assert first.seat == 0 and first.move.text == moves.moves[0].text  # the first legal move
    assert second.seat == 1 and second.reason == state_pb2.EVENT_REASON_TIMEOUT
    assert second.time_ms - first.time_ms >= 250


async def test_forfeit_on_timeout(any_service: Service) -> None:
    stub = any_service.stub
    cfg = config(seed=32, move_millis=300, policy=rules_pb2.TIMEOUT_POLICY_FORFEIT)
    table = await open_table(stub, cfg)
    await wait_for_seq(any_service, table.table_id, table.seq + 1)
    state = await stub.GetState(service_pb2.GetStateRequest(table_id=table.table_id))
    assert state.info.status == state_pb2.TABLE_STATUS_FINISHED
    assert state.result.reason == state_pb2.RESULT_REASON_FORFEIT
    assert state.result.forfeit_seat == 0
    assert state.result.forfeit_reason == state_pb2.EVENT_REASON_TIMEOUT
    assert state.result.winner_side == 1
    record = await stub.GetRecord(service_pb2.GetRecordRequest(table_id=table.table_id))
    assert record.events[-1].kind == events_pb2.EVENT_KIND_FORFEIT
    assert record.events[-1].reason == state_pb2.EVENT_REASON_TIMEOUT
    assert "# ended: forfeit by seat 0 (timeout)" in record.record


async def test_moving_in_time_resets_the_clock(service: Service) -> None:
    stub = service.stub
    table = await open_table(stub, config(seed=33, move_millis=1200))
    for seat in (0, 1, 0):
        await asyncio.sleep(0.5)  # most of the time, but the clock restarts with each move
        moves = await legal_moves(stub, table.table_id, table.tokens[seat])
        token = table.tokens[seat]
        played = await play_text(stub, table.table_id, token, moves.moves[-1].text, moves.seq)
        assert played.event.reason == state_pb2.EVENT_REASON_PLAYED


async def test_many_processes_apply_each_timeout_once(redis_url: str) -> None:
    stores = [RedisStore.from_url(redis_url) for _ in range(3)]
    try:
        many = {"abandon_after": 4}  # 6 timeouts in a row, not yet abandoned (2 seats x 4)
        async with (
            running(stores[0], **many) as one,
            running(stores[1], **many) as two,
            running(stores[2], **many),
        ):
            table = await open_table(one.stub, config(seed=34, move_millis=200))
            await wait_for_seq(two, table.table_id, table.seq + 6, timeout=15)
            await asyncio.sleep(0.3)
            record = await take_events(one.stub, table.table_id, table.seq, 6)
            times = [e.time_ms for e in record]
            assert [e.reason for e in record] == [state_pb2.EVENT_REASON_TIMEOUT] * 6
            assert all(b - a >= 150 for a, b in itertools.pairwise(times))
    finally:
        for store in stores:
            await store.close()
