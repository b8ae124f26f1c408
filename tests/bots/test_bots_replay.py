"""The same seed gives the same moves (search bots with a world budget, not a clock)."""

from __future__ import annotations

import pytest
from bots_support import play_hand
from kafana.games import tablic


@pytest.mark.parametrize("name", ["random", "greedy", "heuristic", "ismcts"])
@pytest.mark.parametrize(("preset", "players"), [("serbian", 2), ("wild_jack", 3)])
def test_same_seed_same_moves(name: str, preset: str, players: int) -> None:
    rules = tablic.Rules.preset(preset, players=players)
    first = play_hand(name, rules, seed=17, iterations=6)
    again = play_hand(name, rules, seed=17, iterations=6)
    assert first.moves() == again.moves()
    assert first.hand_results == again.hand_results


def test_different_seeds_differ_for_random() -> None:
    rules = tablic.Rules.preset("serbian", players=2)
    assert play_hand("random", rules, seed=1).moves() != play_hand("random", rules, seed=2).moves()
