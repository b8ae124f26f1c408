"""One whole match on a real 3-master Redis Cluster: outgrowing one Redis needs no rewrite."""

from __future__ import annotations

import asyncio
import random
import time
from pathlib import Path

from kafana.games import tablic
from kafana.store.base import Append
from kafana.store.redis_store import RedisStore
from kafana.v1 import service_pb2
from kafana_play import config, open_table, play_one, play_to_end, take_events
from kit import redis_cluster, running


async def test_whole_match_on_a_redis_cluster(tmp_path: Path) -> None:
    with redis_cluster(tmp_path) as ports:
        url = f"redis+cluster://127.0.0.1:{ports[0]}"
        stores = [RedisStore.from_url(url), RedisStore.from_url(url)]
        assert "Redis Cluster" in stores[0].describe()
        try:
            async with running(stores[0]) as one, running(stores[1]) as two:
                rng = random.Random(51)
                tables = [await open_table(one.stub, config(seed=51 + i)) for i in range(3)]
                for table in tables[1:]:
                    for _ in range(5):
                        await play_one(two.stub, table, rng)
                table = tables[0]
                for _ in range(30):
                    await play_one(one.stub, table, rng)
                await play_to_end(two.stub, table, rng)  # the other server finishes it
                record = await one.stub.GetRecord(
                    service_pb2.GetRecordRequest(table_id=table.table_id)
                )
                events = await take_events(one.stub, table.table_id, 0, table.seq)
                listed = await two.stub.ListTables(service_pb2.ListTablesRequest())
        finally:
            for store in stores:
                await store.close()
    assert tablic.MatchRecord.from_text(record.record).replay().is_over
    assert [e.seq for e in events] == list(range(1, table.seq + 1))
    assert {t.table_id for t in listed.tables} == {t.table_id for t in tables}


async def test_live_notification_crosses_processes_on_a_cluster(tmp_path: Path) -> None:
    """An append on one process wakes a waiter on another by SPUBLISH on the table's shard."""
    with redis_cluster(tmp_path) as ports:
        url = f"redis+cluster://127.0.0.1:{ports[0]}"
        waiter_store, writer_store = RedisStore.from_url(url), RedisStore.from_url(url)
        try:
            woken = []
            for i in range(6):  # tables spread over the three shards
                table_id = f"live{i}"
                assert await writer_store.create(table_id, b"r", 60_000, i)
                waiting = asyncio.create_task(waiter_store.wait(table_id, 0, 20_000))
                await asyncio.sleep(0.3)  # subscribed by now
                assert not waiting.done()
                started = time.monotonic()
                await writer_store.append(table_id, Append(b"x", 60_000))
                assert await asyncio.wait_for(waiting, 10) == 1
                woken.append(time.monotonic() - started)
        finally:
            for store in (waiter_store, writer_store):
                await store.close()
    # Woken by the message, not by the 20-second re-check.
    assert max(woken) < 3, woken
