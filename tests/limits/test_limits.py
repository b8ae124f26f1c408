"""Every limit charged to the caller, attacked on a real server over a real Redis.

The attacks of issue "Trust at the door": minted seat tokens bought fresh budgets and stream
allowances; one address created tables without end, with 2,000 explicit decks each; enum values
outside their enum and names with terminal escapes were taken as they came.
"""

from __future__ import annotations

import asyncio
import subprocess
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from kafana.service.limits import HOUR_MS, Limits
from kafana.service.ratelimit import RateLimit
from kafana.store.redis_store import RedisStore
from kafana.v1 import rules_pb2, service_pb2, state_pb2
from kafana.v1.service_pb2_grpc import KafanaServiceStub
from kit import (
    KAFANA,
    Service,
    admin_md,
    healthy,
    reason_of,
    refusal,
    retry_delay_ms,
    running,
    seat_md,
    serving,
)

SEED = 11


def config(seed: int | None = SEED, **fields: Any) -> rules_pb2.TableConfig:
    """A two-player Tablić table."""
    cfg = rules_pb2.TableConfig(
        rules=rules_pb2.RulesSpec(game=rules_pb2.GAME_TABLIC, players=2), **fields
    )
    if seed is not None:
        cfg.seed = seed
    return cfg


def deck(shift: int = 0) -> rules_pb2.Deck:
    """A full deck of 52 cards."""
    cards = [r + s for s in "SHDC" for r in ("A", *map(str, range(2, 11)), "J", "Q", "K")]
    return rules_pb2.Deck(cards=cards[shift:] + cards[:shift])


async def create(stub: KafanaServiceStub, cfg: rules_pb2.TableConfig | None = None) -> Any:
    """CreateTable with `cfg` (a seeded table by default)."""
    return await stub.CreateTable(service_pb2.CreateTableRequest(config=cfg or config()))


async def join(stub: KafanaServiceStub, table_id: str, seat: int, name: str = "p") -> Any:
    """Take `seat`."""
    return await stub.JoinTable(
        service_pb2.JoinTableRequest(table_id=table_id, seat=seat, name=name)
    )


async def on_redis(redis_url: str, **options: Any) -> AsyncIterator[Service]:
    store = RedisStore.from_url(redis_url)
    try:
        async with running(store, **options) as svc:
            yield svc
    finally:
        await store.close()


@pytest.fixture
async def limited(redis_url: str) -> AsyncIterator[Service]:
    """A server on Redis with a small budget: 50 calls a second, bursts of 100, 5 streams."""
    async for svc in on_redis(redis_url, rate_limit=RateLimit(rate=50, burst=100, max_streams=5)):
        yield svc


# -- calls and streams: minted tokens buy nothing ------------------------------------------


async def test_minted_seat_tokens_buy_no_fresh_budget(limited: Service) -> None:
    stub = limited.stub
    tokens = []
    started = time.monotonic()  # the bucket refills from the first call on, setup included
    for _ in range(10):  # 30 calls: 10 tables, 20 seat tokens
        table = await create(stub)
        tokens += [
            (table.table_id, (await join(stub, table.table_id, s)).seat_token) for s in (0, 1)
        ]
    calls = [
        stub.GetState(service_pb2.GetStateRequest(table_id=tid), metadata=seat_md(token))
        for _ in range(40)
        for tid, token in tokens
    ]
    results = await asyncio.gather(*calls, return_exceptions=True)
    elapsed = time.monotonic() - started
    admitted = sum(not isinstance(r, BaseException) for r in results)
    refused = [r for r in results if isinstance(r, grpc.aio.AioRpcError)]
    assert len(results) == 800
    assert admitted <= 70 + 50 * elapsed + 5, (admitted, elapsed)  # the rest of one budget
    assert all(r.code() == grpc.StatusCode.RESOURCE_EXHAUSTED for r in refused)
    assert all((retry_delay_ms(r) or 0) >= 1 for r in refused)


