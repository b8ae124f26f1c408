"""Helpers of the league SDK and CLI tests: a server in required mode with leagues, accounts."""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from kafana.competitions.server import create_server
from kafana.service.auth import REQUIRED, AuthPolicy
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


@dataclass
class LeagueServer:
    """A server with leagues (required mode) on loopback, and the keys of its accounts."""

    target: str
    keys: dict[str, str] = field(default_factory=dict)

    def options(self) -> ConnectOptions:
        """Connect options for the server (no key: each client brings its own)."""
        return ConnectOptions(self.target)


@asynccontextmanager
async def league_server(url: str, **roles: str) -> AsyncIterator[LeagueServer]:
    """`kafana serve`'s server (Competitions and Leagues) on the Redis at `url`, required mode,
    with the accounts of `roles` ({name: role})."""
    keys = await make_accounts(url, **roles)
    store = RedisStore.from_url(url)
    server = create_server(
        store, host="127.0.0.1", port=0, clock_tick=0.05, auth=AuthPolicy(mode=REQUIRED)
    )
    await server.start()
    try:
        yield LeagueServer(f"127.0.0.1:{server.port}", keys)
    finally:
        try:
            await asyncio.wait_for(server.stop(0.5), STOP_LIMIT_S)
        except TimeoutError:
            warnings.warn(f"the test server took over {STOP_LIMIT_S} s to stop", stacklevel=1)
        await store.close()
