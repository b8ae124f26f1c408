"""A failover that loses acknowledged writes, on a 3 + 3 Redis Cluster: the primary of a table
dies while its replica lags (stopped), and the replica is promoted.

With `--durability primary` (the control) the moves acknowledged while the replica lagged are
lost, and the table goes on from what the replica holds: no process plays on the lost history,
every record replays. With `--durability replicated` those moves are refused (`UNAVAILABLE`)
instead of acknowledged: 0 acknowledged moves lost, 0 doubled.
"""

from __future__ import annotations

import os
import random
import time
import uuid
from contextlib import ExitStack
from pathlib import Path
from signal import SIGCONT, SIGSTOP

import grpc
import pytest
from kafana.store.keys import table_keys
from kafana.store.redis_store import PRIMARY, REPLICATED, RedisStore
from kafana.v1 import service_pb2, state_pb2
from kafana.v1.service_pb2_grpc import KafanaServiceStub
from kit import Service, redis_cli, running

from .reliability_support import (
    Match,
    acknowledge,
    add_replica,
    caught_up,
    check_records,
    cluster_with_replicas,
    config,
    finish,
    open_table,
    seat_md,
    step,
)

LAGGING = 4  # moves tried while the replica is stopped


async def try_move(stub: KafanaServiceStub, match: Match, rng: random.Random) -> bool:
    """One attempt at the next move, no retry: True when acknowledged, False when UNAVAILABLE."""
    tid = match.table.table_id
    state = await stub.GetState(service_pb2.GetStateRequest(table_id=tid), timeout=10)
    token = match.table.tokens[state.current_seat]
    legal = await stub.GetLegalMoves(
        service_pb2.GetLegalMovesRequest(table_id=tid), metadata=seat_md(token), timeout=10
    )
    request = service_pb2.PlayMoveRequest(
        table_id=tid,
        move=state_pb2.Move(text=rng.choice(list(legal.moves)).text),
        client_move_id=uuid.uuid4().hex,
        last_seq=legal.seq,
    )
    try:
        played = await stub.PlayMove(request, metadata=seat_md(token), timeout=10)
    except grpc.aio.AioRpcError as error:
        assert error.code() == grpc.StatusCode.UNAVAILABLE, error
        return False
    acknowledge(match, request, played)
    return True


def promoted(replica_port: int, others: list[int], within: float = 60.0) -> None:
    """Until the replica is a primary and the cluster says ok again."""
    deadline = time.monotonic() + within
    while not (
        "role:master" in redis_cli(replica_port, "info", "replication")
        and all("cluster_state:ok" in redis_cli(p, "cluster", "info") for p in others)
    ):
        assert time.monotonic() < deadline, "the replica was not promoted"
        time.sleep(0.2)


@pytest.mark.slow
@pytest.mark.parametrize("durability", [PRIMARY, REPLICATED])
async def test_a_failover_with_a_lagging_replica(durability: str, tmp_path: Path) -> None:
    rng = random.Random(11)
    with cluster_with_replicas(tmp_path) as (ports, replicas):
        store = RedisStore.from_url(f"redis+cluster://127.0.0.1:{ports[0]}", durability=durability)
        try:
            async with running(store) as svc:
                stubs = [svc.stub]
                match = Match(await open_table(svc.stub, config(seed=31, target=1)))
                tid = match.table.table_id
                victim = ports.index((await store.client.node_of(table_keys(tid).state)).port)
                replica = replicas[victim]
                for _ in range(6):
                    assert await step(stubs, match, rng)
                assert replica.process is not None
                caught_up(ports[victim])  # it holds the six moves (a CI run: not even the table)
                # The replica lags from here on: stopped, its link cut (what it had received
                # it keeps; nothing more reaches it).
                os.kill(replica.process.pid, SIGSTOP)
                try:
                    redis_cli(ports[victim], "client", "kill", "type", "replica")
                    acked = [await try_move(svc.stub, match, rng) for _ in range(LAGGING)]
                    redis_cli(ports[victim], "shutdown", "nosave", "now")  # the primary dies
                finally:
                    os.kill(replica.process.pid, SIGCONT)
                promoted(replica.port, [p for i, p in enumerate(ports) if i != victim])
                with ExitStack() as stack:  # the operator replaces the lost node
                    add_replica(stack, tmp_path / "replacement", replica.port)
                    await after_failover(svc, match, durability, acked, replica.port, rng)
        finally:
            await store.close()


async def after_failover(
    svc: Service,
    match: Match,
    durability: str,
    acked: list[bool],
    promoted_port: int,
    rng: random.Random,
) -> None:
    """What the promoted replica holds of the table, then the match to its end: checked."""
    tid = match.table.table_id
    stubs = [svc.stub]
    held = int(redis_cli(promoted_port, "hget", table_keys(tid).state, "seq"))
    lost = {s: m for s, m in match.acked.items() if s > held}
    if durability == PRIMARY:  # the control: the window exists
        assert all(acked) and len(lost) == LAGGING, (acked, held, lost)
        match.acked = {s: m for s, m in match.acked.items() if s <= held}
    else:  # not acknowledged instead of lost
        assert not any(acked) and not lost, (acked, held, lost)
    await finish(stubs, match, rng)  # through CLUSTERDOWN and MOVED, retried
    await check_records(svc.stub, [match])  # 0 lost (of those kept), 0 doubled
    print(
        f"{durability}: {len(match.acked)} moves acknowledged in the end, "
        f"{len(lost)} acknowledged then lost, {acked.count(False)} refused"
    )
