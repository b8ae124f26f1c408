"""Health follows the store as a whole, not the one node named in `--redis`: a Redis Cluster
whose seed node died still serves (SERVING), and a cluster that says CLUSTERDOWN while the seed
answers does not (NOT_SERVING)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from grpc_health.v1 import health_pb2
from kafana.service.server import NOT_SERVING, SERVING
from kafana.store.redis_store import RedisStore
from kafana.v1 import service_pb2
from kit import CLUSTER_NODE, redis_cli, redis_cluster, redis_server, running

from .reliability_support import config

PROBE_S = 0.1


async def status_of(server: object) -> int:
    """What the server's health service says of Kafana now."""
    health = server.health  # type: ignore[attr-defined]
    answer = await health.Check(
        health_pb2.HealthCheckRequest(service="kafana.v1.KafanaService"), None
    )
    return int(answer.status)


async def holds(server: object, status: int, seconds: float) -> None:
    """Health says `status` throughout `seconds` (sampled every probe)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert await status_of(server) == status
        await asyncio.sleep(PROBE_S)


async def becomes(server: object, status: int, within: float) -> None:
    """Health says `status` within `within` seconds."""
    deadline = time.monotonic() + within
    while await status_of(server) != status:
        assert time.monotonic() < deadline, f"health did not become {status}"
        await asyncio.sleep(PROBE_S)


async def test_health_follows_the_cluster_not_its_seed_node(tmp_path: Path) -> None:
    # The seed: a node of the cluster that holds no slot, so losing it loses no data.
    with redis_cluster(tmp_path) as ports, redis_server(tmp_path / "seed", *CLUSTER_NODE) as seed:
        redis_cli(ports[0], "cluster", "meet", "127.0.0.1", str(seed.port))
        deadline = time.monotonic() + 20
        while not all(
            "cluster_known_nodes:4" in redis_cli(p, "cluster", "info")
            and "cluster_state:ok" in redis_cli(p, "cluster", "info")
            for p in (*ports, seed.port)
        ):
            assert time.monotonic() < deadline, "the seed did not join the cluster"
            await asyncio.sleep(0.1)
        store = RedisStore.from_url(f"redis+cluster://127.0.0.1:{seed.port}")
        try:
            async with running(store) as svc:
                kafana = svc.server
                kafana.probe_s = PROBE_S
                await svc.stub.CreateTable(service_pb2.CreateTableRequest(config=config()))
                await becomes(kafana, SERVING, 5)
                seed.kill()  # the node of --redis is gone; the cluster serves on
                await holds(kafana, SERVING, 3)
                created = await svc.stub.CreateTable(
                    service_pb2.CreateTableRequest(config=config())
                )
                assert created.table_id
                # A primary with slots dies: the others still answer, but say
                # cluster_state:fail (CLUSTERDOWN) once it has timed out.
                redis_cli(ports[2], "shutdown", "nosave")
                await becomes(kafana, NOT_SERVING, 15)
        finally:
            await store.close()


async def test_clusterdown_while_the_seed_answers_is_not_serving(tmp_path: Path) -> None:
    with redis_cluster(tmp_path) as ports:
        store = RedisStore.from_url(f"redis+cluster://127.0.0.1:{ports[0]}")
        try:
            async with running(store) as svc:
                kafana = svc.server
                kafana.probe_s = PROBE_S
                await becomes(kafana, SERVING, 5)
                redis_cli(ports[1], "shutdown", "nosave")  # the seed still answers PING
                await becomes(kafana, NOT_SERVING, 15)
        finally:
            await store.close()
