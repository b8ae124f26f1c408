"""The C fast path of `captures()` against the Python path it stands in for (which the oracle
checks in test_oracle.py): the same answers on every preset and switch combination, on tables
up to 24 cards; where it declines (too many captures, bad input) the Python path answers or
names the error. On the pure build the fast path is absent and `captures()` is the Python one."""

from __future__ import annotations

import random
from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from typing import Any

import pytest
from kafana.errors import InvalidInputError, TooManyMovesError
from kafana.games import tablic
from kafana.games.tablic import Card, Rules, capture

from .test_oracle import LOW_CARDS, SWITCH_COMBOS

RULE_SETS = {name: Rules.preset(name) for name in tablic.PRESETS} | SWITCH_COMBOS
compiled = pytest.mark.skipif(capture._FAST is None, reason="the pure build has no C path")


def test_the_fast_path_is_loaded_exactly_in_the_compiled_build() -> None:
    assert (capture._FAST is not None) == (tablic.BUILD == "compiled")


@pytest.mark.parametrize("name", sorted(RULE_SETS))
def test_captures_equal_the_python_path_on_random_tables(name: str) -> None:
    rules = RULE_SETS[name]
    rng = random.Random(name)
    compared = 0
    for size in range(25):
        for _ in range(60 if size <= 16 else 15):
            pool = LOW_CARDS if rng.random() < 0.4 and size < len(LOW_CARDS) else tablic.CARDS
            cards = rng.sample(list(pool), size + 1)
            card, table = cards[0], cards[1:]
            try:
                expected = capture.python_captures(card, table, rules)
            except TooManyMovesError:
                with pytest.raises(TooManyMovesError):
                    tablic.captures(card, table, rules)
                continue
            assert tablic.captures(card, table, rules) == expected, f"{card} on {table}"
            assert tablic.captures(card, tuple(table), rules) == expected
            compared += 1
    assert compared >= 1000


def test_answers_are_sets_that_find_exactly_what_they_hold() -> None:
    """Every lookup finds what each answer holds (the cards in a capture, the captures in the
    answer) and nothing else; a mutable copy (`set(answer)`) changes as any set does, and the
    answers outlive collections (the compiled build's frozensets are not tracked)."""
    import gc

    rules = Rules.preset("serbian")
    rng = random.Random(20)
    big = 0
    kept: list[tuple[AbstractSet[frozenset[Card]], set[frozenset[Card]]]] = []
    for size in (0, 1, 4, 5, 8, 9, 12, 16):
        for _ in range(40 if size < 16 else 8):
            cards = rng.sample(list(tablic.CARDS), size + 1)
            card, table = cards[0], cards[1:]
            try:
                answer = tablic.captures(card, table, rules)
            except TooManyMovesError:
                continue
            expected = capture.python_captures(card, table, rules)
            assert answer == expected and expected == answer
            assert hash(frozenset(answer)) == hash(frozenset(expected))
            for taken in expected:
                assert taken in answer
                assert {c for c in tablic.CARDS if c in taken} == set(taken)
            for taken in answer:
                assert all(c in taken for c in table if c in set(taken))
                assert frozenset(taken) == taken and hash(frozenset(taken)) == hash(taken)
                assert card not in taken
            missing = frozenset(table[:1]) | {card}
            assert missing not in answer
            big += len(answer) > 8
            copied = set(answer)  # the caller's copy to change as it likes
            copied.add(missing)
            assert missing in copied and len(copied) == len(expected) + 1
            assert missing not in answer and answer != copied
            copied.discard(missing)
            assert answer == copied and answer | {missing} == expected | {missing}
            kept.append((answer, expected))
    gc.collect(0)
    assert all(answer == expected for answer, expected in kept)
    del kept
    gc.collect(0)
    assert big >= 20


OTHER_SETS: list[Any] = [
    0,
    None,
    "KD",
    (),
    frozenset(),
    frozenset({0, 1}),
    frozenset({"KD"}),
    frozenset({Card.parse("KD"), 1}),
    {Card.parse("KD")},
    {Card.parse("KD"), 1},
]
"""Lookups that are not captures: not a set, a set of no cards or of cards and other things."""


def _same_answer(answer: AbstractSet[frozenset[Card]], expected: set[frozenset[Card]]) -> None:
    """`answer` behaves as the set `expected` in every way a reader can ask."""
    assert len(answer) == len(expected) and bool(answer) == bool(expected)
    assert frozenset(answer) == frozenset(expected)
    listed = list(answer)
    assert len(listed) == len(set(listed)) == len(expected)
    assert all(type(taken) is frozenset and taken in expected for taken in listed)
    assert all(taken in answer and set(taken) in answer for taken in expected)
    for other in OTHER_SETS:
        assert (other in answer) == (other in expected)
    for mask in range(1, 16):  # subsets of the first captures' cards: members or not
        pool = sorted(set().union(*listed[:2]), key=lambda c: c.index)[:4]
        taken = frozenset(c for k, c in enumerate(pool) if mask >> k & 1)
        assert (taken in answer) == (taken in expected)
    with pytest.raises(TypeError):
        _ = [1] in answer  # unhashable, as in a set
    fewer = set(list(expected)[1:])
    more = expected | {frozenset({Card.parse("KD"), Card.parse("KH"), Card.parse("KS")})}
    for other in (expected, frozenset(expected), fewer, more, set(), {1}, {frozenset({1})}):
        for op in ("__eq__", "__ne__", "__le__", "__lt__", "__ge__", "__gt__"):
            assert getattr(answer, op)(other) == getattr(expected, op)(other), op
        assert (answer == other) == (other == answer) == (expected == other)
        assert (answer != other) == (other != answer) == (expected != other)
        assert (answer <= other) == (other >= answer) == (expected <= other)
        assert (answer & other) == (expected & other) == (other & answer)
        assert (answer | other) == (expected | other) == (other | answer)
        assert (answer - other) == (expected - other) and (other - answer) == (other - expected)
        assert (answer ^ other) == (expected ^ other) == (other ^ answer)
        assert answer.isdisjoint(other) == expected.isdisjoint(other)
    assert answer != list(expected) and answer != 0
    assert answer.copy() == expected and type(answer.copy()) is set


