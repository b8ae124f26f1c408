"""The server's collector policy: full collections leave their survivors frozen."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Iterator
from typing import Any

import pytest
from kafana.service.collector import (
    calm_full_collections,
    collect_every,
    collect_young,
    uninstall,
)


@pytest.fixture
def calm() -> Iterator[None]:
    calm_full_collections()
    try:
        yield
    finally:
        uninstall()


def test_a_full_collection_freezes_its_survivors(calm: None) -> None:
    kept = [[i] for i in range(5000)]  # tracked containers that survive
    gc.collect()
    assert gc.get_freeze_count() >= len(kept)
    assert all(not any(x is item for x in gc.get_objects(2)) for item in kept[:3])


def test_frozen_objects_are_still_freed_when_dropped(calm: None) -> None:
    gc.collect()
    kept = [[i] for i in range(5000)]
    gc.collect()
    frozen = gc.get_freeze_count()
    del kept
    assert gc.get_freeze_count() <= frozen - 5000


def test_the_thaw_lets_one_collection_see_everything() -> None:
    calm_full_collections(thaw_s=0.0)
    try:
        gc.collect()  # thaws instead of freezing
        assert gc.get_freeze_count() == 0
    finally:
        uninstall()


def test_a_small_collection_freezes_what_was_made_since(calm: None) -> None:
    """`collect_young` walks only the unfrozen objects and leaves them frozen too."""
    gc.collect()
    before = gc.get_freeze_count()
    kept = [[i] for i in range(3000)]
    assert collect_young() >= 0.0
    assert gc.get_freeze_count() >= before + len(kept)
    assert len(gc.get_objects(2)) < len(kept)


def test_collect_every_runs_full_collections_while_the_policy_is_on() -> None:
    """Full collections come every period, not when the collector's own ratio allows."""
    seen: list[int] = []

    def count(phase: str, info: dict[str, Any]) -> None:
        if phase == "stop" and info.get("generation") == 2:
            seen.append(1)

    async def run_for(seconds: float) -> None:
        task = asyncio.create_task(collect_every(0.05))
        await asyncio.sleep(seconds)
        task.cancel()

    gc.callbacks.append(count)
    try:
        asyncio.run(run_for(0.3))  # the policy is off: no collection
        assert not seen
        calm_full_collections()
        seen.clear()
        asyncio.run(run_for(0.3))
        assert len(seen) >= 3
    finally:
        gc.callbacks.remove(count)
        uninstall()
