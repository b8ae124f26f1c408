"""The C playout of the compiled build (`kafana_bots.sim.fast_playout`) against the Python
simulator it stands in for: each random move is one of `HandSim.legal()` played as
`HandSim.play_reference` plays it, the greedy policy chooses what `rollout.greedy_move`
chooses, move by move, on every preset and table shape. In the pure build it declines and
changes nothing."""

from __future__ import annotations

import random

import pytest
from bots_support import TABLES
from kafana.games import tablic
from kafana_bots import sim as sim_module
from kafana_bots.rollout import greedy_move, value_tables
from kafana_bots.sim import HandSim, fast_playout
from test_bots_sim import sim_of

compiled = pytest.mark.skipif(sim_module._CORE is None, reason="the pure build has no C path")


def position(sim: HandSim) -> tuple[object, ...]:
    """Everything a HandSim's play changes."""
    return (
        [list(h) for h in sim.hands],
        list(sim.table),
        list(sim.deck),
        list(sim.cards),
        list(sim.points),
        list(sim.tablas),
        sim.last_capturer,
        sim.current,
        sim.vector,
    )


def starts(preset: str, players: int, partnerships: bool, **switches: bool) -> list[HandSim]:
    """Simulators at the start and in the middle of a few hands."""
    rng = random.Random(f"{preset}{players}{partnerships}{switches}")
    rules = tablic.Rules.preset(preset, players=players, partnerships=partnerships, **switches)
    out = []
    for seed in range(3):
        state = tablic.new_match(rules, seed=seed)
        for _ in range(seed * 7):
            state = state.apply(rng.choice(state.legal_moves()))
        out.append(sim_of(state, rng)[1])
    return out


def test_the_c_playout_is_there_exactly_in_the_compiled_build() -> None:
    assert (sim_module._CORE is not None) == (tablic.BUILD == "compiled")


@compiled
@pytest.mark.parametrize("preset", tablic.PRESETS)
@pytest.mark.parametrize(("players", "partnerships"), TABLES)
def test_each_random_move_is_a_legal_move_played_as_handsim_plays_it(
    preset: str, players: int, partnerships: bool
) -> None:
    for switches in ({}, {"must_capture": True, "rank_priority": True}):
        for seed, sim in enumerate(starts(preset, players, partnerships, **switches)):
            played = 0
            while not sim.is_over:
                outcomes = []
                for move in sim.legal():
                    after = sim.copy()
                    after.play_reference(*move)
                    outcomes.append(position(after))
                assert fast_playout(sim, 1, seed * 1000 + played)
                assert position(sim) in outcomes
                played += 1
            assert played > 0


@compiled
@pytest.mark.parametrize("preset", tablic.PRESETS)
@pytest.mark.parametrize(("players", "partnerships"), TABLES)
def test_the_greedy_playout_chooses_what_greedy_move_chooses(
    preset: str, players: int, partnerships: bool
) -> None:
    for switches in ({}, {"must_capture": True, "rank_priority": True}):
        for sim in starts(preset, players, partnerships, **switches):
            values = value_tables(sim.rules)
            reference = sim.copy()
            while not sim.is_over:
                reference.play_reference(*greedy_move(reference))
                assert fast_playout(sim, 1, 0, values)
                assert position(sim) == position(reference)
            assert sim.final_points() == reference.final_points()


@compiled
def test_a_playout_stops_after_its_plies_and_random_ones_differ_by_seed() -> None:
    sim = starts("serbian", 2, False)[0]
    first, second = sim.copy(), sim.copy()
    assert fast_playout(first, 10, 1)
    unplayed = [sum(map(len, s.hands)) + len(s.deck) for s in (sim, first)]
    assert unplayed[1] == unplayed[0] - 10
    assert fast_playout(first, -1, 1) and first.is_over
    assert fast_playout(second, -1, 2) and second.is_over
    assert sum(first.cards) == sum(second.cards) == 52
    finals = set()
    for seed in range(20):
        again = sim.copy()
        fast_playout(again, -1, seed)
        finals.add(tuple(again.final_points()))
    assert len(finals) > 1


def test_the_pure_build_declines_and_changes_nothing() -> None:
    sim = starts("serbian", 2, False)[0]
    before = position(sim)
    if sim_module._CORE is None:
        assert not fast_playout(sim, -1, 1)
        assert position(sim) == before
    else:
        assert fast_playout(sim, -1, 1) and sim.is_over
