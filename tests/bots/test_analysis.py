"""The engine's advice (`kafana_bots.analysis`): exact where the last deal is known, checked
against a brute-force minimax over the rules engine itself; every move valued otherwise."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from kafana.games import tablic
from kafana_bots.analysis import analyze
from kafana_bots.rollout import utility


def _minimax(state: tablic.MatchState, side: int, hand: int) -> float:
    """The side's margin at the end of `hand`, both sides playing best: the engine's own
    states and scores, no simulator and no pruning (the independent oracle)."""
    if len(state.hand_results) > hand:
        return utility(list(state.hand_results[hand].points), side)
    values = [_minimax(state.apply(m), side, hand) for m in state.legal_moves()]
    mover = state.rules.side_of(state.current_seat)  # type: ignore[arg-type]
    return max(values) if mover == side else min(values)


def _last_deal_positions(count: int, cards: int) -> Iterator[tablic.MatchState]:
    """Positions of two-seat matches in a last deal, each seat holding at most `cards`."""
    rules = tablic.Rules.preset("serbian", players=2)
    seed = 0
    found = 0
    while found < count:
        state = tablic.new_match(rules, seed=seed)
        rng = random.Random(seed)
        seed += 1
        hand = 0
        while not state.is_over and hand == state.hand_no:
            view = state.view(state.current_seat)  # type: ignore[arg-type]
            last = view.deck_remaining == 0 and len(view.hand or ()) <= cards
            if last and len(state.legal_moves()) > 1:
                found += 1
                yield state
                break
            state = state.apply(rng.choice(list(state.legal_moves())))


@pytest.mark.parametrize("position", range(12))
def test_exact_values_equal_a_brute_force_minimax(position: int) -> None:
    state = list(_last_deal_positions(position + 1, 3))[position]
    seat = state.current_seat
    assert seat is not None
    side = state.rules.side_of(seat)
    moves = list(state.legal_moves())
    found = analyze(state.view(seat), moves, budget_ms=5_000, rng=random.Random(1))
    expected = [_minimax(state.apply(m), side, state.hand_no) for m in moves]
    assert found.method == "exact"
    assert [round(v.value, 9) for v in found.moves] == [round(v, 9) for v in expected]
    assert found.best in moves
    assert expected[moves.index(found.best)] == max(expected)


def test_sampled_values_every_move_on_the_same_worlds_and_replay() -> None:
    rules = tablic.Rules.preset("serbian", players=2)
    state = tablic.new_match(rules, seed=11)
    seat = state.current_seat
    assert seat is not None
    moves = list(state.legal_moves())
    first = analyze(state.view(seat), moves, worlds=64, rng=random.Random(5))
    again = analyze(state.view(seat), moves, worlds=64, rng=random.Random(5))
    assert first == again
    assert first.method == "sampled" and first.worlds == 64
    assert [v.move for v in first.moves] == moves
    assert first.cost(first.best) == 0.0
    assert all(first.cost(m) >= 0 for m in moves)
    assert max(v.value for v in first.moves) == first.cost(first.best) + next(
        v.value for v in first.moves if v.move == first.best
    )


def test_four_players_value_the_side_of_the_seat() -> None:
    rules = tablic.Rules.preset("serbian", players=4, partnerships=True)
    state = tablic.new_match(rules, seed=2)
    seat = state.current_seat
    assert seat is not None
    found = analyze(state.view(seat), list(state.legal_moves()), worlds=16, rng=random.Random(3))
    assert found.method == "sampled" and len(found.moves) == len(state.legal_moves())


def test_a_view_not_of_the_seat_to_move_is_refused() -> None:
    state = tablic.new_match(tablic.Rules.preset("serbian", players=2), seed=1)
    other = 1 - (state.current_seat or 0)
    with pytest.raises(ValueError, match="not of the seat to move"):
        analyze(state.view(other), list(state.legal_moves()))
    with pytest.raises(ValueError, match="no legal move"):
        analyze(state.view(other), [])
