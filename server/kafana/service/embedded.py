"""Choosing the store: a given Redis, else a private redis-server this process starts.

There is no in-process store: without `--redis`, `kafana serve` (and `kafana play` without a
server) starts its own `redis-server` on a free loopback port, keeps nothing after it exits, and
refuses to start, in one line saying how to install one, when no `redis-server` is on the PATH
(`MissingRedisServer`; the `kafana` command exits 1).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass, field

from kafana.store.base import TableStore
from kafana.store.redis_server import RedisServer, version
from kafana.store.redis_store import PRIMARY, REPLICATED, RedisStore

MIN_VERSION = (7, 0)
"""Redis 7 brought sharded pub/sub (`SPUBLISH`), which every append publishes with."""
INSTALL = (
    "install Redis 7 or later (`scripts/ensure-redis` in a checkout; apt-get install "
    "redis-server; brew install redis) or give --redis URL"
)


class MissingRedisServer(OSError):
    """No `redis-server` to start: said in one line with how to get one."""


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


def private_server() -> RedisServer:
    """A started redis-server of this process's own (MissingRedisServer without one)."""
    if shutil.which("redis-server") is None:
        raise MissingRedisServer(f"redis-server is not on the PATH: {INSTALL}")
    found = version()
    if found and found < MIN_VERSION:
        raise MissingRedisServer(
            f"redis-server {'.'.join(map(str, found))} is older than Redis 7: {INSTALL}"
        )
    try:
        return RedisServer(die_with_parent=True).start()  # none left behind a SIGKILL
    except OSError as error:
        raise MissingRedisServer(f"the private redis-server did not start ({error})") from None


def choose_store(
    redis_url: str | None, *, allow_private: bool = True, durability: str = PRIMARY
) -> StoreChoice:
    """The store for `kafana serve`: `redis_url`, else a private redis-server.

    `allow_private` False (`--memory`, kept for the command lines that name it) is the same
    private redis-server: one process only, nothing kept after exit. `durability` REPLICATED
    needs `redis_url` (ValueError without: no replica to wait for).
    """
    if redis_url:
        store = RedisStore.from_url(redis_url, durability=durability)
        return StoreChoice(store, f"store: {store.describe()}")
    if durability == REPLICATED:
        raise ValueError("--durability replicated needs --redis (a Redis with a replica)")
    server = private_server()
    why = "no --redis given" if allow_private else "--memory"
    return StoreChoice(
        RedisStore.from_url(server.url),
        f"store: private redis-server on 127.0.0.1:{server.port} ({why}; "
        "one process only, nothing kept after exit)",
        [server.stop],
    )
