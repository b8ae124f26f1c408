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

from kafana.competitions.fairness import commitment, new_seed
from kafana.competitions.league.keys import LeagueKeys
from kafana.competitions.league.replies import (
    Args,
    atomic,
    batch,
    fields,
    items,
    number,
    text,
    with_scores,
)
from kafana.store.client import RedisClient, Script

_CLAIM = Script.named("claim", "kafana.competitions.league")


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


def now_ms() -> int:
    """Wall-clock milliseconds."""
    return int(time.time() * 1000)


class Matchmaker:
    """Join, leave and poll the queue; `tick` pairs waiting players and creates tables."""

    def __init__(
        self,
        client: RedisClient,
        league: str,
        make_table: TableMaker,
        *,
        window: Window | None = None,
        batch: int = 200,
        neighbours: int = 16,
        clock: Callable[[], int] = now_ms,
    ) -> None:
        self.client = client
        self.keys = LeagueKeys(league)
        self.make_table = make_table
        self.window = window or Window()
        self.batch = batch
        self.neighbours = neighbours
        self.clock = clock

    async def join(self, player: str, rating: float) -> None:
        """Wait for a game (a player already waiting keeps their place)."""
        keys = self.keys
        await atomic(
            self.client,
            keys.tag,
            [
                ("ZADD", keys.queue_since, "NX", self.clock(), player),
                ("ZADD", keys.queue_rating, number(rating), player),
                ("HDEL", keys.assigned, player),
            ],
        )

    async def join_many(self, ratings: dict[str, float]) -> None:
        """Many players join at once (benchmarks, imports)."""
        now = self.clock()
        listed = list(ratings.items())
        for start in range(0, len(listed), 5000):
            chunk = listed[start : start + 5000]
            since = [part for p, _ in chunk for part in (str(now), p)]
            scored = [part for p, r in chunk for part in (number(r), p)]
            await batch(
                self.client,
                self.keys.tag,
                [
                    ("ZADD", self.keys.queue_since, "NX", *since),
                    ("ZADD", self.keys.queue_rating, *scored),
                ],
            )

    async def leave(self, player: str) -> bool:
        """Stop waiting; False if the player was not in the queue."""
        removed, _ = await atomic(
            self.client,
            self.keys.tag,
            [("ZREM", self.keys.queue_since, player), ("ZREM", self.keys.queue_rating, player)],
        )
        return bool(removed)

    async def waiting(self) -> int:
        """Players in the queue."""
        key = self.keys.queue_since
        return int(text(await self.client.call(key, "ZCARD", key)))

    async def assignment(self, player: str) -> str | None:
        """The table a player was paired onto ("pending:<n>" while it is being created)."""
        value = await self._assigned(player)
        return None if value is None else value.split(" ")[0]

    async def ticket(self, player: str) -> tuple[str, int] | None:
        """(table id, seat) once the player's table exists; None before."""
        value = await self._assigned(player)
        if value is None or value.startswith("pending:"):
            return None
        table_id, seat = value.split(" ")
        return table_id, int(seat)

    async def _assigned(self, player: str) -> str | None:
        key = self.keys.assigned
        value = await self.client.call(key, "HGET", key, player)
        return None if value is None else text(value)

    async def match(self, number: int) -> dict[str, str]:
        """A match's public fields: players, table, commitment, created_ms."""
        key = self.keys.match(number)
        return fields(await self.client.call(key, "HGETALL", key))

    async def reveal(self, number: int) -> int:
        """The seed of a match, for publishing once it is over."""
        key = self.keys.seeds
        value = await self.client.call(key, "HGET", key, number)
        if value is None:
            raise KeyError(f"no seed for match {number}")
        return int(text(value))

    async def tick(self) -> list[Pairing]:
        """Pair whoever can be paired among the longest-waiting players; create their tables."""
        now = self.clock()
        keys = self.keys
        oldest = with_scores(
            await self.client.call(
                keys.queue_since, "ZRANGE", keys.queue_since, 0, self.batch - 1, "WITHSCORES"
            )
        )
        if len(oldest) < 2:
            return []
        since = dict(oldest)
        players = list(since)
        ratings = items(await self.client.call(keys.tag, "ZMSCORE", keys.queue_rating, *players))
        rating = {p: float(text(r)) for p, r in zip(players, ratings, strict=True) if r is not None}
        taken: set[str] = set()
        pairs: list[tuple[str, str]] = []
        half = max(1, self.neighbours // 2)
        queue = keys.queue_rating
        looks: list[Args] = []
        for p in players:  # the nearest ratings on each side, within p's window
            r = rating.get(p, 0.0)
            gap = self.window.gap(now - since[p])
            low, mid, high = number(r - gap), number(r), number(r + gap)
            limit = ("WITHSCORES", "LIMIT", 0, half + 1)
            looks.append(("ZRANGEBYSCORE", queue, mid, high, *limit))
            looks.append(("ZREVRANGEBYSCORE", queue, mid, low, *limit))
        sides = [with_scores(side) for side in await batch(self.client, keys.tag, looks)]
        around = [sides[i] + sides[i + 1] for i in range(0, len(sides), 2)]
        unknown = list({q for found in around for q, _ in found} - set(since))
        if unknown:
            extra = items(await self.client.call(keys.tag, "ZMSCORE", keys.queue_since, *unknown))
            since.update(
                {q: float(text(s)) for q, s in zip(unknown, extra, strict=True) if s is not None}
            )
        for p, found in zip(players, around, strict=True):
            if p in taken or p not in rating:
                continue
            best: tuple[float, float, str] | None = None
            for q, r in found:
                if q == p or q in taken or q not in since:
                    continue
                diff = abs(r - rating[p])
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
        if not pairs:
            return []
        claims = [[a.encode(), b.encode(), b"%d" % now] for a, b in pairs]
        also = [(keys.tag, _CLAIM.command([k.encode() for k in claim_keys], c)) for c in claims]
        numbers = await self.client.run(_CLAIM, claim_keys, claims[0], *also[1:])
        claimed = [(int(text(n)), pair) for n, pair in zip(numbers, pairs, strict=True)]
        claimed = [(n, pair) for n, pair in claimed if n]
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
        writes: list[Args] = []
        for (n, _), players, seed, table_id in zip(claimed, seated, seeds, tables, strict=True):
            promise = commitment(seed)
            writes.append(("HSET", keys.seeds, n, seed))
            match = {"players": " ".join(players), "table": table_id, "commitment": promise}
            match["created_ms"] = str(now)
            writes.append(("HSET", keys.match(n), *(part for kv in match.items() for part in kv)))
            tickets = [part for seat, p in enumerate(players) for part in (p, f"{table_id} {seat}")]
            writes.append(("HSET", keys.assigned, *tickets))
            made.append(Pairing(n, players, table_id, promise))
        if writes:
            await batch(self.client, keys.tag, writes)
        return made


async def no_table(number: int, players: Sequence[str], seed: int) -> str:
    """A table maker that creates nothing (benchmarks of the queue alone)."""
    return f"match-{number}"
