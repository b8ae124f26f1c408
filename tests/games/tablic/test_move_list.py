"""What `MatchState.legal_moves()` answers: a sequence of Moves to read, not to change.

The compiled build answers with the state's own listing (`_ccore.MoveList`: the moves kept as
cards, each Move made when first read); it must behave as the list the pure build returns
wherever reading does: length, indexes and slices, iteration, membership, `index`, equality,
repr, copying.
"""

from __future__ import annotations

import copy
import pickle
import sys
from collections.abc import Sequence
from itertools import repeat

import pytest
from kafana.games import tablic
from kafana.games.tablic import Card, Move

from .test_fast_legal import compiled

RULES = tablic.Rules.preset("serbian")


def listing() -> tuple[tablic.MatchState, Sequence[Move]]:
    """A state with trails and captures listed (seed 5: 13 moves, 8 of them captures)."""
    state = tablic.new_match(RULES, seed=5)
    return state, state.legal_moves()


def test_a_listing_reads_as_the_list_of_its_moves() -> None:
    state, legal = listing()
    moves = list(legal)
    assert len(legal) == len(moves) == 13 and isinstance(legal, Sequence)
    assert [legal[i] for i in range(len(moves))] == moves
    assert [legal[-1 - i] for i in range(len(moves))] == moves[::-1]
    assert legal[2:7] == moves[2:7] and legal[::-3] == moves[::-3] and legal[5:2] == []
    assert list(reversed(legal)) == moves[::-1]
    assert legal == moves and moves == legal and (legal != moves) is False
    assert legal == state.legal_moves() and legal != moves[:-1] and legal != moves[::-1]
    assert repr(legal) == repr(moves) and str(legal) == str(moves)
    assert copy.copy(legal) == moves and copy.deepcopy(legal) == moves
    assert pickle.loads(pickle.dumps(legal)) == moves
    for bad in (len(moves), -len(moves) - 1):
        with pytest.raises(IndexError):
            legal[bad]
    with pytest.raises(TypeError, match="integers or slices"):
        legal["1"]  # type: ignore[call-overload]


def test_membership_and_index_are_by_equal_moves() -> None:
    _, legal = listing()
    moves = list(legal)
    capture = next(move for move in moves if move.captured)
    for move in moves:
        copied = Move.parse(str(move))  # equal, not the same object
        assert copied in legal and legal.index(copied) == moves.index(move)
        assert legal.count(copied) == 1
        assert (move.card, move.captured) in legal  # a plain pair equals a Move
        assert (move.card, set(move.captured)) in legal  # and a set equals a frozenset
    stranger = next(c for c in tablic.CARDS if all(m.card != c for m in moves))
    wider = Move(capture.card, (*capture.captured, stranger))
    for absent in (Move(stranger), wider, "7S", None, (capture.card, {stranger}), (stranger,)):
        assert absent not in legal and legal.count(absent) == 0
        with pytest.raises(ValueError):
            legal.index(absent)


def test_a_listing_cannot_be_changed_by_its_reader() -> None:
    state, legal = listing()
    before = list(legal)
    if tablic.BUILD == "compiled":  # the state's own listing: immutable, unhashable as a list
        with pytest.raises(TypeError):
            legal[0] = legal[1]  # type: ignore[index]
        with pytest.raises(AttributeError):
            legal.append(legal[0])  # type: ignore[attr-defined]
        with pytest.raises(TypeError):
            hash(legal)
    else:  # a new list each time: the caller's to change
        legal.append(legal[0])  # type: ignore[attr-defined]
        assert legal is not state.legal_moves()
    assert list(state.legal_moves()) == before


@compiled
def test_the_compiled_listing_makes_each_move_once_and_keeps_it() -> None:
    state, legal = listing()
    assert type(legal).__name__ == "MoveList" and state._legal is legal
    first = [legal[i] for i in range(len(legal))]
    assert all(a is b for a, b in zip(first, legal, strict=True))  # the same objects again
    assert all(type(move) is Move for move in first)
    assert all(move is tablic.move.TRAILS[move.card.index] for move in first if move.is_trail)
    nxt = state.apply(first[5])
    assert nxt.moves()[-1][1] is first[5]


@compiled
def test_the_compiled_listing_keeps_no_reference_it_does_not_own() -> None:
    card = Card.parse("10D")

    def counts() -> tuple[int, ...]:
        return tuple(map(sys.getrefcount, (card, *tablic.move.TRAILS[:3])))

    states = [tablic.new_match(RULES, seed=seed) for seed in range(50)]
    before = counts()
    for state in states:
        for _ in repeat(None, 3):
            legal = tablic.new_match(RULES, seed=state._setup.seed).legal_moves()
            list(legal), legal[1:4], repr(legal), Move.parse(str(legal[-1])) in legal
            del legal
    assert counts() == before
