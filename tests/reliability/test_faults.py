"""Faults against real processes: after each, no acknowledged move is lost, none is applied
twice, every table's sequence is 1, 2, 3..., and every match can be finished and replayed.

Tables play to a target of 1 point (one hand, 48 moves) to keep the suite short.
"""

from __future__ import annotations

import asyncio
import random
import signal
from pathlib import Path

import grpc
import pytest
from kafana.v1 import rules_pb2, service_pb2, state_pb2
from kafana.v1.service_pb2_grpc import KafanaServiceStub

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


def table_config(seed: int) -> rules_pb2.TableConfig:
    """A 2-player serbian table played to 1 point: one hand."""
    return config(seed=seed, target=1)


def summary(fault: str, matches: list[Match], detail: str) -> str:
    """One line for `pytest -s`: what the fault did to the clients."""
    moves = sum(len(m.acked) for m in matches)
    failures = sum(m.failures for m in matches)
    duplicates = sum(m.duplicates for m in matches)
    return (
        f"{fault}: {len(matches)} matches, {moves} moves acknowledged and found, {detail}, "
        f"{failures} failed calls retried, {duplicates} retries answered 'already applied'"
    )


async def test_redis_runs_with_the_project_settings(redis: Redis) -> None:
    assert "appendfsync\nalways" in redis.cli("config", "get", "appendfsync")
    assert "appendonly\nyes" in redis.cli("config", "get", "appendonly")
    assert "maxmemory-policy\nnoeviction" in redis.cli("config", "get", "maxmemory-policy")


@pytest.mark.slow
async def test_sigkill_of_a_server_during_load(redis: Redis, tmp_path: Path) -> None:
    with serving(tmp_path, "--redis", redis.url, "--auth", "open", count=2) as (first, second):
        await asyncio.gather(healthy(first.target), healthy(second.target))
        async with (
            grpc.aio.insecure_channel(first.target) as channel_a,
            grpc.aio.insecure_channel(second.target) as channel_b,
        ):
            stubs = [KafanaServiceStub(channel_a), KafanaServiceStub(channel_b)]
            matches = [
                Match(await open_table(stubs[0], table_config(seed)), preferred=seed % 2)
                for seed in range(4)
            ]
            rngs = [random.Random(seed) for seed in range(len(matches))]

            async def kill_when_busy() -> int:
                while sum(len(m.acked) for m in matches) < 40:
                    await asyncio.sleep(0.005)
                first.signal(signal.SIGKILL)
                return sum(len(m.acked) for m in matches)

            killer = asyncio.create_task(kill_when_busy())
            await asyncio.gather(*(finish(stubs, m, r) for m, r in zip(matches, rngs, strict=True)))
            at_kill = await killer
            assert first.process.wait(timeout=10) == -signal.SIGKILL
            assert at_kill < sum(len(m.acked) for m in matches)  # killed mid-load
            assert sum(m.failures for m in matches) > 0  # calls really hit the dead process
            await check_records(stubs[1], matches)
            print(summary("SIGKILL of a server", matches, f"killed after {at_kill} moves"))


@pytest.mark.slow
async def test_redis_killed_and_restarted_mid_match(redis: Redis, tmp_path: Path) -> None:
    with serving(tmp_path, "--redis", redis.url, "--auth", "open") as (server,):
        await healthy(server.target)
        async with grpc.aio.insecure_channel(server.target) as channel:
            stubs = [KafanaServiceStub(channel)]
            matches = [Match(await open_table(stubs[0], table_config(seed))) for seed in (11, 12)]
            rngs = [random.Random(seed) for seed in (11, 12)]

            async def crash_redis() -> int:
                while sum(len(m.acked) for m in matches) < 30:
                    await asyncio.sleep(0.002)
                redis.kill()  # SIGKILL: only what was fsynced survives
                acked = sum(len(m.acked) for m in matches)
                await asyncio.sleep(0.5)  # calls meanwhile fail UNAVAILABLE and are retried
                await asyncio.to_thread(redis.start)  # same port, loads the AOF
                return acked

            crasher = asyncio.create_task(crash_redis())
            await asyncio.gather(*(finish(stubs, m, r) for m, r in zip(matches, rngs, strict=True)))
            acked_at_crash = await crasher
            assert 30 <= acked_at_crash < sum(len(m.acked) for m in matches)
            assert sum(m.failures for m in matches) > 0  # the outage was seen by the clients
            await check_records(stubs[0], matches)
            print(summary("Redis SIGKILL", matches, f"killed after {acked_at_crash} moves"))


async def test_without_the_aof_a_redis_crash_loses_the_tables(tmp_path: Path) -> None:
    """The control of the test above: the same crash without persistence loses the match."""
    volatile = Redis(tmp_path / "volatile", "--appendonly", "no")
    try:
        with serving(tmp_path, "--redis", volatile.url, "--auth", "open") as (server,):
            await healthy(server.target)
            async with grpc.aio.insecure_channel(server.target) as channel:
                stubs = [KafanaServiceStub(channel)]
                match = Match(await open_table(stubs[0], table_config(41)))
                for _ in range(5):
                    assert await step(stubs, match, random.Random(41))
                volatile.kill()
                await asyncio.to_thread(volatile.start)
                request = service_pb2.GetTableRequest(table_id=match.table.table_id)
                for _ in range(100):
                    try:
                        await stubs[0].GetTable(request, timeout=2)
                    except grpc.aio.AioRpcError as error:
                        if error.code() == grpc.StatusCode.NOT_FOUND:
                            return
                        assert error.code() == grpc.StatusCode.UNAVAILABLE
                    await asyncio.sleep(0.05)
                raise AssertionError("the table survived a crash without persistence")
    finally:
        volatile.close()


