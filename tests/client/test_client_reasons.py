"""The SDK reads the server's machine-readable refusals: `kafana-error` and `retry-after-ms`."""

from __future__ import annotations

import pytest
from kafana.service.ratelimit import RateLimit
from kafana.service.server import create_server
from kafana.store.memory import MemoryStore
from kafana_client import (
    AsyncClient,
    MatchOverRpcError,
    NotYourTurnRpcError,
    ResourceExhaustedError,
    SeatTakenRpcError,
    table_config,
)


async def test_refusals_map_by_reason_and_rate_limits_carry_the_wait() -> None:
    server = create_server(MemoryStore(), port=0, rate_limit=RateLimit(rate=5, burst=12))
    await server.start()
    client = AsyncClient.connect(f"127.0.0.1:{server.port}")
    try:
        table = await client.create_table(table_config(players=2, seed=5))
        first = await client.join(table.table_id, seat=0)
        second = await client.join(table.table_id, seat=1)
        with pytest.raises(SeatTakenRpcError):
            await client.join(table.table_id, seat=1)
        legal = await first.legal_moves()
        with pytest.raises(NotYourTurnRpcError) as not_yours:
            await second.play(legal.texts()[0].split(":")[0], last_seq=legal.seq)
        assert "seat 0" in not_yours.value.message
        refused = None
        for _ in range(20):  # a burst of 12 at 5 per second: the limit comes quickly
            try:
                await client.get_state(table.table_id)
            except ResourceExhaustedError as error:
                refused = error
                break
        assert refused is not None, "the rate limit never refused a call"
        assert refused.retry_after is not None and 0 < refused.retry_after <= 0.25
    finally:
        await client.close()
        await server.stop(0.2)


async def test_a_finished_match_refuses_moves_as_match_over() -> None:
    server = create_server(MemoryStore(), port=0)
    await server.start()
    client = AsyncClient.connect(f"127.0.0.1:{server.port}")
    try:
        table = await client.create_table(table_config(players=2, seed=9))
        seats = [await client.join(table.table_id, seat=s) for s in (0, 1)]
        await client.close_table(table.table_id, table.admin_token)
        now = (await client.get_state(table.table_id)).seq
        with pytest.raises(MatchOverRpcError):
            await seats[0].play("2C", last_seq=now)
    finally:
        await client.close()
        await server.stop(0.2)
