"""The league's Redis connection: `redis.asyncio` over a `BlockingConnectionPool`."""

from __future__ import annotations

from redis.asyncio import BlockingConnectionPool, Redis


def connect(url: str, *, max_connections: int = 16, timeout: float = 5.0) -> Redis:
    """A client whose pool blocks (up to `timeout` s) rather than fail when all are busy."""
    pool = BlockingConnectionPool.from_url(url, max_connections=max_connections, timeout=timeout)
    return Redis(connection_pool=pool)