@pytest.mark.parametrize("name", sorted(RULE_SETS))
def test_answers_equal_the_pure_answer_as_sets(name: str) -> None:
    """The compiled build's answer (captures kept as masks, frozensets made when read) against
    the Python path's set, on random tables of 0-14 cards: the same elements, length, members,
    comparisons both ways and set operations; and against another answer of the same."""
    rules = RULE_SETS[name]
    rng = random.Random(f"lazy {name}")
    for size in range(15):
        for _ in range(6):
            cards = rng.sample(list(tablic.CARDS), size + 1)
            card, table = cards[0], cards[1:]
            try:
                expected = capture.python_captures(card, table, rules)
            except TooManyMovesError:
                continue
            answer = tablic.captures(card, table, rules)
            _same_answer(answer, expected)
            again = tablic.captures(card, table[::-1], rules)  # another answer, equal
            assert answer == again and answer <= again and answer >= again
            assert answer.__ne__(again) is False
            if len(table) > 1:  # another answer, equal only where the sets are
                swapped = [cards[-1], *table[:-1]]
                other = tablic.captures(card, swapped, rules)
                assert (answer == other) == (
                    expected == capture.python_captures(card, swapped, rules)
                )
                assert (answer != other) == (other != answer) != (answer == other)


def test_answers_are_immutable_unhashable_sets_that_pickle() -> None:
    import copy
    import pickle
    from collections.abc import Set

    rules = Rules.preset("serbian")
    table = [Card.parse(t) for t in ("KD", "KH", "3C", "10S")]
    answer = tablic.captures(Card.parse("KC"), table, rules)
    expected = capture.python_captures(Card.parse("KC"), table, rules)
    assert isinstance(answer, Set) and len(answer) == 3
    with pytest.raises(TypeError):
        hash(answer)
    assert not hasattr(answer, "add") or isinstance(answer, set)
    assert pickle.loads(pickle.dumps(answer)) == expected
    assert copy.copy(answer) == expected and copy.deepcopy(answer) == expected
    assert eval(repr(answer), {"frozenset": frozenset, "Card": Card}) == expected
    assert sorted(map(sorted, answer)) == sorted(map(sorted, expected))


@compiled
def test_the_fast_path_answers_plain_input_and_declines_the_rest() -> None:
    assert capture._FAST is not None
    rules = Rules.preset("serbian")
    params = capture.engine_for(rules).fast_params
    two = Card.parse("2C")
    table = [Card.parse(t) for t in ("AD", "AH", "2D", "3S")]
    answer = capture._FAST(two, table, params, False)
    assert answer == capture.python_captures(two, table, rules)
    assert answer is not None and frozenset(table[:2]) in answer
    bad_tables: list[Iterable[Any]] = [[*table, table[0]], [*table, two], [*table, "5C"]]
    bad_tables.append(iter(table))
    for bad_table in bad_tables:
        assert capture._FAST(two, bad_table, params, False) is None
    assert capture._FAST("2C", table, params, False) is None  # type: ignore[arg-type]
    assert capture._FAST(two, table, params[:-1], False) is None


def test_bad_input_is_named_by_the_python_path() -> None:
    rules = Rules.preset("serbian")
    two, ace = Card.parse("2C"), Card.parse("AD")
    with pytest.raises(InvalidInputError, match="AD appears twice in the table"):
        tablic.captures(two, [ace, ace], rules)
    with pytest.raises(InvalidInputError, match="both played and on the table"):
        tablic.captures(two, [ace, two], rules)
    with pytest.raises(InvalidInputError, match="table Cards"):
        tablic.captures(two, [ace, "3S"], rules)  # type: ignore[list-item]
    assert tablic.captures(two, iter([ace, Card.parse("AH")]), rules) == {
        frozenset({ace, Card.parse("AH")})
    }


def test_too_many_captures_are_refused_on_both_paths() -> None:
    rules = Rules.preset("serbian")
    table = [c for c in tablic.CARDS if c.rank <= 7][:27]  # many small cards: many sums of 10
    ten = Card.parse("10C")
    with pytest.raises(TooManyMovesError):
        capture.python_captures(ten, table, rules)
    with pytest.raises(TooManyMovesError):
        tablic.captures(ten, table, rules)
