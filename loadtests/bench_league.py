"""Benchmark a league with 100,000 rated players: leaderboard ranks and pages, the queue.

Starts its own redis-server on a free loopback port (never the shared one), fills a league,
then measures from one client (the store's `RedisClient`, one pipelined connection):

* rank look-ups (ZREVRANK) and leaderboard pages (ZREVRANGE, 50 rows) at random depths;
* rated-game updates (a checked script: two ratings, board, history);
* queue joins, and matchmaking throughput (pairs made per second, no tables created).

    .venv/bin/python loadtests/bench_league.py --players 100000
"""

from __future__ import annotations

import argparse
import asyncio
import random
import shutil
import signal
import statistics
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parents[1] / d) for d in ("server", "bots", "clients")]

from kafana.competitions.league.leaderboard import Leaderboard  # noqa: E402
from kafana.competitions.league.matchmaking import Matchmaker, Window, no_table  # noqa: E402
from kafana.competitions.ratings import Rating  # noqa: E402
from kafana.store.client import RedisClient  # noqa: E402
from kafana.store.redis_server import redis_server  # noqa: E402


@contextmanager
def private_redis() -> Iterator[int]:
    """Our own redis-server on a free port, no persistence; yields the port."""
    if shutil.which("redis-server") is None:
        raise SystemExit("redis-server is not on the PATH")
    with redis_server() as redis:
        yield redis.port


async def timed(label: str, count: int, call: Callable[[int], Awaitable[object]]) -> None:
    """Run `call(i)` `count` times one after another; print p50/p99 and the rate."""
    times = []
    start = time.perf_counter()
    for i in range(count):
        t0 = time.perf_counter()
        await call(i)
        times.append(time.perf_counter() - t0)
    total = time.perf_counter() - start
    times.sort()
    p50 = 1000 * statistics.median(times)
    p99 = 1000 * times[min(len(times) - 1, int(0.99 * len(times)))]
    print(f"{label:<38} {count:>7}  p50 {p50:7.3f} ms  p99 {p99:7.3f} ms  {count / total:9.0f}/s")


async def bench(port: int, players: int, seed: int) -> None:
    rng = random.Random(seed)
    redis = RedisClient.from_url(f"redis://127.0.0.1:{port}/0")
    names = [f"player{i:06}" for i in range(players)]
    ratings = {
        n: Rating(rng.gauss(25, 5), rng.uniform(1.0, 8.3), rng.randint(0, 200)) for n in names
    }
    board = Leaderboard(redis, "bench")

    t0 = time.perf_counter()
    await board.seed_ratings(ratings)
    filled = time.perf_counter() - t0
    print(f"{'fill board (pipelined, 5000 a batch)':<38} {players:>7}  {filled:.2f} s")
    assert await board.size() == players

    season = await board.season()  # a server keeps the season number; one round trip a call
    await timed("rank look-up (ZREVRANK)", 5000, lambda i: board.rank(rng.choice(names), season))
    pages = max(1, players // 50)
    await timed(
        "page of 50 (random depth)",
        2000,
        lambda i: board.page(rng.randint(1, pages), 50, season),
    )
    await timed("page of 50 (first page)", 500, lambda i: board.page(1, 50, season))
    await timed("page of 50 (last page)", 500, lambda i: board.page(pages, 50, season))
    await timed(
        "rated game (checked script, 2 players)",
        1000,
        lambda i: board.record([[rng.choice(names)], [rng.choice(names)]], [1, 0]),
    )

    clock_ms = [1_000_000]
    queue = Matchmaker(
        redis, "bench", no_table, window=Window(0.5, 0.5, 25.0), clock=lambda: clock_ms[0]
    )
    await timed(
        "queue join (one player)", 5000, lambda i: queue.join(names[i], ratings[names[i]].mu)
    )
    for name in names[:5000]:
        await queue.leave(name)
    t0 = time.perf_counter()
    await queue.join_many({n: r.mu for n, r in ratings.items()})
    print(f"{'queue fill (pipelined)':<38} {players:>7}  {time.perf_counter() - t0:.2f} s")
    made = 0
    ticks = 0
    tick_times: list[float] = []
    t0 = time.perf_counter()
    while await queue.waiting() >= 2 and ticks < 5000:
        clock_ms[0] += 1000  # one second between ticks: windows widen as in a live league
        t1 = time.perf_counter()
        made += len(await queue.tick())
        tick_times.append(time.perf_counter() - t1)
        ticks += 1
        if ticks == 20:
            steady = time.perf_counter() - t0
            print(
                f"{'matchmaking, full queue (20 ticks)':<38} {players:>7}  {made} pairs in"
                f" {steady:.2f} s = {made / steady:.0f} pairs/s, tick p50"
                f" {1000 * statistics.median(tick_times):.0f} ms"
            )
    elapsed = time.perf_counter() - t0
    left = await queue.waiting()
    print(
        f"{'matchmaking, until the queue is empty':<38} {players:>7}  {made} pairs in"
        f" {elapsed:.1f} s = {made / elapsed:.0f} pairs/s, {ticks} ticks, {left} left waiting"
    )
    await redis.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # stop our redis-server on SIGTERM
    with private_redis() as port:
        print(f"redis-server on 127.0.0.1:{port}; {args.players} players")
        asyncio.run(bench(port, args.players, args.seed))


if __name__ == "__main__":
    main()
