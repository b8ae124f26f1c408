"""Every preset and every rule switch of RULES.md, and the table shapes (2/3/4, partnerships)."""

from __future__ import annotations

import random

import pytest
from kafana.games import tablic
from kafana.games.tablic import IllegalMoveError, Move, Rules

from .helpers import (
    PRESET_POINTS,
    build_deck,
    c,
    capture_texts,
    cs,
    finish_hand,
    fs,
    greedy_policy,
    is_last_card_of_hand,
    play_until,
    random_policy,
    trail_policy,
)
from .oracle import oracle_legal_moves


def takes(played: str, table: str, rules: Rules) -> list[list[str]]:
    return capture_texts(tablic.captures(c(played), cs(table), rules))


SERBIAN = Rules.preset("serbian")
WILD = Rules.preset("wild_jack")
TABINET = Rules.preset("tabinet")
TABLANETTE = Rules.preset("tablanette")


# -- values ------------------------------------------------------------------------------


def test_serbian_values() -> None:
    assert takes("JC", "5C 7D", SERBIAN) == [["5C", "7D"]]  # J = 12
    assert takes("QC", "6C 7D", SERBIAN) == [["6C", "7D"]]  # Q = 13
    assert takes("KC", "10C 4D", SERBIAN) == [["10C", "4D"]]  # K = 14
    assert takes("KC", "AS QS", SERBIAN) == [["AS", "QS"]]  # a queen joins a sum: 1 + 13
    assert takes("KC", "JS 2C", SERBIAN) == [["2C", "JS"]]  # and a jack: 12 + 2
    assert takes("KC", "AS 3C", SERBIAN) == [["3C", "AS"]]  # a table ace as 11
    assert takes("3D", "AS 2C", SERBIAN) == [["2C", "AS"]]  # a table ace as 1
    assert takes("JC", "AC AD 9H", SERBIAN) == [["AC", "AD"]]  # each ace on its own: 1 + 11
    assert takes("AD", "AS 10C", SERBIAN) == [["10C", "AS"], ["AS"]]  # as 11 with 1 + 10; by rank


@pytest.mark.parametrize("rules", [WILD, TABINET], ids=["wild_jack", "tabinet"])
def test_wild_jack_and_tabinet_values(rules: Rules) -> None:
    assert takes("AD", "4C 7S", rules) == []  # an ace is only 1
    assert takes("8C", "AS 7D", rules) == [["7D", "AS"]]
    assert takes("AD", "AS 10C", rules) == [["AS"]]
    assert takes("KC", "AS 3C", rules) == []  # no table ace as 11 either
    assert takes("QD", "QS 7H 5C", rules) == [["QS"]]  # Q = 12 but by rank only
    assert takes("KD", "KS 6H 7C", rules) == [["KS"]]  # K = 13 but by rank only
    assert takes("QD", "5C 7H", rules) == []
    assert takes("10C", "2C 8H", rules) == [["2C", "8H"]]  # sums still work for numbers


@pytest.mark.parametrize("rules", [WILD, TABINET], ids=["wild_jack", "tabinet"])
def test_wild_jack_and_tabinet_take_one_group_only(rules: Rules) -> None:
    assert takes("KC", "KD KH", rules) == [["KD"], ["KH"]]
    assert takes("7D", "7S 3H 4C", rules) == [["3H", "4C"], ["7S"]]
    assert takes("9D", "2C 7C 4D 5D", rules) == [["2C", "7C"], ["4D", "5D"]]


def test_tablanette_values() -> None:
    # RULES.md: A 1 or 11 (the player's choice) / J 12 / Q 13 / K 14; Q, K by rank and by sum.
    assert takes("AD", "4C 7S", TABLANETTE) == [["4C", "7S"]]  # a played A as 11
    assert takes("AD", "AS 10C", TABLANETTE) == [["10C", "AS"], ["AS"]]  # as 11, or by rank
    assert takes("8C", "AS 7D", TABLANETTE) == [["7D", "AS"]]  # a table A as 1
    assert takes("KC", "AS 3C", TABLANETTE) == [["3C", "AS"]]  # a table A as 11
    assert takes("JC", "5C 7D", TABLANETTE) == [["5C", "7D"]]  # J = 12 by sum
    assert takes("QH", "6C 7D", TABLANETTE) == [["6C", "7D"]]  # Q = 13 by sum
    assert takes("KH", "10C 4D", TABLANETTE) == [["10C", "4D"]]  # K = 14 by sum
    assert takes("QD", "QS 5C", TABLANETTE) == [["QS"]]  # Q by rank
    assert takes("KH", "AS QS", TABLANETTE) == [["AS", "QS"]]  # a table Q joins a sum
    assert takes("KC", "JS 2C", TABLANETTE) == [["2C", "JS"]]  # and a table J: 12 + 2
    assert takes("JC", "AC AD 9H", TABLANETTE) == [["AC", "AD"]]  # each table A on its own


