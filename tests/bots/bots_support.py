"""Helpers shared by the bot tests: table shapes, quick bot options, one-hand play."""

from __future__ import annotations

import random
from typing import Any

from kafana.games import tablic
from kafana.games.tablic import MatchState, Move, Rules
from kafana_bots import Bot, registry
from kafana_bots.play import play

TABLES: tuple[tuple[int, bool], ...] = ((2, False), (3, False), (4, False), (4, True))
"""(players, partnerships): 2, 3, 4 players and 2 against 2."""


def quick_options(name: str, iterations: int = 2) -> dict[str, Any]:
    """Options that make a bot fast and replayable (a world count, not a clock)."""
    return {"iterations": iterations} if "iterations" in registry.entry(name).options else {}


def make_bots(name: str, rules: Rules, seed: int, iterations: int = 2) -> list[Bot]:
    """One bot of `name` per seat, each with its own seeded generator."""
    return [
        registry.create(
            name,
            seat=seat,
            rules=rules,
            rng=random.Random(f"{seed}:{seat}"),
            **quick_options(name, iterations),
        )
        for seat in range(rules.players)
    ]


def play_hand(name: str, rules: Rules, seed: int, iterations: int = 2) -> MatchState:
    """One hand of `name` against itself from the match seed `seed`."""
    return play(
        tablic.new_match(rules, seed=seed), make_bots(name, rules, seed, iterations), hands=1
    )


def moves_of(state: MatchState) -> list[tuple[int, Move]]:
    """Every (seat, move) played."""
    return state.moves()
