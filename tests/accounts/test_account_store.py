"""The account store on a real Redis; doctests of the account modules."""

from __future__ import annotations

import doctest
import importlib
from collections.abc import AsyncIterator

import pytest
from kafana.store.accounts import Account, AccountStore, key_hash, new_key
from kafana.store.accounts_redis import RedisAccounts, accounts_for
from kafana.store.client import RedisClient
from kafana.store.redis_store import RedisStore


@pytest.fixture
async def accounts(redis_url: str) -> AsyncIterator[AccountStore]:
    client = RedisClient.from_url(redis_url)
    try:
        yield RedisAccounts(client)
    finally:
        await client.close()


async def test_create_find_list_revoke_rotate(accounts: AccountStore) -> None:
    keys = {name: new_key() for name in ("cvijeta", "ana", "bora")}
    for name, key in keys.items():
        assert await accounts.create(Account(name, "player", 1000), key_hash(key))
    assert not await accounts.create(Account("ana", "bot", 2000), key_hash(new_key()))
    found = await accounts.by_key(key_hash(keys["ana"]))
    assert found == Account("ana", "player", 1000)
    assert await accounts.by_key(key_hash("kfk_nobody")) is None
    assert [a.name for a in await accounts.list("", 2)] == ["ana", "bora"]
    assert [a.name for a in await accounts.list("bora", 10)] == ["cvijeta"]
    fresh = new_key()
    assert await accounts.rotate("bora", key_hash(fresh))
    assert await accounts.by_key(key_hash(keys["bora"])) is None
    assert (await accounts.by_key(key_hash(fresh))) == Account("bora", "player", 1000)
    assert await accounts.revoke("bora", 5000)
    assert await accounts.by_key(key_hash(fresh)) is None
    assert await accounts.get("bora") == Account("bora", "player", 1000, 5000)
    assert not await accounts.rotate("bora", key_hash(new_key()))  # revoked: no new key
    assert await accounts.revoke("bora", 6000)  # again: still revoked at 5000
    assert (await accounts.get("bora")) == Account("bora", "player", 1000, 5000)
    assert not await accounts.revoke("nobody", 1)
    assert await accounts.get("nobody") is None


async def test_the_accounts_go_with_the_table_store(redis_url: str) -> None:
    store = RedisStore.from_url(redis_url)
    try:
        assert isinstance(accounts_for(store), RedisAccounts)
    finally:
        await store.close()


@pytest.mark.parametrize(
    "name",
    ["kafana.service.auth", "kafana.service.accounts_book", "kafana.service.accounts"],
)
def test_doctests(name: str) -> None:
    failures, _tried = doctest.testmod(importlib.import_module(name))
    assert failures == 0


async def test_unused_accounts_that_expire_are_deleted(accounts: AccountStore) -> None:
    keys = {name: new_key() for name in ("old", "used", "young", "staff")}
    made = {"old": 1000, "used": 1000, "young": 9000, "staff": 1000}
    for name, key in keys.items():
        account = Account(name, "player", made[name], origin="" if name == "staff" else "ipv4:x")
        assert await accounts.create(account, key_hash(key), expires=name != "staff")
    assert (await accounts.by_key(key_hash(keys["old"])) or Account("", "", 0)).origin == "ipv4:x"
    await accounts.used("used")
    assert await accounts.expire_unused(5000, 10) == ["old"]
    assert await accounts.get("old") is None
    assert await accounts.by_key(key_hash(keys["old"])) is None
    assert {a.name for a in await accounts.list("", 10)} == {"used", "young", "staff"}
    assert await accounts.expire_unused(5000, 10) == []
    assert await accounts.create(Account("old", "player", 6000), key_hash(new_key()))