def test_tablanette_takes_one_group_only() -> None:
    # The seed: "a 7 captures a 3 and a 4, or a lone 7" (one group per capture).
    assert takes("7D", "7S 3H 4C", TABLANETTE) == [["3H", "4C"], ["7S"]]
    assert takes("KC", "KD KH", TABLANETTE) == [["KD"], ["KH"]]
    assert takes("QD", "QS 7H 6C", TABLANETTE) == [["6C", "7H"], ["QS"]]  # no tabla of three
    assert takes("9D", "2C 7C 4D 5D", TABLANETTE) == [["2C", "7C"], ["4D", "5D"]]


def test_tablanette_jack_is_not_wild() -> None:
    # "the J not wild (12, as the seed's regional tables give it)": no sweep of the table.
    assert takes("JC", "2C QS KD 10D", TABLANETTE) == [["10D", "2C"]]
    assert takes("JC", "3C QS KD 5D", TABLANETTE) == []
    assert takes("JC", "JS 8H 4D 2C", TABLANETTE) == [["4D", "8H"], ["JS"]]
    # Nor does a J leave the opening table (that is the wild jack's rule).
    deck = build_deck("JS 8H 4D 2C")
    assert tablic.new_match(TABLANETTE, decks=[deck]).table == tuple(sorted(cs("2C 4D 8H JS")))


def test_serbian_takes_several_groups() -> None:
    assert takes("9D", "2C 7C 4D 5D", SERBIAN) == [
        ["2C", "4D", "5D", "7C"],
        ["2C", "7C"],
        ["4D", "5D"],
    ]


# -- switches one at a time ----------------------------------------------------------------


def test_switch_ace_high() -> None:
    assert takes("AD", "4C 7S", SERBIAN.with_switches(ace_high=False)) == []
    assert takes("AD", "4C 7S", WILD.with_switches(ace_high=True)) == [["4C", "7S"]]


def test_switch_multi_group() -> None:
    assert takes("KC", "KD KH", SERBIAN.with_switches(multi_group=False)) == [["KD"], ["KH"]]
    assert takes("KC", "KD KH", WILD.with_switches(multi_group=True)) == [
        ["KD"],
        ["KD", "KH"],
        ["KH"],
    ]


def test_switch_royals_by_rank_only_for_the_played_card_and_the_table() -> None:
    rules = SERBIAN.with_switches(royals_by_rank_only=True)
    assert takes("QC", "6C 7D", rules) == []  # a played Q no longer sums
    assert takes("QC", "QD 6C 7D", rules) == [["QD"]]
    assert takes("KC", "AS QS", rules) == []  # a table Q no longer joins a sum
    assert takes("KC", "AS QS KD", rules) == [["KD"]]
    assert takes("JC", "5C 7D", rules) == [["5C", "7D"]]  # jacks are not royals here


def test_switch_values_of_jack_queen_king() -> None:
    rules = SERBIAN.with_switches(jack_value=11, queen_value=12, king_value=13)
    assert takes("JC", "4C 7D", rules) == [["4C", "7D"]]
    assert takes("JC", "5C 7D", rules) == []
    assert takes("KC", "6C 7D", rules) == [["6C", "7D"]]


def test_switch_wild_jack_takes_the_whole_table() -> None:
    rules = SERBIAN.with_switches(wild_jack=True)
    assert takes("JC", "2C QS KD AS 10D", rules) == [["10D", "2C", "AS", "KD", "QS"]]
    assert takes("JC", "", rules) == []
    # A table J joins no sum; only a J takes it.
    assert takes("KC", "JS 2C", rules) == []
    assert takes("KC", "JS 2C", SERBIAN) == [["2C", "JS"]]
    assert takes("JC", "JS 2C", rules) == [["2C", "JS"]]


