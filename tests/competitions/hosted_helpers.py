"""Helpers of the hosted-event tests: entrants that play through the SDK."""

from __future__ import annotations

import asyncio
import io
import random

from kafana.v1 import competitions_pb2 as pb
from kafana_bots import registry
from kafana_client import AsyncClient, AsyncSeat
from kafana_client.bots import run_bot
from kafana_client.cli.session import PersonAtTable
from kafana_client.convert import rules_of
from kafana_client.tournaments import SeatPlayer, play_entry
from rich.console import Console


def bot_player(client: AsyncClient, bot: str = "greedy") -> SeatPlayer:
    """A remote bot: each assigned seat played by a registry bot through the SDK."""

    async def play(seat: AsyncSeat, a: pb.Assignment) -> object:
        rules = rules_of(await client.get_table(a.table_id))
        made = registry.create(bot, seat=a.seat, rules=rules, rng=random.Random(a.game_id))
        return await run_bot(seat, made)

    return play


def person_player(screen: io.StringIO) -> SeatPlayer:
    """A person at the terminal session of `kafana play`, who always answers "1"."""

    async def play(seat: AsyncSeat, a: pb.Assignment) -> object:
        console = Console(file=screen, width=100)
        return await PersonAtTable(seat, console, ask=lambda prompt: "1").play()

    return play


async def entry_task(
    client: AsyncClient, event_id: str, token: str, play: SeatPlayer
) -> asyncio.Task[pb.EntryUpdate]:
    """Play an entry in the background until the event is over."""
    return asyncio.create_task(play_entry(client, event_id, token, play))
