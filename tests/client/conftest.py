"""Fixtures of the client tests (the helpers themselves are in `kafana_client_live`)."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator

import pytest

from .kafana_client_live import BlackHole, LiveServer, PrivateRedis


@pytest.fixture
def server() -> Iterator[LiveServer]:
    """A fresh server (and memory store) per test."""
    live = LiveServer()
    try:
        yield live
    finally:
        live.close()


@pytest.fixture(scope="session")
def private_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PrivateRedis]:
    """One redis-server of our own for the session (skipped without redis-server)."""
    if shutil.which("redis-server") is None:
        pytest.fail("redis-server is not on PATH (make test installs it: scripts/ensure-redis)")
    redis = PrivateRedis(tmp_path_factory.mktemp("client-redis"))
    try:
        yield redis
    finally:
        redis.close()


@pytest.fixture(params=["memory", "redis"])
def any_server(request: pytest.FixtureRequest) -> Iterator[LiveServer]:
    """A server over each store in turn: memory, and a real Redis (emptied first)."""
    url = None
    if request.param == "redis":
        redis: PrivateRedis = request.getfixturevalue("private_redis")
        subprocess.run(
            ["redis-cli", "-p", str(redis.port), "flushall"], check=True, capture_output=True
        )
        url = redis.url
    live = LiveServer(url)
    try:
        yield live
    finally:
        live.close()


@pytest.fixture
def black_hole() -> Iterator[BlackHole]:
    """A listener that never speaks: every call to it stalls."""
    hole = BlackHole()
    try:
        yield hole
    finally:
        hole.close()
