"""The director's snapshot writes: changes at once share one write, and no change is lost."""

from __future__ import annotations

import asyncio

from kafana.competitions.hosted.director import Director, EventRun
from kafana.competitions.hosted.event import Hosted
from kafana.competitions.hosted.redis_store import RedisEvents
from kafana.competitions.tournament import EventConfig, Kind, Tournament
from kafana.service.feed import Feed
from kafana.service.tables import Tables
from kafana.store.redis_store import RedisStore


async def test_changes_at_once_share_one_snapshot_write(redis_store: RedisStore) -> None:
    events = RedisEvents(redis_store.client)
    store = redis_store
    director = Director(events, Tables(store), Feed(store))
    run = EventRun(director, "ev-1")
    t = Tournament(EventConfig("s", Kind.SWISS, tuple(f"e{i}" for i in range(64))))
    run.hosted = Hosted(t)
    assert await events.lease("ev-1", director.owner, 60_000)
    writes: list[str] = []
    save = events.save

    async def counted(event_id: str, owner: str, text: str) -> bool:
        writes.append(text)
        await asyncio.sleep(0.01)  # a store round trip
        return await save(event_id, owner, text)

    events.save = counted  # type: ignore[method-assign]
    games = t.next_round()

    async def decide(game_id: str) -> None:
        t.adjudicate(game_id, 1)
        await run.save()  # returns once a snapshot with this result is written

    # Before: 32 results written one after another, the snapshot encoded 32 times (a
    # 1,024-entrant event's takes ~0.7 s on the event loop each).
    await asyncio.gather(*(decide(g.game_id) for g in games))
    assert 1 <= len(writes) <= 3, len(writes)
    last = Hosted.loads(writes[-1]).tournament
    assert set(last.results) == {g.game_id for g in games}  # every change in the last write
