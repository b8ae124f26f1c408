"""The server's collector policy: full collections leave their survivors frozen."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest
from kafana.service.collector import calm_full_collections, uninstall


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
