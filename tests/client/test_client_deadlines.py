"""Deadlines: defaults per call, per-call overrides, and a stalled server or stream."""

from __future__ import annotations

import math
import time

import grpc
import pytest
from kafana_client import AsyncClient, Client, DeadlineExceededError, Deadlines, table_config

from .kafana_client_live import BlackHole, LiveServer


async def test_default_deadline_against_a_stalled_server(black_hole: BlackHole) -> None:
    async with AsyncClient.connect(black_hole.target, deadlines=Deadlines(default=0.3)) as client:
        started = time.monotonic()
        with pytest.raises(DeadlineExceededError) as error:
            await client.get_state("t")
        assert time.monotonic() - started < 3
        assert error.value.code == grpc.StatusCode.DEADLINE_EXCEEDED
        assert isinstance(error.value, TimeoutError)


async def test_per_call_timeout_overrides_the_default(black_hole: BlackHole) -> None:
    async with AsyncClient.connect(black_hole.target, deadlines=Deadlines(default=60)) as client:
        started = time.monotonic()
        with pytest.raises(DeadlineExceededError):
            await client.list_tables(timeout=0.2)
        assert time.monotonic() - started < 3


async def test_per_method_deadline(black_hole: BlackHole) -> None:
    deadlines = Deadlines(default=60, per_method={"Captures": 0.2})
    async with AsyncClient.connect(black_hole.target, deadlines=deadlines) as client:
        with pytest.raises(DeadlineExceededError, match="Captures"):
            await client.captures("KC", ["KD"])


async def test_a_stream_waiting_for_events_honours_its_deadline(server: LiveServer) -> None:
    async with AsyncClient.connect(server.target) as client:
        table = await client.create_table(table_config(seed=3))
        started = time.monotonic()
        with pytest.raises(DeadlineExceededError):
            async for _event in client.events(table.table_id, timeout=0.3):
                pass  # an open table: nothing happens, the server keeps the stream waiting
        assert 0.25 < time.monotonic() - started < 5


async def test_no_deadline_with_inf(server: LiveServer) -> None:
    async with AsyncClient.connect(server.target, deadlines=Deadlines(default=None)) as client:
        table = await client.create_table(table_config(seed=3), timeout=math.inf)
        assert table.table_id


def test_blocking_client_deadline(black_hole: BlackHole) -> None:
    with Client.connect(black_hole.target, deadlines=Deadlines(default=0.3)) as client:
        started = time.monotonic()
        with pytest.raises(DeadlineExceededError):
            client.get_table("t")
        assert time.monotonic() - started < 3


async def test_wait_ready_times_out(black_hole: BlackHole) -> None:
    async with AsyncClient.connect(black_hole.target) as client:
        with pytest.raises(DeadlineExceededError):
            await client.wait_ready(timeout=0.3)
