"""`kafana serve --durability replicated`: a move is acknowledged only once a replica has it
(`WAIT 1`), so promoting that replica after the primary dies loses no acknowledged move."""

from __future__ import annotations

import asyncio
import os
import random
import time
import uuid
from pathlib import Path
from signal import SIGCONT, SIGSTOP

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from kafana.store.keys import table_keys
from kafana.v1 import service_pb2, state_pb2
from kafana.v1.service_pb2_grpc import KafanaServiceStub
from kit import refusal

from .reliability_support import (
    Match,
    Redis,
    acknowledge,
    check_records,
    config,
    finish,
    healthy,
    open_table,
    seat_md,
    serving,
    step,
)


def replica_of(primary: Redis, directory: Path) -> Redis:
    """A replica of `primary` with the project's settings, once its link is up."""
    replica = Redis(directory, "--replicaof", "127.0.0.1", str(primary.port))
    deadline = time.monotonic() + 20
    while "master_link_status:up" not in replica.cli("info", "replication"):
        assert time.monotonic() < deadline, "the replica did not sync"
        time.sleep(0.05)
    return replica


def seq_at(server: Redis, table_id: str) -> int:
    """The table's seq as `server` holds it (0: not there)."""
    return int(server.cli("hget", table_keys(table_id).state, "seq").strip() or 0)


async def health_of(target: str) -> int:
    """The health service's answer for Kafana at `target`."""
    async with grpc.aio.insecure_channel(target) as channel:
        answer = await health_pb2_grpc.HealthStub(channel).Check(
            health_pb2.HealthCheckRequest(service="kafana.v1.KafanaService"), timeout=5
        )
        return int(answer.status)


@pytest.mark.slow
async def test_replicated_moves_survive_a_failover_to_the_replica(
    redis: Redis, tmp_path: Path
) -> None:
    replica = replica_of(redis, tmp_path / "replica")
    rng = random.Random(3)
    try:
        args = ("--redis", redis.url, "--auth", "open", "--durability", "replicated")
        with serving(tmp_path, *args) as (server,):
            await healthy(server.target)
            async with grpc.aio.insecure_channel(server.target) as channel:
                stubs = [KafanaServiceStub(channel)]
                match = Match(await open_table(stubs[0], config(seed=21)))
                tid = match.table.table_id
                assert seq_at(replica, tid) == match.table.seq  # creating and joining waited too
                for _ in range(12):
                    assert await step(stubs, match, rng)
                    assert seq_at(replica, tid) == max(match.acked)  # on the replica when acked

                # The replica stops answering: a move is applied on the primary but not
                # acknowledged; once the replica is back, its retry is acknowledged, once.
                state = await stubs[0].GetState(service_pb2.GetStateRequest(table_id=tid))
                token = match.table.tokens[state.current_seat]
                legal = await stubs[0].GetLegalMoves(
                    service_pb2.GetLegalMovesRequest(table_id=tid), metadata=seat_md(token)
                )
                request = service_pb2.PlayMoveRequest(
                    table_id=tid,
                    move=state_pb2.Move(text=legal.moves[0].text),
                    client_move_id=uuid.uuid4().hex,
                    last_seq=legal.seq,
                )
                assert replica.process is not None
                os.kill(replica.process.pid, SIGSTOP)
                try:
                    started = time.monotonic()
                    error = await refusal(
                        stubs[0].PlayMove(request, timeout=10, metadata=seat_md(token))
                    )
                    assert error.code() == grpc.StatusCode.UNAVAILABLE, error
                    assert time.monotonic() - started < 5
                finally:
                    os.kill(replica.process.pid, SIGCONT)
                played = await stubs[0].PlayMove(request, timeout=10, metadata=seat_md(token))
                assert played.duplicate
                acknowledge(match, request, played)
                for _ in range(6):
                    assert await step(stubs, match, rng)
                acked = max(match.acked)
            # The primary dies; the replica is promoted; nothing acknowledged is missing.
            redis.kill()
            replica.cli("replicaof", "no", "one")
            assert seq_at(replica, tid) == acked
        with serving(tmp_path / "after", "--redis", replica.url, "--auth", "open") as (after,):
            await healthy(after.target)
            async with grpc.aio.insecure_channel(after.target) as channel:
                stubs = [KafanaServiceStub(channel)]
                await finish(stubs, match, rng)
                await check_records(stubs[0], [match])
    finally:
        replica.close()


async def test_replicated_without_a_replica_is_not_serving(redis: Redis, tmp_path: Path) -> None:
    """No replica, no acknowledged write: health says so, and a write is refused in time."""
    args = ("--redis", redis.url, "--auth", "open", "--durability", "replicated")
    with serving(tmp_path, *args) as (server,):
        server.wait_started()
        deadline = time.monotonic() + 10
        while await health_of(server.target) != health_pb2.HealthCheckResponse.NOT_SERVING:
            assert time.monotonic() < deadline, "health still says SERVING"
            await asyncio.sleep(0.1)
        async with grpc.aio.insecure_channel(server.target) as channel:
            error = await refusal(
                KafanaServiceStub(channel).CreateTable(
                    service_pb2.CreateTableRequest(config=config()), timeout=10
                )
            )
            assert error.code() == grpc.StatusCode.UNAVAILABLE
        assert "has no replica connected" in server.output()  # the health probe's log line
