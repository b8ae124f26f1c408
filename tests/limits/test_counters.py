"""The store's shared counters on a real Redis (the session's private server)."""

from __future__ import annotations

import asyncio

import pytest
from kafana.store.base import TableStore
from kafana.store.redis_store import RedisStore


@pytest.fixture
def store(redis_store: RedisStore) -> TableStore:
    """The store on the session's private server, emptied."""
    return redis_store


async def test_a_window_counts_up_to_its_limit_then_ends(store: TableStore) -> None:
    counters = store.counters
    assert [await counters.count("w", 3, 300, 0) for _ in range(3)] == [0, 0, 0]
    wait = await counters.count("w", 3, 300, 0)
    assert 0 < wait <= 300
    assert await counters.count("other", 3, 300, 0) == 0  # keys are apart
    await asyncio.sleep(0.35)  # Redis times the window itself; memory by the given clock
    assert await counters.count("w", 3, 300, 400) == 0


async def test_places_are_held_released_and_lapse(store: TableStore) -> None:
    counters = store.counters
    assert await counters.hold("h", "a", 2, until_ms=1000, now_ms=0) == 0
    assert await counters.hold("h", "b", 2, until_ms=2000, now_ms=0) == 0
    assert await counters.hold("h", "a", 2, until_ms=1500, now_ms=10) == 0  # again: extended
    assert await counters.hold("h", "c", 2, until_ms=3000, now_ms=100) == 1400  # a lapses first
    assert await counters.holders("h", 100) == ["a", "b"]
    await counters.release("h", "a")
    assert await counters.hold("h", "c", 2, until_ms=3000, now_ms=100) == 0
    assert sorted(await counters.holders("h", 2500)) == ["c"]  # b lapsed at 2000
    assert await counters.hold("h", "d", 2, until_ms=4000, now_ms=2500) == 0


async def test_status_reads_no_log(store: TableStore) -> None:
    assert await store.status("none") is None
    assert await store.create("t1", b"record", 60_000, 0)
    assert await store.status("t1") == "open"