def test_switch_card_points() -> None:
    rules = Rules.preset("serbian", card_points=(("2C", 5),), target=1000)
    deck = build_deck("10D 2C 5H 9S", "JC", "5D")
    state = tablic.new_match(rules, decks=[deck]).apply("JC:10D+2C").apply("5D:5H")
    result = finish_hand(state, trail_policy).hand_results[0]
    assert result.card_points == (5, 0)
    assert result.points == (5, 3)


def test_switch_most_cards_and_tabla_points() -> None:
    rules = Rules.preset("serbian", most_cards_points=7, tabla_points=4, target=1000)
    deck = build_deck("QS 7H 6C 9D", "9S", "QD")
    state = tablic.new_match(rules, decks=[deck]).apply("9S:9D").apply("QD:QS+7H+6C")
    result = finish_hand(state, trail_policy).hand_results[0]
    assert result.tablas == (0, 1)
    assert result.most_cards == (0, 7)
    assert result.points == (0, 22 + 7 + 4)


def test_switch_target() -> None:
    rules = Rules.preset("serbian", target=20)
    state = tablic.new_match(rules, decks=[build_deck("5S 4D 8C 2H", "9H")]).apply("9H:5S+4D")
    done = finish_hand(state, trail_policy)
    # Side 0 took everything: 25 points >= 20, the match is over after one hand.
    assert done.is_over and done.scores == (25, 0) and done.winner == 0


# -- per-preset card points and match targets ---------------------------------------------


@pytest.mark.parametrize(
    ("preset", "expected"),
    [("serbian", (1, 24)), ("wild_jack", (2, 10)), ("tabinet", (2, 10)), ("tablanette", (2, 10))],
)
def test_card_points_of_each_preset(preset: str, expected: tuple[int, int]) -> None:
    # Seat 0 takes the 2C with 2D, seat 1 the 10D with 10S and then, last, all the rest.
    rules = Rules.preset(preset)
    deck = build_deck("10D 2C 5H 9S", "2D", "10S")
    state = tablic.new_match(rules, decks=[deck]).apply("2D:2C").apply("10S:10D")
    result = finish_hand(state, trail_policy).hand_results[0]
    assert result.cards == (2, 50)
    assert result.points == expected
    # The same from the independent table of card points.
    points = PRESET_POINTS[preset]
    assert result.card_points == (points[c("2C")], sum(points.values()) - points[c("2C")])


def test_card_points_totals() -> None:
    assert sum(PRESET_POINTS["serbian"].values()) == 22
    assert sum(PRESET_POINTS["wild_jack"].values()) == 9
    assert PRESET_POINTS["tablanette"] == PRESET_POINTS["wild_jack"]  # "as `wild_jack`"
    for preset, points in PRESET_POINTS.items():
        by_rules = Rules.preset(preset).points_by_index
        assert [points[card] for card in tablic.CARDS] == list(by_rules)


@pytest.mark.parametrize(
    ("preset", "players", "partnerships", "target"),
    [
        ("serbian", 2, False, 101),
        ("serbian", 3, False, 101),
        ("serbian", 4, False, 51),
        ("serbian", 4, True, 101),
        ("wild_jack", 2, False, 101),
        ("wild_jack", 4, False, 101),
        ("tabinet", 2, False, 151),
        ("tabinet", 3, False, 151),
        ("tablanette", 2, False, 251),
        ("tablanette", 4, True, 251),
    ],
)
def test_targets(preset: str, players: int, partnerships: bool, target: int) -> None:
    assert Rules.preset(preset, players=players, partnerships=partnerships).target == target


def test_preset_switch_values() -> None:
    assert Rules() == Rules.preset("serbian")
    for rules in (WILD, TABINET):
        assert (rules.ace_high, rules.multi_group, rules.royals_by_rank_only) == (
            False,
            False,
            True,
        )
        assert (rules.wild_jack, rules.last_card_tabla) == (True, False)
        assert (rules.queen_value, rules.king_value) == (12, 13)
    assert (TABLANETTE.ace_high, TABLANETTE.multi_group, TABLANETTE.wild_jack) == (
        True,
        False,
        False,
    )
    assert (TABLANETTE.jack_value, TABLANETTE.queen_value, TABLANETTE.king_value) == (12, 13, 14)
    assert not TABLANETTE.royals_by_rank_only
    assert (TABLANETTE.last_card_tabla, TABLANETTE.jack_off_opening_table) == (False, False)
    assert TABLANETTE.card_points == WILD.card_points
    for rules in (SERBIAN, WILD, TABINET, TABLANETTE):
        assert (rules.most_cards_points, rules.tabla_points) == (3, 1)
        assert not (rules.must_capture or rules.rank_priority or rules.most_cards_tie_to_last)


