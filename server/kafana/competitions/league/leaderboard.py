"""A league's seasons, ratings and leaderboard in Redis.

Ratings live in a hash per season; the leaderboard is a sorted set of the displayed rating
(mu - 3 sigma), so a player's rank (ZREVRANK) and a page (ZREVRANGE) cost O(log n), and a
league of 100,000 players answers in well under a millisecond of Redis time.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from redis.asyncio import Redis
from redis.exceptions import WatchError

from kafana.competitions.league.keys import LeagueKeys
from kafana.competitions.ratings import HistoryPoint, Rating, RatingPolicy, rate_teams


@dataclass(frozen=True)
class BoardRow:
    """One leaderboard row (rank counts from 1)."""

    rank: int
    player: str
    rating: float


def _decode(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _rating(raw: bytes | str | None) -> Rating:
    if raw is None:
        return Rating()
    data = json.loads(raw)
    return Rating(float(data["mu"]), float(data["sigma"]), int(data["games"]))


def _dump(rating: Rating) -> str:
    return json.dumps({"mu": rating.mu, "sigma": rating.sigma, "games": rating.games})


class Leaderboard:
    """Seasons, ratings, history and the ranked board of one league."""

    def __init__(self, redis: Redis, league: str, policy: RatingPolicy | None = None) -> None:
        self.redis = redis
        self.keys = LeagueKeys(league)
        self.policy = policy or RatingPolicy()

    async def season(self) -> int:
        """The current season (1 until a new one starts)."""
        value = await self.redis.get(self.keys.season)
        return int(value) if value is not None else 1

    async def new_season(self) -> int:
        """Start the next season: ratings and board begin afresh (old seasons are kept)."""
        current = await self.season()
        await self.redis.set(self.keys.season, current + 1)
        return current + 1

    async def rating(self, player: str, season: int | None = None) -> Rating:
        """A player's rating in a season (the current one by default)."""
        season = season or await self.season()
        return _rating(await self.redis.hget(self.keys.ratings(season), player))

    async def ratings(self, players: Sequence[str], season: int | None = None) -> list[Rating]:
        """Several ratings in one round trip."""
        season = season or await self.season()
        raw = await self.redis.hmget(self.keys.ratings(season), list(players))
        return [_rating(r) for r in raw]

    async def record(self, teams: Sequence[Sequence[str]], scores: Sequence[float]) -> None:
        """Rate one game (higher score is better) and update board and history atomically.

        Optimistic: the players' ratings are watched, so two reports at once never lose an
        update (the later one retries on the new ratings).
        """
        season = await self.season()
        key = self.keys.ratings(season)
        players = [p for team in teams for p in team]
        while True:
            async with self.redis.pipeline(transaction=True) as pipe:
                try:
                    await pipe.watch(key)
                    raw = await pipe.hmget(key, players)
                    number = int(await pipe.get(self.keys.games) or 0) + 1
                    olds = iter([_rating(r) for r in raw])
                    current = [[next(olds) for _ in team] for team in teams]
                    updated = rate_teams(current, scores)
                    pipe.multi()  # type: ignore[no-untyped-call]
                    pipe.incr(self.keys.games)
                    for team, new_team in zip(teams, updated, strict=True):
                        for player, rating in zip(team, new_team, strict=True):
                            pipe.hset(key, player, _dump(rating))
                            pipe.zadd(self.keys.board(season), {player: rating.conservative})
                            point = {"game": number, "mu": rating.mu, "sigma": rating.sigma}
                            pipe.rpush(self.keys.history(season, player), json.dumps(point))
                    await pipe.execute()
                    return
                except WatchError:
                    continue

    async def seed_ratings(self, ratings: dict[str, Rating], season: int | None = None) -> None:
        """Set many ratings at once (imports, benchmarks), board included."""
        season = season or await self.season()
        items = list(ratings.items())
        for start in range(0, len(items), 5000):
            chunk = items[start : start + 5000]
            async with self.redis.pipeline(transaction=False) as pipe:
                pipe.hset(self.keys.ratings(season), mapping={p: _dump(r) for p, r in chunk})
                pipe.zadd(self.keys.board(season), {p: r.conservative for p, r in chunk})
                await pipe.execute()

    async def rank(self, player: str, season: int | None = None) -> int | None:
        """The player's rank on the board (1 is best), None if unrated. O(log n)."""
        season = season or await self.season()
        rank: Any = await self.redis.zrevrank(self.keys.board(season), player)
        return None if rank is None else int(rank) + 1

    async def page(self, number: int, size: int = 50, season: int | None = None) -> list[BoardRow]:
        """Page `number` (from 1) of the board, best first. O(log n + size)."""
        season = season or await self.season()
        start = (number - 1) * size
        rows: Any = await self.redis.zrevrange(
            self.keys.board(season), start, start + size - 1, withscores=True
        )
        return [BoardRow(start + i + 1, _decode(p), float(s)) for i, (p, s) in enumerate(rows)]

    async def size(self, season: int | None = None) -> int:
        """Players on the board."""
        season = season or await self.season()
        return int(await self.redis.zcard(self.keys.board(season)))

    async def history(self, player: str, season: int | None = None) -> list[HistoryPoint]:
        """The player's rating after each of their rated games this season."""
        season = season or await self.season()
        raw = await self.redis.lrange(self.keys.history(season, player), 0, -1)
        return [HistoryPoint(**json.loads(item)) for item in raw]
