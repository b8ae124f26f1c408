"""The search simulator agrees with `MatchState`, move by move, and the exact search is exact."""

from __future__ import annotations

import random

import pytest
from bots_support import TABLES
from kafana.games import tablic
from kafana.games.tablic import Card, MatchState, Move
from kafana_bots.exact import solve
from kafana_bots.rollout import utility
from kafana_bots.sim import HandSim
from kafana_bots.worlds import sim_from_view


def sim_of(state: MatchState, rng: random.Random) -> tuple[MatchState, HandSim]:
    """A state with a deck order we know, and the simulator built from it."""
    rules = state.rules
    shown = set(state.table)
    for s in range(rules.players):
        shown |= set(state.hand(s))
    for side in range(rules.sides):
        shown |= state.captured(side)
    deck = [c for c in tablic.CARDS if c not in shown]
    rng.shuffle(deck)
    hands = [state.hand(s) for s in range(rules.players)]
    state = state.determinize(hands, deck)
    return state, sim_from_view(state.public_view(), [list(h) for h in hands], deck)


@pytest.mark.parametrize("preset", tablic.PRESETS)
@pytest.mark.parametrize(("players", "partnerships"), TABLES)
def test_sim_matches_the_rules(preset: str, players: int, partnerships: bool) -> None:
    rng = random.Random(f"{preset}{players}{partnerships}")
    for switches in ({}, {"must_capture": True, "rank_priority": True}):
        rules = tablic.Rules.preset(preset, players=players, partnerships=partnerships, **switches)
        for seed in range(4):
            state = tablic.new_match(rules, seed=seed)
            # Start the simulator mid-hand for some seeds.
            for _ in range(seed * 5):
                state = state.apply(rng.choice(state.legal_moves()))
            state, sim = sim_of(state, rng)
            while not state.hand_results:
                legal = state.legal_moves()
                assert {sim.to_move(m) for m in sim.legal()} == set(legal)
                move = rng.choice(legal)
                assert sim.to_move(sim.to_sim(move)) == move
                sim.play(*sim.to_sim(move))
                state = state.apply(move)
                if not state.hand_results:
                    assert sim.current == state.current_seat
                    assert sorted(sim.table) == [c.index for c in state.table]
            assert sim.is_over
            assert tuple(sim.final_points()) == state.hand_results[0].points
            assert tuple(sim.cards) == state.hand_results[0].cards


def minimax(sim: HandSim, side: int) -> float:
    """Plain minimax, no pruning: the oracle for `solve`."""
    if sim.current is None:
        return utility(sim.final_points(), side)
    values = []
    for move in sim.legal():
        child = sim.copy()
        child.play(*move)
        values.append(minimax(child, side))
    return max(values) if sim.side_of[sim.current] == side else min(values)


def endgame(seed: int, cards_each: int) -> HandSim:
    """A random two-player last deal with `cards_each` cards left in each hand."""
    rng = random.Random(seed)
    rules = tablic.Rules.preset("serbian", players=2)
    state = tablic.new_match(rules, seed=seed)
    while state.deck_remaining or len(state.hand(1)) > cards_each:
        state = state.apply(rng.choice(state.legal_moves()))
    return sim_of(state, rng)[1]


@pytest.mark.parametrize("seed", range(6))
def test_exact_search_agrees_with_minimax(seed: int) -> None:
    sim = endgame(seed, 3)
    assert sim.current is not None
    side = sim.side_of[sim.current]
    moves = sim.legal()
    found = solve(sim, moves, side, max_nodes=10**6)
    assert found is not None
    values, exact = found
    assert exact
    truth = []
    for move in moves:
        child = sim.copy()
        child.play(*move)
        truth.append(minimax(child, side))
    assert max(values) == pytest.approx(max(truth))
    picked = max(range(len(values)), key=values.__getitem__)
    assert truth[picked] == pytest.approx(max(truth))


def test_exact_search_gives_up_without_budget() -> None:
    sim = endgame(1, 6)
    assert sim.current is not None
    assert solve(sim, sim.legal(), 0, max_nodes=3) is None


def test_to_move_round_trips() -> None:
    rules = tablic.Rules()
    state = tablic.new_match(rules, seed=3)
    _, sim = sim_of(state, random.Random(0))
    for move in state.legal_moves():
        assert sim.to_move(sim.to_sim(move)) == move
    assert sim.to_move((Card.parse("AC").index, 0)) == Move(Card.parse("AC"))


@pytest.mark.parametrize(("players", "partnerships"), TABLES)
def test_sampled_worlds_fit_the_view(players: int, partnerships: bool) -> None:
    from kafana_bots.worlds import sample_hidden

    rng = random.Random(2)
    rules = tablic.Rules.preset("serbian", players=players, partnerships=partnerships)
    state = tablic.new_match(rules, seed=4)
    for _ in range(17):
        state = state.apply(rng.choice(state.legal_moves()))
    seat = state.current_seat
    assert seat is not None
    view = state.view(seat)
    truth = {c for s in range(players) if s != seat for c in state.hand(s)}
    for _ in range(20):
        hands, deck = sample_hidden(view, rng)
        assert [len(h) for h in hands] == list(view.hand_sizes)
        assert len(deck) == view.deck_remaining
        assert tuple(hands[seat]) == view.hand
        hidden = {c for s, h in enumerate(hands) if s != seat for c in h} | set(deck)
        seen = set(view.table) | set(view.hand or ()) | set().union(*view.captured)
        assert hidden == set(tablic.CARDS) - seen
        assert truth <= hidden


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_search_benchmark_plays_the_same_games_in_both_engines(players: int) -> None:
    """loadtests/bench_search.py compares HandSim with MatchState on the same work: both
    engines must reach the same results (random playouts, greedy playouts and estimates)."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "loadtests"))
    import bench_search

    rules = tablic.Rules.preset("serbian", players=players)
    items = bench_search.worlds(bench_search.positions(rules, 6, seed=players), 3, seed=5)
    assert bench_search.playout_sim(items, 9) == bench_search.playout_state(items, 9)
    assert bench_search.search_sim(items, 10) == bench_search.search_state(items, 10)
    assert bench_search.search_sim(items, 52) == bench_search.search_state(items, 52)  # to the end
