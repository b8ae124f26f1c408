"""Built-in Tač bots enter Tač events and play their games through the server's seat runner.

They were refused ("built-in bots play Tablić only") and the director left their seats to
remote players; a Tač bot's name is now checked against the Tač registry.
"""

from __future__ import annotations

import pytest
from kafana.competitions.envelope import FairRecord
from kafana.competitions.verify import verify
from kafana.v1 import competitions_pb2 as pb
from kafana.v1 import rules_pb2
from kafana_bots import registry
from kafana_client import AsyncClient, InvalidArgumentError
from kafana_client.tournaments import Tournaments

from .hosted_helpers import Served, games, until
from .test_scoring_sides import assert_standings_are_the_records


async def test_a_round_robin_of_built_in_tac_bots_finishes(hosted: Served) -> None:
    names = registry.names("tac")
    assert {"random", "loader", "search"} <= set(names)
    async with AsyncClient.connect(hosted.target) as client:
        events = Tournaments(client)
        made = await events.create("tacbots", "round_robin", game="tac", seats_per_game=2)
        for name in names:
            await events.enter(made.event_id, name, bot=name)
        await events.start(made.event_id, made.organiser_token)
        info = await until(
            lambda: events.get(made.event_id, records=True),
            lambda i: i.phase == pb.EVENT_PHASE_FINISHED,
            timeout=240,
        )
    assert info.game == rules_pb2.GAME_TAC
    played = games(info)
    pairs = len(names) * (len(names) - 1) // 2
    assert len(played) == pairs
    for g in played:
        assert g.ending == pb.GAME_ENDING_SCORE, g.faults
        assert not g.faults
        assert verify(FairRecord.from_text(g.record)).finished
    points = assert_standings_are_the_records(info)
    assert all(len(p) == len(names) - 1 for p in points.values())


@pytest.mark.parametrize("bot", ["greedy", "oracle", "nobody"])
async def test_a_tac_event_refuses_a_bot_it_has_not(hosted: Served, bot: str) -> None:
    async with AsyncClient.connect(hosted.target) as client:
        events = Tournaments(client)
        made = await events.create("tacx", "round_robin", game="tac")
        with pytest.raises(InvalidArgumentError, match=repr(bot)):
            await events.enter(made.event_id, "x", bot=bot)
        assert len((await events.get(made.event_id)).entrants) == 0
