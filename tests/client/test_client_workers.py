"""Each game on a worker of its own: a bot that takes a while per move, in 4 games at once in
one process, times out no more than in one game at a time.

The SDK's players (`play_table_seat`, what `play_league`, `bot_player` and `kafana tournament
watch --bot` use) run every game's decisions on a thread of that game's. They once ran on the
event loop: a slow bot had 0 timeouts in one game and most of its moves timed out in 4 at once
(each game's turn waited for the other games' decisions).
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Sequence

from kafana.games import tablic
from kafana.v1 import events_pb2, state_pb2
from kafana_bots import Bot, registry
from kafana_client import AsyncClient, table_config
from kafana_client.remote import play_table_seat

from .kafana_client_live import LiveServer

SLOW_S = 0.25
"""How long the slow bot takes a move (a sleep: its thread is busy, as a computing bot's is)."""
CLOCK_MS = 900
"""The tables' clock: over three times a move's time, under four."""


class Slow(Bot):
    """Takes `SLOW_S` to play the first legal move."""

    def choose(self, view: tablic.View, legal_moves: Sequence[tablic.Move]) -> tablic.Move:
        time.sleep(SLOW_S)
        return legal_moves[0]


def make_bot(seat: int, rules: tablic.Rules) -> Bot:
    """Seat 0 the slow bot, seat 1 a quick random one."""
    if seat == 0:
        return Slow(seat, rules, random.Random(seat))
    bot: Bot = registry.create("random", seat=seat, rules=rules, rng=random.Random(seat))
    return bot


async def timeouts(client: AsyncClient, table_id: str) -> int:
    """The moves the table's clock played for a seat after each seat's first move (its whole
    feed, once the match is over). The first moves are left out: their clock runs from the
    table's filling, before the seats' loops have opened their feeds (start-up, not play)."""
    count = moves = 0
    async for event in client.events(table_id):
        if event.kind == events_pb2.EVENT_KIND_MOVE:
            moves += 1
            count += moves > 2 and event.reason == state_pb2.EVENT_REASON_TIMEOUT
    return count


async def games_at_once(client: AsyncClient, games: int) -> tuple[list[int], int]:
    """Play `games` one-hand matches at once in this process; each table's timeouts, and the
    moves of all."""

    async def game(n: int) -> tuple[int, int]:
        table = await client.create_table(table_config(seed=n, target=1, move_millis=CLOCK_MS))
        seats = [await client.join(table.table_id, seat=s) for s in (0, 1)]
        finals = await asyncio.gather(*(play_table_seat(seat, make_bot) for seat in seats))
        assert all(f.info.status == state_pb2.TABLE_STATUS_FINISHED for f in finals)
        return await timeouts(client, table.table_id), int(finals[0].tablic.move_count)

    played = await asyncio.wait_for(asyncio.gather(*(game(n) for n in range(games))), 120)
    return [count for count, _ in played], sum(moves for _, moves in played)


async def test_a_slow_bot_in_four_games_at_once_times_out_no_more_than_in_one(
    server: LiveServer,
) -> None:
    async with AsyncClient.connect(server.target) as client:
        alone, _ = await games_at_once(client, 1)
        assert alone == [0]
        together, moves = await games_at_once(client, 4)
        assert together == [0, 0, 0, 0]
        assert moves >= 4 * 48  # a hand at least each: 24 cards a seat
