"""Routing: with `routes`, each table's calls go to one process, the next when it is gone."""

from __future__ import annotations

import random
from contextlib import AsyncExitStack

from kafana.store.redis_store import RedisStore
from kafana_client import AsyncClient, current_seat, table_config
from kafana_client.routing import ranking
from kit import Service, running

TABLES = 9


def cached(svc: Service, table_id: str) -> bool:
    """Whether the process holds the table's session in its cache."""
    return svc.server.tables._cache.get(table_id) is not None


async def play_moves(client: AsyncClient, table_id: str, seats: list, moves: int) -> None:
    """Play `moves` random legal moves at the table (seats in seat order)."""
    rng = random.Random(table_id)
    for _ in range(moves):
        seat = current_seat(await client.get_state(table_id))
        assert seat is not None
        legal = await seats[seat].legal_moves()
        await seats[seat].play(rng.choice(legal.texts()))


async def test_a_tables_calls_reach_one_process_and_fail_over(redis_url: str) -> None:
    async with AsyncExitStack() as stack:
        services: list[Service] = []
        for _ in range(3):  # three processes on one Redis, as a deployment runs them
            store = RedisStore.from_url(redis_url)
            stack.push_async_callback(store.close)
            services.append(await stack.enter_async_context(running(store)))
        targets = [svc.target for svc in services]
        client = AsyncClient.connect(targets[0], routes=targets[1:])
        stack.push_async_callback(client.close)
        tables = {}
        for _ in range(TABLES):
            table = await client.create_table(table_config(seed=7))
            seats = [await client.join(table.table_id, name=n) for n in ("ana", "bora")]
            await play_moves(client, table.table_id, seats, 4)
            tables[table.table_id] = seats
        by_target = {svc.target: svc for svc in services}
        homes = {table_id: ranking(table_id, targets)[0] for table_id in tables}
        assert len(set(homes.values())) > 1, homes  # 9 tables spread over the processes
        for table_id, home in homes.items():
            holders = [svc.target for svc in services if cached(svc, table_id)]
            # its home holds it; another only if it created the table (CreateTable has no id yet)
            assert home in holders and len(holders) <= 2, (table_id, home, holders)
        # The home of the first table goes away: its calls go to the next process, play goes on.
        table_id, seats = next(iter(tables.items()))
        gone = by_target[homes[table_id]]
        await gone.server.stop(0)
        await play_moves(client, table_id, seats, 2)
        assert cached(by_target[ranking(table_id, targets)[1]], table_id)
