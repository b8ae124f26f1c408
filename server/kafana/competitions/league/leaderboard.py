"""A league's seasons, ratings and leaderboard in Redis.

Ratings live in a hash per season; the leaderboard is a sorted set of the displayed rating
(mu - 3 sigma), so a player's rank (ZREVRANK) and a page (ZREVRANGE) cost O(log n), and a
league of 100,000 players answers in well under a millisecond of Redis time.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from kafana.competitions.league.keys import LeagueKeys
from kafana.competitions.league.replies import batch, items, number, text, with_scores
from kafana.competitions.ratings import HistoryPoint, Rating, RatingPolicy, rate_teams
from kafana.store.client import RedisClient, Script
from kafana.store.resp import Reply

_RATE = Script.named("rate", "kafana.competitions.league")


@dataclass(frozen=True)
class BoardRow:
    """One leaderboard row (rank counts from 1)."""

    rank: int
    player: str
    rating: float


def _rating(raw: Reply) -> Rating:
    if not isinstance(raw, bytes):
        return Rating()
    data = json.loads(raw)
    return Rating(float(data["mu"]), float(data["sigma"]), int(data["games"]))


def _dump(rating: Rating) -> str:
    return json.dumps({"mu": rating.mu, "sigma": rating.sigma, "games": rating.games})


class Leaderboard:
    """Seasons, ratings, history and the ranked board of one league."""

    def __init__(
        self, client: RedisClient, league: str, policy: RatingPolicy | None = None
    ) -> None:
        self.client = client
        self.keys = LeagueKeys(league)
        self.policy = policy or RatingPolicy()

    async def season(self) -> int:
        """The current season (1 until a new one starts)."""
        value = await self.client.call(self.keys.season, "GET", self.keys.season)
        return int(text(value)) if value is not None else 1

    async def new_season(self) -> int:
        """Start the next season: ratings and board begin afresh (old seasons are kept)."""
        current = await self.season()
        await self.client.call(self.keys.season, "SET", self.keys.season, current + 1)
        return current + 1

    async def rating(self, player: str, season: int | None = None) -> Rating:
        """A player's rating in a season (the current one by default)."""
        season = season or await self.season()
        key = self.keys.ratings(season)
        return _rating(await self.client.call(key, "HGET", key, player))

    async def ratings(self, players: Sequence[str], season: int | None = None) -> list[Rating]:
        """Several ratings in one round trip."""
        season = season or await self.season()
        key = self.keys.ratings(season)
        return [_rating(r) for r in items(await self.client.call(key, "HMGET", key, *players))]

    async def record(self, teams: Sequence[Sequence[str]], scores: Sequence[float]) -> None:
        """Rate one game (higher score is better) and update board and history atomically.

        Optimistic: the ratings read are checked again in the script that writes, so two
        reports at once never lose an update (the later one retries on the new ratings).
        """
        season = await self.season()
        key = self.keys.ratings(season)
        players = [p for team in teams for p in team]
        keys = [key, self.keys.games, self.keys.board(season)]
        keys += [self.keys.history(season, p) for p in players]
        while True:
            raw = items(await self.client.call(key, "HMGET", key, *players))
            olds = iter([_rating(r) for r in raw])
            current = [[next(olds) for _ in team] for team in teams]
            updated = [rating for team in rate_teams(current, scores) for rating in team]
            args: list[bytes] = []
            for player, old, rating in zip(players, raw, updated, strict=True):
                point = json.dumps({"mu": rating.mu, "sigma": rating.sigma})[1:]
                args += [player.encode(), old if isinstance(old, bytes) else b""]
                args += [_dump(rating).encode(), number(rating.conservative).encode()]
                args.append(point.encode())
            if (await self.client.run(_RATE, keys, args))[0]:
                return

    async def seed_ratings(self, ratings: dict[str, Rating], season: int | None = None) -> None:
        """Set many ratings at once (imports, benchmarks), board included."""
        season = season or await self.season()
        items = list(ratings.items())
        for start in range(0, len(items), 5000):
            chunk = items[start : start + 5000]
            hashed = [part for p, r in chunk for part in (p, _dump(r))]
            scored = [part for p, r in chunk for part in (number(r.conservative), p)]
            await batch(
                self.client,
                self.keys.tag,
                [
                    ("HSET", self.keys.ratings(season), *hashed),
                    ("ZADD", self.keys.board(season), *scored),
                ],
            )

    async def rank(self, player: str, season: int | None = None) -> int | None:
        """The player's rank on the board (1 is best), None if unrated. O(log n)."""
        season = season or await self.season()
        key = self.keys.board(season)
        rank = await self.client.call(key, "ZREVRANK", key, player)
        return None if rank is None else int(text(rank)) + 1

    async def page(self, number: int, size: int = 50, season: int | None = None) -> list[BoardRow]:
        """Page `number` (from 1) of the board, best first. O(log n + size)."""
        season = season or await self.season()
        start = (number - 1) * size
        key = self.keys.board(season)
        rows = await self.client.call(key, "ZREVRANGE", key, start, start + size - 1, "WITHSCORES")
        return [BoardRow(start + i + 1, p, s) for i, (p, s) in enumerate(with_scores(rows))]

    async def size(self, season: int | None = None) -> int:
        """Players on the board."""
        season = season or await self.season()
        key = self.keys.board(season)
        return int(text(await self.client.call(key, "ZCARD", key)))

    async def history(self, player: str, season: int | None = None) -> list[HistoryPoint]:
        """The player's rating after each of their rated games this season."""
        season = season or await self.season()
        key = self.keys.history(season, player)
        raw = await self.client.call(key, "LRANGE", key, 0, -1)
        return [HistoryPoint(**json.loads(text(item))) for item in items(raw)]
