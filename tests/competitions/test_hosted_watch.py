"""WatchEntry streams: a bounded number per entrant, one poll of the event for all of them."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
from kafana.competitions.hosted.views import WATCHES_PER_ENTRY
from kafana.v1 import competitions_pb2 as pb
from kafana_client import AsyncClient
from kafana_client.tournaments import Tournaments
from kit import info_metadata, refusal
from redis.asyncio import Redis

from .hosted_helpers import Served


def _watch(stub: Any, event_id: str, token: str) -> Any:
    request = pb.WatchEntryRequest(event_id=event_id)
    return stub.WatchEntry(request, metadata=(("kafana-entry-token", token),))


async def _gets(redis: Redis) -> int:
    stats = await redis.info("commandstats")
    return int(stats.get("cmdstat_get", {}).get("calls", 0))


async def test_an_entrant_holds_few_streams_and_many_streams_cost_one_poll(
    hosted: Served, redis: Redis
) -> None:
    async with AsyncClient.connect(hosted.target) as client:
        events = Tournaments(client)
        stub = events._stub
        made = await events.create("watched", "swiss", target=11)
        entries = [await events.enter(made.event_id, f"p{i}") for i in range(20)]
        calls = []
        try:
            # Before: one entrant opened 500 streams; each read and parsed the event's
            # snapshot four times a second (server CPU 70-96%).
            for _ in range(WATCHES_PER_ENTRY):
                call = _watch(stub, made.event_id, entries[0].token)
                await asyncio.wait_for(call.read(), 10)
                calls.append(call)
            refused = await refusal(_watch(stub, made.event_id, entries[0].token).read())
            assert refused.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert info_metadata(refused)["quota"] == "watches_per_entry"
            calls.pop().cancel()
            await asyncio.sleep(0.5)  # the server sees the cancel
            again = _watch(stub, made.event_id, entries[0].token)
            await asyncio.wait_for(again.read(), 10)  # a place is free again
            calls.append(again)

            for entry in entries[1:]:  # 40 streams on one event
                for _ in range(WATCHES_PER_ENTRY):
                    call = _watch(stub, made.event_id, entry.token)
                    await asyncio.wait_for(call.read(), 10)
                    calls.append(call)
            assert len(calls) == 40
            before = await _gets(redis)
            await asyncio.sleep(2.0)
            reads = await _gets(redis) - before
            # one poll of the snapshot every 0.25 s for all of them: ~8 in 2 s, not ~320
            assert reads <= 20, reads
        finally:
            for call in calls:
                call.cancel()
