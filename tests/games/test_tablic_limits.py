"""Huge tables: listing captures is bounded, checking a move never needs the list."""

import random

import pytest
from kafana.errors import IllegalMoveError, TooManyMovesError
from kafana.games import tablic
from kafana.games.tablic.capture import CAPTURE_LIMIT, engine_for

PRESETS = [tablic.Rules.preset(name) for name in tablic.PRESETS]
KING = 13


def trail_everything(rules: tablic.Rules, seed: int, moves: int) -> tablic.MatchState:
    """Trail the lowest card `moves` times: the table grows without anyone capturing."""
    state = tablic.new_match(rules, seed=seed)
    for _ in range(moves):
        seat = state.current_seat
        assert seat is not None
        state = state.apply(tablic.Move(min(state.hand(seat))))
    return state


@pytest.mark.parametrize("rules", PRESETS, ids=tablic.PRESETS)
def test_direct_check_agrees_with_the_listed_captures(rules: tablic.Rules) -> None:
    engine = engine_for(rules)
    rng = random.Random(11)
    for _ in range(400):
        cards = rng.sample(tablic.CARDS, rng.randint(2, 9))
        played, table = cards[0], sorted(cards[1:], key=lambda c: c.index)
        ranks = tuple(c.rank for c in table)
        listed = set(engine.masks(played.rank, ranks))
        for mask in range(1, 1 << len(table)):
            taken = tuple(r for i, r in enumerate(ranks) if mask >> i & 1)
            assert engine.is_capture(played.rank, ranks, taken) == (mask in listed), (
                played,
                table,
                mask,
            )
        assert engine.has_capture(played.rank, ranks) == bool(listed)


def test_listing_a_huge_table_is_refused_but_moves_still_play() -> None:
    rules = tablic.Rules.preset("serbian")
    state = trail_everything(rules, seed=3, moves=40)
    assert len(state.table) == 44
    with pytest.raises(TooManyMovesError, match=str(CAPTURE_LIMIT)):
        state.legal_moves()
    seat = state.current_seat
    assert seat is not None
    # Find a real capture by hand: a same-rank card, always one group.
    for card in state.hand(seat):
        same = [c for c in state.table if c.rank == card.rank]
        if same:
            after = state.apply(tablic.Move(card, same[:1]))
            assert same[0] not in after.table
            break
    else:  # pragma: no cover - the seed is chosen so that a same-rank card exists
        raise AssertionError("no same-rank capture in this position")
    bad = tablic.Move(state.hand(seat)[0], state.table[:3])
    if not engine_for(rules).is_capture(
        bad.card.rank, tuple(c.rank for c in state.table), tuple(c.rank for c in state.table[:3])
    ):
        with pytest.raises(IllegalMoveError):
            state.apply(bad)


def test_must_capture_on_a_huge_table_uses_the_direct_test() -> None:
    rules = tablic.Rules.preset("serbian", must_capture=False)
    state = trail_everything(rules, seed=5, moves=40)
    strict = tablic.new_match(rules.with_switches(must_capture=True), seed=5)
    # Same deal with must_capture: refuse a trail as soon as a capture exists.
    seat = strict.current_seat
    assert seat is not None
    ranks = tuple(c.rank for c in strict.table)
    can = any(engine_for(rules).has_capture(c.rank, ranks) for c in strict.hand(seat))
    trail = tablic.Move(min(strict.hand(seat)))
    if can:
        with pytest.raises(IllegalMoveError, match="capture is possible"):
            strict.apply(trail)
    else:
        strict.apply(trail)
    assert len(state.table) == 44


def test_a_big_table_from_play_whose_captures_split_many_ways_is_listed() -> None:
    # 19 cards met in a random playout: many unions of disjoint groups come from several
    # splits. Listing each union once keeps it far under the limit (an early version of the
    # faster listing kept the repeats and refused this table).
    rules = tablic.Rules.preset("serbian")
    engine = engine_for(rules)
    table = sorted(
        tablic.parse_cards("AD 2S 4D 5C 5H 6C 6H 7D 7H 8D 9H 9S 10C 10H 10S QH KC KD KS"),
        key=lambda c: c.index,
    )
    ranks = tuple(c.rank for c in table)
    listed = engine.masks(KING, ranks)
    assert len(set(listed)) == len(listed) < CAPTURE_LIMIT
    for mask in listed:
        taken = tuple(r for i, r in enumerate(ranks) if mask >> i & 1)
        assert engine.is_capture(KING, ranks, taken)
    rng = random.Random(19)
    found = set(listed)
    for mask in rng.sample(range(1, 1 << len(table)), 20_000):
        taken = tuple(r for i, r in enumerate(ranks) if mask >> i & 1)
        assert engine.is_capture(KING, ranks, taken) == (mask in found), mask
    played = tablic.Card.parse("KH")
    assert len(tablic.captures(played, table, rules)) == len(listed)


def test_the_limit_holds_when_it_is_passed_by_groups_that_take_whole_ranks() -> None:
    # One group only, and the 10,001st capture comes from a group that takes every card of
    # its ranks (no choice of positions): the limit must hold there too.
    rules = tablic.Rules.preset(
        "serbian", multi_group=False, ace_high=False, jack_value=19, queen_value=19, king_value=19
    )
    table = tablic.parse_cards("AC AD AH AS 2C 2D 3C 3D 3H 3S 4C 4D 4H 4S 5C 5D 5H 5S 7C 9C")
    table += tablic.parse_cards("9D 10C JC QC")
    with pytest.raises(TooManyMovesError, match=str(CAPTURE_LIMIT)):
        tablic.captures(tablic.Card.parse("KS"), table, rules)
    with pytest.raises(TooManyMovesError, match=str(CAPTURE_LIMIT)):
        engine_for(rules).masks(KING, tuple(c.rank for c in table))
