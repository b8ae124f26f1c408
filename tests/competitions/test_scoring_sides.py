"""Events at tables of more than two sides, or of two partnerships, are scored from the full
result (every side's place, the partnerships), and their standings equal their records.

The director keeps its event in a snapshot; a snapshot that dropped a game's partnership flag
credited only the partner at seat 0 or 1 (nobody lost) and made the organiser's own export fail
`kafana verify`; one that dropped places tied 2nd and 3rd of a Tač game, and a 4-player Tablić
game gave every side but the winner the same points.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict

from kafana.competitions.hosted.snapshot import dumps, loads
from kafana.competitions.model import Ending, GameResult
from kafana.competitions.table_results import game_result
from kafana.competitions.tournament import EventConfig, Kind, Tournament
from kafana.competitions.verify_export import Checked, verify_export
from kafana.v1 import competitions_pb2 as pb
from kafana.v1 import rules_pb2, service_pb2, state_pb2
from kafana_client import AsyncClient
from kafana_client.tournaments import Tournaments

from .hosted_helpers import Served, bot_player, entry_task, until

Points = dict[str, list[float]]


def by_hand(export: str) -> Points:
    """Each entrant's match points per game, recomputed from the verified records alone: a
    side scores the share of the other sides it finished ahead of (a tie half)."""
    out: Points = defaultdict(list)
    for item in verify_export(export):
        assert isinstance(item, Checked), item
        done = item.verified
        assert done is not None and done.ending == Ending.SCORE
        count = max(done.sides) + 1
        if done.game == "tac":  # places per seat (one seat a side), lower is better
            rank = [-done.figures[side] for side in range(count)]
        else:  # points per side
            rank = list(done.figures)
        assert len(rank) == count
        for seat, name in enumerate(done.seats):
            mine = rank[done.sides[seat]]
            others = [rank[s] for s in range(count) if s != done.sides[seat]]
            won = sum(1.0 if mine > o else 0.5 if mine == o else 0.0 for o in others)
            out[name].append(won / len(others))
    return out


def assert_standings_are_the_records(info: pb.EventInfo) -> Points:
    """Points, wins, draws and losses of every row equal the records'."""
    games = by_hand(info.exports["records.jsonl"])
    rows = {row.entrant: row for row in info.standings}
    assert sorted(rows) == sorted(games)
    for name, points in games.items():
        row = rows[name]
        assert row.points == sum(points), (name, points, row)
        assert row.wins == sum(1 for p in points if p == 1.0)
        assert row.losses == sum(1 for p in points if p == 0.0)
        assert row.draws == sum(1 for p in points if 0.0 < p < 1.0)
    return games


async def test_a_two_against_two_round_robin_scores_both_partners_and_verifies(
    hosted: Served,
) -> None:
    async with AsyncClient.connect(hosted.target) as client:
        events = Tournaments(client)
        made = await events.create(
            "pairs", "round_robin", target=11, seats_per_game=4, partnerships=True
        )
        for name in ("ana", "bob", "cid", "dan"):
            await events.enter(made.event_id, name, bot="greedy")
        await events.start(made.event_id, made.organiser_token)
        info = await until(
            lambda: events.get(made.event_id, records=True),
            lambda i: i.phase == pb.EVENT_PHASE_FINISHED,
        )
    export = info.exports["records.jsonl"]
    assert [x for x in verify_export(export) if not isinstance(x, Checked)] == []
    games = assert_standings_are_the_records(info)
    assert all(len(points) == 3 for points in games.values())  # 3 partnerships, 3 games each
    for g in (g for r in info.rounds for g in r.games):
        if g.HasField("winner"):  # both partners of the winning side won, both others lost
            winners = {g.seats[g.winner], g.seats[g.winner + 2]}
            losers = set(g.seats) - winners
            assert len(winners) == 2 and len(losers) == 2
    assert sum(row.losses for row in info.standings) == sum(row.wins for row in info.standings)


async def test_a_three_player_tac_event_keeps_every_place(hosted: Served) -> None:
    async with AsyncClient.connect(hosted.target) as client:
        events = Tournaments(client)
        made = await events.create("tac3", "round_robin", game="tac", seats_per_game=3)
        entries = [await events.enter(made.event_id, n) for n in ("ana", "bob", "cid", "dan")]
        await events.start(made.event_id, made.organiser_token)
        players = [
            await entry_task(client, made.event_id, e.token, bot_player(client, "loader"))
            for e in entries
        ]
        for task in players:
            assert (await asyncio.wait_for(task, 180)).event_over
        info = await until(
            lambda: events.get(made.event_id, records=True),
            lambda i: i.phase == pb.EVENT_PHASE_FINISHED,
        )
    assert info.game == rules_pb2.GAME_TAC and info.seats_per_game == 3
    games = assert_standings_are_the_records(info)
    assert sum(len(p) for p in games.values()) == 4 * 3  # 4 games of 3 seats
    # 1st, 2nd and 3rd score 1, 0.5 and 0 (a game whose 2nd and 3rd hold as many cards ties)
    middle = sum(1 for points in games.values() for p in points if p == 0.5)
    assert middle >= 2  # at least two games had a 2nd place of its own


def test_places_survive_the_directors_snapshot() -> None:
    config = EventConfig("p", Kind.ROUND_ROBIN, ("a", "b", "c"), players=3)
    t = Tournament(config)
    (game,) = t.next_round()
    t.record(GameResult(game.game_id, (40, 12, 30), 0, places=(1, 3, 2)))
    back = loads(dumps(t))
    assert back.results[game.game_id].places == (1, 3, 2)
    points = {row.entrant: row.points for row in back.standings()}
    assert points == {game.seats[0]: 1.0, game.seats[1]: 0.0, game.seats[2]: 0.5}


def test_partnerships_survive_the_directors_snapshot() -> None:
    config = EventConfig("q", Kind.ROUND_ROBIN, ("a", "b", "c", "d"), players=4, partnerships=True)
    t = Tournament(config)
    game = t.next_round()[0]
    back = loads(dumps(t))
    assert back.rounds[0][0].partnerships and back.rounds[0][0].sides == game.sides
    back.record(GameResult(game.game_id, (12, 5), 0))
    rows = {row.entrant: row for row in back.standings()}
    assert {n for n, r in rows.items() if r.wins} == set(game.sides[0])
    assert {n for n, r in rows.items() if r.losses} == set(game.sides[1])


def test_a_four_player_tablic_game_ranks_every_side_by_its_points() -> None:
    config = EventConfig("f", Kind.ROUND_ROBIN, ("a", "b", "c", "d"), players=4)
    t = Tournament(config)
    (game,) = t.next_round()
    answer = service_pb2.GetRecordResponse(
        result=state_pb2.Result(
            scores=[30, 51, 12, 30], winner_side=1, reason=state_pb2.RESULT_REASON_SCORE
        )
    )
    result = game_result(game, "", "0" * 16, answer, t, [])
    assert result.places == (2, 1, 4, 2)
    t.record(result)
    points = {row.entrant: row.points for row in t.standings()}
    assert [points[name] for name in game.seats] == [0.5, 1.0, 0.0, 0.5]
