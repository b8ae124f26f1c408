"""A rolling restart: three `kafana serve` processes on one Redis, each drained (SIGTERM: its
health says NOT_SERVING, then it stops) and started again in turn while SDK bots play on several
tables through one round-robin address list. 0 moves lost, 0 applied twice, every client
resumed: every match the bots began ends, and its record replays to exactly what they were told.
"""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc  # type: ignore[import-untyped]
from kafana_client import AsyncClient
from kafana_client.errors import RpcError
from kit import Served, healthy, serve
from reliability.reliability_support import Redis

from .ops_support import BotMatch, connect, open_match, play_match

PROCESSES = 3
PLAYERS = 4  # bot pairs, each playing match after match until the roll is over
SERVICE = "kafana.v1.KafanaService"


async def drain(served: Served) -> list[int]:
    """SIGTERM `served` and wait for it to exit; the health statuses it sent meanwhile."""
    async with grpc.aio.insecure_channel(served.target) as channel:
        watch = health_pb2_grpc.HealthStub(channel).Watch(
            health_pb2.HealthCheckRequest(service=SERVICE)
        )
        statuses = [(await watch.read()).status]
        served.signal(signal.SIGTERM)
        try:
            while (answer := await watch.read()) is not grpc.aio.EOF:
                statuses.append(answer.status)
                if answer.status == health_pb2.HealthCheckResponse.NOT_SERVING:
                    break  # drained: this stream must not hold the stop for its grace
        except grpc.aio.AioRpcError:
            pass  # the process stopped
        watch.cancel()
    assert await asyncio.to_thread(served.process.wait, 30) == 0, served.output()
    return statuses


async def keep_playing(client: AsyncClient, player: int, rolled: asyncio.Event) -> list[BotMatch]:
    """Matches one after another until the roll is over (a table that cannot be set up during
    a restart is left, and another made)."""
    done: list[BotMatch] = []
    seed = player * 1000
    while not rolled.is_set():
        seed += 1
        try:
            match = await open_match(client, seed)
        except RpcError as error:  # CreateTable and JoinTable are not retried by the SDK
            if not error.retryable:
                raise
            await asyncio.sleep(0.2)
            continue
        done.append(await play_match(match, seed, reconnects=50, delay=0.01))
    return done


async def test_rolling_restart_loses_nothing(tmp_path: Path) -> None:
    redis = Redis(tmp_path / "redis")
    args = ("--grace", "3", "--redis", redis.url, "--auth", "open")
    processes = [serve(tmp_path, *args) for _ in range(PROCESSES)]
    ports = [p.port for p in processes]  # each bound its own; a restart takes it again
    rolled = asyncio.Event()
    try:
        await asyncio.gather(*(healthy(p.target) for p in processes))
        addresses = "ipv4:" + ",".join(f"127.0.0.1:{port}" for port in ports)
        async with connect(addresses, round_robin=True) as client:
            players = [asyncio.create_task(keep_playing(client, n, rolled)) for n in range(PLAYERS)]
            await asyncio.sleep(2.0)  # every pair is mid-match
            drains = []
            for i, port in enumerate(ports):
                drains.append(await drain(processes[i]))
                processes[i] = serve(tmp_path / f"again-{i}", *args, port=port)
                await healthy(processes[i].target)
                await asyncio.sleep(1.0)  # calls reach the new process
            rolled.set()
            played = await asyncio.wait_for(asyncio.gather(*players), 180)
    finally:
        for process in processes:
            process.end()
        redis.close()

    for statuses in drains:  # SERVING, then NOT_SERVING before the process went away
        assert statuses[0] == health_pb2.HealthCheckResponse.SERVING
        assert health_pb2.HealthCheckResponse.NOT_SERVING in statuses[1:], statuses
    matches = [m for mine in played for m in mine]
    for match in matches:
        match.check()  # 0 lost, 0 applied twice, seqs 1..n, the record replays
    moves = sum(len(m.told) for m in matches)
    duplicates = sum(s.duplicates for m in matches for s in m.seats)
    assert all(len(mine) >= 2 for mine in played)  # every pair played on through the roll
    print(
        f"rolling restart of {PROCESSES} processes: {len(matches)} matches, {moves} moves "
        f"acknowledged and found, {duplicates} retries answered 'already applied'"
    )
