"""The C listing of `MatchState` legal moves against the Python listing it stands in for:
the same moves in the same order, on every preset and switch combination, in random matches
and on random tables up to 16 cards; where it declines (too many captures, anything but the
state's own well-formed input) the Python path lists or raises. On the pure build there is no
C listing."""

from __future__ import annotations

import gc
import random
import sys
from collections.abc import Callable
from itertools import repeat

import pytest
from kafana.errors import TooManyMovesError
from kafana.games import tablic
from kafana.games.tablic import Card, Move, Rules, capture
from kafana.games.tablic import state as state_module
from kafana.games.tablic.state import MatchState

from .test_fast_captures import RULE_SETS

NATIVE = capture.NATIVE
compiled = pytest.mark.skipif(NATIVE is None, reason="the pure build has no C listing")
FastLegal = Callable[[tuple[Card, ...], tuple[Card, ...], bytes], tuple[Move, ...] | None]


def fast_listing(state: MatchState) -> tuple[Move, ...] | None:
    """What the C listing answers for the seat to move."""
    legal, _ = c_listing()
    seat = state.current_seat
    assert seat is not None
    return legal(state.hand(seat), state.table, state._params)


def c_listing() -> tuple[FastLegal, bytes]:
    """The C listing (`_ccore.legal`, what `MatchState`'s `_FAST_MOVES` runs on its fields) and
    the serbian preset's parameters."""
    assert NATIVE is not None
    rules = Rules.preset("serbian")
    legal: FastLegal = NATIVE.legal
    return legal, state_module.state_params(rules)


def python_listing(state: MatchState) -> tuple[Move, ...]:
    seat = state.current_seat
    assert seat is not None
    return state._list_moves(seat)


def with_position(state: MatchState, hand: list[Card], table: list[Card]) -> MatchState:
    """A copy of `state` with the seat to move holding `hand` and `table` face up."""
    seat = state.current_seat
    assert seat is not None
    out = state._copy()
    hands = list(out._f.hands)
    hands[seat] = tuple(sorted(hand))
    out._f.hands = tuple(hands)
    out._f.table = tuple(sorted(table))
    out._f.vector = capture.count_vector(c.rank for c in table)
    out._legal = None
    return out


def test_the_c_listing_is_loaded_exactly_in_the_compiled_build() -> None:
    assert (state_module._FAST_MOVES is not None) == (tablic.BUILD == "compiled")
    assert (NATIVE is not None) == (tablic.BUILD == "compiled")


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
            assert fast == expected, f"{state!r}"
            assert all(type(move) is Move for move in fast)
            assert state.legal_moves() == list(expected)
            compared += 1
            state = state.apply(rng.choice(expected))
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
            if fast is None:  # past the bound on a listing's captures: Python lists them
                assert sum(1 for move in expected if move.captured) > capture.CAPTURE_LIMIT
                declined += 1
                continue
            assert fast == expected
            compared += 1
    assert compared >= 300


@compiled
def test_the_c_listing_declines_what_is_not_a_plain_position() -> None:
    legal, params = c_listing()
    two, ace, ace2 = Card.parse("2C"), Card.parse("AD"), Card.parse("AH")
    assert legal((two,), (ace, ace2), params) == (Move(two), Move(two, [ace, ace2]))
    must = state_module.state_params(Rules.preset("serbian", must_capture=True))
    assert legal((two,), (ace, ace2), must) == (Move(two, [ace, ace2]),)
    for hand, table in [
        ([two], (ace,)),  # a list, not the state's tuple
        ((two,), [ace]),
        ((), (ace,)),
        ((two, two), (ace,)),
        ((two,), (ace, ace)),
        ((two,), (two,)),
        (("2C",), (ace,)),
        ((two,), iter([ace])),
    ]:
        assert legal(hand, table, params) is None  # type: ignore[arg-type]
    assert legal((two,), (ace,), params[:-1]) is None
    assert legal((two,), (ace,), bytearray(params)) is None  # type: ignore[arg-type]


@compiled
def test_the_c_listing_keeps_no_reference_it_does_not_own() -> None:
    legal, params = c_listing()
    two, ace, ace2 = Card.parse("2C"), Card.parse("AD"), Card.parse("AH")
    args = ((two,), (ace, ace2), params)

    def counts() -> tuple[int, ...]:
        return tuple(map(sys.getrefcount, (two, ace, Move(two), args[0], args[1], params)))

    before = counts()
    for _ in repeat(None, 1000):
        legal(*args)
    assert counts() == before


@compiled
def test_the_c_listing_of_a_state_is_kept_on_it_up_to_the_bound() -> None:
    moves = state_module._FAST_MOVES
    assert moves is not None
    state = tablic.new_match(Rules.preset("serbian"), seed=4)
    expected = python_listing(state)
    assert moves(state, 0, 0) == list(expected) and state._legal is None  # too long to keep
    listed = moves(state, len(expected), len(expected))
    assert listed == list(expected) and listed is state._legal  # kept: the same listing
    assert state.legal_moves() is listed
    over = state
    while not over.is_over:
        over = over.apply(over.legal_moves()[-1])  # a capture where one can: tables stay small
    assert moves(over, 256, 256) is None and over.legal_moves() == []
    assert moves(object(), 256, 256) is None  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        moves(state, 256)  # type: ignore[call-arg]


@compiled
def test_a_listing_called_back_during_a_listing_declines() -> None:
    """On CPython 3.11 an allocation may run the collector, and a finalizer may list moves
    while a listing is under way: the inner call answers right or declines (Python lists). The
    listing allocates nothing the collector tracks while it fills the shared buffers (its
    MoveList is not tracked), so inner calls run while its Moves are made, and answer."""
    legal, params = c_listing()
    rng = random.Random(11)
    cards = rng.sample(list(tablic.CARDS), 16)
    inner_args = (tuple(sorted(cards[:3])), tuple(sorted(cards[3:9])), params)
    outer_args = (tuple(sorted(cards[9:12])), tuple(sorted(cards[12:])), params)
    expected = legal(*outer_args)
    inner: list[object] = []

    class Finalized:
        def __del__(self) -> None:
            inner.append(legal(*inner_args))
            inner.append(tablic.captures(cards[0], list(cards[3:9]), Rules.preset("serbian")))

    threshold = gc.get_threshold()
    gc.collect()
    try:
        gc.set_threshold(1)
        for _ in range(20):  # a cycle with a finalizer, collected at the next allocation
            garbage = Finalized()
            garbage.me = garbage  # type: ignore[attr-defined]
            del garbage
            assert legal(*outer_args) == expected
    finally:
        gc.set_threshold(*threshold)
    inner_expected = legal(*inner_args)
    assert inner_expected is not None and inner
    assert all(found in (None, inner_expected) for found in inner[::2])
    assert all(
        found == tablic.captures(cards[0], cards[3:9], Rules.preset("serbian"))
        for found in inner[1::2]
    )


@compiled
def test_the_c_listing_declines_a_hand_of_more_than_52() -> None:
    legal, params = c_listing()
    two, ace = Card.parse("2C"), Card.parse("AD")
    assert legal((two,) * 53, (ace,), params) is None
