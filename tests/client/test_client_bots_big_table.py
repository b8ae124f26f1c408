"""A bot through the SDK keeps playing when the server cannot list the captures (too many)."""

from __future__ import annotations

import asyncio
import random

from kafana_bots import registry
from kafana_client import AsyncClient, rules_of, table_config
from kafana_client.bots import run_bot

from .big_table import grow_until_unlistable
from .kafana_client_live import LiveServer


async def test_run_bot_plays_on_when_the_moves_are_too_many_to_list(server: LiveServer) -> None:
    async with AsyncClient.connect(server.target) as client:
        table = await client.create_table(table_config(seed=5, target=1))
        rules = rules_of(table.info)
        seats = [await client.join(table.table_id, name=n) for n in ("ana", "ben")]
        state = await grow_until_unlistable(seats)
        stuck_at = state.seq
        bots = [
            registry.create("random", seat=s.seat, rules=rules, rng=random.Random(s.seat))
            for s in seats
        ]
        tasks = [asyncio.create_task(run_bot(s, b)) for s, b in zip(seats, bots, strict=True)]
        try:
            while (await seats[0].state()).seq < stuck_at + 4:
                for task in tasks:
                    if task.done():
                        task.result()  # a bot that failed shows its error here
                await asyncio.sleep(0.05)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
