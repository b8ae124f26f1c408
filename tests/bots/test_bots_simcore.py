"""`HandSim` on `_ccore.SimCore`, the simulator's position owned by C (compiled build), against
the Python simulator (`HandSim.play_reference`): each move played as the reference plays it,
copies independent, the lists handed out the simulator's own (a caller's change is played on),
positions past the C's bounds played in Python, and a move of a card not held (or after the
hand's end) refused rather than written past the position's arrays."""

from __future__ import annotations

import random

import pytest
from bots_support import TABLES
from kafana.games import tablic
from kafana_bots import sim as sim_module
from kafana_bots.sim import CORE_TABLE, HandSim
from test_bots_fast_playout import position, starts

compiled = pytest.mark.skipif(sim_module._CORE is None, reason="the pure build has no C path")


def in_c(sim: HandSim) -> bool:
    """Whether the position is held in C alone (its lists not made)."""
    return sim._core is not None and not sim._lists


def seen(sim: HandSim) -> tuple[object, ...]:
    """The position of `sim`, read from a copy (so `sim` stays as it is)."""
    return position(sim.copy())


def test_simcore_is_there_exactly_in_the_compiled_build() -> None:
    assert (sim_module._CORE is not None) == (tablic.BUILD == "compiled")


@pytest.mark.parametrize("preset", tablic.PRESETS)
@pytest.mark.parametrize(("players", "partnerships"), TABLES)
def test_each_move_is_played_as_the_reference_plays_it(
    preset: str, players: int, partnerships: bool
) -> None:
    rng = random.Random(preset)
    for switches in ({}, {"must_capture": True, "rank_priority": True}):
        for reference in starts(preset, players, partnerships, **switches):
            sim = reference.copy()
            assert seen(sim) == position(reference)
            played = 0
            while not reference.is_over:
                move = rng.choice(reference.legal())
                assert move in sim.legal()
                reference.play_reference(*move)
                sim.play(*move)
                assert in_c(sim) == (sim_module._CORE is not None)
                assert sim.current == reference.current
                assert sim.vector == reference.vector
                assert sim.last_capturer == reference.last_capturer
                assert seen(sim) == position(reference)
                played += 1
            assert played > 0 and sim.is_over
            assert sim.final_points() == reference.final_points()
            assert position(sim) == position(reference)


def test_a_copy_is_independent() -> None:
    sim = starts("serbian", 2, False)[1]
    before = position(sim)
    copy = sim.copy()
    while not copy.is_over:
        copy.play(*copy.legal()[-1])
    assert position(sim) == before and not sim.is_over
    again = sim.copy()
    again.play(*again.legal()[0])
    other = again.copy()
    assert seen(again) == seen(other)
    other.play(*other.legal()[0])
    assert seen(again) != seen(other)


def test_lists_read_are_the_simulators_own_and_changes_are_played_on() -> None:
    """What `worlds.WorldSampler` does: read the hands, deal into them, set the deck."""
    sim = starts("serbian", 2, False)[0]
    world = sim.copy()
    world.play(*world.legal()[0])
    hands = world.hands
    other = 1 - world.current  # type: ignore[operator]
    held, deck = hands[other], world.deck
    hands[other] = sorted(deck[: len(held)])
    world.deck = held + deck[len(held) :]
    assert world.hands[other] == sorted(deck[: len(held)])
    reference = world.copy()
    reference.play_reference(*reference.legal()[0])
    world.play(*world.legal()[0])
    assert seen(world) == position(reference)
    assert world.deck == held + deck[len(held) :]


def test_positions_past_the_c_bounds_are_played_in_python() -> None:
    rules = tablic.Rules.preset("serbian")
    cards = list(tablic.CARDS)
    sim = HandSim.build(
        rules,
        hands=[cards[:2], cards[2:4]],
        table=cards[4 : 5 + CORE_TABLE],
        deck=[],
        captured=[cards[5 + CORE_TABLE :], []],
        tablas=[0, 0],
        last_capturer=0,
        current=0,
        hand_no=0,
    )
    reference = sim.copy()
    assert sim._core is None and reference._core is None
    move = (0, 0)
    sim.play(*move)
    reference.play_reference(*move)
    assert sim._core is None and position(sim) == position(reference)
    assert not sim_module.fast_playout(sim, -1, 1)


@compiled
def test_a_move_not_held_is_refused() -> None:
    sim = starts("serbian", 2, False)[1].copy()
    before = seen(sim)
    held = set(sim.copy().hands[sim.current])  # type: ignore[index]
    absent = next(i for i in range(52) if i not in held)
    for card in (absent, -1, 52):
        with pytest.raises(ValueError, match="not held"):
            sim.play(card, 0)
    assert seen(sim) == before
    assert sim_module.fast_playout(sim, -1, 3) and sim.is_over
    with pytest.raises(ValueError, match="hand is over"):
        sim.play(next(iter(held)), 0)
