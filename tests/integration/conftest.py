"""Fixtures: stores of both kinds and the service over each (the private redis-server, the
in-process server and the `service` fixture are the test kit's, `tests/kit.py`)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from kafana.store.base import TableStore
from kafana.store.memory import MemoryStore
from kafana.store.redis_store import RedisStore
from kit import Service, running


@pytest.fixture(params=["memory", "redis"])
async def store(request: pytest.FixtureRequest) -> AsyncIterator[TableStore]:
    """Each store implementation in turn: the store suite runs against both."""
    if request.param == "memory":
        yield MemoryStore()
        return
    url = request.getfixturevalue("redis_url")
    redis_store = RedisStore.from_url(url)
    try:
        yield redis_store
    finally:
        await redis_store.close()


@pytest.fixture(params=["memory", "redis"])
async def any_service(request: pytest.FixtureRequest) -> AsyncIterator[Service]:
    """The service on each store in turn."""
    store: TableStore = MemoryStore()
    if request.param == "redis":
        store = RedisStore.from_url(request.getfixturevalue("redis_url"))
    try:
        async with running(store) as svc:
            yield svc
    finally:
        await store.close()
