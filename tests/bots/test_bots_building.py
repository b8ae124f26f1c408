"""Every built-in bot plays the `building` switch legally, whole matches.

(`ismcts` searches worlds of the engine itself there: the simulator `kafana_bots.sim` knows
no builds.) `CheckedBot` asserts each answer is one of the legal moves offered.
"""

from __future__ import annotations

import random

import pytest
from bots_support import TABLES, quick_options
from kafana.games import tablic
from kafana_bots import registry
from kafana_bots.play import play
from test_bots_legal import CheckedBot

BOTS = ("random", "greedy", "heuristic", "ismcts")


def test_the_bots_checked_are_every_built_in_one() -> None:
    assert set(registry.names()) == set(BOTS)  # the oracle is the arena's only


@pytest.mark.parametrize("name", BOTS)
@pytest.mark.parametrize("preset", tablic.PRESETS)
@pytest.mark.parametrize(("players", "partnerships"), TABLES)
def test_bot_finishes_a_match_with_building(
    name: str, preset: str, players: int, partnerships: bool
) -> None:
    rules = tablic.Rules.preset(
        preset, players=players, partnerships=partnerships, building=True, target=11
    )
    bots = [
        CheckedBot(
            registry.create(
                name, seat=s, rules=rules, rng=random.Random(s), **quick_options(name, 4)
            )
        )
        for s in range(players)
    ]
    state = play(tablic.new_match(rules, seed=3), bots)
    assert state.is_over and max(state.scores) >= 11
    assert all(sum(r.cards) == 52 for r in state.hand_results if r.last_capturer is not None)
    built = [m for _, m in state.moves() if m.is_build]
    if name != "random":  # the random bot builds by chance; the others value builds
        assert built, "no build was played"
