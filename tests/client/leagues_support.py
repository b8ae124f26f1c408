"""Helpers of the league SDK and CLI tests: a server in required mode with leagues, accounts."""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from kafana.competitions.server import create_server
from kafana.service.auth import REQUIRED, AuthPolicy
from kafana.service.server import KafanaServer
from kafana.service.settings import Settings
from kafana.store.accounts import Account, key_hash, new_key, now_ms
from kafana.store.accounts_redis import RedisAccounts
from kafana.store.redis_store import RedisStore
from kafana_client.connection import ConnectOptions
from kit import STOP_LIMIT_S


async def make_accounts(url: str, **roles: str) -> dict[str, str]:
    """Accounts made straight in the store at `url` ({name: role}); {name: key}."""
    store = RedisStore.from_url(url)
    try:
        accounts = RedisAccounts(store.client)
        keys = {}
        for name, role in roles.items():
            key = new_key()
            assert await accounts.create(Account(name, role, now_ms()), key_hash(key))
            keys[name] = key
        return keys
    finally:
        await store.close()


def _server(store: RedisStore, port: int) -> KafanaServer:
    settings = Settings(port=port, clock_tick=0.05, auth=AuthPolicy(mode=REQUIRED))
    return create_server(store, settings)


async def _stop(server: KafanaServer) -> None:
    try:
        await asyncio.wait_for(server.stop(0.5), STOP_LIMIT_S)
    except TimeoutError:
        warnings.warn(f"the test server took over {STOP_LIMIT_S} s to stop", stacklevel=1)


@dataclass
class LeagueServer:
    """A server with leagues (required mode) on loopback, and the keys of its accounts."""

    store: RedisStore
    server: KafanaServer
    keys: dict[str, str] = field(default_factory=dict)

    @property
    def target(self) -> str:
        """127.0.0.1:port"""
        return f"127.0.0.1:{self.server.port}"

    def options(self) -> ConnectOptions:
        """Connect options for the server (no key: each client brings its own)."""
        return ConnectOptions(self.target)

    async def restart(self) -> None:
        """Stop the server and start a new one on the same port and Redis."""
        port = self.server.port
        await _stop(self.server)
        self.server = _server(self.store, port)
        await self.server.start()


@asynccontextmanager
async def league_server(url: str, **roles: str) -> AsyncIterator[LeagueServer]:
    """`kafana serve`'s server (Competitions and Leagues) on the Redis at `url`, required mode,
    with the accounts of `roles` ({name: role})."""
    keys = await make_accounts(url, **roles)
    store = RedisStore.from_url(url)
    served = LeagueServer(store, _server(store, 0), keys)
    await served.server.start()
    try:
        yield served
    finally:
        await _stop(served.server)
        await store.close()
