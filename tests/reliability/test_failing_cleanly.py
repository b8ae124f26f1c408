"""Failing fast and cleanly: a mute Redis fails calls within about 2 s and health says so, an
outage writes a bounded number of log lines, and `kafana serve` refuses an address it cannot
have (a port in use, an invalid port, a host not of this machine) with one line."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import time
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from kafana.v1 import rules_pb2, service_pb2
from kafana.v1.service_pb2_grpc import KafanaServiceStub
from kit import KAFANA

from .reliability_support import Redis, config, healthy, open_table, serving

NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


async def health_of(channel: grpc.aio.Channel) -> int:
    stub = health_pb2_grpc.HealthStub(channel)
    answer = await stub.Check(
        health_pb2.HealthCheckRequest(service="kafana.v1.KafanaService"), timeout=2
    )
    return int(answer.status)


async def until_health(channel: grpc.aio.Channel, status: int, timeout: float) -> float:
    """Seconds until health reports `status` (fails after `timeout`)."""
    loop = asyncio.get_running_loop()
    started = loop.time()
    while loop.time() - started < timeout:
        if await health_of(channel) == status:
            return loop.time() - started
        await asyncio.sleep(0.1)
    raise AssertionError(f"health did not become {status} within {timeout} s")


def pid_of(redis: Redis) -> int:
    assert redis.process is not None
    return redis.process.pid


async def test_a_mute_redis_fails_calls_within_seconds_and_health_says_so(
    redis: Redis, tmp_path: Path
) -> None:
    with serving(tmp_path, "--redis", redis.url, "--auth", "open") as (served,):
        await healthy(served.target)
        async with grpc.aio.insecure_channel(served.target) as channel:
            stub = KafanaServiceStub(channel)
            table = await open_table(stub, config(seed=61))
            request = service_pb2.GetStateRequest(table_id=table.table_id)
            os.kill(pid_of(redis), signal.SIGSTOP)
            try:
                took_each = []
                for _ in range(2):  # on the connection it had, then on a new one
                    started = time.monotonic()
                    with pytest.raises(grpc.aio.AioRpcError) as refused:
                        await stub.GetState(request, timeout=30)
                    took = time.monotonic() - started
                    assert refused.value.code() == grpc.StatusCode.UNAVAILABLE
                    assert took < 3.5, took  # the store's 2 s, not the client's deadline
                    took_each.append(took)
                unhealthy = await until_health(channel, NOT_SERVING, timeout=5)
            finally:
                os.kill(pid_of(redis), signal.SIGCONT)
            started = time.monotonic()
            await healthy(served.target, timeout=10)  # SERVING again
            print(
                "Redis SIGSTOPped: UNAVAILABLE after "
                + ", ".join(f"{t:.2f}" for t in took_each)
                + f" s, NOT_SERVING {unhealthy:.2f} s later; SERVING"
                f" {time.monotonic() - started:.2f} s after SIGCONT"
            )
            state = await stub.GetState(request, timeout=5)
            assert state.seq == table.seq


async def test_a_redis_outage_writes_a_bounded_number_of_log_lines(
    redis: Redis, tmp_path: Path
) -> None:
    with serving(tmp_path, "--redis", redis.url, "--auth", "open") as (served,):
        await healthy(served.target)
        async with grpc.aio.insecure_channel(served.target) as channel:
            stub = KafanaServiceStub(channel)
            for seed in (62, 63, 64):  # clocked tables: the sweeper has work every tick
                await open_table(stub, config(seed=seed, move_millis=200))
            before = len(served.output().splitlines())
            redis.kill()
            await asyncio.sleep(4)
            early = len(served.output().splitlines())
            await asyncio.sleep(4)
            late = len(served.output().splitlines())
            calls = [stub.GetState(service_pb2.GetStateRequest(table_id="x"), timeout=5)]
            for call in calls:  # calls that fail log no line each either
                with pytest.raises(grpc.aio.AioRpcError):
                    await call
            redis.start()
            await healthy(served.target, timeout=15)
    out = served.output()
    lines = out.splitlines()
    outage = lines[before:]
    print(f"Redis down 8 s: {early - before} log lines in the first 4 s, {late - early} after")
    # About 80 sweeps and 8 probes failed (a traceback every 100 ms before): each source
    # logs its first failure in one line (no traceback: the store is unavailable, as
    # expected), then one line per 30 s, and one line when it works again.
    assert early - before <= 10, "\n".join(outage)
    assert late - early <= 2, "\n".join(lines[early:late])
    assert "clock sweep failed" in out and "works again" in out
    assert "Traceback" not in "\n".join(outage), out


def kafana_serve(*args: str) -> subprocess.CompletedProcess[str]:
    """`kafana serve ARGS` (--memory: a private redis-server), expected to refuse at once."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("KAFANA_")}
    return subprocess.run(
        [KAFANA, "serve", "--memory", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=environment,
    )


def refused_with(answer: subprocess.CompletedProcess[str], status: int, words: str) -> None:
    assert answer.returncode == status, (answer.returncode, answer.stdout, answer.stderr)
    assert answer.stderr.strip().splitlines() == [answer.stderr.strip()], answer.stderr
    assert answer.stderr.startswith("kafana serve: ") and words in answer.stderr, answer.stderr
    assert "serving" not in answer.stdout


async def test_serve_refuses_a_port_in_use(tmp_path: Path) -> None:
    with serving(tmp_path, "--memory") as (first,):
        await healthy(first.target)
        refused_with(kafana_serve("--port", str(first.port)), 3, "taken")
    with serving(tmp_path, "--memory", "--reuse-port") as (first,):
        await healthy(first.target)
        second = subprocess.Popen(  # sharing on purpose: both ask for it
            [KAFANA, "serve", "--memory", "--reuse-port", "--port", str(first.port)],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        try:
            assert second.stdout is not None
            deadline = time.monotonic() + 30
            line = b""
            while b"serving on port" not in line and time.monotonic() < deadline:
                line = second.stdout.readline()
                assert line, "the second server ended"
        finally:
            second.terminate()
            second.wait(timeout=30)


@pytest.mark.parametrize("port", ["99999", "-1", "65536"])
def test_serve_refuses_an_invalid_port(port: str) -> None:
    refused_with(kafana_serve("--port", port), 2, "is not a port")


def test_serve_refuses_a_host_it_cannot_have() -> None:
    refused_with(kafana_serve("--host", "10.255.255.1", "--port", "0"), 3, "cannot listen")
    refused_with(kafana_serve("--host", "no-such-host.invalid"), 2, "not a known address")


def test_the_clock_policy_of_the_tables_above_is_the_default_move() -> None:
    # The outage test relies on tables whose clock keeps the sweeper busy (no forfeit).
    assert config(seed=1, move_millis=200).clock.policy == rules_pb2.TIMEOUT_POLICY_DEFAULT_MOVE
