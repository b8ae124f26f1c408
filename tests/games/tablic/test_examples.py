"""Every example of the Tablić section of `shared/RULES.md`, as a named test."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from kafana.games import tablic
from kafana.games.tablic import MatchState, Move, Rules

from .helpers import (
    build_deck,
    c,
    capture_texts,
    cs,
    finish_hand,
    fs,
    greedy_policy,
    play_until,
    random_policy,
    trail_policy,
)

SERBIAN = Rules.preset("serbian")


def captures_of(state: MatchState, card: str) -> list[list[str]]:
    """The captures the seat to move may make with `card`, from the legal moves."""
    return capture_texts(
        m.captured for m in state.legal_moves() if m.card == c(card) and m.captured
    )


# -- captures: the examples of "A turn" ----------------------------------------------------


def test_king_takes_the_king_but_not_seven_plus_six() -> None:
    # Table 7S 6H KD, play KC: takes KD only (7 + 6 = 13, not 14).
    assert capture_texts(tablic.captures(c("KC"), cs("7S 6H KD"), SERBIAN)) == [["KD"]]


def test_nine_takes_five_plus_four_and_leaves_the_eight() -> None:
    # Table 5S 4D 8C, play 9H: takes 5S 4D.
    assert capture_texts(tablic.captures(c("9H"), cs("5S 4D 8C"), SERBIAN)) == [["4D", "5S"]]


def test_ace_declared_eleven_takes_four_plus_seven() -> None:
    # Table 4C 7S, play AD as 11: takes both.
    assert capture_texts(tablic.captures(c("AD"), cs("4C 7S"), SERBIAN)) == [["4C", "7S"]]


def test_table_ace_counts_one_for_eight() -> None:
    # Table AS 7D, play 8C: takes both (ace as 1).
    assert capture_texts(tablic.captures(c("8C"), cs("AS 7D"), SERBIAN)) == [["7D", "AS"]]


def test_king_takes_one_king_or_both() -> None:
    # Table KD KH, play KC: takes one king or both.
    found = capture_texts(tablic.captures(c("KC"), cs("KD KH"), SERBIAN))
    assert found == [["KD"], ["KD", "KH"], ["KH"]]


def test_jack_takes_jack_and_eight_plus_four_together_but_never_the_two() -> None:
    # Table JS 8H 4D 2C, play JC: takes JS, and 8H+4D, together; 2C cannot join.
    found = tablic.captures(c("JC"), cs("JS 8H 4D 2C"), SERBIAN)
    assert fs("JS 8H 4D") in found
    assert all(c("2C") not in capture for capture in found)
    assert capture_texts(found) == [["4D", "8H"], ["4D", "8H", "JS"], ["JS"]]


def test_queen_takes_queen_and_seven_plus_six() -> None:
    # Table QS 7H 6C, play QD: takes all three, a tabla.
    found = tablic.captures(c("QD"), cs("QS 7H 6C"), SERBIAN)
    assert fs("QS 7H 6C") in found
    assert capture_texts(found) == [["6C", "7H"], ["6C", "7H", "QS"], ["QS"]]


def test_jack_example_in_a_match() -> None:
    state = tablic.new_match(SERBIAN, decks=[build_deck("JS 8H 4D 2C", "JC 9S")])
    assert sorted(state.table) == sorted(cs("JS 8H 4D 2C"))
    assert captures_of(state, "JC") == [["4D", "8H"], ["4D", "8H", "JS"], ["JS"]]
    # The player may trail even when a capture exists.
    assert Move(c("JC")) in state.legal_moves()
    after = state.apply("JC:JS+8H+4D")
    assert after.table == (c("2C"),)
    assert after.captured(0) == fs("JC JS 8H 4D")
    assert after.tablas(0) == 0
    assert after.current_seat == 1


def test_ace_as_eleven_in_a_match() -> None:
    state = tablic.new_match(SERBIAN, decks=[build_deck("4C 7S KS QH", "AD")])
    assert captures_of(state, "AD") == [["4C", "7S"]]
    after = state.apply("AD:4C+7S")
    assert sorted(after.table) == sorted(cs("KS QH"))
    assert after.captured(0) == fs("AD 4C 7S")


def test_queen_clearing_the_table_is_a_tabla_and_the_next_player_must_trail() -> None:
    # Seat 0 takes the 9D first, so that seat 1 faces the example's table QS 7H 6C.
    deck = build_deck("QS 7H 6C 9D", "9S 2C 3C 4C 5C 8C", "QD 2D 3D 4D 5D 8D")
    state = tablic.new_match(SERBIAN, decks=[deck]).apply("9S:9D")
    assert sorted(state.table) == sorted(cs("QS 7H 6C"))
    assert state.current_seat == 1
    assert [x for x in captures_of(state, "QD") if len(x) == 3] == [["6C", "7H", "QS"]]
    state = state.apply("QD:QS+7H+6C")
    assert state.table == ()
    assert state.tablas(1) == 1 and state.tablas(0) == 0
    assert state.captured(1) == fs("QD QS 7H 6C")
    # Nothing to take on an empty table: every legal move is a trail.
    moves = state.legal_moves()
    assert moves and all(m.is_trail for m in moves)
    assert {m.card for m in moves} == set(state.hand(0))


def test_tabla_is_one_point_in_the_hand_score() -> None:
    deck = build_deck("QS 7H 6C 9D", "9S 2C 3C 4C 5C 8C", "QD 2D 3D 4D 5D 8D")
    state = tablic.new_match(SERBIAN, decks=[deck]).apply("9S:9D").apply("QD:QS+7H+6C")
    done = finish_hand(state, trail_policy)
    result = done.hand_results[0]
    assert result.tablas == (0, 1)
    # Side 1 captured last, so it takes all the leftovers: 52 - 2 cards of side 0.
    assert result.cards == (2, 50)
    assert result.points == (0, 22 + 3 + 1)


def test_played_and_captured_cards_go_to_the_side_pile() -> None:
    state = tablic.new_match(SERBIAN, decks=[build_deck("5S 4D 8C KH", "9H")])
    after = state.apply("9H:5S+4D")
    assert after.captured(0) == fs("9H 5S 4D")
    assert after.captured(1) == frozenset()
    assert sorted(after.table) == sorted(cs("8C KH"))


def test_trail_stays_on_the_table() -> None:
    state = tablic.new_match(SERBIAN, decks=[build_deck("5S 4D 8C KH", "9H")])
    after = state.apply("9H")
    assert sorted(after.table) == sorted(cs("5S 4D 8C KH 9H"))
    assert after.captured(0) == frozenset()
    assert c("9H") not in after.hand(0)


# -- end of a hand -----------------------------------------------------------------------


def test_leftovers_go_to_the_last_capturer_and_are_never_a_tabla() -> None:
    # Seat 0 captures once at the start; everybody trails afterwards.
    state = tablic.new_match(SERBIAN, decks=[build_deck("5S 4D 8C 2H", "9H")]).apply("9H:5S+4D")
    done = finish_hand(state, trail_policy)
    result = done.hand_results[0]
    assert result.last_capturer == 0
    assert result.cards == (52, 0)
    assert result.tablas == (0, 0)
    # Every point card and the most cards bonus: 22 + 3.
    assert result.card_points == (22, 0)
    assert result.most_cards == (3, 0)
    assert result.points == (25, 0)
    assert done.scores == (25, 0)


def test_leftovers_go_to_nobody_when_nobody_captured() -> None:
    state = tablic.new_match(SERBIAN, decks=[build_deck("5S 4D 8C 2H")])
    done = finish_hand(state, trail_policy)
    result = done.hand_results[0]
    assert result.last_capturer is None
    assert result.cards == (0, 0)
    assert result.points == (0, 0)
    assert done.scores == (0, 0)
    assert done.hand_no == 1


def test_last_capturer_is_the_latest_not_the_biggest() -> None:
    # Seat 0 takes three cards, then seat 1 takes one: the leftovers are seat 1's.
    deck = build_deck("5S 4D 8C 2H", "9H", "2D")
    state = tablic.new_match(SERBIAN, decks=[deck]).apply("9H:5S+4D").apply("2D:2H")
    result = finish_hand(state, trail_policy).hand_results[0]
    assert result.last_capturer == 1
    assert result.cards == (3, 49)


# -- scoring -----------------------------------------------------------------------------


def test_ten_of_diamonds_and_two_of_clubs() -> None:
    # Seat 0 takes 10D and 2C with a jack (12); seat 1 then captures last and gets the rest.
    deck = build_deck("10D 2C 5H 9S", "JC", "5D")
    state = tablic.new_match(SERBIAN, decks=[deck]).apply("JC:10D+2C").apply("5D:5H")
    result = finish_hand(state, trail_policy).hand_results[0]
    # Side 0: JC 1, 10D 1 + 1, 2C 1.
    assert result.cards == (3, 49)
    assert result.card_points == (4, 18)
    assert result.most_cards == (0, 3)
    assert result.points == (4, 21)


def find_hand(
    rules: Rules, wanted: Callable[[tablic.HandResult], bool], seeds: range = range(400)
) -> tuple[int, list[Move]]:
    """The first seed whose random first hand satisfies `wanted(result)`, and its moves."""
    for seed in seeds:
        rng = random.Random(seed)
        state = tablic.new_match(rules, seed=seed)
        done = finish_hand(state, random_policy(rng))
        if done.hand_results and wanted(done.hand_results[0]):
            return seed, [move for _, move in done.moves()]
    raise AssertionError("no such hand among the seeds")


def test_most_cards_tie_gives_nobody_the_bonus_so_22_plus_tablas() -> None:
    rules = Rules.preset("serbian", target=1000)
    seed, _ = find_hand(rules, lambda r: r.cards == (26, 26))
    result = finish_hand(tablic.new_match(rules, seed=seed), random_policy(random.Random(seed)))
    first = result.hand_results[0]
    assert first.most_cards == (0, 0)
    assert sum(first.points) == 22 + sum(first.tablas)


def test_most_cards_needs_strictly_more_than_every_other_side_with_three_players() -> None:
    rules = Rules.preset("serbian", players=3, target=1000)

    def tied_top(result: tablic.HandResult) -> bool:
        top = max(result.cards)
        return result.cards.count(top) > 1

    seed, _ = find_hand(rules, tied_top)
    done = finish_hand(tablic.new_match(rules, seed=seed), random_policy(random.Random(seed)))
    first = done.hand_results[0]
    assert first.most_cards == (0, 0, 0)
    assert sum(first.points) == 22 + sum(first.tablas)


def test_27_cards_win_the_bonus_with_two_sides() -> None:
    rules = Rules.preset("serbian", target=1000)
    seed, _ = find_hand(rules, lambda r: max(r.cards) == 27)
    done = finish_hand(tablic.new_match(rules, seed=seed), random_policy(random.Random(seed)))
    first = done.hand_results[0]
    winner = first.cards.index(27)
    assert first.cards[1 - winner] == 25
    assert first.most_cards[winner] == 3 and first.most_cards[1 - winner] == 0


def test_tabla_on_the_last_card_counts_under_serbian() -> None:
    # Look for a hand whose last card can clear the table; play that capture.
    rules = Rules.preset("serbian", target=1000)
    for seed in range(300):
        state = tablic.new_match(rules, seed=seed)
        state = play_until(
            state,
            greedy_policy,
            lambda s: s.deck_remaining == 0 and sum(map(len, (s.hand(0), s.hand(1)))) == 1,
        )
        clearing = [m for m in state.legal_moves() if m.captured and m.captured == set(state.table)]
        if clearing:
            break
    else:
        raise AssertionError("no last card clears the table")
    seat = state.current_seat
    assert seat is not None
    before = state.tablas(seat)
    done = state.apply(clearing[0])
    result = done.hand_results[0]
    assert result.tablas[seat] == before + 1
    assert result.last_capturer == seat


# -- dealing -----------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_first_four_cards_go_to_the_table_then_six_card_blocks_from_seat_zero(players: int) -> None:
    deck = tablic.shuffled_deck(99, 0)
    state = tablic.new_match(Rules.preset("serbian", players=players), decks=[deck])
    assert sorted(state.table) == sorted(deck[:4])
    for seat in range(players):
        assert sorted(state.hand(seat)) == sorted(deck[4 + 6 * seat : 10 + 6 * seat])
    assert state.deck_remaining == 48 - 6 * players
    assert state.current_seat == 0
    assert state.dealer == players - 1


def deal_sizes(players: int) -> list[tuple[int, ...]]:
    """Hand sizes right after each deal of the first hand, everyone trailing."""
    rules = Rules.preset("serbian", players=players)
    state = tablic.new_match(rules, seed=5)
    sizes = [tuple(len(state.hand(s)) for s in range(players))]
    while state.hand_no == 0:
        before = sum(len(state.hand(s)) for s in range(players))
        state = state.apply(trail_policy(state))
        after = sum(len(state.hand(s)) for s in range(players))
        if after > before and state.hand_no == 0:
            sizes.append(tuple(len(state.hand(s)) for s in range(players)))
    return sizes


def test_two_players_get_four_deals() -> None:
    assert deal_sizes(2) == [(6, 6)] * 4


def test_four_players_get_two_deals() -> None:
    assert deal_sizes(4) == [(6, 6, 6, 6)] * 2


def test_three_players_get_six_six_then_four() -> None:
    assert deal_sizes(3) == [(6, 6, 6), (6, 6, 6), (4, 4, 4)]


def test_table_is_never_refilled_from_the_deck() -> None:
    state = tablic.new_match(SERBIAN, seed=3)
    table_size = len(state.table)
    while state.hand_no == 0:
        move = trail_policy(state)
        state = state.apply(move)
        if state.hand_no == 0:
            table_size += 1
            assert len(state.table) == table_size
    # All 48 dealt cards were trailed onto the 4 opening ones.
    assert table_size == 51


def test_later_deals_continue_with_the_next_blocks_in_seat_order() -> None:
    deck = tablic.shuffled_deck(11, 0)
    state = tablic.new_match(Rules.preset("serbian", players=3), decks=[deck])
    state = play_until(state, trail_policy, lambda s: s.deck_remaining < 30)
    for seat in range(3):
        assert sorted(state.hand(seat)) == sorted(deck[22 + 6 * seat : 28 + 6 * seat])
    state = play_until(state, trail_policy, lambda s: s.deck_remaining < 12)
    for seat in range(3):
        assert sorted(state.hand(seat)) == sorted(deck[40 + 4 * seat : 44 + 4 * seat])


@pytest.mark.parametrize("players", [2, 3, 4])
def test_dealer_moves_on_and_the_seat_after_the_dealer_plays_first(players: int) -> None:
    decks = [tablic.shuffled_deck(21, k) for k in range(players + 1)]
    state = tablic.new_match(Rules.preset("serbian", players=players), decks=decks)
    for hand in range(players + 1):
        assert state.hand_no == hand
        dealer = (players - 1 + hand) % players
        first = (dealer + 1) % players
        assert state.dealer == dealer
        assert state.current_seat == first
        # The deal starts with the first player, then goes on in seat order.
        for k in range(players):
            seat = (first + k) % players
            assert sorted(state.hand(seat)) == sorted(decks[hand][4 + 6 * k : 10 + 6 * k])
        # Nobody captures, nobody scores: the match goes on.
        state = finish_hand(state, trail_policy)


# -- the match -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "partnerships", "target"),
    [(2, False, 101), (3, False, 101), (4, False, 51), (4, True, 101)],
)
def test_serbian_targets(players: int, partnerships: bool, target: int) -> None:
    rules = Rules.preset("serbian", players=players, partnerships=partnerships)
    assert rules.target == target


def test_a_tie_at_the_top_above_the_target_plays_another_hand() -> None:
    # A first hand that ends level, then the same moves with the target at that level.
    probe = Rules.preset("serbian", target=1000)
    seed, moves = find_hand(probe, lambda r: r.points[0] == r.points[1])
    level = tablic.new_match(probe, seed=seed)
    for move in moves:
        level = level.apply(move)
    tied = level.scores[0]
    assert level.scores == (tied, tied) and tied > 0

    rules = Rules.preset("serbian", target=tied)
    state = tablic.new_match(rules, seed=seed)
    for move in moves:
        state = state.apply(move)
    assert state.scores == (tied, tied)
    assert not state.is_over
    assert state.hand_no == 1 and state.current_seat == 1
    done = play_until(state, random_policy(random.Random(seed)), lambda s: False)
    assert done.is_over and done.hand_no >= 1
    assert max(done.scores) >= tied
    assert done.scores.count(max(done.scores)) == 1
    assert done.winner == done.scores.index(max(done.scores))


def test_the_match_ends_after_the_hand_that_reaches_the_target() -> None:
    rules = Rules.preset("serbian", target=30)
    state = tablic.new_match(rules, seed=8)
    rng = random.Random(8)
    while not state.is_over:
        hand = state.hand_no
        state = finish_hand(state, random_policy(rng))
        scores = state.scores
        if state.is_over:
            assert max(scores) >= 30 and scores.count(max(scores)) == 1
            assert len(state.hand_results) == hand + 1
            assert state.current_seat is None and state.legal_moves() == []
        else:
            assert max(scores) < 30 or scores.count(max(scores)) > 1