async def test_the_stream_cap_holds_across_seat_tokens(limited: Service) -> None:
    stub = limited.stub
    seats = []
    for _ in range(15):
        table = await create(stub)
        seats += [
            (table.table_id, (await join(stub, table.table_id, s)).seat_token) for s in (0, 1)
        ]
    await asyncio.sleep(1.0)  # the budget refills (45 calls so far)
    calls = [
        stub.WatchEvents(service_pb2.WatchEventsRequest(table_id=tid), metadata=seat_md(token))
        for tid, token in seats
    ]
    opened, refused = 0, 0
    for call in calls:
        try:
            await call.read()
            opened += 1
        except grpc.aio.AioRpcError as error:
            assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert reason_of(error) == "QUOTA_EXCEEDED"
            refused += 1
    for call in calls:
        call.cancel()
    assert (opened, refused) == (5, 25)


# -- tables: per hour and open at once, shared by the processes on one Redis ---------------


def auth_open() -> list[str]:
    """`--auth open` where `kafana serve` has the switch (anonymous calls create tables)."""
    shown = subprocess.run([KAFANA, "serve", "--help"], capture_output=True, text=True).stdout
    return ["--auth", "open"] if "--auth" in shown else []


async def test_tables_per_hour_hold_across_two_processes(redis_url: str, tmp_path: Path) -> None:
    args = ["--redis", redis_url, "--tables-per-hour", "5", "--open-tables", "0", *auth_open()]
    with serving(tmp_path, *args, count=2) as servers:
        for server in servers:
            await healthy(server.target)
        channels = [grpc.aio.insecure_channel(s.target) for s in servers]
        stubs = [KafanaServiceStub(c) for c in channels]
        try:
            for i in range(5):
                await create(stubs[i % 2])
            for stub in stubs:
                error = await refusal(create(stub))
                assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                assert reason_of(error) == "QUOTA_EXCEEDED"
                assert "5 tables per caller are created per hour" in (error.details() or "")
                assert HOUR_MS - 120_000 < (retry_delay_ms(error) or 0) <= HOUR_MS
        finally:
            for channel in channels:
                await channel.close()


async def test_open_tables_hold_across_two_processes(redis_url: str, tmp_path: Path) -> None:
    args = ["--redis", redis_url, "--open-tables", "3", "--tables-per-hour", "0", *auth_open()]
    with serving(tmp_path, *args, count=2) as servers:
        for server in servers:
            await healthy(server.target)
        channels = [grpc.aio.insecure_channel(s.target) for s in servers]
        first, second = (KafanaServiceStub(c) for c in channels)
        try:
            made = [await create(first), await create(second), await create(first)]
            error = await refusal(create(second))
            assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert reason_of(error) == "QUOTA_EXCEEDED"
            assert "3 tables per caller are open at once" in (error.details() or "")
            assert (retry_delay_ms(error) or 0) > 0
            closed = made[0]
            await first.CloseTable(
                service_pb2.CloseTableRequest(table_id=closed.table_id),
                metadata=admin_md(closed.admin_token),
            )
            await create(second)  # the finished table freed its place
            assert (await refusal(create(first))).code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        finally:
            for channel in channels:
                await channel.close()


async def test_quotas_are_per_caller_and_off_for_the_domain_layer(redis_url: str) -> None:
    async for svc in on_redis(redis_url, limits=Limits(tables_per_hour=2, open_tables=0)):
        await create(svc.stub)
        await create(svc.stub)
        assert (await refusal(create(svc.stub))).code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        await svc.server.tables.create(config())  # a competition's own table is not charged


# -- what a table may hold ------------------------------------------------------------------


async def test_two_thousand_explicit_decks_are_refused(service: Service) -> None:
    cfg = config(seed=None, decks=[deck(i % 52) for i in range(2000)])
    error = await refusal(create(service.stub, cfg))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT  # waiting does not help
    assert "bytes" in (error.details() or "")
    assert retry_delay_ms(error) is None


