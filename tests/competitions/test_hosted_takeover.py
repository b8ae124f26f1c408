"""A hosted event outlives the process directing it: another server on the Redis takes over."""

from __future__ import annotations

import asyncio
import signal

from kafana.competitions.hosted.redis_store import RedisEvents
from kafana.store.client import RedisClient
from kafana.v1 import competitions_pb2 as pb
from kafana_client import AsyncClient
from kafana_client.tournaments import Tournaments

from .hosted_helpers import Served, games, served, until


async def test_the_lease_expires_and_fences_the_old_director(redis_url: str) -> None:
    redis = RedisClient.from_url(redis_url)  # the table store's client, as a server has it
    try:
        store = RedisEvents(redis)
        assert await store.create("e1", {"config": "{}"})
        assert not await store.create("e1", {"config": "{}"})
        assert await store.lease("e1", "one", 300)
        assert not await store.lease("e1", "two", 300)  # held
        assert await store.save("e1", "one", "state-1")
        await asyncio.sleep(0.4)  # "one" stopped renewing: its lease expired
        assert await store.lease("e1", "two", 300)
        assert not await store.save("e1", "one", "stale")  # the old director is fenced off
        assert await store.state("e1") == "state-1"
        await store.release("e1", "one")  # not the holder: no effect
        assert not await store.lease("e1", "one", 300)
    finally:
        await redis.close()


async def test_a_second_server_takes_over_when_the_director_crashes(
    hosted: Served, redis_url: str
) -> None:
    # Both servers run before the event starts, so the crash can come as soon as a game is
    # done: the director plays in its process, fast enough to finish the event while a second
    # server starts. Either may take the lease; the one directing is crashed.
    with served(redis_url) as second:
        async with AsyncClient.connect(hosted.target) as client:
            events = Tournaments(client)
            made = await events.create(
                "relay", "round_robin", target=61, seed=9, chosen_seed=True, parallel=1
            )
            entrants = (("a", "greedy"), ("b", "random"), ("c", "heuristic"), ("d", "random"))
            for name, bot in entrants:
                await events.enter(made.event_id, name, bot=bot)
            await events.start(made.event_id, made.organiser_token)

            async def on_first() -> pb.EventInfo:
                return await events.get(made.event_id)

            before = await until(
                on_first, lambda i: any(g.status == pb.GAME_STATUS_DONE for g in games(i))
            )
        directing = "directing event " + made.event_id
        first = directing in hosted.log.read_text()
        crashed, other = (hosted, second) if first else (second, hosted)
        crashed.stop(signal.SIGKILL)  # a crash: no lease released, it expires after 5 s
        assert before.phase == pb.EVENT_PHASE_STARTED
        assert directing not in other.log.read_text()
        await _on_second(other, made.event_id, before)


async def _on_second(second: Served, event_id: str, before: pb.EventInfo) -> None:
    """The second server takes the event over and finishes it; what was done stays."""
    async with AsyncClient.connect(second.target) as client:
        events = Tournaments(client)

        async def on_second() -> pb.EventInfo:
            return await events.get(event_id)

        after = await until(on_second, lambda i: i.phase == pb.EVENT_PHASE_FINISHED)
    assert "directing event " + event_id in second.log.read_text()
    assert len(after.rounds) == 3 and len(games(after)) == 6
    assert all(
        g.status == pb.GAME_STATUS_DONE and g.ending == pb.GAME_ENDING_SCORE for g in games(after)
    )
    assert len({g.table_id for g in games(after)}) == 6  # every game played on one table
    done_before = {g.game_id: g for g in games(before) if g.status == pb.GAME_STATUS_DONE}
    for g in games(after):
        if g.game_id in done_before:  # kept as it was, not played again
            assert g.table_id == done_before[g.game_id].table_id
            assert list(g.scores) == list(done_before[g.game_id].scores)
    assert sum(s.points for s in after.standings) == 6
