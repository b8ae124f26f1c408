"""Helpers of the account tests: a server in required mode on a private Redis, an operator."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

import grpc
from kafana.service.auth import REQUIRED, AuthPolicy
from kafana.store.accounts import Account, key_hash, new_key, now_ms
from kafana.store.accounts_redis import RedisAccounts
from kafana.store.redis_store import RedisStore
from kafana.v1 import accounts_pb2_grpc
from kit import Service, running

Metadata = tuple[tuple[str, str], ...]


def bearer(key: str) -> Metadata:
    """The call metadata that carries `key`."""
    return (("authorization", f"Bearer {key}"),)


async def make_account(accounts: RedisAccounts, name: str, role: str) -> str:
    """An account made straight in the store (how the first operator is made): its key."""
    key = new_key()
    assert await accounts.create(Account(name, role, now_ms()), key_hash(key))
    return key


@dataclass
class Guarded:
    """A server in required mode, its account store, an Accounts stub and an operator's key."""

    svc: Service
    accounts: RedisAccounts
    stub: accounts_pb2_grpc.AccountsServiceStub
    operator: Metadata


async def guarded_server(redis_url: str, **policy: object) -> AsyncIterator[Guarded]:
    store = RedisStore.from_url(redis_url)
    accounts = RedisAccounts(store.client)
    try:
        auth = AuthPolicy(mode=REQUIRED, **policy)  # type: ignore[arg-type]
        async with running(store, auth=auth) as svc:
            key = await make_account(accounts, "root", "operator")
            stub = accounts_pb2_grpc.AccountsServiceStub(svc.channel)
            yield Guarded(svc, accounts, stub, bearer(key))
    finally:
        await store.close()


async def code_of(call: object) -> grpc.StatusCode:
    """The status code a call ends with (OK when it succeeds)."""
    try:
        await call  # type: ignore[misc]
    except grpc.aio.AioRpcError as error:
        return error.code()
    return grpc.StatusCode.OK
