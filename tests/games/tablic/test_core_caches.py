"""The rules core's caches: engines per Rules object, listings per rank key and per table.

Speed comes from remembering work; these tests make sure nothing remembered leaks between
rule switches, Rules objects or tables, and that the fast paths refuse what the slow ones do.
"""

from __future__ import annotations

import gc
import random
from typing import Any

import pytest
from kafana.errors import IllegalMoveError, InvalidInputError
from kafana.games import tablic
from kafana.games.tablic import CaptureEngine, Move, Rules, engine_for
from kafana.games.tablic.capture import count_vector
from kafana.games.tablic.move import TRAILS

from .helpers import c, capture_texts, cs, fs
from .oracle import oracle_captures, oracle_legal_moves


def test_one_engine_per_set_of_capture_switches() -> None:
    serbian = Rules.preset("serbian")
    twin = Rules.preset("serbian", players=3)  # other switches, same capture switches
    one_group = Rules.preset("serbian", multi_group=False)
    assert isinstance(engine_for(serbian), CaptureEngine)
    assert engine_for(serbian) is engine_for(serbian)
    assert engine_for(twin) is engine_for(serbian)
    assert engine_for(one_group) is not engine_for(serbian)
    assert engine_for(Rules.preset("tabinet")) is not engine_for(
        Rules.preset("wild_jack", ace_high=True)
    )


def test_equal_rules_of_another_identity_give_the_same_answers() -> None:
    first = Rules.preset("serbian", multi_group=False)
    second = Rules.from_json(first.to_json())
    assert second == first and second is not first
    table = cs("2C 3D 5H 4S AC")
    for played in cs("5C 6D 9H 10S"):
        assert tablic.captures(played, table, first) == tablic.captures(played, table, second)
        assert tablic.captures(played, table, second) == oracle_captures(played, table, second)


def test_rules_with_other_switches_never_reuse_an_engine_by_identity() -> None:
    # The engine is remembered per Rules object; a new object must never inherit the answer
    # of an old one that lived at the same address.
    table = cs("AC 2D 3H 4S 5C 6D")
    played = c("7H")
    for k in range(300):
        rules = Rules.preset("serbian", multi_group=bool(k % 2))
        expected = oracle_captures(played, table, rules)
        assert tablic.captures(played, table, rules) == expected
        del rules
        gc.collect(0)  # the young generation: where a cycle holding it would be


def test_rank_priority_does_not_leak_between_rules_sharing_an_engine() -> None:
    plain = Rules.preset("serbian")
    strict = Rules.preset("serbian", rank_priority=True)
    assert engine_for(plain) is engine_for(strict)
    table = cs("5S 2C 3D")
    for order in ((plain, strict), (strict, plain)):
        for rules in order:
            got = tablic.captures(c("5H"), table, rules)
            assert got == oracle_captures(c("5H"), table, rules)
    assert capture_texts(tablic.captures(c("5H"), table, strict)) == [["2C", "3D", "5S"], ["5S"]]
    assert fs("2C 3D") in tablic.captures(c("5H"), table, plain)


def test_captures_takes_any_iterable_table_once() -> None:
    rules = Rules.preset("serbian")
    table = cs("KD KH 7S 7D")
    expected = tablic.captures(c("KC"), table, rules)
    assert tablic.captures(c("KC"), iter(table), rules) == expected
    assert tablic.captures(c("KC"), (card for card in table), rules) == expected
    assert tablic.captures(c("KC"), tuple(table), rules) == expected


@pytest.mark.parametrize("item", ["KD", 13, None, (13, "D")])
def test_captures_names_a_table_item_that_is_not_a_card(item: Any) -> None:
    with pytest.raises(InvalidInputError, match="expected table Cards"):
        tablic.captures(c("KC"), [c("KD"), item], Rules())


def test_captures_refuses_rules_that_are_not_rules() -> None:
    with pytest.raises(InvalidInputError, match="expected Rules"):
        tablic.captures(c("KC"), cs("KD"), "serbian")  # type: ignore[arg-type]


def test_trails_are_interned_and_equal_to_new_trails() -> None:
    for card in tablic.CARDS:
        trail = TRAILS[card.index]
        assert trail == Move(card) == Move.parse(card.text)
        assert trail.card is card and trail.is_trail
        assert hash(trail) == hash(Move(card))


def test_the_same_table_in_two_matches_lists_the_same_moves_as_the_oracle() -> None:
    # legal_moves() remembers listings per table ranks: tables of equal ranks but other
    # cards (other suits) must still list their own cards.
    rng = random.Random(9)
    rules = Rules.preset("serbian")
    for seed in range(6):
        state = tablic.new_match(rules, seed=seed)
        for _ in range(30):
            seat = state.current_seat
            assert seat is not None
            moves = state.legal_moves()
            expected = oracle_legal_moves(state.hand(seat), state.table, rules)
            assert {(m.card, m.captured) for m in moves} == expected
            state = state.apply(rng.choice(moves))


def test_the_table_counts_kept_move_by_move_match_the_table() -> None:
    # legal_moves() looks listings up by the table's rank counts, updated move by move
    # (trails, captures, deals, a new hand, determinize); they must always be the table's.
    rng = random.Random(3)
    for rules in (Rules.preset("serbian"), Rules.preset("wild_jack", players=4)):
        state = tablic.new_match(rules, seed=11)
        while not state.is_over:
            assert state._f.vector == count_vector(card.rank for card in state.table)
            if state.move_count % 17 == 5:
                hidden = [list(state.hand(s)) for s in range(rules.players)]
                deck = list(state._f.deck)
                rng.shuffle(deck)
                state = state.determinize(hidden, deck)
            state = state.apply(rng.choice(state.legal_moves()))
        assert state._f.vector == 0 and state.table == ()


def test_a_listed_move_of_another_position_is_checked_and_refused() -> None:
    rules = Rules.preset("serbian")
    state = tablic.new_match(rules, seed=4)
    moves = state.legal_moves()
    nxt = state.apply(moves[0])
    before = (nxt.table, nxt.move_count, nxt.current_seat, [nxt.hand(s) for s in (0, 1)])
    with pytest.raises(IllegalMoveError):
        nxt.apply(moves[0])  # that card has been played already
    assert (nxt.table, nxt.move_count, nxt.current_seat, [nxt.hand(s) for s in (0, 1)]) == before


class _Impostor(Move):
    """A Move subclass: it must take the checked path, never the listed-move shortcut."""

    __slots__ = ()


def test_a_move_subclass_is_checked_like_any_move() -> None:
    rules = Rules.preset("serbian")
    state = tablic.new_match(rules, seed=4)
    seat = state.current_seat
    assert seat is not None
    state.legal_moves()
    card = state.hand(seat)[0]
    trail = tuple.__new__(_Impostor, (card, frozenset()))
    assert state.apply(trail).table == state.apply(Move(card)).table
    stranger = next(x for x in tablic.CARDS if x not in state.hand(seat))
    with pytest.raises(IllegalMoveError):
        state.apply(tuple.__new__(_Impostor, (stranger, frozenset())))
