"""`_ccore.SimCore`, the simulator's position owned by C (compiled build), against the Python
simulator: each move played as `HandSim.play` plays it, playouts equal to `fast_playout` on a
HandSim from the same seed or values, copies independent, and a move of a card not held (or
after the hand's end) refused rather than written past the position's arrays."""

from __future__ import annotations

import random

import pytest
from bots_support import TABLES
from kafana.games import tablic
from kafana.games.tablic.capture import NATIVE
from kafana_bots.rollout import value_tables
from kafana_bots.sim import HandSim, fast_playout, fast_rules
from test_bots_fast_playout import position, starts

compiled = pytest.mark.skipif(NATIVE is None, reason="the pure build has no C path")


def core_of(sim: HandSim) -> object:
    packed = fast_rules(sim.rules)
    assert NATIVE is not None and packed is not None
    return NATIVE.SimCore(sim, packed)


def written(core: object, like: HandSim) -> tuple[object, ...]:
    """The position of `core`, written into a copy of `like`."""
    out = like.copy()
    core.write(out)  # type: ignore[attr-defined]
    return position(out)


def test_simcore_is_there_exactly_in_the_compiled_build() -> None:
    assert (NATIVE is not None and hasattr(NATIVE, "SimCore")) == (tablic.BUILD == "compiled")


@compiled
@pytest.mark.parametrize("preset", tablic.PRESETS)
@pytest.mark.parametrize(("players", "partnerships"), TABLES)
def test_each_move_is_played_as_handsim_plays_it(
    preset: str, players: int, partnerships: bool
) -> None:
    rng = random.Random(preset)
    for switches in ({}, {"must_capture": True, "rank_priority": True}):
        for sim in starts(preset, players, partnerships, **switches):
            core = core_of(sim)
            assert written(core, sim) == position(sim)
            played = 0
            while not sim.is_over:
                move = rng.choice(sim.legal())
                sim.play(*move)
                core.play(*move)  # type: ignore[attr-defined]
                assert written(core, sim) == position(sim)
                assert core.current == sim.current  # type: ignore[attr-defined]
                played += 1
            assert played > 0
            assert core.points == tuple(sim.points)  # type: ignore[attr-defined]


@compiled
@pytest.mark.parametrize("preset", tablic.PRESETS)
def test_a_playout_equals_fast_playout_on_the_handsim(preset: str) -> None:
    for sim in starts(preset, 2, False) + starts(preset, 4, True):
        values = value_tables(sim.rules)
        for seed, chosen in ((1, None), (2, None), (0, values)):
            reference = sim.copy()
            assert fast_playout(reference, -1, seed, chosen)
            core = core_of(sim)
            assert core.playout(-1, seed, chosen) > 0  # type: ignore[attr-defined]
            assert written(core, sim) == position(reference)
            assert core.current is None  # type: ignore[attr-defined]


@compiled
def test_a_copy_is_independent_and_a_move_not_held_is_refused() -> None:
    sim = starts("serbian", 2, False)[1]
    core = core_of(sim)
    copy = core.copy()  # type: ignore[attr-defined]
    assert copy.playout(-1, 3, None) > 0
    assert written(core, sim) == position(sim)
    held = set(sim.hands[sim.current])  # type: ignore[index]
    absent = next(i for i in range(52) if i not in held)
    for card in (absent, -1, 52):
        with pytest.raises(ValueError, match="not held"):
            core.play(card, 0)  # type: ignore[attr-defined]
    assert written(core, sim) == position(sim)
    with pytest.raises(ValueError, match="hand is over"):
        copy.play(next(iter(held)), 0)
