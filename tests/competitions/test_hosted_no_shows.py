"""A Swiss whose entrants never show up: the server pairs every round and keeps answering."""

from __future__ import annotations

import asyncio
import itertools
import time

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from kafana.v1 import competitions_pb2 as pb
from kafana_client import AsyncClient
from kafana_client.tournaments import Tournaments

from .hosted_helpers import Served, games, until

ENTRANTS = 128


async def _health(target: str, stop: asyncio.Event) -> list[float]:
    """Ask the health service every 0.2 s until `stop`: when each SERVING answer came."""
    answered: list[float] = [time.monotonic()]
    async with grpc.aio.insecure_channel(target) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        request = health_pb2.HealthCheckRequest(service="kafana.v1.KafanaService")
        while not stop.is_set():
            try:
                answer = await stub.Check(request, timeout=5)
                if answer.status == health_pb2.HealthCheckResponse.SERVING:
                    answered.append(time.monotonic())
            except grpc.aio.AioRpcError:
                pass
            await asyncio.sleep(0.2)
    answered.append(time.monotonic())
    return answered


async def test_a_no_show_swiss_of_128_finishes_while_the_server_answers(hosted: Served) -> None:
    # Before: nobody connects, seat 0 forfeits every game, and the pairing of round 3 searched
    # without a bound on the event loop: the server stopped answering health checks for good.
    async with AsyncClient.connect(hosted.target) as client:
        events = Tournaments(client)
        made = await events.create("empty-hall", "swiss", target=11, disconnect_grace_ms=300)
        for i in range(ENTRANTS):
            await events.enter(made.event_id, f"ghost{i}")
        stop = asyncio.Event()
        health = asyncio.create_task(_health(hosted.target, stop))
        try:
            await events.start(made.event_id, made.organiser_token)

            async def get() -> pb.EventInfo:
                return await events.get(made.event_id)

            info = await until(get, lambda i: i.phase == pb.EVENT_PHASE_FINISHED, timeout=240)
        finally:
            stop.set()
            answered = await health
    assert len(info.rounds) == 7 and not info.end_detail
    assert len(games(info)) == 7 * ENTRANTS // 2
    met = [frozenset(g.seats) for g in games(info)]
    assert len(set(met)) == len(met)  # nobody met twice
    assert len(info.standings) == ENTRANTS
    # the server answered all along (on a machine shared with other test runs: a gap of a few
    # seconds may be the machine's; the old server never answered again)
    gaps = [b - a for a, b in itertools.pairwise(answered)]
    assert len(gaps) > 10 and max(gaps) < 15.0, sorted(gaps)[-5:]