async def test_client_disconnects_mid_move_and_retries(redis: Redis, tmp_path: Path) -> None:
    with serving(tmp_path, "--redis", redis.url, "--auth", "open") as (server,):
        await healthy(server.target)
        async with grpc.aio.insecure_channel(server.target) as channel:
            stub = KafanaServiceStub(channel)
            match = Match(await open_table(stub, table_config(21)))
            rng = random.Random(21)
            tid = match.table.table_id
            cut = 0
            while True:
                state = await stub.GetState(service_pb2.GetStateRequest(table_id=tid))
                if state.info.status == state_pb2.TABLE_STATUS_FINISHED:
                    break
                md = seat_md(match.table.tokens[state.current_seat])
                legal = await stub.GetLegalMoves(
                    service_pb2.GetLegalMovesRequest(table_id=tid), metadata=md
                )
                request = service_pb2.PlayMoveRequest(
                    table_id=tid,
                    move=state_pb2.Move(text=rng.choice(list(legal.moves)).text),
                    client_move_id=f"move-{legal.seq}",
                    last_seq=legal.seq,
                )
                # A client on its own connection sends the move and hangs up after 0-4 ms:
                # the server may or may not have applied it.
                async with grpc.aio.insecure_channel(server.target) as doomed:
                    await doomed.channel_ready()
                    attempt = KafanaServiceStub(doomed).PlayMove(request, metadata=md)
                    await asyncio.sleep(rng.choice([0, 0.0005, 0.001, 0.002, 0.004]))
                    if attempt.cancel():
                        cut += 1
                    else:
                        acknowledge(match, request, await attempt)  # it answered first
                # It reconnects and sends the same request again: applied once, same answer.
                retried = await stub.PlayMove(request, metadata=md)
                acknowledge(match, request, retried)
            assert cut > 0
            assert match.duplicates > 0  # some retries found their move already applied
            await check_records(stub, [match])
            print(summary("hang-ups", [match], f"{cut} calls cut"))


@pytest.mark.slow
async def test_stalled_server_past_the_client_deadline(redis: Redis, tmp_path: Path) -> None:
    with serving(tmp_path, "--redis", redis.url, "--auth", "open", count=2) as (stalled, other):
        await asyncio.gather(healthy(stalled.target), healthy(other.target))
        async with (
            grpc.aio.insecure_channel(stalled.target) as channel_a,
            grpc.aio.insecure_channel(other.target) as channel_b,
        ):
            stub_a, stub_b = KafanaServiceStub(channel_a), KafanaServiceStub(channel_b)
            match = Match(await open_table(stub_a, table_config(31)))
            rng = random.Random(31)
            tid = match.table.table_id
            outcomes = []
            for pause_after in (None, 0.0, 0.005):
                for _ in range(3):
                    assert await step([stub_a], match, rng)
                state = await stub_b.GetState(service_pb2.GetStateRequest(table_id=tid))
                md = seat_md(match.table.tokens[state.current_seat])
                legal = await stub_b.GetLegalMoves(
                    service_pb2.GetLegalMovesRequest(table_id=tid), metadata=md
                )
                request = service_pb2.PlayMoveRequest(
                    table_id=tid,
                    move=state_pb2.Move(text=rng.choice(list(legal.moves)).text),
                    client_move_id=f"stall-{legal.seq}",
                    last_seq=legal.seq,
                )
                if pause_after is None:
                    stalled.signal(signal.SIGSTOP)  # stalled before the request arrives
                    call = stub_a.PlayMove(request, timeout=0.5, metadata=md)
                else:
                    call = stub_a.PlayMove(request, timeout=0.5, metadata=md)
                    await asyncio.sleep(pause_after)
                    stalled.signal(signal.SIGSTOP)  # stalled while (maybe) applying it
                try:
                    acknowledge(match, request, await call)
                    outcomes.append("answered")
                except grpc.aio.AioRpcError as error:
                    assert error.code() == grpc.StatusCode.DEADLINE_EXCEEDED
                    outcomes.append("deadline")
                # The client gives up on the stalled process and retries elsewhere.
                retried = await stub_b.PlayMove(request, timeout=5, metadata=md)
                acknowledge(match, request, retried)
                for _ in range(2):  # the table moves on while the process is stopped
                    assert await step([stub_b], match, rng)
                stalled.signal(signal.SIGCONT)  # it wakes up with the old request in hand
                await healthy(stalled.target)
            assert "deadline" in outcomes
            await finish([stub_a, stub_b], match, rng)
            await check_records(stub_a, [match])
            await check_records(stub_b, [match])
            print(summary("SIGSTOP", [match], f"first answers: {outcomes}"))
