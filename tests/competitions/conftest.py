"""Fixtures: our own redis-server and a real Kafana server on it (the client tests' helpers)."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import AsyncIterator, Iterator

import pytest
from client.kafana_client_live import LiveServer, PrivateRedis
from kafana.service.feed import Feed
from kafana.service.tables import Tables
from kafana.store.redis_store import RedisStore

from .hosted_helpers import Served, served


@pytest.fixture(scope="session")
def private_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PrivateRedis]:
    """One redis-server of our own for the session, on a free port (never the shared 6379)."""
    if shutil.which("redis-server") is None:
        pytest.fail("redis-server is not on PATH (make test installs it: scripts/ensure-redis)")
    redis = PrivateRedis(tmp_path_factory.mktemp("competitions-redis"))
    try:
        yield redis
    finally:
        redis.close()


@pytest.fixture
def redis_url(private_redis: PrivateRedis) -> str:
    """The private server's URL, emptied first."""
    command = ["redis-cli", "-p", str(private_redis.port), "flushall"]
    subprocess.run(command, check=True, capture_output=True)
    return private_redis.url


@pytest.fixture
def server(redis_url: str) -> Iterator[LiveServer]:
    """A Kafana server (its own thread and loop) over the private Redis."""
    live = LiveServer(redis_url)
    try:
        yield live
    finally:
        live.close()


@pytest.fixture
def hosted(redis_url: str) -> Iterator[Served]:
    """`kafana serve` as a process over the private Redis: it hosts and directs events."""
    with served(redis_url) as process:
        yield process


@pytest.fixture
async def tables(redis_url: str) -> AsyncIterator[tuple[Tables, Feed]]:
    """The service's domain layer on the private Redis (the `server` fixture's store), with a
    feed: what an in-process competition makes and follows tables with."""
    store = RedisStore.from_url(redis_url)
    feed = Feed(store)
    try:
        yield Tables(store), feed
    finally:
        await feed.close()
        await store.close()
