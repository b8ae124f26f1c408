"""A lane's watchdog runs only while commands wait: an idle process is not woken for it, and
a server that goes mute after an idle stretch still fails the calls within the timeout."""

from __future__ import annotations

import asyncio
import time

import pytest
from kafana.store.client import parse_url
from kafana.store.errors import StoreUnavailable
from kafana.store.lane import Address, Lane
from kafana.store.resp import pack


async def test_no_timer_while_nothing_waits(redis_url: str) -> None:
    address = parse_url(redis_url)[1]
    lane = Lane(Address(host=address.host, port=address.port, timeout=0.2))
    try:
        assert await lane.call(pack("PING")) == b"PONG"
        protocol = lane._protocol
        assert protocol is not None
        await asyncio.sleep(0.1)  # the timer armed by the call fires once, finds none waiting
        assert protocol._watchdog is None
        assert await lane.calls([pack("PING"), pack("PING")]) == [b"PONG", b"PONG"]
        await asyncio.sleep(0.1)
        assert protocol._watchdog is None
    finally:
        await lane.close()


async def test_a_server_mute_after_an_idle_stretch_fails_the_calls_in_time() -> None:
    answering = True

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while data := await reader.read(65536):
            if answering:
                writer.write(b"+PONG\r\n" * data.count(b"PING"))

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    async with server:
        port = server.sockets[0].getsockname()[1]
        lane = Lane(Address(port=port, timeout=0.4))
        assert await lane.call(pack("PING")) == b"PONG"
        await asyncio.sleep(0.5)  # idle: no timer
        answering = False
        started = time.monotonic()
        with pytest.raises(StoreUnavailable, match=r"did not answer within 0\.4 s"):
            await lane.call(pack("PING"))
        assert 0.35 < time.monotonic() - started < 1.0
        await lane.close()
