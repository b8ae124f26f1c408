"""`/metrics` of real `kafana serve` processes during a short load run: the counters move by
exactly what the clients did (moves applied = moves played, calls by code, refusals by limit)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import grpc
from kafana.service.session_cache import CACHE_ENTRIES
from kafana.v1 import service_pb2
from kafana.v1.service_pb2_grpc import KafanaServiceStub
from kafana_client import AsyncClient, table_config
from kit import healthy, reason_of, seat_md

from .ops_support import bot_matches, delta, open_match, serve_metered, value

SEEDS = (1, 2, 3)


async def test_counters_move_by_what_the_clients_did(redis_url: str, tmp_path: Path) -> None:
    server = serve_metered(tmp_path, "--redis", redis_url, "--auth", "open")
    try:
        await healthy(server.served.target)
        before = server.scrape()
        playing = asyncio.create_task(bot_matches(server.served.target, SEEDS, delay=0.01))
        during = before
        while not playing.done() and not (
            delta(before, during, "kafana_moves_applied_total") >= 6
            and value(during, "kafana_streams_open", method="WatchEvents") == 2 * len(SEEDS)
        ):  # until every seat follows its table and moves are being played
            await asyncio.sleep(0.05)
            during = server.scrape()
        matches = await playing
        after = server.scrape()
        while value(after, "kafana_streams_open") > 0:  # the last streams are ending
            await asyncio.sleep(0.05)
            after = server.scrape()
    finally:
        server.served.end()

    # While they played: three Tablić tables in play in this process's cache.
    assert value(during, "kafana_tables", game="tablic", status="playing") == len(SEEDS)
    assert value(during, "kafana_cache_entries", cache="sessions") >= len(SEEDS)
    assert value(during, "kafana_cache_capacity", cache="sessions") == CACHE_ENTRIES  # default
    assert value(during, "kafana_streams_open", method="WatchEvents") == 2 * len(SEEDS)

    played = sum(len(m.recorded) for m in matches)
    assert played > 30 * len(SEEDS)  # a one-hand match is 48 moves
    for match in matches:
        assert match.told == match.recorded  # every move acknowledged, none twice
    assert delta(before, after, "kafana_moves_applied_total", game="tablic") == played
    assert delta(before, after, "kafana_moves_applied_total", game="tac") == 0
    calls = "kafana_rpc_calls_total"
    assert delta(before, after, calls, method="PlayMove", code="OK") == played
    assert delta(before, after, calls, method="CreateTable", code="OK") == len(SEEDS)
    assert delta(before, after, calls, method="JoinTable", code="OK") == 2 * len(SEEDS)
    assert delta(before, after, calls, method="GetRecord", code="OK") == len(SEEDS)
    # A seat's stream ends OK with the match, or CANCELLED when the client, told the match is
    # over, closes it first.
    ended = [delta(before, after, calls, method="WatchEvents", code=c) for c in ("OK", "CANCELLED")]
    assert sum(ended) == delta(before, after, calls, method="WatchEvents") == 2 * len(SEEDS)
    assert value(after, "kafana_tables") == 0  # all finished
    assert delta(before, after, "kafana_rpc_duration_seconds_count", method="PlayMove") == played
    assert delta(before, after, "kafana_redis_calls_total") >= played  # an append a move
    assert delta(before, after, "kafana_redis_errors_total") == 0
    assert delta(before, after, "kafana_refusals_total") == 0


async def test_refusals_are_counted_by_limit(redis_url: str, tmp_path: Path) -> None:
    limits = ("--rate-limit", "5", "--rate-burst", "8", "--tables-per-hour", "2")
    server = serve_metered(tmp_path, "--redis", redis_url, "--auth", "open", *limits)
    try:
        await healthy(server.served.target)
        before = server.scrape()
        async with AsyncClient.connect(server.served.target) as client:
            match = await open_match(client, 1)  # CreateTable, 2 x JoinTable: 3 of the burst
            stub = KafanaServiceStub(client.channel)
            reasons = []
            for _ in range(2):  # the second table of the hour, then one too many
                try:
                    await stub.CreateTable(
                        service_pb2.CreateTableRequest(config=table_config(target=1))
                    )
                except grpc.aio.AioRpcError as error:
                    reasons.append(reason_of(error))
            request = service_pb2.GetLegalMovesRequest(table_id=match.table_id)
            token = seat_md(match.seats[0].token)
            for _ in range(30):  # a client that does not wait: most are refused
                try:
                    await stub.GetLegalMoves(request, metadata=token)
                except grpc.aio.AioRpcError as error:
                    reasons.append(reason_of(error))
        after = server.scrape()
        # A refusal is counted before its status is sent, its call once the handler returns,
        # which may be after the client has the status: wait (bounded) for the last one.
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and delta(
            before, after, "kafana_rpc_calls_total", code="RESOURCE_EXHAUSTED"
        ) < delta(before, after, "kafana_refusals_total"):
            await asyncio.sleep(0.02)
            after = server.scrape()
    finally:
        server.served.end()

    assert reasons.count("QUOTA_EXCEEDED") == 1
    rate_limited = reasons.count("RATE_LIMITED")
    assert rate_limited >= 20
    assert len(reasons) == 1 + rate_limited
    refusals = "kafana_refusals_total"
    assert delta(before, after, refusals, limit="tables_per_hour") == 1
    assert delta(before, after, refusals, limit="rate") == rate_limited
    assert delta(before, after, refusals) == 1 + rate_limited
    exhausted = delta(before, after, "kafana_rpc_calls_total", code="RESOURCE_EXHAUSTED")
    assert exhausted == 1 + rate_limited
    assert (
        delta(before, after, "kafana_rpc_calls_total", method="GetLegalMoves", code="OK")
        == 30 - rate_limited
    )
