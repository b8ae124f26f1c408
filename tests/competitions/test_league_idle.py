"""An idle league costs its referee little: a league where nothing happens is looked at less
and less often (every 0.1 s, then 0.2, 0.4... at most `IDLE_PAUSE_S`), and at once again when
this process is told of a join or a finished table (`Referee.wake`). Two processes each looked
at every league ten times a second: 3.6 ms of CPU a second per banded league, for ever."""

from __future__ import annotations

import asyncio
from collections import Counter

from kafana.competitions.league.redis_store import RedisLeagues
from kafana.competitions.league.referee import Referee
from kafana.service.tables import Tables
from kafana.store.client import RedisClient
from kafana.store.redis_store import RedisStore

from .test_league_bands import made_league


async def test_an_idle_league_is_looked_at_less_often_until_woken(
    redis_url: str, redis_store: RedisStore
) -> None:
    looks: Counter[str] = Counter()

    class Counted(RedisLeagues):
        async def due(self, league: str, now: int, limit: int, lease_ms: int) -> list[int]:
            looks[league] += 1
            return await super().due(league, now, limit, lease_ms)

    client = RedisClient.from_url(redis_url)
    referee = Referee(Counted(client), Tables(redis_store), tick_s=0.1)
    try:
        await made_league(referee.store, "quiet")
        referee.start()
        await asyncio.sleep(3.0)
        idle = looks["quiet"]
        # 0.1 + 0.2 + 0.4 + 0.8 + 1.0...: 5 or 6 looks in 3 s (30 at every tick)
        assert 2 <= idle <= 7, idle
        await asyncio.sleep(1.0)  # at the longest pause now
        before = looks["quiet"]
        referee.wake()  # a player joined through this process
        await asyncio.sleep(0.5)
        assert looks["quiet"] > before
    finally:
        await referee.stop()
        await client.close()
