"""`MatchState.determinize`: other hidden cards, same public position."""

from __future__ import annotations

import random

import pytest
from kafana.errors import InvalidInputError
from kafana.games import tablic
from kafana.games.tablic import Rules


def position(seed: int, moves: int) -> tablic.MatchState:
    rng = random.Random(seed)
    state = tablic.new_match(Rules.preset("serbian", players=3), seed=seed)
    for _ in range(moves):
        state = state.apply(rng.choice(state.legal_moves()))
    return state


def test_determinize_swaps_hidden_cards_and_keeps_the_public_position() -> None:
    state = position(4, 5)
    seat = state.current_seat
    assert seat is not None
    hidden = [card for s in range(3) if s != seat for card in state.hand(s)]
    undealt = sorted(
        set(tablic.CARDS)
        - set(state.table)
        - {card for s in range(3) for card in state.hand(s)}
        - {card for side in range(3) for card in state.captured(side)}
    )
    pool = hidden + undealt
    random.Random(1).shuffle(pool)
    hands, rest = [], iter(pool)
    for s in range(3):
        hands.append(state.hand(s) if s == seat else [next(rest) for _ in state.hand(s)])
    deck = list(rest)
    other = state.determinize(hands, deck)
    assert other.hand(seat) == state.hand(seat)
    assert other.table == state.table and other.scores == state.scores
    assert other.legal_moves() == state.legal_moves()
    assert [sorted(other.hand(s)) for s in range(3)] == [sorted(h) for h in hands]
    assert other.deck_remaining == state.deck_remaining
    # The original is untouched, and the new one plays on.
    assert state.hand(seat) == other.hand(seat)
    nxt = other.apply(other.legal_moves()[0])
    assert nxt.move_count == state.move_count + 1


def test_determinize_refuses_wrong_cards() -> None:
    state = position(4, 5)
    hands = [state.hand(s) for s in range(3)]
    undealt = sorted(
        set(tablic.CARDS)
        - set(state.table)
        - {card for h in hands for card in h}
        - {card for side in range(3) for card in state.captured(side)}
    )
    with pytest.raises(InvalidInputError, match="size"):
        state.determinize(hands, undealt[:-1])
    table_card = state.table[0]
    with pytest.raises(InvalidInputError, match="hidden"):
        state.determinize(hands, [*undealt[:-1], table_card])
    with pytest.raises(InvalidInputError, match="twice"):
        state.determinize(hands, [*undealt[:-1], hands[0][0]])
    with pytest.raises(InvalidInputError, match="hand sizes"):
        state.determinize(hands[:2], undealt)
