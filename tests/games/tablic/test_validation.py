"""Validation (`is_legal`, `apply`) against generation (`legal_moves`) and the oracle."""

from __future__ import annotations

import itertools
import random

import pytest
from kafana.errors import KafanaError
from kafana.games import tablic
from kafana.games.tablic import Card, MatchState, Move, Rules

from .oracle import oracle_legal_moves

RULE_SETS = {
    "serbian-2": Rules.preset("serbian"),
    "wild_jack-3": Rules.preset("wild_jack", players=3),
    "tabinet-4": Rules.preset("tabinet", players=4),
    "tablanette-2v2": Rules.preset("tablanette", players=4, partnerships=True),
    "serbian+must_capture": Rules.preset("serbian", must_capture=True),
    "serbian+rank_priority": Rules.preset("serbian", rank_priority=True),
    "tablanette+rank_priority+must": Rules.preset(
        "tablanette", rank_priority=True, must_capture=True
    ),
}


def candidates(state: MatchState, rng: random.Random) -> list[Move]:
    """Plausible moves, legal or not: a card of the hand and a few table cards."""
    seat = state.current_seat
    assert seat is not None
    hand, table = state.hand(seat), state.table
    out = [Move(card) for card in hand]
    for _ in range(25):
        card = rng.choice(hand)
        size = rng.randint(1, min(4, len(table))) if table else 0
        out.append(Move(card, rng.sample(table, size)))
    out.append(Move(card, table))
    return out


def replay(rules: Rules, seed: int, moves: list[Move]) -> MatchState:
    state = tablic.new_match(rules, seed=seed)
    for move in moves:
        state = state.apply(move)
    return state


@pytest.mark.parametrize("name", sorted(RULE_SETS))
def test_is_legal_and_apply_agree_with_legal_moves_and_the_oracle(name: str) -> None:
    rules = RULE_SETS[name]
    rng = random.Random(name)
    seed = len(name)
    state = tablic.new_match(rules, seed=seed)
    history: list[Move] = []
    checked = 0
    while not state.is_over and state.hand_no < 2:
        seat = state.current_seat
        assert seat is not None
        # Validate first, on a state whose legal moves were never generated...
        fresh = replay(rules, seed, history) if len(history) % 10 == 0 else state
        tried = candidates(state, rng)
        verdicts = [fresh.is_legal(move) for move in tried]
        # ...then generate, and compare with the oracle (which is slow on big tables).
        legal = state.legal_moves()
        assert len(set(legal)) == len(legal)
        if len(state.table) <= 9:
            expected = oracle_legal_moves(state.hand(seat), state.table, rules)
            assert {(m.card, m.captured) for m in legal} == expected
        for move, verdict in zip(tried, verdicts, strict=True):
            assert verdict == (move in legal), move
            assert state.is_legal(move) == verdict
            if not verdict:
                with pytest.raises(KafanaError):
                    state.apply(move)
            checked += 1
        move = rng.choice(legal)
        history.append(move)
        # Applying through the text form or a fresh state gives the same result.
        nxt = state.apply(move)
        again = fresh.apply(str(move))
        assert again.table == nxt.table and again.hand(seat) == nxt.hand(seat)
        assert again.current_seat == nxt.current_seat
        state = nxt
    assert checked > 1000


def test_apply_does_not_change_the_state_it_is_called_on() -> None:
    state = tablic.new_match(Rules.preset("serbian"), seed=4)
    table, hand, count = state.table, state.hand(0), state.move_count
    for move in state.legal_moves():
        state.apply(move)
    assert (state.table, state.hand(0), state.move_count) == (table, hand, count)
    assert state.current_seat == 0


def test_what_legal_moves_returns_cannot_change_the_state() -> None:
    state = tablic.new_match(Rules.preset("serbian"), seed=4)
    moves = state.legal_moves()
    before = list(moves)
    try:
        moves.clear()  # type: ignore[attr-defined]
    except AttributeError:  # the compiled build's answer is the state's own immutable listing
        assert tablic.BUILD == "compiled"
        with pytest.raises(TypeError):
            moves[0] = moves[1]  # type: ignore[index]
    else:  # the pure build's answer is a new list
        assert tablic.BUILD == "pure"
    assert list(state.legal_moves()) == before and before


def test_every_card_in_hand_can_always_be_played() -> None:
    # Without must_capture every card has at least its trail.
    rng = random.Random(9)
    state = tablic.new_match(Rules.preset("tablanette", players=3), seed=9)
    while not state.is_over and state.hand_no < 2:
        seat = state.current_seat
        assert seat is not None
        legal = state.legal_moves()
        assert {m.card for m in legal} == set(state.hand(seat))
        assert {m.card for m in legal if m.is_trail} == set(state.hand(seat))
        state = state.apply(rng.choice(legal))


def test_table_and_hands_are_cards() -> None:
    state = tablic.new_match(Rules.preset("serbian", players=4), seed=2)
    assert all(isinstance(card, Card) for card in state.table)
    assert all(isinstance(card, Card) for s in range(4) for card in state.hand(s))


@pytest.mark.parametrize("name", sorted(RULE_SETS))
def test_is_legal_on_every_subset_of_small_tables_agrees_with_the_oracle(name: str) -> None:
    # Every possible capture of one card, checked directly (never listed) on a fresh state.
    rules = RULE_SETS[name]
    rng = random.Random(name + "subsets")
    seed = len(name) + 100
    history: list[Move] = []
    state = tablic.new_match(rules, seed=seed)
    checked = 0
    while not state.is_over and state.hand_no < 1:
        seat = state.current_seat
        assert seat is not None
        table = state.table
        if len(table) <= 8:
            fresh = replay(rules, seed, history)
            card = rng.choice(state.hand(seat))
            legal = {
                taken
                for played, taken in oracle_legal_moves(state.hand(seat), table, rules)
                if played == card
            }
            for size in range(len(table) + 1):
                for taken in itertools.combinations(table, size):
                    move = Move(card, taken)
                    assert fresh.is_legal(move) == (frozenset(taken) in legal), move
                    checked += 1
        move = rng.choice(state.legal_moves())
        history.append(move)
        state = state.apply(move)
    assert checked > 200
