"""The in-memory event store forgets an event after the retention, as Redis expires its keys."""

from __future__ import annotations

import asyncio

from kafana.competitions.hosted.store import MemoryEvents


async def test_the_memory_store_forgets_events_after_the_retention() -> None:
    store = MemoryEvents(retention_ms=200)
    assert await store.create("ev-old", {"name": "old", "config": "{}"})
    await store.set_control("ev-old", "paused", "")
    await asyncio.sleep(0.3)
    assert await store.create("ev-new", {"name": "new", "config": "{}"})
    assert await store.event_ids(10) == ["ev-new"]
    assert await store.meta("ev-old") == {} and await store.control("ev-old") == ("", "")
    assert (await store.meta("ev-new"))["phase"] == "open"