def test_rules_round_trip_through_json() -> None:
    for preset in tablic.PRESETS:
        rules = Rules.preset(preset, players=4, partnerships=True, must_capture=True)
        assert Rules.from_json(rules.to_json()) == rules


# -- the wild jack in play -------------------------------------------------------------------


@pytest.mark.parametrize("preset", ["wild_jack", "tabinet"])
def test_wild_jack_takes_the_whole_table_as_a_tabla(preset: str) -> None:
    state = tablic.new_match(Rules.preset(preset), decks=[build_deck("2C QS KD 10D", "JC")])
    jack_moves = [m for m in state.legal_moves() if m.card == c("JC")]
    assert set(jack_moves) == {Move(c("JC")), Move(c("JC"), fs("2C QS KD 10D"))}
    after = state.apply("JC:10D+2C+KD+QS")
    assert after.table == () and after.tablas(0) == 1
    with pytest.raises(IllegalMoveError, match="whole table"):
        state.apply("JC:10D+2C")


@pytest.mark.parametrize("preset", ["wild_jack", "tabinet"])
def test_wild_jack_on_an_empty_table_stays_there(preset: str) -> None:
    # Seat 0 empties the table with a wild jack; seat 1 then has a jack for an empty table.
    deck = build_deck("5C 5D 8C 8D", "JD", "JS")
    state = tablic.new_match(Rules.preset(preset), decks=[deck]).apply("JD:5C+5D+8C+8D")
    assert state.table == () and state.tablas(0) == 1
    jack = [m for m in state.legal_moves() if m.card == c("JS")]
    assert jack == [Move(c("JS"))]
    state = state.apply("JS")
    assert state.table == (c("JS"),)
    assert state.tablas(1) == 0


@pytest.mark.parametrize("preset", ["wild_jack", "tabinet"])
def test_a_table_jack_is_only_taken_by_a_jack(preset: str) -> None:
    rules = Rules.preset(preset)
    # Seat 0 trails a jack; seat 1 can take it only with its own jack, not with KC as 12 + 2.
    deck = build_deck("2C 3D 4H 5S", "JC", "JD KC QC 4C 5C 6C")
    state = tablic.new_match(rules, decks=[deck]).apply("JC")
    assert c("JC") in state.table
    moves = state.legal_moves()
    assert all(c("JC") not in m.captured for m in moves if m.card != c("JD"))
    assert Move(c("JD"), state.table) in moves
    assert Move(c("KC"), fs("2C 3D 4H 5S")) in moves or rules.royals_by_rank_only
    # Where jacks are not wild, the king takes the jack and the two.
    plain = tablic.new_match(SERBIAN, decks=[deck]).apply("JC")
    assert Move(c("KC"), fs("JC 2C")) in plain.legal_moves()


@pytest.mark.parametrize("preset", ["wild_jack", "tabinet"])
def test_a_jack_among_the_opening_cards_goes_under_the_deck(preset: str) -> None:
    rules = Rules.preset(preset)
    deck = tablic.shuffled_deck(5, 0)
    jacks = [card for card in deck if card.rank == 11]
    others = [card for card in deck if card.rank != 11]
    # Jacks at positions 1 and 2 (one replacing the other), none elsewhere before the end.
    order = [others[0], jacks[0], jacks[1], *others[1:], jacks[2], jacks[3]]
    state = tablic.new_match(rules, decks=[order])
    assert sorted(state.table) == sorted(others[:4])
    assert sorted(state.hand(0)) == sorted(others[4:10])
    # The jacks were put under the deck, in order: the last deal ends with them.
    state = play_until(state, trail_policy, lambda s: s.deck_remaining == 0)
    assert sorted(state.hand(1)) == sorted([*others[-2:], jacks[2], jacks[3], jacks[0], jacks[1]])


