"""Leagues in Redis, under each league's hash tag (`keys`): any server process on it serves them.

The steps that must happen once are Lua scripts (`lua/`): joining the queue, claiming players
for a match, claiming due matches, and settling a match with its ratings.
"""

from __future__ import annotations

from kafana.competitions.league.keys import LEAGUES, LeagueKeys
from kafana.competitions.league.replies import atomic, fields, items, text, with_scores
from kafana.competitions.league.replies import number as score
from kafana.competitions.league.store import (
    IDLE,
    PAIRED,
    WAITING,
    LeagueStore,
    Settlement,
    Waiting,
)
from kafana.store.client import RedisClient, Script

_PACKAGE = "kafana.competitions.league"
_JOIN = Script.named("join", _PACKAGE)
_CLAIM = Script.named("claim", _PACKAGE)
_DUE = Script.named("due", _PACKAGE)
_LEASE = Script.named("lease", _PACKAGE)
_SETTLE = Script.named("settle", _PACKAGE)


def _encode(values: list[str]) -> list[bytes]:
    return [v.encode() for v in values]


class RedisLeagues(LeagueStore):
    """Leagues in the table store's Redis (one Redis or a cluster)."""

    kind = "redis"

    def __init__(self, client: RedisClient) -> None:
        self.client = client

    async def create(self, league: str, fields: dict[str, str]) -> bool:
        keys = LeagueKeys(league)
        flat = [part for kv in fields.items() for part in kv]
        created = await self.client.call(keys.meta, "HSETNX", keys.meta, "created", "1")
        if not created:
            return False
        await atomic(
            self.client, keys.tag, [("HSET", keys.meta, *flat), ("SET", keys.season, 1, "NX")]
        )
        await self.client.call(LEAGUES, "SADD", LEAGUES, league)
        return True

    async def meta(self, league: str) -> dict[str, str]:
        keys = LeagueKeys(league)
        raw, season, made = await atomic(
            self.client,
            keys.tag,
            [("HGETALL", keys.meta), ("GET", keys.season), ("GET", keys.match_counter)],
        )
        found = fields(raw)
        if not found:
            return {}
        found["season"] = text(season) if season is not None else "1"
        found["made"] = text(made) if made is not None else "0"
        found.setdefault("settled", "0")
        return found

    async def leagues(self) -> list[str]:
        return sorted(
            text(name) for name in items(await self.client.call(LEAGUES, "SMEMBERS", LEAGUES))
        )

    async def new_season(self, league: str) -> int:
        keys = LeagueKeys(league)
        return int(text(await self.client.call(keys.season, "INCR", keys.season)))

    async def keep(self, league: str, season: int, retention_ms: int) -> None:
        keys = LeagueKeys(league)
        held = [keys.meta, keys.season, keys.match_counter, keys.games, keys.queue_since,
                keys.queue_rating, keys.active, keys.due, keys.ratings(season),
                keys.board(season), keys.recent]  # fmt: skip
        await atomic(self.client, keys.tag, [("PEXPIRE", key, retention_ms) for key in held])

    async def forget(self, league: str) -> None:
        await self.client.call(LEAGUES, "SREM", LEAGUES, league)

    async def join(self, league: str, player: str, mu: float, now: int) -> tuple[str, int]:
        keys = LeagueKeys(league)
        (reply,) = await self.client.run(
            _JOIN,
            [keys.active, keys.queue_since, keys.queue_rating],
            _encode([player, str(now), score(mu)]),
        )
        state, match = items(reply)
        return text(state), int(text(match))

    async def leave(self, league: str, player: str) -> bool:
        keys = LeagueKeys(league)
        removed, _ = await atomic(
            self.client,
            keys.tag,
            [("ZREM", keys.queue_since, player), ("ZREM", keys.queue_rating, player)],
        )
        return bool(removed)

    async def status(self, league: str, player: str) -> tuple[str, int]:
        keys = LeagueKeys(league)
        match, since = await atomic(
            self.client,
            keys.tag,
            [("HGET", keys.active, player), ("ZSCORE", keys.queue_since, player)],
        )
        if match is not None:
            return PAIRED, int(text(match))
        return (WAITING, 0) if since is not None else (IDLE, 0)

    async def waiting(self, league: str) -> int:
        key = LeagueKeys(league).queue_since
        return int(text(await self.client.call(key, "ZCARD", key)))

    async def oldest(self, league: str, limit: int) -> list[Waiting]:
        keys = LeagueKeys(league)
        since = with_scores(
            await self.client.call(
                keys.queue_since, "ZRANGE", keys.queue_since, 0, limit - 1, "WITHSCORES"
            )
        )
        if not since:
            return []
        players = [p for p, _ in since]
        mus = items(await self.client.call(keys.tag, "ZMSCORE", keys.queue_rating, *players))
        return [
            Waiting(p, int(s), float(text(m)))
            for (p, s), m in zip(since, mus, strict=True)
            if m is not None
        ]

    async def claim(self, league: str, players: list[str], fields: dict[str, str], due: int) -> int:
        keys = LeagueKeys(league)
        args = [str(due), keys.match(0)[:-1], str(len(players)), *players]
        args += [part for kv in fields.items() for part in kv]
        (found,) = await self.client.run(
            _CLAIM,
            [
                keys.queue_since,
                keys.queue_rating,
                keys.match_counter,
                keys.active,
                keys.due,
                keys.recent,
            ],
            _encode(args),
        )
        return int(text(found))

    async def last_opponents(
        self, league: str, players: list[str]
    ) -> dict[str, list[frozenset[str]]]:
        if not players:
            return {}
        keys = LeagueKeys(league)
        kept = items(await self.client.call(keys.recent, "HMGET", keys.recent, *players))
        return {
            p: [frozenset(group.split()) for group in text(v).split(";")[:-1]]
            for p, v in zip(players, kept, strict=True)
            if v is not None
        }

    async def pair_lease(self, league: str, owner: str, ttl_ms: int) -> bool:
        keys = LeagueKeys(league)
        (held,) = await self.client.run(_LEASE, [keys.lease], _encode([owner, str(ttl_ms)]))
        return bool(int(text(held)))

    async def match(self, league: str, number: int) -> dict[str, str]:
        key = LeagueKeys(league).match(number)
        return fields(await self.client.call(key, "HGETALL", key))

    async def set_fields(self, league: str, number: int, fields: dict[str, str]) -> None:
        key = LeagueKeys(league).match(number)
        await self.client.call(key, "HSET", key, *(part for kv in fields.items() for part in kv))

    async def set_once(self, league: str, number: int, name: str, value: str) -> str:
        key = LeagueKeys(league).match(number)
        _, now = await atomic(self.client, key, [("HSETNX", key, name, value), ("HGET", key, name)])
        return "" if now is None else text(now)

    async def due(self, league: str, now: int, limit: int, lease_ms: int) -> list[int]:
        key = LeagueKeys(league).due
        (found,) = await self.client.run(
            _DUE, [key], _encode([str(now), str(limit), str(lease_ms)])
        )
        return [int(text(n)) for n in items(found)]

    async def reschedule(self, league: str, number: int, at: int) -> None:
        key = LeagueKeys(league).due
        await self.client.call(key, "ZADD", key, "XX", at, number)

    async def settle(self, league: str, number: int, settlement: Settlement) -> str:
        keys = LeagueKeys(league)
        season = settlement.season
        names = [
            keys.match(number),
            keys.ratings(season),
            keys.board(season),
            keys.games,
            keys.due,
            keys.active,
            keys.meta,
        ]
        for player in settlement.players:
            names += [keys.history(season, player), keys.matches(season, player)]
        args = [str(number), str(settlement.retention_ms), str(len(settlement.fields))]
        args += [part for kv in settlement.fields.items() for part in kv]
        args.append(str(len(settlement.ratings)))
        for w in settlement.ratings:
            args += [w.player, w.read or "", w.rating, score(w.board), w.point]
        args += [str(len(settlement.players)), *settlement.players]
        (answer,) = await self.client.run(_SETTLE, names, _encode(args))
        return text(answer)

    async def ratings(self, league: str, season: int, players: list[str]) -> list[str | None]:
        key = LeagueKeys(league).ratings(season)
        raw = items(await self.client.call(key, "HMGET", key, *players))
        return [None if r is None else text(r) for r in raw]

    async def page(
        self, league: str, season: int, start: int, size: int
    ) -> list[tuple[str, float]]:
        key = LeagueKeys(league).board(season)
        rows = await self.client.call(key, "ZREVRANGE", key, start, start + size - 1, "WITHSCORES")
        return with_scores(rows)

    async def board_size(self, league: str, season: int) -> int:
        key = LeagueKeys(league).board(season)
        return int(text(await self.client.call(key, "ZCARD", key)))

    async def rank(self, league: str, season: int, player: str) -> int:
        key = LeagueKeys(league).board(season)
        found = await self.client.call(key, "ZREVRANK", key, player)
        return 0 if found is None else int(text(found)) + 1

    async def history(self, league: str, season: int, player: str, limit: int) -> list[str]:
        key = LeagueKeys(league).history(season, player)
        return [text(p) for p in items(await self.client.call(key, "LRANGE", key, -limit, -1))]

    async def recent(self, league: str, season: int, player: str, limit: int) -> list[int]:
        key = LeagueKeys(league).matches(season, player)
        found = items(await self.client.call(key, "LRANGE", key, 0, limit - 1))
        return [int(text(n)) for n in found]
