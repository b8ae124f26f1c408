"""Leagues in Redis, under each league's hash tag and each rating band's (`keys`, `bands`):
any server process on it serves them.

The steps that must happen once are Lua scripts (`lua/`): joining the queue, claiming players
for a match, claiming due matches, and settling a match (its result fixed, its ratings
written, marked settled: three steps, each once, so a band's match and the league's ratings
may live on different nodes). In a league of several bands a player's home band (a key of
its own) says where it queues; moving it takes the player out of the old band first, and a
join begun before the move is refused there (`depart.lua`), so a player waits in one queue.
"""

from __future__ import annotations

from collections.abc import Sequence

from kafana.competitions.league.bands import Bands
from kafana.competitions.league.keys import LEAGUES, BandKeys, LeagueKeys, bench, home
from kafana.competitions.league.replies import atomic, each, fields, items, text, with_scores
from kafana.competitions.league.replies import number as score
from kafana.competitions.league.spec import load
from kafana.competitions.league.store import (
    IDLE,
    KEEP_MS,
    PAIRED,
    WAITING,
    LeagueStore,
    Settlement,
    Waiting,
)
from kafana.store.client import RedisClient, Script

_PACKAGE = "kafana.competitions.league"
_JOIN = Script.named("join", _PACKAGE)
_DEPART = Script.named("depart", _PACKAGE)
_HOME = Script.named("home", _PACKAGE)
_CLAIM = Script.named("claim", _PACKAGE)
_DUE = Script.named("due", _PACKAGE)
_LEASE = Script.named("lease", _PACKAGE)
_FIX = Script.named("fix", _PACKAGE)
_RATE = Script.named("rate", _PACKAGE)
_CLOSE = Script.named("close", _PACKAGE)
MOVES = 8
"""Tries of a join whose player's home band another join moves meanwhile."""


def _encode(values: list[str]) -> list[bytes]:
    return [v.encode() for v in values]


