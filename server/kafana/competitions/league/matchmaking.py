"""The matchmaking queue: players wait in Redis; a matchmaker pairs them and creates tables.

Two sorted sets hold the queue: join time (oldest first) and rating (neighbours in
O(log n)). Each tick takes the longest-waiting players; each one's acceptable rating gap
widens with its waiting time (`Window`); its nearest waiting neighbours on each side of its
rating are looked up (O(log n)), and two players are paired only when each is within the
other's window, nearest rating first. Claiming a pair is one Lua script (both
still waiting, or nothing happens), so several matchmakers may run at once.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from redis.asyncio import Redis

from kafana.competitions.fairness import commitment, new_seed
from kafana.competitions.league.keys import LeagueKeys
from kafana.competitions.lua import lua_text


@dataclass(frozen=True)
class Window:
    """The rating gap a player accepts after waiting: base + per_second * wait, up to max.

    >>> Window(base=1.0, per_second=0.5, max=4.0).gap(wait_ms=4000)
    3.0
    """

    base: float = 1.0
    per_second: float = 0.5
    max: float = 25.0

    def gap(self, wait_ms: float) -> float:
        """The acceptable rating difference after `wait_ms` in the queue."""
        return min(self.max, self.base + self.per_second * max(0.0, wait_ms) / 1000)


@dataclass(frozen=True)
class Pairing:
    """A match made by the queue: its number, players (seat order), table and commitment."""

    match: int
    players: tuple[str, str]
    table_id: str
    commitment: str


TableMaker = Callable[[int, tuple[str, str], int], Awaitable[str]]
"""(match number, players in seat order, seed) -> the id of a new table for them."""


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def now_ms() -> int:
    """Wall-clock milliseconds."""
    return int(time.time() * 1000)


class Matchmaker:
    """Join, leave and poll the queue; `tick` pairs waiting players and creates tables."""

    def __init__(
        self,
        redis: Redis,
        league: str,
        make_table: TableMaker,
        *,
        window: Window | None = None,
        batch: int = 200,
        neighbours: int = 16,
        clock: Callable[[], int] = now_ms,
    ) -> None:
        self.redis = redis
        self.keys = LeagueKeys(league)
        self.make_table = make_table
        self.window = window or Window()
        self.batch = batch
        self.neighbours = neighbours
        self.clock = clock
        self._claim = redis.register_script(lua_text("kafana.competitions.league", "claim"))

    async def join(self, player: str, rating: float) -> None:
        """Wait for a game (a player already waiting keeps their place)."""
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.zadd(self.keys.queue_since, {player: self.clock()}, nx=True)
            pipe.zadd(self.keys.queue_rating, {player: rating})
            pipe.hdel(self.keys.assigned, player)
            await pipe.execute()

    async def join_many(self, ratings: dict[str, float]) -> None:
        """Many players join at once (benchmarks, imports)."""
        now = self.clock()
        items = list(ratings.items())
        for start in range(0, len(items), 5000):
            chunk = dict(items[start : start + 5000])
            async with self.redis.pipeline(transaction=False) as pipe:
                pipe.zadd(self.keys.queue_since, dict.fromkeys(chunk, now), nx=True)
                pipe.zadd(self.keys.queue_rating, chunk)
                await pipe.execute()

    async def leave(self, player: str) -> bool:
        """Stop waiting; False if the player was not in the queue."""
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.zrem(self.keys.queue_since, player)
            pipe.zrem(self.keys.queue_rating, player)
            removed, _ = await pipe.execute()
        return bool(removed)

    async def waiting(self) -> int:
        """Players in the queue."""
        return int(await self.redis.zcard(self.keys.queue_since))

    async def assignment(self, player: str) -> str | None:
        """The table a player was paired onto ("pending:<n>" while it is being created)."""
        value = await self.redis.hget(self.keys.assigned, player)
        return None if value is None else _text(value).split(" ")[0]

    async def ticket(self, player: str) -> tuple[str, int] | None:
        """(table id, seat) once the player's table exists; None before."""
        value = await self.redis.hget(self.keys.assigned, player)
        if value is None or _text(value).startswith("pending:"):
            return None
        table_id, seat = _text(value).split(" ")
        return table_id, int(seat)

    async def match(self, number: int) -> dict[str, str]:
        """A match's public fields: players, table, commitment, created_ms."""
        raw: dict[Any, Any] = await self.redis.hgetall(self.keys.match(number))
        return {_text(k): _text(v) for k, v in raw.items()}

    async def reveal(self, number: int) -> int:
        """The seed of a match, for publishing once it is over."""
        value = await self.redis.hget(self.keys.seeds, str(number))
        if value is None:
            raise KeyError(f"no seed for match {number}")
        return int(value)

    async def tick(self) -> list[Pairing]:
        """Pair whoever can be paired among the longest-waiting players; create their tables."""
        now = self.clock()
        oldest: Any = await self.redis.zrange(
            self.keys.queue_since, 0, self.batch - 1, withscores=True
        )
        if len(oldest) < 2:
            return []
        since = {_text(p): float(s) for p, s in oldest}
        players = list(since)
        ratings: Any = await self.redis.zmscore(self.keys.queue_rating, players)
        rating = {p: float(r) for p, r in zip(players, ratings, strict=True) if r is not None}
        taken: set[str] = set()
        pairs: list[tuple[str, str]] = []
        half = max(1, self.neighbours // 2)
        async with self.redis.pipeline(transaction=False) as pipe:
            for p in players:  # the nearest ratings on each side, within p's window
                r = rating.get(p, 0.0)
                gap = self.window.gap(now - since[p])
                queue = self.keys.queue_rating
                pipe.zrangebyscore(queue, r, r + gap, start=0, num=half + 1, withscores=True)
                pipe.zrevrangebyscore(queue, r, r - gap, start=0, num=half + 1, withscores=True)
            sides: list[Any] = await pipe.execute()
        around = [sides[i] + sides[i + 1] for i in range(0, len(sides), 2)]
        unknown = {_text(q) for found in around for q, _ in found} - set(since)
        if unknown:
            extra: Any = await self.redis.zmscore(self.keys.queue_since, list(unknown))
            since.update(
                {q: float(s) for q, s in zip(unknown, extra, strict=True) if s is not None}
            )
        for p, found in zip(players, around, strict=True):
            if p in taken or p not in rating:
                continue
            best: tuple[float, float, str] | None = None
            for raw_q, raw_r in found:
                q = _text(raw_q)
                if q == p or q in taken or q not in since:
                    continue
                diff = abs(float(raw_r) - rating[p])
                if diff > self.window.gap(now - since[q]):
                    continue  # q would not accept p yet
                key = (diff, since[q], q)
                if best is None or key < best:
                    best = key
            if best is not None:
                taken.update((p, best[2]))
                pairs.append((p, best[2]))
        return await self._make(pairs, now)

    async def _make(self, pairs: list[tuple[str, str]], now: int) -> list[Pairing]:
        """Claim every pair (one pipeline of scripts), create the tables, publish the matches."""
        keys = self.keys
        claim_keys = [keys.queue_since, keys.queue_rating, keys.match_counter, keys.assigned]
        async with self.redis.pipeline(transaction=False) as pipe:
            for a, b in pairs:
                await self._claim(keys=claim_keys, args=[a, b, now], client=pipe)
            numbers: list[Any] = await pipe.execute()
        claimed = [(int(n), pair) for n, pair in zip(numbers, pairs, strict=True) if int(n)]
        # a pair claimed as 0 lost one player to another matchmaker: the other one waits on
        seeds = [new_seed() for _ in claimed]
        seated = [pair if n % 2 else (pair[1], pair[0]) for n, pair in claimed]  # alternate
        tables = await asyncio.gather(
            *(
                self.make_table(n, players, seed)
                for (n, _), players, seed in zip(claimed, seated, seeds, strict=True)
            )
        )
        made = []
        async with self.redis.pipeline(transaction=False) as pipe:
            for (n, _), players, seed, table_id in zip(claimed, seated, seeds, tables, strict=True):
                promise = commitment(seed)
                pipe.hset(keys.seeds, str(n), str(seed))
                pipe.hset(
                    keys.match(n),
                    mapping={
                        "players": " ".join(players),
                        "table": table_id,
                        "commitment": promise,
                        "created_ms": str(now),
                    },
                )
                tickets: dict[Any, Any] = {
                    p: f"{table_id} {seat}" for seat, p in enumerate(players)
                }
                pipe.hset(keys.assigned, mapping=tickets)
                made.append(Pairing(n, players, table_id, promise))
            await pipe.execute()
        return made


async def no_table(number: int, players: Sequence[str], seed: int) -> str:
    """A table maker that creates nothing (benchmarks of the queue alone)."""
    return f"match-{number}"
