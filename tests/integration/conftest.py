"""Fixtures: a private redis-server per session (flushed per test), stores of both kinds."""

from __future__ import annotations

import subprocess
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from kafana.store.base import TableStore
from kafana.store.memory import MemoryStore
from kafana.store.redis_store import RedisStore
from kafana_it import redis_server


@pytest.fixture(scope="session")
def redis_port(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """Our own redis-server on a free port (never the shared one on 6379)."""
    with redis_server(Path(tmp_path_factory.mktemp("redis"))) as port:
        yield port


@pytest.fixture
def redis_url(redis_port: int) -> str:
    """The private server's URL, emptied first (it is ours alone)."""
    command = ["redis-cli", "-p", str(redis_port), "flushall"]
    subprocess.run(command, check=True, capture_output=True)
    return f"redis://127.0.0.1:{redis_port}/0"


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
