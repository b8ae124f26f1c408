"""The C listing of `MatchState` legal moves against the Python listing it stands in for:
the same moves in the same order, each marked as a capture or not, on every preset and switch
combination, in random matches and on random tables up to 16 cards; where it declines (too
many captures, anything but the state's own well-formed input) the Python path lists or
raises. On the pure build there is no C listing."""

from __future__ import annotations

import random
import sys
from itertools import repeat

import pytest
from kafana.errors import TooManyMovesError
from kafana.games import tablic
from kafana.games.tablic import Card, Move, Rules, capture
from kafana.games.tablic import state as state_module
from kafana.games.tablic.state import MatchState

from .test_fast_captures import RULE_SETS

compiled = pytest.mark.skipif(
    state_module._FAST_LEGAL is None, reason="the pure build has no C listing"
)


def fast_listing(state: MatchState) -> dict[Move, int] | None:
    """What the C listing answers for the seat to move."""
    assert state_module._FAST_LEGAL is not None
    seat = state.current_seat
    assert seat is not None
    rules = state.rules
    return state_module._FAST_LEGAL(
        state.hand(seat),
        state.table,
        capture.engine_for(rules).fast_params,
        rules.rank_priority,
        rules.must_capture,
        state_module._MOVES,
        state_module.MOVE_ENTRIES,
    )


def c_listing() -> tuple[state_module.FastLegal, bytes]:
    """The C listing and the serbian preset's capture parameters."""
    assert state_module._FAST_LEGAL is not None
    return state_module._FAST_LEGAL, capture.engine_for(Rules.preset("serbian")).fast_params


def python_listing(state: MatchState) -> dict[Move, int]:
    seat = state.current_seat
    assert seat is not None
    return state._list_moves(seat)


def with_position(state: MatchState, hand: list[Card], table: list[Card]) -> MatchState:
    """A copy of `state` with the seat to move holding `hand` and `table` face up."""
    seat = state.current_seat
    assert seat is not None
    out = state._copy()
    hands = list(out._hands)
    hands[seat] = tuple(sorted(hand))
    out._hands = tuple(hands)
    out._table = tuple(sorted(table))
    out._vector = capture.count_vector(c.rank for c in table)
    out._legal = None
    return out


def test_the_c_listing_is_loaded_exactly_in_the_compiled_build() -> None:
    assert (state_module._FAST_LEGAL is not None) == (tablic.BUILD == "compiled")


@compiled
@pytest.mark.parametrize("name", sorted(RULE_SETS))
def test_the_c_listing_equals_the_python_one_in_random_matches(name: str) -> None:
    rules = RULE_SETS[name]
    rng = random.Random(name)
    compared = 0
    for seed in range(3):
        state = tablic.new_match(rules, seed=seed)
        while not state.is_over and state.move_count < 400:
            fast = fast_listing(state)
            expected = python_listing(state)
            assert fast is not None
            assert list(fast.items()) == list(expected.items()), f"{state!r}"
            assert all(type(move) is Move for move in fast)
            assert state.legal_moves() == list(expected)
            compared += 1
            state = state.apply(rng.choice(list(expected)))
    assert compared >= 100


@compiled
@pytest.mark.parametrize("name", sorted(RULE_SETS))
def test_the_c_listing_equals_the_python_one_on_random_tables(name: str) -> None:
    rules = RULE_SETS[name]
    rng = random.Random(f"tables {name}")
    start = tablic.new_match(rules, seed=1)
    declined = compared = 0
    for size in range(17):
        for _ in range(25):
            cards = rng.sample(list(tablic.CARDS), size + rng.randint(1, 6))
            state = with_position(start, cards[size:], cards[:size])
            fast = fast_listing(state)
            try:
                expected = python_listing(state)
            except TooManyMovesError:
                assert fast is None
                with pytest.raises(TooManyMovesError):
                    state.legal_moves()
                declined += 1
                continue
            assert fast is not None and list(fast.items()) == list(expected.items())
            compared += 1
    assert compared >= 300


@compiled
def test_the_c_listing_declines_what_is_not_a_plain_position() -> None:
    legal, params = c_listing()
    moves, entries = state_module._MOVES, state_module.MOVE_ENTRIES
    two, ace, ace2 = Card.parse("2C"), Card.parse("AD"), Card.parse("AH")
    assert legal((two,), (ace, ace2), params, False, False, moves, entries) == {
        Move(two): 0,
        Move(two, [ace, ace2]): 1,
    }
    assert legal((two,), (ace, ace2), params, False, True, moves, entries) == {
        Move(two, [ace, ace2]): 1
    }
    for hand, table in [
        ([two], (ace,)),  # a list, not the state's tuple
        ((two, two), (ace,)),
        ((two,), (ace, ace)),
        ((two,), (two,)),
        (("2C",), (ace,)),
        ((two,), iter([ace])),
    ]:
        assert legal(hand, table, params, False, False, moves, entries) is None  # type: ignore[arg-type]
    assert legal((two,), (ace,), params[:-1], False, False, moves, entries) is None
    assert legal((two,), (ace,), params, False, False, [], entries) is None  # type: ignore[arg-type]


@compiled
def test_the_c_listing_keeps_the_move_cache_bounded() -> None:
    legal, params = c_listing()
    known: dict[int, Move] = {}
    rng = random.Random(3)
    for _ in range(200):
        cards = rng.sample(list(tablic.CARDS), 14)
        table, hand = tuple(sorted(cards[:8])), tuple(sorted(cards[8:]))
        listed = legal(hand, table, params, False, False, known, 50)
        assert listed is not None
        assert len(known) <= 50
        for move in listed:
            if move.captured:
                key = move.card.index | sum(1 << 6 + c.index for c in move.captured)
                assert known.get(key, move) == move


@compiled
def test_the_c_listing_keeps_no_reference_it_does_not_own() -> None:
    legal, params = c_listing()
    two, ace, ace2 = Card.parse("2C"), Card.parse("AD"), Card.parse("AH")
    args = ((two,), (ace, ace2), params, False, False, state_module._MOVES, 1 << 16)
    legal(*args)  # the capture's Move is made and kept in _MOVES once

    def counts() -> tuple[int, ...]:
        return tuple(map(sys.getrefcount, (0, 1, two, ace, Move(two), args[0], args[1])))

    before = counts()
    for _ in repeat(None, 1000):
        legal(*args)
    assert counts() == before