class RedisLeagues(LeagueStore):
    """Leagues in the table store's Redis (one Redis or a cluster)."""

    kind = "redis"

    def __init__(self, client: RedisClient) -> None:
        self.client = client
        self._bands: dict[str, Bands] = {}  # a league's bands never change: read once

    async def bands(self, league: str) -> Bands:
        found = self._bands.get(league)
        if found is None:
            key = LeagueKeys(league).meta
            spec = await self.client.call(key, "HGET", key, "spec")
            if spec is None:  # no league (yet): one band, not kept
                return Bands()
            found = self._bands[league] = Bands(tuple(load(text(spec)).band_edges))
        return found

    async def _band(self, league: str, band: int) -> BandKeys:
        return BandKeys(league, band, (await self.bands(league)).count)

    async def _of_match(self, league: str, number: int) -> BandKeys:
        bands = await self.bands(league)
        return BandKeys(league, bands.band_of(number), bands.count)

    async def _every_band(self, league: str) -> list[BandKeys]:
        count = (await self.bands(league)).count
        return [BandKeys(league, band, count) for band in range(count)]

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
        bands = await self._every_band(league)
        own = [b.match_counter for b in bands if b.tag == keys.tag]  # one band: the league's
        raw, season, *made = await atomic(
            self.client,
            keys.tag,
            [("HGETALL", keys.meta), ("GET", keys.season), *(("GET", c) for c in own)],
        )
        found = fields(raw)
        if not found:
            return {}
        if not own:
            made = await each(
                self.client, [(b.match_counter, ("GET", b.match_counter)) for b in bands]
            )
        found["season"] = text(season) if season is not None else "1"
        counts = [int(text(n)) if n is not None else 0 for n in made]
        found["made"] = str(sum(counts))
        if len(counts) > 1:
            found["band_made"] = " ".join(str(n) for n in counts)
        found.setdefault("settled", "0")
        return found

    async def leagues(self) -> list[str]:
        return sorted(
            text(name) for name in items(await self.client.call(LEAGUES, "SMEMBERS", LEAGUES))
        )

    async def new_season(self, league: str) -> int:
        keys = LeagueKeys(league)
        return int(text(await self.client.call(keys.season, "INCR", keys.season)))

    async def keep(
        self, league: str, season: int, retention_ms: int, band: int | None = None
    ) -> None:
        keys = LeagueKeys(league)
        held = [keys.meta, keys.season, keys.games, keys.ratings(season), keys.board(season)]
        bands = await self._every_band(league)
        if band is not None:
            bands = bands[band : band + 1]
        if bands[0].count == 1:  # one band: under the league's tag, in the same step
            held += bands.pop().held()
        await atomic(self.client, keys.tag, [("PEXPIRE", key, retention_ms) for key in held])
        for each_band in bands:
            renew = [("PEXPIRE", key, retention_ms) for key in each_band.held()]
            await atomic(self.client, each_band.tag, renew)

    async def forget(self, league: str) -> None:
        await self.client.call(LEAGUES, "SREM", LEAGUES, league)
        self._bands.pop(league, None)

    async def join(
        self, league: str, player: str, mu: float, now: int, keep_ms: int = KEEP_MS
    ) -> tuple[str, int]:
        bands = await self.bands(league)
        if bands.count == 1:
            return await self._enter(BandKeys(league), player, mu, now, None)
        want = bands.of(mu)
        key = home(league, player)
        for _ in range(MOVES):
            read, _ = await atomic(self.client, key, [("GET", key), ("PEXPIRE", key, keep_ms)])
            held = text(read) if read is not None else ""
            band, epoch = (int(part) for part in held.split()) if held else (want, 0)
            if not held or band != want:  # a first join, or the rating crossed an edge
                epoch = max(now, epoch + 1)
                if held:
                    old = BandKeys(league, band, bands.count)
                    (reply,) = await self.client.run(
                        _DEPART,
                        [old.active, old.queue_since, old.queue_rating, old.fence],
                        _encode([player, str(epoch)]),
                    )
                    gone, match = items(reply)
                    if text(gone) == PAIRED:
                        return PAIRED, int(text(match))
                if not await self._move(key, held, f"{want} {epoch}", keep_ms):
                    continue  # another join moved it meanwhile: read it again
                band, held = want, f"{want} {epoch}"
            state, fence = await self._enter(
                BandKeys(league, band, bands.count), player, mu, now, epoch
            )
            if state != "moved":
                return state, fence
            # the band was fenced past this epoch: by a move (the home is not `held` any more),
            # or by one that stopped half-way or a faster clock's (it is: take the fence's)
            await self._move(key, held, f"{band} {fence}", keep_ms)
        raise RuntimeError(f"league {league}: {player}'s band kept moving; retried")

    async def _move(self, key: str, held: str, new: str, keep_ms: int) -> bool:
        """The player's home band `new` if it is still `held` ("": none)."""
        (moved,) = await self.client.run(_HOME, [key], _encode([held, new, str(keep_ms)]))
        return bool(int(text(moved)))

    async def _enter(
        self, keys: BandKeys, player: str, mu: float, now: int, epoch: int | None
    ) -> tuple[str, int]:
        """The band's join step (`epoch`: the home band's, in a league of several bands)."""
        names = [keys.active, keys.queue_since, keys.queue_rating]
        args = [player, str(now), score(mu)]
        if epoch is not None:
            names.append(keys.fence)
            args.append(str(epoch))
        (reply,) = await self.client.run(_JOIN, names, _encode(args))
        state, match = items(reply)
        return text(state), int(text(match))

    async def _home(self, league: str, player: str) -> BandKeys | None:
        """The band the player queues in (None: it never queued in this league)."""
        bands = await self.bands(league)
        if bands.count == 1:
            return BandKeys(league)
        key = home(league, player)
        held = await self.client.call(key, "GET", key)
        if held is None:
            return None
        return BandKeys(league, int(text(held).split()[0]), bands.count)

    async def leave(self, league: str, player: str) -> bool:
        keys = await self._home(league, player)
        if keys is None:
            return False
        removed, _ = await atomic(
            self.client,
            keys.tag,
            [("ZREM", keys.queue_since, player), ("ZREM", keys.queue_rating, player)],
        )
        return bool(removed)

    async def bench(self, league: str, player: str, now: int, first_ms: int, keep_ms: int) -> int:
        key = bench(league, player)
        held = await self.client.call(key, "GET", key)  # one referee settles a match
        count = int(text(held).split()[0]) + 1 if held is not None else 1
        until = now + (first_ms << min(count - 1, 20))
        await self.client.call(key, "SET", key, f"{count} {until}", "PX", until - now + keep_ms)
        return until

    async def benched(self, league: str, player: str) -> int:
        key = bench(league, player)
        held = await self.client.call(key, "GET", key)
        return 0 if held is None else int(text(held).split()[1])

    async def status(self, league: str, player: str) -> tuple[str, int]:
        keys = await self._home(league, player)
        if keys is None:
            return IDLE, 0
        match, since = await atomic(
            self.client,
            keys.tag,
            [("HGET", keys.active, player), ("ZSCORE", keys.queue_since, player)],
        )
        if match is not None:
            return PAIRED, int(text(match))
        return (WAITING, 0) if since is not None else (IDLE, 0)

    async def waiting(self, league: str) -> int:
        counts = [(b.queue_since, ("ZCARD", b.queue_since)) for b in await self._every_band(league)]
        return sum(int(text(n)) for n in await each(self.client, counts))

    async def oldest(self, league: str, limit: int, band: int = 0) -> list[Waiting]:
        keys = await self._band(league, band)
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

    async def claim(
        self, league: str, players: list[str], fields: dict[str, str], due: int, band: int = 0
    ) -> int:
        keys = await self._band(league, band)
        args = [str(due), keys.match(0)[:-1], str(keys.count), str(band), str(len(players))]
        args += players + [part for kv in fields.items() for part in kv]
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
        self, league: str, players: list[str], band: int = 0
    ) -> dict[str, list[frozenset[str]]]:
        if not players:
            return {}
        keys = await self._band(league, band)
        kept = items(await self.client.call(keys.recent, "HMGET", keys.recent, *players))
        return {
            p: [frozenset(group.split()) for group in text(v).split(";")[:-1]]
            for p, v in zip(players, kept, strict=True)
            if v is not None
        }

    async def pair_lease(self, league: str, owner: str, ttl_ms: int, band: int = 0) -> bool:
        keys = await self._band(league, band)
        (held,) = await self.client.run(_LEASE, [keys.lease], _encode([owner, str(ttl_ms)]))
        return bool(int(text(held)))

    async def match(
        self, league: str, number: int, only: Sequence[str] | None = None
    ) -> dict[str, str]:
        key = (await self._of_match(league, number)).match(number)
        if only is None:
            return fields(await self.client.call(key, "HGETALL", key))
        values = items(await self.client.call(key, "HMGET", key, *only))
        return {name: text(v) for name, v in zip(only, values, strict=True) if v is not None}

    async def set_fields(self, league: str, number: int, fields: dict[str, str]) -> None:
        key = (await self._of_match(league, number)).match(number)
        await self.client.call(key, "HSET", key, *(part for kv in fields.items() for part in kv))

    async def set_once(self, league: str, number: int, name: str, value: str) -> str:
        key = (await self._of_match(league, number)).match(number)
        _, now = await atomic(self.client, key, [("HSETNX", key, name, value), ("HGET", key, name)])
        return "" if now is None else text(now)

    async def due(self, league: str, now: int, limit: int, lease_ms: int) -> list[int]:
        found: list[int] = []
        for keys in await self._every_band(league):
            (ids,) = await self.client.run(
                _DUE, [keys.due], _encode([str(now), str(limit - len(found)), str(lease_ms)])
            )
            found += [int(text(n)) for n in items(ids)]
            if len(found) >= limit:
                break
        return found

    async def reschedule(self, league: str, number: int, at: int) -> None:
        key = (await self._of_match(league, number)).due
        await self.client.call(key, "ZADD", key, "XX", at, number)

    async def fix(self, league: str, number: int, result: dict[str, str]) -> dict[str, str]:
        key = (await self._of_match(league, number)).match(number)
        (found,) = await self.client.run(
            _FIX, [key], _encode([part for kv in result.items() for part in kv])
        )
        return fields(found)

    async def settle(self, league: str, number: int, settlement: Settlement) -> str:
        if not await self.fix(league, number, settlement.fields):
            return "done"
        keys = LeagueKeys(league)
        season = settlement.season
        names = [keys.ratings(season), keys.board(season), keys.games, keys.meta]
        names.append(keys.rated(season))
        for player in settlement.players:
            names += [keys.history(season, player), keys.matches(season, player)]
        args = [str(number), str(settlement.retention_ms), str(len(settlement.ratings))]
        for w in settlement.ratings:
            args += [w.player, w.read or "", w.rating, score(w.board), w.point]
        args += [str(len(settlement.players)), *settlement.players]
        (rated,) = await self.client.run(_RATE, names, _encode(args))
        if text(rated) == "retry":
            return "retry"
        band = await self._of_match(league, number)
        (answer,) = await self.client.run(
            _CLOSE,
            [band.match(number), band.due, band.active],
            _encode([str(number), str(settlement.retention_ms), *settlement.players]),
        )
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
