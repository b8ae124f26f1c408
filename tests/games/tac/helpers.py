"""Small helpers shared by the Tač tests: positions from card texts, and random play."""

from __future__ import annotations

import random
from collections import Counter

from kafana.games import tac
from kafana.games.tac import Card, GameState, Move, Position, Rules

CONFIGS: tuple[tuple[int, int], ...] = ((2, 1), (3, 1), (4, 1), (2, 2), (4, 2), (8, 2))
"""(players, decks) of every table shape."""


def c(text: str) -> Card:
    """One card from its text."""
    return Card.parse(text)


def texts(cards: tuple[Card, ...]) -> str:
    """Cards as one space-separated text, in the order given."""
    return " ".join(card.text for card in cards)


def position(
    rules: Rules,
    closed: list[str],
    discards: list[str] | None = None,
    central: str = "",
    current: int = 0,
) -> GameState:
    """A game started from piles given as texts (closed top first, others bottom first)."""
    return tac.start_position(rules, Position.of(closed, discards, central, current))


def play(state: GameState, *moves: str) -> GameState:
    """Apply moves given as texts."""
    for move in moves:
        state = state.apply(move)
    return state


def full_count(rules: Rules) -> Counter[Card]:
    """Every card of the game's decks by count."""
    return Counter(tac.canonical_deck(rules.decks))


def random_game(
    rules: Rules, seed: int, cap: int = 20_000, check: bool = True
) -> tuple[GameState, int]:
    """Play uniformly random legal actions (calls included) to the end; return the state and
    the number of moves. With `check`, verify at every step that no card is lost or doubled."""
    rng = random.Random(seed)
    state = tac.new_game(rules, seed=seed)
    expected = full_count(rules)
    moves = 0
    while not state.is_over and moves < cap:
        choice: Move = rng.choice(state.legal_moves())
        state = state.apply(choice)
        moves += 1
        if check:
            assert state.all_cards() == expected, f"cards changed after {choice} (move {moves})"
    return state, moves
