"""The service's server serves Kafana alone; the full server plugs Competitions in."""

from __future__ import annotations

import grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from kafana.competitions.server import create_server as full_server
from kafana.service.server import KafanaServer, create_server
from kafana.store.redis_store import RedisStore
from kafana_client import AsyncClient
from kafana_client.tournaments import Tournaments


async def services(server: KafanaServer) -> set[str]:
    """The services the server lists by reflection."""
    names: set[str] = set()
    async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
        stub = reflection_pb2_grpc.ServerReflectionStub(channel)
        request = reflection_pb2.ServerReflectionRequest(list_services="")
        async for answer in stub.ServerReflectionInfo(iter([request])):
            names |= {s.name for s in answer.list_services_response.service}
    return names


async def test_competitions_are_a_plug_in_of_the_full_server(redis_store: RedisStore) -> None:
    alone, full = create_server(redis_store), full_server(redis_store)
    for server in (alone, full):
        await server.start()
    try:
        assert "kafana.v1.CompetitionsService" not in await services(alone)
        assert {"kafana.v1.KafanaService", "kafana.v1.CompetitionsService"} <= await services(full)
        async with AsyncClient.connect(f"127.0.0.1:{full.port}") as client:
            made = await Tournaments(client).create("plugged", "round_robin")
            assert made.event_id
    finally:
        for server in (alone, full):
            await server.stop(0.5)
