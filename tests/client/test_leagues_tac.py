"""A Tač league from the SDK: two bot clients play its matches to the end, rated (the SDK
once built Tablić rules for every ticket, so every Tač match was abandoned)."""

from __future__ import annotations

import asyncio
import random
from typing import Any

from kafana.competitions.envelope import FairRecord
from kafana.competitions.verify import verify
from kafana.games import tac
from kafana.v1 import competitions_pb2 as pb_competitions
from kafana.v1 import leagues_pb2 as pb
from kafana.v1 import state_pb2
from kafana_bots import registry
from kafana_client.keyed import keyed_client
from kafana_client.leagues import Leagues, play_league

from .leagues_support import league_server

ROLES = {"org": "organiser", "ana": "bot", "bob": "bot"}
PLAYED_OUT = (state_pb2.RESULT_REASON_OUT, state_pb2.RESULT_REASON_STALLED)
"""How a Tač game played to its end finishes (not forfeited, closed or abandoned)."""


async def test_a_tac_league_is_played_to_the_end_and_rated(redis_url: str) -> None:
    built: list[Any] = []

    def loader(seat: int, rules: Any) -> Any:
        built.append(rules)
        return registry.create("loader", seat=seat, rules=rules, rng=random.Random(seat))

    async with league_server(redis_url, **ROLES) as served:
        channel = served.options().aio_channel()
        try:
            org, ana, bob = (keyed_client(channel, served.keys[n]) for n in ("org", "ana", "bob"))
            made = await Leagues(org).create("tac-cup", game="tac", move_ms=10_000)
            assert made.spec.game
            games = await asyncio.wait_for(
                asyncio.gather(
                    play_league(ana, "tac-cup", loader, matches=2),
                    play_league(bob, "tac-cup", loader, matches=2),
                ),
                120,
            )
            assert [m.match for m in games[0]] == [m.match for m in games[1]] == [1, 2]
            for m in games[0]:
                assert m.state == pb.MATCH_STATE_SETTLED and m.rated, m
                assert m.ending in PLAYED_OUT, m  # not abandoned, not forfeited
                # a loaded machine may let a clock run out now and then: a default move
                assert all(f.action == pb_competitions.FAULT_ACTION_DEFAULT_MOVE for f in m.faults)
            board = await Leagues(ana).board("tac-cup")
            assert board.total == 2
            settled = await Leagues(bob).match("tac-cup", 1, record=True)
            assert verify(FairRecord.from_text(settled.record)).finished
        finally:
            await channel.close()
    assert len(built) == 4 and all(isinstance(rules, tac.Rules) for rules in built)
