"""Hosted events at tables of 3 and 4 players, 2 against 2 and Tač; round robin byes counted."""

from __future__ import annotations

import asyncio

import pytest
from kafana.competitions.envelope import FairRecord
from kafana.competitions.verify import verify
from kafana.v1 import competitions_pb2 as pb
from kafana.v1 import rules_pb2
from kafana_client import AsyncClient, InvalidArgumentError
from kafana_client.tournaments import Tournaments

from .hosted_helpers import Served, bot_player, entry_task, games, until

FOUR = ("ana", "bob", "cid", "dan")
TABLES = [(3, False, FOUR[:3], 1), (4, False, FOUR, 1), (4, True, FOUR, 3)]


@pytest.mark.parametrize(("seats", "partnerships", "names", "count"), TABLES)
async def test_an_event_of_bigger_tables_is_played_and_rated_per_side(
    hosted: Served, seats: int, partnerships: bool, names: tuple[str, ...], count: int
) -> None:
    async with AsyncClient.connect(hosted.target) as client:
        events = Tournaments(client)
        made = await events.create(
            "big", "round_robin", target=11, seats_per_game=seats, partnerships=partnerships
        )
        for name in names:
            await events.enter(made.event_id, name, bot="greedy")
        await events.start(made.event_id, made.organiser_token)

        async def get() -> pb.EventInfo:
            return await events.get(made.event_id, records=True)

        info = await until(get, lambda i: i.phase == pb.EVENT_PHASE_FINISHED)
    assert info.seats_per_game == seats and info.partnerships == partnerships
    played = games(info)
    assert len(played) == count and all(len(g.seats) == seats for g in played)
    for g in played:
        assert g.ending == pb.GAME_ENDING_SCORE and verify(FairRecord.from_text(g.record)).finished
    assert sorted(s.entrant for s in info.standings) == sorted(names)
    assert all(s.played == count for s in info.standings)
    assert len({s.rating for s in info.standings}) > 1  # every side rated


async def test_round_robin_byes_are_counted(hosted: Served) -> None:
    async with AsyncClient.connect(hosted.target) as client:
        events = Tournaments(client)
        made = await events.create("odd", "round_robin", target=11)
        for name in ("ana", "bob", "cid"):
            await events.enter(made.event_id, name, bot="greedy")
        await events.start(made.event_id, made.organiser_token)
        info = await until(
            lambda: events.get(made.event_id), lambda i: i.phase == pb.EVENT_PHASE_FINISHED
        )
    assert sorted(b for r in info.rounds for b in r.byes) == ["ana", "bob", "cid"]
    assert [s.byes for s in info.standings] == [1, 1, 1]
    assert all(s.played == 2 for s in info.standings)


async def test_a_tac_event_of_remote_bots(hosted: Served) -> None:
    async with AsyncClient.connect(hosted.target) as client:
        events = Tournaments(client)
        made = await events.create("tac", "round_robin", game="tac")
        with pytest.raises(InvalidArgumentError, match="unknown bot 'greedy' for tac"):
            await events.enter(made.event_id, "x", bot="greedy")
        names = ("ana", "bob", "cid", "dan")
        entries = [await events.enter(made.event_id, n) for n in names]
        await events.start(made.event_id, made.organiser_token)
        players = [
            await entry_task(client, made.event_id, e.token, bot_player(client, "loader"))
            for e in entries
        ]
        for task in players:
            assert (await asyncio.wait_for(task, 120)).event_over

        async def get() -> pb.EventInfo:
            return await events.get(made.event_id, records=True)

        info = await until(get, lambda i: i.phase == pb.EVENT_PHASE_FINISHED)
    assert info.game == rules_pb2.GAME_TAC and info.seats_per_game == 4
    (game,) = games(info)
    assert game.ending == pb.GAME_ENDING_SCORE, (
        game.faults,
        FairRecord.from_text(game.record).get("ending"),
    )
    assert verify(FairRecord.from_text(game.record)).finished
    assert sorted(s.entrant for s in info.standings) == sorted(names)
