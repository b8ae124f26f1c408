"""The test kit every test folder shares: private redis-servers on free loopback ports (never
the shared Redis on 6379), a real Redis Cluster, and the fixtures over them.

The servers themselves are the product's (`kafana.store.redis_server`, which `kafana serve`
uses for its private Redis); `tests/conftest.py` makes the fixtures here visible everywhere.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import pytest
from kafana.store.redis_server import RedisServer, free_port, redis_server

__all__ = [
    "RedisServer",
    "flush",
    "free_port",
    "private_redis",
    "redis_cli",
    "redis_cluster",
    "redis_server",
    "redis_url",
    "require_redis",
]


def require_redis() -> None:
    """Fail (not skip) when redis-server is missing: CI must never pass without Redis."""
    if shutil.which("redis-server") is None:
        pytest.fail("redis-server is not on PATH (make test installs it: scripts/ensure-redis)")


def redis_cli(port: int, *args: str) -> str:
    """redis-cli against our server on `port`: its output."""
    out = subprocess.run(
        ["redis-cli", "-p", str(port), *args], capture_output=True, text=True, check=True
    )
    return out.stdout


def flush(server: RedisServer) -> str:
    """Empty our server and return its URL (it is ours alone: nobody else's data goes)."""
    redis_cli(server.port, "flushall")
    return server.url


@pytest.fixture(scope="session")
def private_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    """One redis-server of our own for the test session, on a free port."""
    require_redis()
    with redis_server(tmp_path_factory.mktemp("redis")) as server:
        yield server


@pytest.fixture
def redis_url(private_redis: RedisServer) -> str:
    """The session's private server, emptied first: its URL."""
    return flush(private_redis)


@contextmanager
def redis_cluster(directory: Path, masters: int = 3) -> Iterator[list[int]]:
    """A real Redis Cluster of `masters` primaries on loopback; yields their ports."""
    require_redis()
    with ExitStack() as stack:
        ports = []
        for i in range(masters):
            node = redis_server(
                directory / f"node{i}",
                *("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf"),
                *("--cluster-node-timeout", "2000"),
            )
            ports.append(stack.enter_context(node).port)
        nodes = [f"127.0.0.1:{p}" for p in ports]
        subprocess.run(
            [
                "redis-cli",
                "--cluster",
                "create",
                *nodes,
                "--cluster-replicas",
                "0",
                "--cluster-yes",
            ],
            check=True,
            capture_output=True,
            timeout=60,
        )
        deadline = time.monotonic() + 30
        while not all("cluster_state:ok" in redis_cli(p, "cluster", "info") for p in ports):
            if time.monotonic() > deadline:
                raise RuntimeError("the Redis Cluster did not become ready")
            time.sleep(0.1)
        yield ports
