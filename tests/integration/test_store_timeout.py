"""A Redis that stops answering fails the store's calls within its timeout, not never."""

from __future__ import annotations

import asyncio
import time

import pytest
from kafana.store.client import RedisClient, parse_url
from kafana.store.errors import StoreUnavailable
from kafana.store.lane import TIMEOUT_S, Address, Lane
from kafana.store.resp import pack


async def mute_server() -> tuple[asyncio.Server, int, list[bytes]]:
    """A TCP server that reads every command and never answers (a stopped Redis, as seen
    from the client); its port and what it read."""
    heard: list[bytes] = []

    async def swallow(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while data := await reader.read(65536):
            heard.append(data)
        writer.close()

    server = await asyncio.start_server(swallow, "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[1], heard


def test_the_timeout_comes_from_the_url() -> None:
    assert parse_url("redis://h:1/0")[1].timeout == TIMEOUT_S == 2.0
    assert parse_url("redis://h:1/0?timeout=0.5")[1].timeout == 0.5
    assert parse_url("redis+cluster://h:1?timeout=0")[1].timeout == 0


async def test_calls_to_a_mute_server_fail_within_the_timeout() -> None:
    server, port, heard = await mute_server()
    async with server:
        lane = Lane(Address(port=port, timeout=0.4))
        started = time.monotonic()
        calls = [asyncio.create_task(lane.call(pack("PING"))) for _ in range(3)]
        for call in calls:  # every waiting call fails, not only the first
            with pytest.raises(StoreUnavailable, match=r"did not answer within 0\.4 s"):
                await call
        assert 0.35 < time.monotonic() - started < 1.0
        assert heard  # the commands were sent: the server did not answer
        with pytest.raises(StoreUnavailable):  # a new connection, just as mute
            await lane.call(pack("PING"))
        await lane.close()


async def test_a_slow_stream_of_replies_is_not_a_mute_server() -> None:
    """The watchdog measures the time without any reply, not the age of the oldest call."""
    answers = 0

    async def slow(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal answers
        while await reader.read(65536):
            for _ in range(6):  # every command's reply, one per 0.1 s: each within 0.3 s
                await asyncio.sleep(0.1)
                writer.write(b"+PONG\r\n")
                answers += 1
            await writer.drain()

    server = await asyncio.start_server(slow, "127.0.0.1", 0)
    async with server:
        port = server.sockets[0].getsockname()[1]
        client = RedisClient(Address(port=port, timeout=0.3))
        replies = await client.calls([("", pack("PING")) for _ in range(6)])  # 0.6 s in all
        assert replies == [b"PONG"] * 6 and answers == 6
        await client.close()
