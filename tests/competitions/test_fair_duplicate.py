"""A duplicate event teaches an entrant that remembers its hands nothing about its opponents'.

The old format dealt the same boards to every pairing in every round, and played both seatings
of a pairing at once: an entrant that only remembered the 6-card hands it was dealt knew its
opponent's whole hand at its first decision (8 of 16 deals in round 1, all of them later). The
movement now deals fresh boards every round and plays each at every table of the round, the
tables in different seatings; entrants are compared with those who held the same cards
elsewhere (matchpoints).
"""

from __future__ import annotations

from collections import Counter, defaultdict

import pytest
from kafana.competitions.model import GameResult, GameSpec
from kafana.competitions.tournament import EventConfig, Kind, Tournament
from kafana.competitions.verify_export import Checked, verify_export
from kafana.errors import InvalidInputError
from kafana.games import tablic
from kafana.v1 import competitions_pb2 as pb
from kafana_client import AsyncClient
from kafana_client.tournaments import Tournaments

from .hosted_helpers import Served, until

EIGHT = tuple(f"e{i}" for i in range(8))
Hand = frozenset[tablic.Card]


def dealt(t: Tournament, spec: GameSpec) -> dict[int, list[Hand]]:
    """Every 6-card hand each seat of `spec` is dealt, played out by last legal moves."""
    rules = t.config.rules
    assert isinstance(rules, tablic.Rules)
    state = tablic.new_match(rules, seed=t.seed_of(spec.game_id), decks=spec.decks or None)
    out: dict[int, list[Hand]] = defaultdict(list)
    before = -1
    while not state.is_over:
        held = sum(len(state.hand(s)) for s in range(len(spec.seats)))
        if held > before:  # a new deal of hands
            for s in range(len(spec.seats)):
                out[s].append(frozenset(state.hand(s)))
        before = held
        state = state.apply(state.legal_moves()[-1])
    return out


def event(played: int, **options: object) -> Tournament:
    """A duplicate event of eight entrants, every game adjudicated a draw as it comes."""
    t = Tournament(EventConfig("dup8", Kind.DUPLICATE, EIGHT, target=11, **options))  # type: ignore[arg-type]
    while len(t.rounds) < min(played, t.total_rounds):
        for spec in t.next_round():
            t.adjudicate(spec.game_id, None)
    return t


def test_a_remembering_entrant_learns_nothing_in_eight_entrants_three_rounds() -> None:
    t = event(3, rounds=3, boards=2, hands_per_board=2)
    games = [g for r in t.rounds for g in r]
    assert len(t.rounds) == 3
    hands = {g.game_id: dealt(t, g) for g in games}
    # what each entrant remembers: every hand dealt to it, by round
    seen: dict[str, list[tuple[int, str, Hand]]] = defaultdict(list)
    for g in games:
        for seat, name in enumerate(g.seats):
            seen[name] += [(g.round, g.game_id, hand) for hand in hands[g.game_id][seat]]
    leaks = []
    for g in games:
        for seat, name in enumerate(g.seats):
            # everything it was dealt in any other game up to this one's round (games of a
            # round run at once: all of them count)
            known = {h for r, gid, h in seen[name] if r <= g.round and gid != g.game_id}
            for other in range(len(g.seats)):
                if other != seat and known & set(hands[g.game_id][other]):
                    leaks.append((g.game_id, name, g.seats[other]))
    assert leaks == []
    assert t.finished and len(games) == 3 * 4 * 2  # 3 rounds of 4 tables, 2 boards each
    # the movement: nobody plays a deal twice; each board at every table of its round, in
    # both seatings; the boards of different rounds differ
    for name in EIGHT:
        mine = [g.commitment for g in games if name in g.seats]
        assert len(mine) == len(set(mine)) == 3 * 2
    boards: dict[tuple[int, int | None], list[GameSpec]] = defaultdict(list)
    for g in games:
        boards[(g.round, g.board)].append(g)
    assert len(boards) == 3 * 2 and len({g.commitment for g in games}) == 3 * 2
    for specs in boards.values():
        assert len(specs) == 4 and len({g.commitment for g in specs}) == 1
        assert len({name for g in specs for name in g.seats}) == 8  # every entrant, once
        first = Counter(g.seats[0] for g in specs)
        assert len(first) == 4  # four different entrants hold seat 0's cards