async def test_more_decks_than_a_match_can_use_are_refused(redis_url: str) -> None:
    async for svc in on_redis(redis_url, limits=Limits(config_bytes=0)):
        error = await refusal(create(svc.stub, config(seed=None, decks=[deck()] * 2000)))
        assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "explicit decks: this match cannot last more hands" in (error.details() or "")
        # serbian, 2 players: 22 points a deck, to 101: 10 hands; twice that and one a side
        await create(svc.stub, config(seed=None, decks=[deck(i) for i in range(22)]))
        error = await refusal(create(svc.stub, config(seed=None, decks=[deck()] * 23)))
        assert "at most 22 explicit decks" in (error.details() or "")
        short = config(seed=None, decks=[deck()] * 16)  # to 31: 3 hands, yet 16 may be given
        short.rules.tablic.target = 31
        await create(svc.stub, short)
        short.decks.append(deck())
        assert "at most 16 explicit" in ((await refusal(create(svc.stub, short))).details() or "")


async def test_an_oversize_message_is_refused(redis_url: str) -> None:
    async for svc in on_redis(redis_url, limits=Limits(message_bytes=100_000)):
        error = await refusal(create(svc.stub, config(name="x" * 150_000)))
        assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert reason_of(error) == "INVALID_ARGUMENT"
        assert "at most 100000" in (error.details() or "")
        error = await refusal(create(svc.stub, config(name="x" * 300_000)))
        assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED  # gRPC's own cut, unread
        await create(svc.stub, config(name="a table"))  # the server serves on


# -- inputs -----------------------------------------------------------------------------------


async def test_enum_values_outside_their_enum_are_refused(service: Service) -> None:
    stub = service.stub
    cfg = config(clock=rules_pb2.ClockSpec(move_millis=1000, policy=99))  # type: ignore[arg-type]
    error = await refusal(create(stub, cfg))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "config.clock.policy = 99" in (error.details() or "")
    listing = stub.ListTables(service_pb2.ListTablesRequest(status=99))  # type: ignore[arg-type]
    error = await refusal(listing)
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "status = 99" in (error.details() or "")
    await stub.ListTables(service_pb2.ListTablesRequest(status=state_pb2.TABLE_STATUS_OPEN))


@pytest.mark.parametrize("bad", ["\x1b[31mred", "nul\x00", "two\nlines", "bidi\u202e", "x\u2028"])
async def test_names_with_control_characters_are_refused(service: Service, bad: str) -> None:
    stub = service.stub
    error = await refusal(create(stub, config(name=bad)))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "printable characters only" in (error.details() or "")
    table = await create(stub)
    error = await refusal(join(stub, table.table_id, 0, name=bad))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "a seat name takes printable characters only" in (error.details() or "")
    joined = await join(stub, table.table_id, 0, name="Ana Šarić ♠")  # printable Unicode is fine
    assert joined.state.info.seats[0].name == "Ana Šarić ♠"


async def test_a_joiner_sees_that_the_creator_chose_the_deal(service: Service) -> None:
    stub = service.stub
    seeded = await create(stub, config(seed=42))
    decks = await create(stub, config(seed=None, decks=[deck(3)]))
    drawn = await create(stub, config(seed=None))
    assert seeded.info.deal_chosen_by_creator and decks.info.deal_chosen_by_creator
    assert not drawn.info.deal_chosen_by_creator
    joined = await join(stub, seeded.table_id, 1)
    assert joined.state.info.deal_chosen_by_creator
    table = await stub.GetTable(service_pb2.GetTableRequest(table_id=drawn.table_id))
    assert not table.deal_chosen_by_creator
    listed = await stub.ListTables(service_pb2.ListTablesRequest())
    assert {t.table_id: t.deal_chosen_by_creator for t in listed.tables} == {
        seeded.table_id: True,
        decks.table_id: True,
        drawn.table_id: False,
    }
