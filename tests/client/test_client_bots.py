"""Bots through the SDK play exactly the match they play in-process (same seeds, same moves)."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Sequence

import pytest
from kafana.games import tablic
from kafana.games.tablic import Move, View
from kafana_bots import Bot, BotError, Event, registry
from kafana_bots.play import play
from kafana_client import AsyncClient, rules_of, table_config
from kafana_client.bots import run_bot

from .kafana_client_live import LiveServer

SEED = 21
BOTS = ("greedy", "heuristic")


class Recording:
    """Wraps a bot to keep the events it is told."""

    def __init__(self, name: str, seat: int, rules: tablic.Rules) -> None:
        self.bot = registry.create(name, seat=seat, rules=rules, rng=random.Random(seat))
        self.events: list[Event] = []
        self.bot.observe = self.events.append  # type: ignore[method-assign, assignment]


async def test_bots_play_through_the_sdk_as_in_process(server: LiveServer) -> None:
    async with AsyncClient.connect(server.target) as client:
        table = await client.create_table(table_config(seed=SEED, target=1))
        rules = rules_of(table.info)
        seats = [await client.join(table.table_id, name=name) for name in BOTS]
        remote = [Recording(name, s.seat, rules) for name, s in zip(BOTS, seats, strict=True)]
        await asyncio.wait_for(
            asyncio.gather(*(run_bot(s, r.bot) for s, r in zip(seats, remote, strict=True))), 30
        )
        record = await client.record(table.table_id)

    local = [Recording(name, seat, rules) for seat, name in enumerate(BOTS)]
    final = play(tablic.new_match(rules, seed=SEED), [r.bot for r in local])
    assert tablic.MatchRecord.from_text(record.record).moves == final.record().moves
    assert list(record.result.scores) == list(final.scores)
    for far, near in zip(remote, local, strict=True):
        assert far.events == near.events


class Forgetful(Bot):
    """A bot whose `choose` forgot its `return`."""

    def choose(self, view: View, legal_moves: Sequence[Move]) -> Move:
        return None  # type: ignore[return-value]


async def test_a_bot_that_answers_nothing_is_named_not_waited_for(server: LiveServer) -> None:
    """On a server a `choose` returning None sent nothing and the seat loop waited for good
    (`kafana bot run` hung with no output)."""
    async with AsyncClient.connect(server.target) as client:
        table = await client.create_table(table_config(seed=SEED, target=1))
        rules = rules_of(table.info)
        seat = await client.join(table.table_id, name="forgetful")
        other = await client.join(table.table_id, name="greedy")
        bot = Forgetful(seat.seat, rules, random.Random(0))
        greedy = registry.create("greedy", seat=other.seat, rules=rules, rng=random.Random(1))
        playing = asyncio.create_task(run_bot(other, greedy))
        try:
            with pytest.raises(BotError, match="the bot Forgetful at seat 0 returned None"):
                await asyncio.wait_for(run_bot(seat, bot), 30)
        finally:
            playing.cancel()
            await asyncio.gather(playing, return_exceptions=True)


class Slow(Bot):
    """Too slow for the clock once: its first answer comes after the server moved for it (and
    maybe its next turn's, which waited on the same thread)."""

    def __init__(self, seat: int, rules: tablic.Rules, rng: random.Random) -> None:
        super().__init__(seat, rules, rng)
        self.late = True

    def choose(self, view: View, legal_moves: Sequence[Move]) -> Move:
        if self.late:
            self.late = False
            time.sleep(1.0)  # the clock gives 300 ms
        return legal_moves[0]


async def test_a_bot_that_runs_out_of_time_is_told_on_stderr(
    server: LiveServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """The server played for a bot too slow for the clock and `kafana bot run` said nothing:
    it ended 'match over' with every move lost."""
    config = table_config(seed=SEED, target=1)
    config.clock.move_millis = 300
    async with AsyncClient.connect(server.target) as client:
        table = await client.create_table(config)
        rules = rules_of(table.info)
        seats = [await client.join(table.table_id, name=n) for n in ("slow", "greedy")]
        bots: list[Bot] = [
            Slow(seats[0].seat, rules, random.Random(0)),
            registry.create("greedy", seat=seats[1].seat, rules=rules, rng=random.Random(1)),
        ]
        players = (run_bot(s, b, threaded=True) for s, b in zip(seats, bots, strict=True))
        await asyncio.wait_for(asyncio.gather(*players), 60)
    said = capsys.readouterr().err
    assert f"the bot Slow at seat {seats[0].seat} ran out of time; the server played " in said
