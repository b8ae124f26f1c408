"""A batch of commands whose connection is lost fails once: no "Future exception was never
retrieved" for each of its other commands (an outage logged 16 such lines from one sweep)."""

from __future__ import annotations

import asyncio
import gc
from typing import Any

import pytest
from kafana.store.errors import StoreUnavailable
from kafana.store.lane import Address, Lane
from kafana.store.resp import pack


async def test_a_lost_batch_raises_once_and_leaves_no_unread_failure() -> None:
    loop = asyncio.get_running_loop()
    unread: list[dict[str, Any]] = []
    loop.set_exception_handler(lambda _loop, context: unread.append(context))

    async def drop(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read(1)  # the batch arrived: close without a reply
        writer.close()

    server = await asyncio.start_server(drop, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    lane = Lane(Address(port=port))
    try:
        with pytest.raises(StoreUnavailable):
            await lane.calls([pack("GET", f"k{i}") for i in range(17)])
        await asyncio.sleep(0.05)  # the done callbacks run
        gc.collect()  # a failed future nobody read logs when it is collected
        await asyncio.sleep(0)
    finally:
        await lane.close()
        server.close()
        await server.wait_closed()
        loop.set_exception_handler(None)
    assert [c.get("message") for c in unread] == []
