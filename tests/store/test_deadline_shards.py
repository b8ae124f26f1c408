"""The clock's deadline index is sharded: on a real 3-primary Redis Cluster every primary takes
a share of the deadline writes, the sweep reads every shard and finds what is due earliest first,
and a claim still wins once; entries of the unsharded index of older releases are moved over."""

from __future__ import annotations

import asyncio
from pathlib import Path

from kafana.store.base import Append
from kafana.store.keys import (
    DEADLINE_SHARDS,
    deadline_shard_keys,
    deadlines_index,
    legacy_deadlines_index,
)
from kafana.store.redis_store import RedisStore
from kit import redis_cli, redis_cluster

TTL = 60_000


def commands_per_node(ports: list[int]) -> dict[int, int]:
    """ZADDs each node has run (INFO commandstats)."""
    out = {}
    for port in ports:
        stats = redis_cli(port, "info", "commandstats")
        line = next((s for s in stats.splitlines() if s.startswith("cmdstat_zadd:")), "")
        out[port] = int(line.split("calls=")[1].split(",")[0]) if line else 0
    return out


async def test_deadline_writes_spread_over_every_primary(tmp_path: Path) -> None:
    with redis_cluster(tmp_path) as ports:
        store = RedisStore.from_url(f"redis+cluster://127.0.0.1:{ports[0]}")
        try:
            ids = [f"clock{i}" for i in range(60)]
            for i, table_id in enumerate(ids):
                assert await store.create(table_id, b"record", TTL, 1)
                await store.append(table_id, Append(b"m", TTL, deadline_ms=10_000 - i))
            shards = {deadlines_index(store.namespace, t) for t in ids}
            assert len(shards) > DEADLINE_SHARDS // 2  # 60 ids hash over most shards
            zadds = commands_per_node(ports)
            # The creation index is one key (one node); the deadline writes are on all three.
            assert all(count >= 5 for count in zadds.values()), zadds
            # The sweep sees every shard, earliest first, and no more than asked.
            assert await store.due(10_000 - 60, 100) == []
            assert await store.due(10_000 - 50, 100) == list(reversed(ids[50:]))
            assert await store.due(10_000, 3) == ["clock59", "clock58", "clock57"]
            claims = await asyncio.gather(*(store.claim("clock59", 10_000, 5000) for _ in range(4)))
            assert claims.count(True) == 1
            assert "clock59" not in await store.due(10_000, 100)
            await store.forget("clock58")
            assert await store.due(10_000 - 57, 100) == ["clock57"]
        finally:
            await store.close()


async def test_the_unsharded_index_of_older_releases_is_moved_into_the_shards(
    redis_url: str,
) -> None:
    store = RedisStore.from_url(redis_url)
    try:
        legacy = legacy_deadlines_index(store.namespace)
        await store.client.call(legacy, "ZADD", legacy, 500, "old1", 700, "old2", 90_000, "later")
        await store.schedule("new", 600)
        assert await store.due(1000, 10) == ["old1", "new", "old2"]
        # Moved: the due ones are in their shards now, the later one waits where it was.
        assert await store.client.call(legacy, "ZRANGE", legacy, 0, -1) == [b"later"]
        shard = deadlines_index(store.namespace, "old1")
        assert await store.client.call(shard, "ZSCORE", shard, "old1") == b"500"
        assert await store.claim("old1", 1000, 5000)
        assert await store.due(1000, 10) == ["new", "old2"]
        counts = [
            await store.client.call(key, "ZCARD", key) for key in deadline_shard_keys("kafana")
        ]
        assert sum(c for c in counts if isinstance(c, int)) == 3
    finally:
        await store.close()
