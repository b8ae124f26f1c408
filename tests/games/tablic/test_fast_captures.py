"""The C fast path of `captures()` against the Python path it stands in for (which the oracle
checks in test_oracle.py): the same answers on every preset and switch combination, on tables
up to 24 cards; where it declines (too many captures, bad input) the Python path answers or
names the error. On the pure build the fast path is absent and `captures()` is the Python one."""

from __future__ import annotations

import random
from collections.abc import Iterable
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
    """The C path fills the answer's set tables in place: every lookup must find what each
    set holds (the cards in a capture, the captures in the answer) and nothing else, and the
    sets must stay usable as any set is (grown, shrunk, combined, hashed, collected)."""
    import gc

    rules = Rules.preset("serbian")
    rng = random.Random(20)
    big = 0
    kept: list[tuple[set[frozenset[Card]], set[frozenset[Card]]]] = []
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
            answer.add(missing)  # the caller's set to change as it likes
            assert missing in answer and len(answer) == len(expected) + 1
            answer.discard(missing)
            assert answer == expected and answer | {missing} == expected | {missing}
            kept.append((answer, expected))
    gc.collect(0)  # the answers (tracked) hold frozensets the collector does not track
    assert all(answer == expected for answer, expected in kept)
    del kept
    gc.collect(0)
    assert big >= 20


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
