"""Fixtures: stores of both kinds and the service over them (the private redis-server per
session, flushed per test, is the test kit's `redis_url`)."""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import grpc
import pytest
from kafana.service.server import KafanaServer, create_server
from kafana.store.base import TableStore
from kafana.store.memory import MemoryStore
from kafana.store.redis_store import RedisStore
from kafana.v1.service_pb2_grpc import KafanaStub

STOP_LIMIT_S = 20.0


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


@dataclass
class Service:
    """A running server on loopback and a client stub."""

    stub: KafanaStub
    server: KafanaServer
    store: TableStore
    channel: grpc.aio.Channel
    target: str


@asynccontextmanager
async def running(store: TableStore, **options: Any) -> AsyncIterator[Service]:
    """Serve `store` on a free loopback port until the block ends."""
    server = create_server(store, host="127.0.0.1", port=0, clock_tick=0.05, **options)
    await server.start()
    target = f"127.0.0.1:{server.port}"
    channel = grpc.aio.insecure_channel(target)
    try:
        yield Service(KafanaStub(channel), server, store, channel, target)
    finally:
        await channel.close()
        try:
            # gRPC's aio shutdown has hung, rarely, in long test runs (never in a test on its
            # own); bounded, so that shows as a warning instead of stalling the run.
            await asyncio.wait_for(server.stop(0.5), STOP_LIMIT_S)
        except TimeoutError:
            warnings.warn(f"the test server took over {STOP_LIMIT_S} s to stop", stacklevel=1)


@pytest.fixture
async def service(redis_url: str) -> AsyncIterator[Service]:
    """The service on our private redis-server."""
    store = RedisStore.from_url(redis_url)
    try:
        async with running(store) as svc:
            yield svc
    finally:
        await store.close()


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
