"""`kafana serve` as real processes: SIGKILL mid-match, SIGTERM, the embedded default store."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from kafana.games import tablic
from kafana.v1 import service_pb2
from kafana.v1.service_pb2_grpc import KafanaStub
from kafana_play import Table, config, open_table, play_one, play_to_end, take_events
from kit import free_port

KAFANA = str(Path(sys.executable).parent / "kafana")


@contextmanager
def serve(
    *args: str, env: dict[str, str] | None = None
) -> Iterator[tuple[subprocess.Popen[str], int]]:
    """Run `kafana serve` on a free port; kill it at the end if still running."""
    port = free_port()
    environment = {k: v for k, v in os.environ.items() if not k.startswith("KAFANA_")}
    environment.update(env or {})
    process = subprocess.Popen(
        [KAFANA, "serve", "--port", str(port), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=environment,
    )
    try:
        yield process, port
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


async def healthy(port: int, timeout: float = 20) -> None:
    """Wait until the health service says SERVING."""
    deadline = asyncio.get_running_loop().time() + timeout
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        while asyncio.get_running_loop().time() < deadline:
            try:
                answer = await stub.Check(
                    health_pb2.HealthCheckRequest(service="kafana.v1.Kafana"), timeout=1
                )
                if answer.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.aio.AioRpcError:
                pass
            await asyncio.sleep(0.1)
    raise AssertionError(f"no healthy server on port {port}")


async def test_sigkill_mid_match_then_finish_on_another_process(redis_url: str) -> None:
    rng = random.Random(41)
    with (
        serve("--redis", redis_url) as (first, port_a),
        serve(env={"KAFANA_REDIS": redis_url}) as (second, port_b),
    ):
        await asyncio.gather(healthy(port_a), healthy(port_b))
        async with (
            grpc.aio.insecure_channel(f"127.0.0.1:{port_a}") as channel_a,
            grpc.aio.insecure_channel(f"127.0.0.1:{port_b}") as channel_b,
        ):
            stub_a, stub_b = KafanaStub(channel_a), KafanaStub(channel_b)
            table: Table = await open_table(stub_a, config(seed=41))
            for i in range(40):  # both processes serve the same table at once
                await play_one(stub_a if i % 2 else stub_b, table, rng)
            first.send_signal(signal.SIGKILL)
            first.wait()
            state = await stub_b.GetState(service_pb2.GetStateRequest(table_id=table.table_id))
            assert state.seq == table.seq and state.tablic.move_count == 40
            await play_to_end(stub_b, table, rng)
            record = await stub_b.GetRecord(service_pb2.GetRecordRequest(table_id=table.table_id))
            events = await take_events(stub_b, table.table_id, 0, table.seq)
        second.send_signal(signal.SIGTERM)
        out, _ = second.communicate(timeout=20)
        assert second.returncode == 0, out
        assert "shutting down" in out
    assert [e.seq for e in events] == list(range(1, table.seq + 1))
    assert tablic.MatchRecord.from_text(record.record).replay().is_over
    assert record.result.reason == "score"


async def test_embedded_default_store_is_announced() -> None:
    with serve() as (process, port):
        await healthy(port)
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = KafanaStub(channel)
            table = await open_table(stub, config(seed=42))
            await play_to_end(stub, table, random.Random(42))
        process.send_signal(signal.SIGTERM)
        out, _ = process.communicate(timeout=20)
    assert process.returncode == 0
    assert "store: private redis-server on 127.0.0.1:" in out
    with serve("--memory") as (process, port):
        await healthy(port)
        process.send_signal(signal.SIGTERM)
        out, _ = process.communicate(timeout=20)
    assert process.returncode == 0 and "store: in-process memory" in out
