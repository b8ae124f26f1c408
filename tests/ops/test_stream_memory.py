"""Memory per idle event stream, for sizing (docs/operations.md): one `kafana serve` process, N
WatchEvents streams open on a waiting table, the resident memory it grew by, divided by N."""

from __future__ import annotations

import asyncio
from pathlib import Path

import grpc
from kafana.v1 import service_pb2
from kafana.v1.service_pb2_grpc import KafanaServiceStub
from kafana_client import table_config
from kit import healthy

from .ops_support import Metered, serve_metered, value

WARM = 50
STREAMS = 1000
CHANNELS = 10
MOST_BYTES = 64 * 1024
"""An idle stream costs far less than this (a coroutine, an HTTP/2 stream, a queue)."""


async def streams_open(server: Metered, count: int) -> None:
    """Until the server says `count` WatchEvents streams are open."""
    seen = 0.0
    for _ in range(400):
        seen = value(server.scrape(), "kafana_streams_open", method="WatchEvents")
        if seen == count:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"{count} streams did not open ({seen:g} open)")


async def resident(server: Metered) -> float:
    """The process's resident memory, once a full collection has run (one a second)."""
    await asyncio.sleep(2.5)
    return value(server.scrape(), "process_resident_memory_bytes")


async def test_memory_per_idle_stream(redis_url: str, tmp_path: Path) -> None:
    server = serve_metered(tmp_path, "--redis", redis_url, "--auth", "open", "--max-streams", "0")
    # Each channel its own connection (channels share one by default): a server takes at most
    # 1,000 streams on one connection (kafana.service.resets).
    own = [("grpc.use_local_subchannel_pool", 1)]
    channels = [
        grpc.aio.insecure_channel(server.served.target, options=own) for _ in range(CHANNELS)
    ]
    calls = []
    try:
        await healthy(server.served.target)
        stubs = [KafanaServiceStub(c) for c in channels]
        made = await stubs[0].CreateTable(service_pb2.CreateTableRequest(config=table_config()))
        request = service_pb2.WatchEventsRequest(table_id=made.table_id)

        def open_streams(count: int) -> None:
            calls.extend(stubs[i % CHANNELS].WatchEvents(request) for i in range(count))

        open_streams(WARM)
        await streams_open(server, WARM)
        before = await resident(server)
        open_streams(STREAMS)
        await streams_open(server, WARM + STREAMS)
        after = await resident(server)
    finally:
        for call in calls:
            call.cancel()
        for channel in channels:
            await channel.close()
        server.served.end()

    per_stream = (after - before) / STREAMS
    print(f"{STREAMS} idle WatchEvents streams: {per_stream / 1024:.1f} KiB each (RSS)")
    assert 0 < per_stream < MOST_BYTES
