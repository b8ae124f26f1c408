"""What the clock sweep's read costs with the sharded deadline index: one `due()` (a ZRANGE per
shard and one of the old unsharded key, in one round trip) beside one ZRANGE of a single key
holding the same deadlines, alternating, on a private redis-server (never a shared one).

    .venv/bin/python scripts/bench_deadline_sweep.py --tables 200 --rounds 5
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from kafana.store.keys import DEADLINE_SHARDS
from kafana.store.redis_server import redis_server
from kafana.store.redis_store import RedisStore

FUTURE = 10**13  # deadlines nobody reaches: the sweep finds nothing due, as on most ticks


async def measure(url: str, tables: int, rounds: int) -> tuple[float, float]:
    """Median seconds of one single-key ZRANGE and of one sharded `due()`."""
    store = RedisStore.from_url(url)
    single = "bench:single"
    try:
        for i in range(tables):
            await store.schedule(f"t{i}", FUTURE + i)
            await store.client.call(single, "ZADD", single, FUTURE + i, f"t{i}")
        one: list[float] = []
        sharded: list[float] = []
        for _ in range(rounds * 400):
            start = time.perf_counter()
            await store.client.call(
                single, "ZRANGE", single, "-inf", 1000, "BYSCORE", "LIMIT", 0, 100
            )
            one.append(time.perf_counter() - start)
            start = time.perf_counter()
            await store.due(1000, 100)
            sharded.append(time.perf_counter() - start)
        return statistics.median(one), statistics.median(sharded)
    finally:
        await store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with redis_server() as redis:
        one, sharded = asyncio.run(measure(redis.url, args.tables, args.rounds))
    print(
        f"{args.tables} clocked tables, {DEADLINE_SHARDS} shards, medians of {args.rounds * 400}:"
    )
    print(f"  one key:  {one * 1e6:.0f} us")
    print(f"  sharded:  {sharded * 1e6:.0f} us ({sharded / one:.2f}x)")


if __name__ == "__main__":
    main()
