"""Remote bots: two bot processes play a whole match through a real server that restarts."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import click
import pytest
from kafana.cli.bot import load_factory
from kafana.games import tablic
from kafana.service.server import create_server
from kafana.service.settings import Settings
from kafana.store.redis_store import RedisStore
from kafana.v1 import state_pb2
from kafana_client.aio import AsyncClient
from kafana_client.convert import table_config
from kit import redis_server


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    """A private redis-server for this test (never the shared one)."""
    with redis_server(tmp_path / "redis") as redis:
        yield redis.url


async def _wait_seq(
    client: AsyncClient, table_id: str, seq: int, timeout: float
) -> state_pb2.TableState:
    deadline = time.monotonic() + timeout
    while True:
        state = await client.get_state(table_id)
        if state.seq >= seq or time.monotonic() > deadline:
            return state
        await asyncio.sleep(0.05)


def _bot_process(target: str, table_id: str, seat: int, spec: str) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "kafana.cli", "bot", "run", spec, "--server", target]
    command += ["--table", table_id, "--seat", str(seat), "--poll", "0.3", "--delay", "0.01"]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


async def test_remote_bots_play_a_match_through_a_server_restart(redis_url: str) -> None:
    server = create_server(RedisStore.from_url(redis_url), Settings(port=0, clock_tick=0.05))
    await server.start()
    port = server.port
    target = f"127.0.0.1:{port}"
    client = AsyncClient.connect(target)
    processes: list[subprocess.Popen[str]] = []
    try:
        created = await client.create_table(table_config(players=2, target=40, seed=9))
        table_id = created.table_id
        processes = [
            _bot_process(target, table_id, 0, "greedy"),
            _bot_process(target, table_id, 1, "kafana_bots.heuristic:HeuristicBot"),
        ]
        before = await _wait_seq(client, table_id, 30, timeout=60)
        assert before.info.status == state_pb2.TABLE_STATUS_PLAYING, "restart must be mid-match"
        await server.stop(0)
        await asyncio.sleep(1.0)  # the bots see the server gone
        server = create_server(RedisStore.from_url(redis_url), Settings(port=port, clock_tick=0.05))
        await server.start()
        for process in processes:
            try:
                out, err = await asyncio.to_thread(process.communicate, timeout=120)
            except subprocess.TimeoutExpired:
                process.kill()
                out, err = process.communicate()
                state = await client.get_state(table_id)
                pytest.fail(f"bot still running at seq {state.seq}:\n{out}\n{err}")
            assert process.returncode == 0, err
            assert "match over" in out
        record = await client.record(table_id)
        assert record.result.reason == state_pb2.RESULT_REASON_SCORE
        replayed = tablic.MatchRecord.from_text(record.record).replay()
        assert replayed.is_over and list(replayed.scores) == list(record.result.scores)
        assert len(record.events) > before.seq
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.wait()
        await client.close()
        await server.stop(0)


def test_load_factory_by_name_and_path() -> None:
    from kafana_bots.greedy import GreedyBot

    assert load_factory("greedy") is GreedyBot
    assert load_factory("kafana_bots.greedy:GreedyBot") is GreedyBot
    with pytest.raises(click.BadParameter, match=r"not a kafana_bots\.Bot"):
        load_factory("kafana_bots.greedy:greedy_value")
