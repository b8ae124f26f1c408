"""The SDK sends its key with every call: as call metadata on plaintext, credentials on TLS."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
from pathlib import Path

import pytest
from kafana.errors import AuthenticationError
from kafana.service.auth import REQUIRED, AuthPolicy
from kafana.service.server import create_server
from kafana.service.settings import Settings
from kafana.store.accounts import Account, key_hash, new_key, now_ms
from kafana.store.accounts_redis import RedisAccounts
from kafana.store.redis_store import RedisStore
from kafana_client import AsyncClient, Client, Tls, table_config

from .accounts_support import Guarded, make_account


async def test_the_async_client_sends_its_key(guarded: Guarded) -> None:
    key = await make_account(guarded.accounts, "ana", "player")
    async with AsyncClient.connect(guarded.svc.target, key=key) as client:
        table = await client.create_table(table_config(seed=5))
        seat = await client.join(table.table_id, name="ana")
        assert (await seat.state()).tablic.seat == 0
        # The event stream carries the key too (a seat's stream needs it in required mode).
        first = await anext(aiter(seat.events()))
        assert first.seq == 1
        assert await client.captures("KC", ["KD"]) == [["KD"]]
    async with AsyncClient.connect(guarded.svc.target) as anonymous:
        assert await anonymous.captures("KC", ["KD"]) == [["KD"]]
        with pytest.raises(AuthenticationError, match="CreateTable needs an API key"):
            await anonymous.create_table(table_config(seed=5))
    assert "kfk_" not in repr(AsyncClient.connect(guarded.svc.target, key=key).options)


async def test_the_blocking_client_sends_its_key(guarded: Guarded) -> None:
    key = await make_account(guarded.accounts, "bora", "bot")

    def play() -> str:
        with Client.connect(guarded.svc.target, key=key) as client:
            return client.create_table(table_config(seed=5)).table_id

    assert await asyncio.to_thread(play)


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs openssl")
async def test_on_tls_the_key_goes_as_call_credentials(
    tmp_path: Path, redis_store: RedisStore
) -> None:
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key",
         "-out", "server.pem", "-days", "2", "-subj", "/CN=localhost",
         "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
        cwd=tmp_path, check=True, capture_output=True,
    )  # fmt: skip
    store = redis_store
    accounts = RedisAccounts(redis_store.client)
    settings = Settings(
        tls_cert=str(tmp_path / "server.pem"),
        tls_key=str(tmp_path / "server.key"),
        auth=AuthPolicy(mode=REQUIRED),
    )
    server = create_server(store, settings, accounts=accounts)
    await server.start()
    try:
        key = new_key()
        assert await accounts.create(Account("ana", "player", now_ms()), key_hash(key))
        tls = Tls(root_certificates=tmp_path / "server.pem", server_name="localhost")
        target = f"127.0.0.1:{server.port}"
        async with AsyncClient.connect(target, tls=tls, key=key) as client:
            assert (await client.create_table(table_config(seed=5))).table_id
        async with AsyncClient.connect(target, tls=tls) as anonymous:
            with pytest.raises(AuthenticationError):
                await anonymous.create_table(table_config(seed=5))
    finally:
        await server.stop(0)
