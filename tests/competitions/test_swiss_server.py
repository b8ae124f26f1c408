"""A Swiss event of 8 bots played through a real server on a real Redis."""

from __future__ import annotations

import itertools

from client.kafana_client_live import LiveServer
from kafana.cli.runner.server_runner import run_on_server
from kafana.competitions.envelope import FairRecord
from kafana.competitions.local_runner import registry_bots
from kafana.competitions.model import Ending
from kafana.competitions.standings import standings, table_placings
from kafana.competitions.tournament import EventConfig, Kind, Tournament
from kafana.competitions.verify import verify
from kafana.games.tablic import MatchRecord
from kafana_client import AsyncClient

ENTRANTS = tuple(f"bot{i}" for i in range(8))
BOTS = {name: ("greedy", "random", "heuristic", "random")[i % 4] for i, name in enumerate(ENTRANTS)}


async def test_swiss_of_eight_bots_through_server(server: LiveServer) -> None:
    config = EventConfig("swiss8", Kind.SWISS, ENTRANTS, chosen_seed=11, target=31)
    tournament = Tournament(config)
    async with AsyncClient.connect(server.target) as client:
        await run_on_server(client, tournament, registry_bots(BOTS), parallel=4)

    # the expected rounds: ceil(log2 8) = 3, four games each, everybody plays once a round
    assert tournament.finished and len(tournament.rounds) == 3
    for games in tournament.rounds:
        assert len(games) == 4
        assert sorted(e for g in games for e in g.seats) == sorted(ENTRANTS)
    # no repeat pairing
    pairs = [frozenset(g.seats) for r in tournament.rounds for g in r]
    assert len(set(pairs)) == len(pairs) == 12
    # seat balance: nobody sits first in all three games or never
    firsts = {e: sum(g.seats[0] == e for r in tournament.rounds for g in r) for e in ENTRANTS}
    assert set(firsts.values()) <= {1, 2}

    # every game really happened on the server: the record replays to the reported scores
    for r in tournament.rounds:
        for g in r:
            result = tournament.results[g.game_id]
            assert result.ending is Ending.SCORE and result.table_id
            fair = FairRecord.from_text(result.record)
            checked = verify(fair)
            assert checked.finished and checked.scores == result.scores
            assert MatchRecord.from_text(fair.record).replay().scores == result.scores
            assert max(result.scores) >= 31

    # standings recomputed independently from the results
    points = dict.fromkeys(ENTRANTS, 0.0)
    for r in tournament.rounds:
        for g in r:
            res = tournament.results[g.game_id]
            for seat, name in enumerate(g.seats):
                points[name] += res.match_points(seat)
    table = tournament.standings()
    assert {row.entrant: row.points for row in table} == points
    assert sum(points.values()) == 12
    assert [row.points for row in table] == sorted(points.values(), reverse=True)
    # ties are broken by Buchholz (sum of the opponents' points)
    for row in table:
        opponents = [
            next(e for e in g.seats if e != row.entrant)
            for r in tournament.rounds
            for g in r
            if row.entrant in g.seats
        ]
        assert row.buchholz == sum(points[o] for o in opponents)
    for above, below in itertools.pairwise(table):
        if above.points == below.points:
            assert above.buchholz >= below.buchholz
    beat = table_placings([("bot0",), ("bot1",)], [1, 0], [5, 0])
    assert standings(ENTRANTS, beat)[0].entrant == "bot0"
