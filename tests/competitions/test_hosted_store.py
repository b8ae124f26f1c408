"""The event store forgets an event after the retention (Redis expires its keys) and pages
newest first (the test kit's private redis-server)."""

from __future__ import annotations

import asyncio

from kafana.competitions.hosted.redis_store import RedisEvents
from kafana.store.redis_store import RedisStore


async def test_the_store_forgets_events_after_the_retention(redis_store: RedisStore) -> None:
    store = RedisEvents(redis_store.client, retention_ms=200)
    assert await store.create("ev-old", {"name": "old", "config": "{}"})
    await store.set_control("ev-old", "paused", "")
    await asyncio.sleep(0.3)
    assert await store.create("ev-new", {"name": "new", "config": "{}"})
    assert await store.event_ids(10) == ["ev-new"]
    assert await store.meta("ev-old") == {} and await store.control("ev-old") == ("", "")
    assert (await store.meta("ev-new"))["phase"] == "open"


async def test_newest_pages_by_cursor(redis_store: RedisStore) -> None:
    """The store pages newest first after a (created, id) cursor, ties included, none twice."""
    store = RedisEvents(redis_store.client)
    ids = [f"ev-{i}" for i in range(7)]
    for event_id in ids:  # several share a millisecond: ties order by id
        assert await store.create(event_id, {"name": event_id, "config": "{}"})
    seen: list[str] = []
    before = None
    while True:
        page = await store.newest(3, before)
        seen += [e for e, _ in page]
        if len(page) < 3:
            break
        before = (page[-1][1], page[-1][0])
    assert sorted(seen) == ids and len(seen) == len(set(seen)), seen
    created = [c for _, c in await store.newest(10, None)]
    assert created == sorted(created, reverse=True)
