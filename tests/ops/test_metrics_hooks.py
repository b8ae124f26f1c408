"""The counter hooks that a short bot load does not reach: the clock's timeouts and an
abandonment, a config over its size, a Redis that does not answer, the league referee, and the
scrape-time gauges forgetting a server that is gone."""

from __future__ import annotations

import asyncio
import gc

import pytest
from competitions.league_helpers import Tickets, create_league, play_out, site
from kafana import metrics
from kafana.competitions.league.redis_store import RedisLeagues
from kafana.competitions.league.referee import Referee
from kafana.competitions.league.spec import dump, league_spec
from kafana.errors import InvalidInputError
from kafana.service.limits import Limits
from kafana.service.metered import watch
from kafana.service.tables import Tables
from kafana.store.client import RedisClient
from kafana.store.errors import StoreUnavailable
from kafana.store.redis_server import free_port
from kafana.store.redis_store import RedisStore
from kafana.v1 import leagues_pb2
from kafana_client import AsyncClient, table_config
from kit import finished, running


def count(name: str, **labels: str) -> float:
    """The registry's value of sample `name` with exactly `labels` (0 when absent)."""
    return metrics.REGISTRY.get_sample_value(name, labels) or 0.0


async def test_clock_timeouts_and_an_abandonment_are_counted(redis_store: RedisStore) -> None:
    before = {
        "timeouts": count("kafana_clock_timeouts_total"),
        "abandoned": count("kafana_tables_abandoned_total"),
        "moves": count("kafana_moves_applied_total", game="tablic"),
    }
    async with running(redis_store) as svc, AsyncClient.connect(svc.target) as client:
        table = await client.create_table(table_config(move_millis=30))
        for name in ("a", "b"):
            await client.join(table.table_id, name=name)
        state = await finished(svc, table.table_id)
    # Both seats ran out of time twice in a row: 3 moves by the clock, then the 4th timeout
    # abandoned the table (tests/integration/test_service_abandon.py).
    assert "abandoned" in state.result.detail
    assert count("kafana_clock_timeouts_total") - before["timeouts"] == 4
    assert count("kafana_tables_abandoned_total") - before["abandoned"] == 1
    assert count("kafana_moves_applied_total", game="tablic") - before["moves"] == 3


async def test_a_config_over_its_size_is_a_refusal(redis_store: RedisStore) -> None:
    tables = Tables(redis_store)
    tables.quotas.limits = Limits(config_bytes=10)
    before = count("kafana_refusals_total", limit="config_bytes")
    with pytest.raises(InvalidInputError, match="at most 10 bytes"):
        await tables.create(table_config(name="a table with a long name"))
    assert count("kafana_refusals_total", limit="config_bytes") - before == 1


async def test_a_redis_that_does_not_answer_is_an_error() -> None:
    client = RedisClient.from_url(f"redis://127.0.0.1:{free_port()}/0?timeout=1")
    calls, errors = count("kafana_redis_calls_total"), count("kafana_redis_errors_total")
    with pytest.raises(StoreUnavailable):
        await client.call("k", "PING")
    await client.close()
    assert count("kafana_redis_calls_total") - calls == 1
    assert count("kafana_redis_errors_total") - errors == 1


async def test_the_gauges_of_a_server_that_is_gone_go_with_it(redis_store: RedisStore) -> None:
    tables = Tables(redis_store)
    await tables.create(table_config())
    watch(tables)
    assert count("kafana_tables", game="tablic", status="open") >= 1
    held = count("kafana_cache_entries", cache="sessions")
    assert held >= 1
    assert count("kafana_cache_capacity", cache="move_records") == 16_384
    del tables
    gc.collect()
    assert count("kafana_cache_entries", cache="sessions") == held - 1


async def test_a_referee_that_stops_or_loses_the_pairing_lease_drops_its_queue_reading(
    redis_store: RedisStore,
) -> None:
    leagues = RedisLeagues(redis_store.client)
    spec = league_spec(leagues_pb2.LeagueSpec(target=11))
    assert await leagues.create("alone", {"spec": dump(spec)})
    await leagues.join("alone", "ana", 25.0, 1)
    before = count("kafana_league_queue_length")
    first, second = Referee(leagues, Tables(redis_store)), Referee(leagues, Tables(redis_store))
    await first.round("alone")
    assert count("kafana_league_queue_length") == before + 1  # ana waits alone
    await second.round("alone")  # the first holds the pairing lease: the second reads nothing
    assert count("kafana_league_queue_length") == before + 1
    await first.stop()
    assert count("kafana_league_queue_length") == before  # a stopped referee reports nothing
    await second.stop()


async def test_the_league_referee_counts_what_it_settles(redis_url: str) -> None:
    settled, rated = (
        count("kafana_league_matches_settled_total"),
        count("kafana_league_matches_rated_total"),
    )
    before = count("kafana_league_queue_length")  # other tests' leagues, in this process
    async with site(redis_url) as s:
        node = s.nodes[0]
        league = await create_league(node, await s.account("org", "organiser"), "ops")
        keys = [await s.account("ana"), await s.account("bob")]
        streams = [Tickets(node, league.league, key) for key in keys]
        try:
            join = leagues_pb2.JoinQueueRequest(league=league.league)
            await node.leagues.JoinQueue(join, metadata=keys[0])
            for _ in range(100):  # the referee reads the queue each round: ana waits alone
                if count("kafana_league_queue_length") == before + 1:
                    break
                await asyncio.sleep(0.05)
            assert count("kafana_league_queue_length") == before + 1
            await node.leagues.JoinQueue(join, metadata=keys[1])
            tickets = [(await t.next("ticket")).ticket for t in streams]
            await asyncio.gather(
                *(play_out(node, t, k) for t, k in zip(tickets, keys, strict=True))
            )
            for t in streams:
                assert (await t.next("settled")).settled.rated
            for _ in range(200):  # the gauge is the queue as the referee's next round reads it
                if count("kafana_league_queue_length") == before:
                    break
                await asyncio.sleep(0.05)
            assert count("kafana_league_queue_length") == before  # both were paired
        finally:
            for t in streams:
                t.close()
    assert count("kafana_league_matches_settled_total") - settled == 1
    assert count("kafana_league_matches_rated_total") - rated == 1
