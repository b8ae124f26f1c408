"""Choosing the store: a given Redis, else a private redis-server, else memory."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass, field

from kafana.store.base import TableStore
from kafana.store.memory import MemoryStore
from kafana.store.redis_server import RedisServer
from kafana.store.redis_store import PRIMARY, REPLICATED, RedisStore


@dataclass
class StoreChoice:
    """The store, a line saying what it is, and what to clean up at the end."""

    store: TableStore
    description: str
    cleanups: list[Callable[[], None]] = field(default_factory=list)

    def cleanup(self) -> None:
        """Stop anything started for the store."""
        for action in reversed(self.cleanups):
            action()


def choose_store(
    redis_url: str | None, *, allow_private: bool = True, durability: str = PRIMARY
) -> StoreChoice:
    """The store for `kafana serve`: `redis_url`, else a private redis-server, else memory.

    `durability` REPLICATED needs `redis_url` (ValueError without: no replica to wait for).
    """
    if redis_url:
        store = RedisStore.from_url(redis_url, durability=durability)
        return StoreChoice(store, f"store: {store.describe()}")
    if durability == REPLICATED:
        raise ValueError("--durability replicated needs --redis (a Redis with a replica)")
    if allow_private and shutil.which("redis-server"):
        try:
            server = RedisServer().start()
        except OSError as error:
            return StoreChoice(MemoryStore(), f"store: in-process memory ({error})")
        return StoreChoice(
            RedisStore.from_url(server.url),
            f"store: private redis-server on 127.0.0.1:{server.port} (no --redis given; "
            "one process only, nothing kept after exit)",
            [server.stop],
        )
    why = "no redis-server on PATH" if allow_private else "asked for"
    return StoreChoice(
        MemoryStore(),
        f"store: in-process memory ({why}; one process only, nothing kept after exit)",
    )
