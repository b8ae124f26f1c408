"""`kafana serve` as real processes: SIGKILL mid-match, SIGTERM, the embedded default store."""

from __future__ import annotations

import asyncio
import random
import signal
from pathlib import Path

import grpc
from kafana.games import tablic
from kafana.v1 import service_pb2, state_pb2
from kafana.v1.service_pb2_grpc import KafanaServiceStub
from kafana_play import Table, config, open_table, play_one, play_to_end, take_events
from kit import healthy, serving


async def test_sigkill_mid_match_then_finish_on_another_process(
    redis_url: str, tmp_path: Path
) -> None:
    rng = random.Random(41)
    with (
        serving(tmp_path, "--redis", redis_url, "--auth", "open") as (first,),
        serving(tmp_path, env={"KAFANA_REDIS": redis_url, "KAFANA_AUTH": "open"}) as (second,),
    ):
        await asyncio.gather(healthy(first.target), healthy(second.target))
        async with (
            grpc.aio.insecure_channel(first.target) as channel_a,
            grpc.aio.insecure_channel(second.target) as channel_b,
        ):
            stub_a, stub_b = KafanaServiceStub(channel_a), KafanaServiceStub(channel_b)
            table: Table = await open_table(stub_a, config(seed=41))
            for i in range(40):  # both processes serve the same table at once
                await play_one(stub_a if i % 2 else stub_b, table, rng)
            first.stop(signal.SIGKILL)
            state = await stub_b.GetState(service_pb2.GetStateRequest(table_id=table.table_id))
            assert state.seq == table.seq and state.tablic.move_count == 40
            await play_to_end(stub_b, table, rng)
            record = await stub_b.GetRecord(service_pb2.GetRecordRequest(table_id=table.table_id))
            events = await take_events(stub_b, table.table_id, 0, table.seq)
        second.stop(signal.SIGTERM)
        out = second.output()
        assert second.process.returncode == 0, out
        assert "shutting down" in out
    assert [e.seq for e in events] == list(range(1, table.seq + 1))
    assert tablic.MatchRecord.from_text(record.record).replay().is_over
    assert record.result.reason == state_pb2.RESULT_REASON_SCORE


async def test_embedded_default_store_is_announced(tmp_path: Path) -> None:
    with serving(tmp_path) as (served,):
        await healthy(served.target)
        async with grpc.aio.insecure_channel(served.target) as channel:
            stub = KafanaServiceStub(channel)
            table = await open_table(stub, config(seed=42))
            await play_to_end(stub, table, random.Random(42))
        served.stop(signal.SIGTERM)
    assert served.process.returncode == 0
    assert "store: private redis-server on 127.0.0.1:" in served.output()
    with serving(tmp_path, "--memory") as (served,):
        await healthy(served.target)
        served.stop(signal.SIGTERM)
    assert served.process.returncode == 0  # --memory: a private redis-server all the same
    assert "store: private redis-server on 127.0.0.1:" in served.output()
    assert "(--memory; one process only" in served.output()
