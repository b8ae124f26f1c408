"""Moves, hand scores and whole match states copy and pickle in both builds, and a copy plays on
as the original does (the compiled classes have no `__dict__` to restore: they say how)."""

from __future__ import annotations

import copy
import pickle
import random
from collections.abc import Callable

import pytest
from kafana.games import tablic
from kafana.games.tablic import HandResult, MatchState, Move

COPIES: dict[str, Callable[[object], object]] = {
    "copy": copy.copy,
    "deepcopy": copy.deepcopy,
    "pickle": lambda value: pickle.loads(pickle.dumps(value)),
}


def played(moves: int, seed: int = 1) -> MatchState:
    """A match after `moves` random moves, its last listing made (kept on the state)."""
    rng = random.Random(seed)
    state = tablic.new_match(tablic.Rules.preset("serbian"), seed=seed)
    for _ in range(moves):
        state = state.apply(rng.choice(state.legal_moves()))
    state.legal_moves()
    return state


@pytest.mark.parametrize("how", sorted(COPIES))
def test_a_move_and_a_hand_score_copy_as_themselves(how: str) -> None:
    for text in ("KC:KD+KH", "7S", "10D:AS+9H+10S"):
        move = Move.parse(text)
        made = COPIES[how](move)
        assert made == move and type(made) is Move and str(made) == text
    score = played(60).hand_results[0]
    made_score = COPIES[how](score)
    assert made_score == score and type(made_score) is HandResult


@pytest.mark.parametrize("how", sorted(COPIES))
def test_a_copied_state_plays_on_as_the_original(how: str) -> None:
    state = played(60)
    made = COPIES[how](state)
    assert isinstance(made, MatchState)
    assert made.record().to_text() == state.record().to_text()
    assert list(made.legal_moves()) == list(state.legal_moves())
    listed = made.legal_moves()
    if isinstance(listed, list):  # a copy's listing is the caller's to change, not the state's
        listed.clear()
        assert list(made.legal_moves()) == list(state.legal_moves())
    rng = random.Random(5)
    ours, theirs = state, made
    while not ours.is_over:
        move = rng.choice(ours.legal_moves())
        ours, theirs = ours.apply(move), theirs.apply(Move.parse(str(move)))
        assert theirs.table == ours.table and theirs.scores == ours.scores
    assert theirs.is_over and theirs.winner == ours.winner
