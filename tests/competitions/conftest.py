"""Fixtures: a real Kafana server on the test kit's private Redis (`redis_url`, emptied first)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
from client.kafana_client_live import LiveServer
from kafana.competitions.hosted.redis_store import RedisEvents
from kafana.competitions.league.redis_store import RedisLeagues
from kafana.service.feed import Feed
from kafana.service.tables import Tables
from kafana.store.client import RedisClient
from kafana.store.redis_store import RedisStore
from redis.asyncio import Redis

from .hosted_helpers import Served, served


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


@pytest.fixture
async def redis(redis_url: str) -> AsyncIterator[Redis]:
    """A redis-py client of the private server: an independent checker of what was stored."""
    client = Redis.from_url(redis_url)
    try:
        yield client
    finally:
        await client.aclose()


@pytest.fixture
async def league(redis_url: str) -> AsyncIterator[RedisClient]:
    """The store's client on the private server, as the league uses it."""
    client = RedisClient.from_url(redis_url)
    try:
        yield client
    finally:
        await client.close()


@pytest.fixture
def leagues(league: RedisClient) -> RedisLeagues:
    """The league store on the private server, on the `league` client."""
    return RedisLeagues(league)


@pytest.fixture
async def events(redis_url: str) -> AsyncIterator[RedisEvents]:
    """The event store on the private Redis, through the table store's client (as a server)."""
    client = RedisClient.from_url(redis_url)
    try:
        yield RedisEvents(client)
    finally:
        await client.close()