def test_a_board_is_scored_against_those_who_held_the_same_cards() -> None:
    t = Tournament(EventConfig("mp", Kind.DUPLICATE, EIGHT[:4], target=11, boards=1))
    specs = t.next_round()
    a, b = specs  # one board at two tables: seat 0's cards held by a.seats[0], b.seats[0]
    assert a.seats[0] != b.seats[0] and set(a.seats) | set(b.seats) == set(EIGHT[:4])
    assert a.seats == tuple(reversed(b.seats)) or set(a.seats).isdisjoint(b.seats)
    t.record(GameResult(a.game_id, (14, 9), 0))  # seat 0 won by 5 at table a
    assert t.placings() == []  # not before every table has played the board
    t.record(GameResult(b.game_id, (11, 12), 1))  # seat 0 lost by 1 at table b
    points = {p.entrant: (p.points, p.opponents, p.diff) for p in t.placings()}
    assert points == {
        a.seats[0]: (1.0, (b.seats[0],), 5),  # did better with the same cards
        b.seats[0]: (0.0, (a.seats[0],), -1),
        a.seats[1]: (0.0, (b.seats[1],), -5),
        b.seats[1]: (1.0, (a.seats[1],), 1),
    }
    rows = {row.entrant: row for row in t.standings()}
    assert rows[a.seats[0]].wins == 1 and rows[b.seats[1]].wins == 1
    assert sum(row.points for row in rows.values()) == 2  # one point per compared pair


def test_a_duplicate_needs_two_tables_a_round() -> None:
    with pytest.raises(InvalidInputError, match="needs 4 entrants or more"):
        EventConfig("small", Kind.DUPLICATE, ("a", "b", "c"))
    with pytest.raises(InvalidInputError, match="needs 8 entrants or more"):
        EventConfig("pairs", Kind.DUPLICATE, EIGHT[:7], players=4, partnerships=True)
    with pytest.raises(InvalidInputError, match="at most 3 rounds"):
        EventConfig("long", Kind.DUPLICATE, EIGHT[:4], rounds=4)


async def test_a_hosted_duplicate_of_eight_plays_three_rounds_of_fresh_boards(
    hosted: Served,
) -> None:
    async with AsyncClient.connect(hosted.target) as client:
        events = Tournaments(client)
        made = await events.create(
            "dup8", "duplicate", rounds=3, boards=1, hands_per_board=2, target=11
        )
        for name in EIGHT:
            await events.enter(made.event_id, name, bot="greedy")
        await events.start(made.event_id, made.organiser_token)
        info = await until(
            lambda: events.get(made.event_id, records=True),
            lambda i: i.phase == pb.EVENT_PHASE_FINISHED,
        )
    played = [g for r in info.rounds for g in r.games]
    assert len(info.rounds) == 3 and len(played) == 3 * 4  # a board a round at 4 tables
    assert all(g.ending == pb.GAME_ENDING_SCORE and g.secret for g in played)
    assert len({g.commitment for g in played}) == 3  # a fresh board every round
    for name in EIGHT:
        mine = [g.commitment for g in played if name in g.seats]
        assert len(mine) == len(set(mine)) == 3
    checked = verify_export(info.exports["records.jsonl"])
    assert all(isinstance(x, Checked) for x in checked), checked
    # a board: per seat, 4 holders, 6 pairs compared, each worth 1/3 point: 2; two seats: 4
    assert sum(s.points for s in info.standings) == pytest.approx(3 * 4)