def test_serbian_keeps_a_jack_on_the_opening_table() -> None:
    deck = build_deck("JS 8H 4D 2C")
    assert c("JS") in tablic.new_match(SERBIAN, decks=[deck]).table
    moved = SERBIAN.with_switches(jack_off_opening_table=True)
    state = tablic.new_match(moved, decks=[deck])
    assert c("JS") not in state.table and sorted(state.table) == sorted(deck[1:5])


# -- last card tabla -------------------------------------------------------------------------


def last_card_jack_deck() -> list[tablic.Card]:
    """Two players: seat 1's last block holds the four jacks, so the hand ends with a jack."""
    deck = tablic.shuffled_deck(17, 0)
    others = [card for card in deck if card.rank != 11]
    jacks = [card for card in deck if card.rank == 11]
    return [*others, *jacks]


def jacks_last(state: tablic.MatchState) -> Move:
    """Trail, keeping the jacks for the end."""
    seat = state.current_seat
    assert seat is not None
    return Move(min(state.hand(seat), key=lambda card: (card.rank == 11, card.index)))


@pytest.mark.parametrize(
    ("rules", "counts"),
    [
        (Rules.preset("wild_jack"), False),
        (Rules.preset("tabinet"), False),
        (Rules.preset("tablanette", wild_jack=True), False),
        (SERBIAN.with_switches(wild_jack=True), True),
        (SERBIAN.with_switches(wild_jack=True, last_card_tabla=False), False),
    ],
    ids=["wild_jack", "tabinet", "tablanette+wild", "serbian+wild", "serbian+wild-last_card"],
)
def test_tabla_on_the_last_card_of_the_hand(rules: Rules, counts: bool) -> None:
    state = tablic.new_match(rules.with_switches(target=1000), decks=[last_card_jack_deck()])
    state = play_until(
        state,
        jacks_last,
        lambda s: s.deck_remaining == 0 and len(s.hand(0)) + len(s.hand(1)) == 1,
    )
    assert state.current_seat == 1 and state.hand(1)[0].rank == 11 and state.table
    done = state.apply(Move(state.hand(1)[0], state.table))
    result = done.hand_results[0]
    assert result.cards == (0, 52)
    assert result.tablas == (0, 1 if counts else 0)


@pytest.mark.parametrize(("last_card_tabla", "counts"), [(False, 0), (True, 1)])
def test_tablanette_no_tabla_on_the_last_card(last_card_tabla: bool, counts: int) -> None:
    # The seed: "capturing with the last card of the last trick does not count as a tabla".
    rules = Rules.preset("tablanette", target=1000, last_card_tabla=last_card_tabla)
    for seed in range(100):
        state = play_until(tablic.new_match(rules, seed=seed), greedy_policy, is_last_card_of_hand)
        sweep = [m for m in state.legal_moves() if state.table and m.captured == set(state.table)]
        if sweep:
            break
    else:
        raise AssertionError("no hand whose last card can take the whole table")
    seat = state.current_seat
    assert seat is not None
    side = rules.side_of(seat)
    done = state.apply(sweep[0])
    assert done.hand_results[0].tablas[side] == state.tablas(side) + counts


def test_a_tabla_before_the_last_card_counts_even_without_last_card_tabla() -> None:
    state = tablic.new_match(WILD, decks=[build_deck("2C QS KD 10D", "JC")])
    assert state.apply("JC:10D+2C+KD+QS").tablas(0) == 1


# -- must_capture, rank_priority, most_cards_tie_to_last -------------------------------------


def test_must_capture_forbids_trails_when_a_capture_exists() -> None:
    rules = SERBIAN.with_switches(must_capture=True)
    state = tablic.new_match(rules, decks=[build_deck("5S 4D 8C KH", "9H 2C 3C 6D 7D QD")])
    moves = state.legal_moves()
    assert moves and all(m.captured for m in moves)
    assert set(moves) == {
        Move(card, taken) for card, taken in oracle_legal_moves(state.hand(0), state.table, rules)
    }
    with pytest.raises(IllegalMoveError, match="capture is possible"):
        state.apply("2C")
    # Without the switch, trailing is always allowed.
    free = tablic.new_match(SERBIAN, decks=[build_deck("5S 4D 8C KH", "9H 2C 3C 6D 7D QD")])
    assert Move(c("2C")) in free.legal_moves()


