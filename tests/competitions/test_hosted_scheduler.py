"""The director finds every started event, however many newer events there are."""

from __future__ import annotations

from kafana.competitions.hosted.redis_store import RedisEvents
from kafana.v1 import competitions_pb2 as pb
from kafana_client import AsyncClient
from kafana_client.tournaments import Tournaments

from .hosted_helpers import Served, until


async def test_an_old_event_started_behind_1001_newer_ones_is_played(
    hosted: Served, events: RedisEvents
) -> None:
    async with AsyncClient.connect(hosted.target) as client:
        sdk = Tournaments(client)
        made = await sdk.create("old", "round_robin", target=11)
        await sdk.enter(made.event_id, "ana", bot="greedy")
        await sdk.enter(made.event_id, "bob", bot="random")
        # Before: the scheduler read the newest 1,000 events only, and never ran this one.
        for i in range(1001):
            assert await events.create(f"ev-newer-{i:04}", {"name": f"n{i}", "config": "{}"})
        assert made.event_id not in await events.event_ids(1000)
        await sdk.start(made.event_id, made.organiser_token)

        async def get() -> pb.EventInfo:
            return await sdk.get(made.event_id)

        info = await until(get, lambda i: i.phase == pb.EVENT_PHASE_FINISHED, timeout=60)
    assert len(info.standings) == 2
    assert made.event_id not in await events.started()  # finished: out of the index


async def test_the_index_holds_started_events_until_they_finish(events: RedisEvents) -> None:
    store = events
    for event_id in ("a", "b"):
        assert await store.create(event_id, {"name": event_id, "config": "{}"})
        for name in ("x", "y"):
            assert await store.enter(event_id, name, "{}") == "ok"
    assert await store.started() == []
    assert await store.start("a") == "ok" and await store.started() == ["a"]
    await store.finish("a")
    assert await store.started() == []
