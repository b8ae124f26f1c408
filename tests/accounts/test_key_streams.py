"""A revoked or rotated key ends the streams it opened (issue "A server strangers cannot
stall": a revoked key's open WatchAccount stream kept delivering notices)."""

from __future__ import annotations

import asyncio
import time

import grpc
from kafana.service.auth import KEY_CHECK_S
from kafana.v1 import accounts_pb2, service_pb2

from .accounts_support import Guarded, bearer, make_account


async def ended_within(stream: grpc.aio.UnaryStreamCall, seconds: float) -> grpc.aio.AioRpcError:
    """The error the stream ends with (the test fails if it goes on for `seconds`)."""

    async def drain() -> None:
        async for _ in stream:
            pass

    try:
        await asyncio.wait_for(drain(), seconds)
    except grpc.aio.AioRpcError as error:
        return error
    raise AssertionError("the stream ended without an error")


async def test_a_revoked_key_ends_its_watch_account_stream(guarded: Guarded) -> None:
    key = await make_account(guarded.accounts, "ana", "player")
    stub = guarded.svc.stub
    stream = stub.WatchAccount(service_pb2.WatchAccountRequest(), metadata=bearer(key))
    spectator = stub.WatchAccount(
        service_pb2.WatchAccountRequest(),
        metadata=bearer(await make_account(guarded.accounts, "bora", "player")),
    )
    await asyncio.sleep(0.3)  # both open
    await guarded.stub.RevokeAccount(
        accounts_pb2.RevokeAccountRequest(name="ana"), metadata=guarded.operator
    )
    started = time.monotonic()
    error = await ended_within(stream, 5 * KEY_CHECK_S)
    assert error.code() == grpc.StatusCode.UNAUTHENTICATED
    assert "revoked or rotated" in (error.details() or "")
    assert time.monotonic() - started <= 2 * KEY_CHECK_S + 0.5
    assert not spectator.done()  # another account's stream goes on
    spectator.cancel()


async def test_a_rotated_key_ends_the_streams_of_the_old_key(guarded: Guarded) -> None:
    key = await make_account(guarded.accounts, "cane", "player")
    stub = guarded.svc.stub
    streams = [
        stub.WatchAccount(service_pb2.WatchAccountRequest(), metadata=bearer(key)) for _ in range(3)
    ]
    await asyncio.sleep(0.3)
    rotated = await guarded.stub.RotateKey(
        accounts_pb2.RotateKeyRequest(name="cane"), metadata=guarded.operator
    )
    for stream in streams:
        error = await ended_within(stream, 5 * KEY_CHECK_S)
        assert error.code() == grpc.StatusCode.UNAUTHENTICATED
    fresh = stub.WatchAccount(service_pb2.WatchAccountRequest(), metadata=bearer(rotated.key))
    await asyncio.sleep(2 * KEY_CHECK_S + 0.5)
    assert not fresh.done()  # the new key's stream holds
    fresh.cancel()