def test_must_capture_allows_trails_when_nothing_can_capture() -> None:
    rules = SERBIAN.with_switches(must_capture=True)
    state = tablic.new_match(rules, decks=[build_deck("KS KH KD KC", "2C 3C 4C 5C 6C 7C")])
    assert sorted(state.legal_moves()) == sorted(Move(card) for card in state.hand(0))


def test_rank_priority_forces_a_same_rank_card_into_the_capture() -> None:
    rules = SERBIAN.with_switches(rank_priority=True)
    state = tablic.new_match(rules, decks=[build_deck("7S 3H 4C KH", "7D 9C")])
    sevens = capture_texts(
        m.captured for m in state.legal_moves() if m.card == c("7D") and m.captured
    )
    assert sevens == [["3H", "4C", "7S"], ["7S"]]
    with pytest.raises(IllegalMoveError):
        state.apply("7D:3H+4C")
    # A trail of that card is still allowed, and other cards are not affected.
    assert Move(c("7D")) in state.legal_moves()
    free = tablic.new_match(SERBIAN, decks=[build_deck("7S 3H 4C KH", "7D 9C")])
    assert Move(c("7D"), fs("3H 4C")) in free.legal_moves()


def test_captures_respects_rank_priority() -> None:
    # captures() promises every *legal* capture: under rank_priority 3H+4C is not one.
    rules = SERBIAN.with_switches(rank_priority=True)
    assert takes("7D", "7S 3H 4C", rules) == [["3H", "4C", "7S"], ["7S"]]


def test_most_cards_tie_to_last_capturer() -> None:
    # Find a 26-26 first hand, then replay its moves with the switch on.
    for seed in range(400):
        probe = tablic.new_match(Rules.preset("serbian", target=1000), seed=seed)
        done = finish_hand(probe, random_policy(random.Random(seed)))
        if done.hand_results[0].cards == (26, 26):
            break
    else:
        raise AssertionError("no tied hand")
    plain = done.hand_results[0]
    assert plain.most_cards == (0, 0)
    rules = Rules.preset("serbian", target=1000, most_cards_tie_to_last=True)
    state = tablic.new_match(rules, seed=seed)
    for _, move in done.moves():
        state = state.apply(move)
    tied = state.hand_results[0]
    last = tied.last_capturer
    assert last is not None
    assert tied.most_cards[last] == 3 and tied.most_cards[1 - last] == 0
    assert sum(tied.points) == 25 + sum(tied.tablas)


# -- table shapes --------------------------------------------------------------------------


def test_partnerships_pool_captures_of_seats_zero_two_and_one_three() -> None:
    rules = Rules.preset("serbian", players=4, partnerships=True)
    deck = build_deck("5S 4D 8C 2H", "KC", "KD", "9H", "8D", players=4)
    state = tablic.new_match(rules, decks=[deck])
    assert rules.sides == 2 and len(state.scores) == 2
    state = state.apply("KC").apply("KD").apply("9H:5S+4D").apply("8D:8C")
    assert state.captured(0) == fs("9H 5S 4D")
    assert state.captured(1) == fs("8D 8C")
    assert state.view(2).side == 0 and state.view(3).side == 1
    result = finish_hand(state, trail_policy).hand_results[0]
    assert len(result.points) == 2 and result.last_capturer == 1


def test_four_individuals_and_three_players_score_per_seat() -> None:
    for players in (3, 4):
        rules = Rules.preset("serbian", players=players)
        deck = build_deck("5S 4D 8C 2H", "KC", "9H", players=players)
        state = tablic.new_match(rules, decks=[deck]).apply("KC").apply("9H:5S+4D")
        assert state.captured(1) == fs("9H 5S 4D")
        result = finish_hand(state, trail_policy).hand_results[0]
        assert len(result.points) == players
        assert result.cards[1] == 52 and result.points[1] == 25


def test_bad_table_shapes_are_refused() -> None:
    with pytest.raises(tablic.InvalidInputError, match="players"):
        Rules.preset("serbian", players=5)
    with pytest.raises(tablic.InvalidInputError, match="partnerships"):
        Rules.preset("serbian", players=3, partnerships=True)
