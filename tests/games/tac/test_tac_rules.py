"""Every rule of the Tač section of `shared/RULES.md`, as a named test."""

from __future__ import annotations

import pytest
from kafana.games import tac
from kafana.games.tac import (
    IllegalMoveError,
    InvalidInputError,
    MatchOverError,
    Move,
    NotYourTurnError,
    Rules,
)

from .helpers import c, play, position, texts

TWO = Rules()
THREE = Rules(players=3)
FOUR = Rules(players=4)
CALLS2 = Rules(tac_calls=True)
CALLS3 = Rules(players=3, tac_calls=True)


def moves(state: tac.GameState) -> list[str]:
    return [str(m) for m in state.legal_moves()]


# -- setup ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "decks", "size"),
    [(2, 1, 26), (3, 1, 17), (4, 1, 13), (2, 2, 52), (4, 2, 26), (8, 2, 13)],
)
def test_all_cards_are_dealt_evenly_face_down(players: int, decks: int, size: int) -> None:
    state = tac.new_game(Rules(players=players, decks=decks), seed=11)
    assert [state.closed_size(s) for s in range(players)] == [size] * players
    assert all(state.discard(s) == () for s in range(players))
    assert state.current_seat == 0 and state.phase == "draw"
    assert size * players + len(state.central) == 52 * decks


@pytest.mark.parametrize(("players", "decks"), [(3, 2), (5, 1), (1, 1), (6, 2), (8, 1), (2, 3)])
def test_other_player_and_deck_counts_are_refused(players: int, decks: int) -> None:
    with pytest.raises(InvalidInputError, match="must be"):
        Rules(players=players, decks=decks)


def test_three_players_the_first_ace_in_the_deck_starts_the_central_pile() -> None:
    deck = [str(x) for x in tac.canonical_deck()]  # AC 2C .. KC AD 2D ..
    deck.remove("AC")
    deck.insert(20, "AC")  # now AD (position 12) is the first ace
    state = tac.new_game(THREE, deck=deck)
    assert texts(state.central) == "AD"
    rest = [x for x in deck if x != "AD"]
    for seat in range(3):
        assert texts(state.closed(seat)) == " ".join(rest[seat::3])


def test_the_deal_is_one_card_at_a_time_seat_zero_first_first_card_on_top() -> None:
    deck = [str(x) for x in tac.canonical_deck()]
    state = tac.new_game(TWO, deck=deck)
    assert texts(state.closed(0))[:8] == "AC 3C 5C"
    assert texts(state.closed(1))[:8] == "2C 4C 6C"


def test_two_decks_hold_every_card_twice() -> None:
    deck = [str(x) for x in tac.canonical_deck(2)]
    tac.new_game(Rules(players=4, decks=2), deck=deck)
    with pytest.raises(InvalidInputError, match=r"AC appears 3 time\(s\) in the deck, not 2"):
        tac.new_game(Rules(players=4, decks=2), deck=deck[:52] + deck[:51] + ["AC"])


def test_a_deck_of_the_wrong_size_is_refused() -> None:
    with pytest.raises(InvalidInputError, match="has 51 cards, not 52"):
        tac.new_game(TWO, deck=[str(x) for x in tac.canonical_deck()][:51])


# -- sequence -------------------------------------------------------------------------------


def test_a_card_follows_one_rank_lower_and_ace_follows_king() -> None:
    assert tac.follows(c("9S"), c("10H"))
    assert tac.follows(c("KS"), c("AH"))
    assert not tac.follows(c("AH"), c("KS"))
    assert not tac.follows(c("5S"), c("5H"))


def test_the_central_pile_starts_with_an_ace() -> None:
    state = play(position(TWO, ["7H 9C", "AS"]), "flip")
    assert moves(state) == ["play X->D"]
    with pytest.raises(IllegalMoveError, match="7H cannot start the central pile"):
        state.apply("play X->C")
    state = play(state, "play X->D", "flip")
    assert moves(state) == ["play X->C"]
    assert texts(play(state, "play X->C").central) == "AS"


def test_the_central_pile_follows_by_rank_and_wraps_from_king_to_ace() -> None:
    state = position(TWO, ["AH 2D 5C", "9S"], central="QC KD")
    state = play(state, "flip", "play X->C", "flip", "play X->C")
    assert texts(state.central) == "QC KD AH 2D"
    state = play(state, "flip")
    with pytest.raises(IllegalMoveError, match="5C does not follow 2D on the central pile"):
        state.apply("play X->C")


def test_no_card_goes_onto_a_discard_pile_before_the_central_pile_is_started() -> None:
    state = play(position(TWO, ["9C 2C", "QH"], ["", "8D"]), "flip")
    assert moves(state) == ["play X->D"]
    with pytest.raises(IllegalMoveError, match="before the central pile is started"):
        state.apply("play X->P1")


def test_once_started_a_card_goes_onto_another_players_discard_pile_that_it_follows() -> None:
    state = play(position(TWO, ["9C 2C", "QH"], ["", "8D"], central="AS"), "flip")
    assert moves(state) == ["play X->P1"]
    state = play(state, "play X->P1")
    assert texts(state.discard(1)) == "8D 9C"
    assert state.current_seat == 0


def test_a_discard_pile_takes_the_king_to_ace_wrap_too() -> None:
    state = play(position(TWO, ["AC 2C", "QH"], ["", "KD"], central="5S"), "flip")
    assert moves(state) == ["play X->P1"]


def test_no_card_goes_onto_an_empty_discard_pile_or_by_name_onto_ones_own() -> None:
    state = play(position(TWO, ["9C 2C", "QH"], ["8H", ""], central="AS"), "flip")
    assert moves(state) == ["play X->D"]
    with pytest.raises(IllegalMoveError, match="P1's discard pile is empty"):
        state.apply("play X->P1")
    with pytest.raises(IllegalMoveError, match="P0 is your own discard pile"):
        state.apply("play X->P0")


# -- a turn: the order is mandatory ------------------------------------------------------------


def test_1_the_own_discard_top_goes_onto_the_central_pile_first() -> None:
    state = position(TWO, ["9H", "KS"], ["3D", ""], central="AC 2C")
    assert moves(state) == ["play D->C"]
    with pytest.raises(IllegalMoveError, match=r"out of order: the top of your discard pile, 3D"):
        state.apply("flip")
    state = play(state, "play D->C")
    assert texts(state.central) == "AC 2C 3D" and state.current_seat == 0
    assert moves(state) == ["flip"]


def test_2_else_the_own_discard_top_goes_onto_another_players_discard_pile() -> None:
    state = position(TWO, ["9H", "KS"], ["5H", "4S"], central="AC")
    assert moves(state) == ["play D->P1"]
    state = play(state, "play D->P1")
    assert texts(state.discard(1)) == "4S 5H"
    assert moves(state) == ["flip"]


def test_the_own_discard_pile_is_played_on_while_it_can_be() -> None:
    state = position(TWO, ["9H", "KS"], ["5H 4D 3D", ""], central="AC 2C")
    state = play(state, "play D->C", "play D->C", "play D->C")
    assert texts(state.central) == "AC 2C 3D 4D 5H"
    assert state.discard(0) == () and moves(state) == ["flip"]


def test_3_4_the_turned_up_card_goes_where_it_fits_and_the_player_chooses() -> None:
    state = position(THREE, ["3H KD", "QS", "JS"], ["", "2D", "2S"], central="AC 2C")
    state = play(state, "flip")
    assert state.turned == c("3H")
    assert moves(state) == ["play X->C", "play X->P1", "play X->P2"]
    for choice, pile in (("play X->C", state.central), ("play X->P2", state.discard(2))):
        after = play(state, choice)
        assert after.current_seat == 0 and after.turned is None
        assert len(pile) + 1 in (len(after.central), len(after.discard(2)))


def test_5_a_card_that_fits_nowhere_goes_onto_the_own_discard_pile_and_ends_the_turn() -> None:
    state = play(position(TWO, ["KD 2H", "QS"], central="AC 2C"), "flip")
    assert moves(state) == ["play X->D"]
    state = play(state, "play X->D")
    assert texts(state.discard(0)) == "KD"
    assert state.current_seat == 1 and state.turn == 2 and state.phase == "draw"


def test_a_card_that_fits_somewhere_must_go_there_in_a_strict_game() -> None:
    state = play(position(TWO, ["3H", "QS"], central="AC 2C"), "flip")
    with pytest.raises(IllegalMoveError, match="out of order: 3H must go onto C"):
        state.apply("play X->D")


def test_the_turn_goes_on_after_each_card_placed_elsewhere() -> None:
    state = position(TWO, ["3H 5D KC", "QS"], ["4S", ""], central="AC 2C")
    state = play(state, "flip", "play X->C")  # 3H on the centre: now 4S fits
    assert moves(state) == ["play D->C"]
    state = play(state, "play D->C", "flip", "play X->C", "flip")
    assert texts(state.central) == "AC 2C 3H 4S 5D" and state.turned == c("KC")


def test_an_empty_closed_pile_is_replaced_by_the_discard_pile_turned_over_unshuffled() -> None:
    state = position(TWO, ["", "QS"], ["5C 9D JH", ""], central="AC")
    assert moves(state) == ["flip"]
    state = play(state, "flip")
    step = state.last_step
    assert step is not None and step.turned_over and step.card == c("5C")
    assert state.discard(0) == ()
    assert texts(state.closed(0)) == "9D JH"


def test_a_closed_pile_empties_and_its_discard_pile_stays_face_up_until_the_next_flip() -> None:
    # docs/tac.md's example: 5H is seat 0's last closed card; once it is played, 6D on its
    # discard pile fits the centre and must go first (turned over at once, KC would be next)
    state = position(TWO, ["5H", "9C 9D"], ["KC 6D", "QS"], central="AC 2C 3C 4S")
    state = play(state, "flip", "play X->C")
    assert state.closed(0) == () and texts(state.discard(0)) == "KC 6D"
    assert moves(state) == ["play D->C"]


def test_a_player_whose_closed_and_discard_piles_are_both_empty_has_won() -> None:
    state = play(position(TWO, ["2H", "QS KS"], central="AC"), "flip", "play X->C")
    assert state.is_over and state.winner == 0 and state.out_order == (0,)
    assert state.places() == (1, 2)
    with pytest.raises(MatchOverError):
        state.apply("flip")


def test_going_out_from_the_discard_pile() -> None:
    state = play(position(TWO, ["", "QS"], ["2H", ""], central="AC"), "play D->C")
    assert state.is_over and state.winner == 0


# -- the strict default: refusals say why ------------------------------------------------------


def test_moves_out_of_turn_or_shape_are_refused_with_a_reason() -> None:
    state = position(TWO, ["3H", "QS"], central="AC 2C")
    with pytest.raises(NotYourTurnError, match="seat 0's turn"):
        state.apply("flip", seat=1)
    with pytest.raises(IllegalMoveError, match="no card is turned up: flip first"):
        state.apply("play X->C")
    with pytest.raises(IllegalMoveError, match="your discard pile is empty"):
        state.apply("play D->C")
    with pytest.raises(IllegalMoveError, match="no Tač calls"):
        state.apply("call P1")
    with pytest.raises(InvalidInputError, match="'play D->D' moves nothing"):
        state.apply("play D->D")
    with pytest.raises(InvalidInputError, match="unknown Tač move"):
        state.apply("pass")
    with pytest.raises(InvalidInputError, match="no seat 5"):
        state.apply("play D->P5")
    flipped = play(state, "flip")
    with pytest.raises(IllegalMoveError, match="place the turned-up 3H first"):
        flipped.apply("flip")


# -- Tač! ---------------------------------------------------------------------------------------


def calls_table() -> tac.GameState:
    """P0 may play 3D from the discard pile; P1 and P2 have closed piles to give from."""
    return position(CALLS3, ["9H 5S", "KC 7C 6C", "QC JC 10C"], ["3D", "", ""], central="AC 2C")


def test_tac_calls_a_skipped_move_is_accepted_called_and_penalised() -> None:
    state = calls_table()
    assert moves(state) == ["play D->C", "flip"]
    assert [str(m) for m in state.in_order_moves()] == ["play D->C"]
    state = play(state, "flip")  # out of order: 3D could go onto the centre
    assert state.pending_offender == 0
    assert state.last_step is not None and state.last_step.offence
    assert moves(state) == ["play X->D", "call P1", "call P2"]
    state = play(state, "play X->D")  # 9H fits nowhere: the turn ends in order
    assert state.current_seat == 1 and state.pending_offender == 0
    assert [str(m) for m in state.legal_moves_for(2)] == ["call P2"]
    state = state.apply("call P2", seat=2)
    step = state.last_step
    assert step is not None and step.seat == 2 and step.penalty == 2
    assert texts(state.closed(0)) == "5S 6C 10C"  # P1's bottom card, then P2's, under P0's
    assert texts(state.closed(1)) == "KC 7C" and texts(state.closed(2)) == "QC JC"
    assert state.current_seat == 1 and state.pending_offender is None
    with pytest.raises(IllegalMoveError, match="wrong call"):
        state.apply("call P1")


def test_tac_calls_placing_a_fitting_card_on_the_own_pile_is_an_offence() -> None:
    state = play(position(CALLS2, ["3H 4H", "QS KS"], central="AC 2C"), "flip")
    assert moves(state) == ["play X->C", "play X->D"]
    state = play(state, "play X->D")
    assert state.pending_offender == 0 and state.current_seat == 1
    state = play(state, "call P1")
    assert texts(state.closed(0)) == "4H KS" and texts(state.closed(1)) == "QS"


def test_a_call_during_the_offenders_turn_ends_it_and_the_turned_card_goes_to_discard() -> None:
    state = play(calls_table(), "flip", "call P1")
    assert texts(state.discard(0)) == "3D 9H"
    assert state.turned is None and state.current_seat == 1 and state.turn == 2
    assert state.closed_size(0) == 3


def test_a_wrong_call_is_refused_with_a_reason() -> None:
    state = calls_table()
    with pytest.raises(IllegalMoveError, match="wrong call: nobody has moved yet"):
        state.apply("call P1")
    in_order = play(state, "play D->C")
    with pytest.raises(IllegalMoveError, match=r"wrong call: P0's move play D->C kept the order"):
        in_order.apply("call P2")
    offended = play(state, "flip")
    with pytest.raises(IllegalMoveError, match="P0 cannot call Tač on their own move"):
        offended.apply("call P0")
    with pytest.raises(NotYourTurnError, match="cannot make P2's call"):
        offended.apply("call P2", seat=1)


def test_the_call_window_closes_when_the_next_player_acts() -> None:
    state = play(calls_table(), "flip", "play X->D")
    assert state.pending_offender == 0
    state = play(state, "flip")  # P1 acts
    assert state.pending_offender is None
    assert not any(m.kind == "call" for m in state.legal_moves())
    with pytest.raises(IllegalMoveError, match="wrong call"):
        state.apply("call P2")


def test_the_penalty_never_takes_a_players_last_card() -> None:
    state = position(CALLS3, ["3H 4H", "KC", "QC JC"], central="AC 2C")
    state = play(state, "flip", "play X->D", "call P2")
    assert texts(state.closed(0)) == "4H JC"
    assert texts(state.closed(1)) == "KC"


def test_a_strict_game_never_offers_an_out_of_order_move() -> None:
    state = position(THREE, ["9H 5S", "KC", "QC"], ["3D", "", ""], central="AC 2C")
    assert moves(state) == ["play D->C"]
    assert state.pending_offender is None


# -- the end -------------------------------------------------------------------------------


def test_the_first_out_wins_and_the_others_rank_by_cards_held_ties_sharing() -> None:
    state = position(
        FOUR,
        [
            "2H",
            "5C 6C 7C",
            "9D",
            "JS QS",
        ],
        ["", "", "", "KD"],
        "AC",
    )
    state = play(state, "flip", "play X->C")
    assert state.is_over and state.winner == 0
    assert [state.held(s) for s in range(4)] == [0, 3, 1, 3]
    assert state.places() == (1, 3, 2, 3)


def test_play_on_for_every_place() -> None:
    rules = Rules(players=3, play_on=True)
    state = position(rules, ["2H", "KD 3H", "QS 8S"], central="AC")
    state = play(state, "flip", "play X->C")
    assert not state.is_over and state.out_order == (0,) and state.current_seat == 1
    state = play(state, "flip", "play X->D", "flip", "play X->D")
    assert state.current_seat == 1  # seat 0 is out and skipped
    state = play(state, "play D->P2", "flip", "play X->C")
    assert state.is_over and state.out_order == (0, 1)
    assert state.places() == (1, 2, 3)


def test_a_game_where_no_card_can_reach_the_centre_cycles_and_is_drawn() -> None:
    rules = Rules(stall_rounds=5)  # 5 rounds of 2 players: 10 turns
    start = position(rules, ["KH 5H", "9S 7S"], central="AC")
    turn = ["flip", "play X->D"]
    after4 = play(start, *turn * 4)
    after8 = play(after4, *turn * 4)
    # the position after 8 turns is the one after 4: only the stall rule ends such a game
    for seat in (0, 1):
        assert after8.closed(seat) == after4.closed(seat) == ()
        assert after8.discard(seat) == after4.discard(seat)
    assert after8.current_seat == after4.current_seat == 0 and not after8.is_over
    state = play(after8, *turn * 2)
    assert state.is_over and state.stalled and state.winner is None
    assert state.places() == (1, 1)
    assert state.stall_turns == 10


def test_the_stall_count_restarts_when_a_card_reaches_the_centre() -> None:
    state = position(Rules(stall_rounds=2), ["KH 2H", "9S 7S"], central="AC")
    state = play(state, "flip", "play X->D", "flip", "play X->D")
    assert state.stall_turns == 2 and not state.is_over
    state = play(state, "flip", "play X->C")
    assert state.stall_turns == 0
    # The rest of that turn is part of a turn that fed the centre: it does not count.
    state = play(state, "flip", "play X->D")
    assert state.stall_turns == 0 and state.current_seat == 1


def test_the_draw_comes_after_whole_rounds_with_no_card_onto_the_centre() -> None:
    # RULES.md: "a set number of rounds passes with no card going onto the central pile".
    # 2 rounds of 2 players: the 4th whole turn after the one that fed the centre draws.
    state = position(Rules(stall_rounds=2), ["2H KH", "9S 7S"], central="AC")
    state = play(state, "flip", "play X->C", "flip", "play X->D")
    assert state.stall_turns == 0 and state.current_seat == 1
    turn = ("flip", "play X->D")
    state = play(state, *turn * 3)
    assert state.stall_turns == 3 and not state.is_over
    state = play(state, *turn)
    assert state.is_over and state.stalled and state.stall_turns == 4
    assert state.places() == (1, 1) and state.winner is None


def test_a_stall_with_play_on_keeps_the_places_of_players_out() -> None:
    # P0 goes out; P1 and P2 then shuttle nothing onto the centre: drawn, sharing place 2.
    rules = Rules(players=3, play_on=True, stall_rounds=1)
    state = position(rules, ["2H", "KD 5H", "QS 8S"], central="AC")
    state = play(state, "flip", "play X->C")
    assert state.out_order == (0,) and state.current_seat == 1
    state = play(state, "flip", "play X->D")
    assert not state.is_over and state.stall_turns == 1
    state = play(state, "flip", "play X->D")
    assert state.is_over and state.stalled and state.winner == 0
    assert state.places() == (1, 2, 2)


# -- centre_first ----------------------------------------------------------------------------

CENTRE3 = Rules(players=3, centre_first=True)


def test_centre_first_is_off_by_default_and_round_trips() -> None:
    assert not Rules().centre_first
    assert Rules.from_json(CENTRE3.to_json()) == CENTRE3
    assert '"centre_first":true' in CENTRE3.to_json()


def test_centre_first_a_turned_card_that_fits_the_centre_must_go_there() -> None:
    # RULES.md: "a card that can go onto the central pile must go there rather than onto
    # another player's discard pile"; without the switch the player chooses (test_3_4_...).
    state = play(position(CENTRE3, ["3H KD", "QS", "JS"], ["", "2D", "2S"], "AC 2C"), "flip")
    assert moves(state) == ["play X->C"]
    with pytest.raises(IllegalMoveError, match=r"out of order: 3H must go onto C.*centre_first"):
        state.apply("play X->P1")
    with pytest.raises(IllegalMoveError, match=r"out of order: 3H must go onto C$"):
        state.apply("play X->D")
    state = play(state, "play X->C")
    assert texts(state.central) == "AC 2C 3H" and state.current_seat == 0


def test_centre_first_the_own_discard_top_too() -> None:
    state = position(CENTRE3, ["9H", "KS", "QS"], ["3D", "2D", ""], central="AC 2C")
    assert moves(state) == ["play D->C"]
    with pytest.raises(IllegalMoveError, match="centre_first"):
        state.apply("play D->P1")
    free = position(THREE, ["9H", "KS", "QS"], ["3D", "2D", ""], central="AC 2C")
    assert moves(free) == ["play D->C", "play D->P1"]


def test_centre_first_a_card_the_centre_does_not_take_goes_onto_a_discard_pile() -> None:
    # Steps 2 and 4 still apply when 1 and 3 do not.
    state = play(position(CENTRE3, ["5H KD", "QS", "JS"], ["", "4D", "2S"], "AC 2C"), "flip")
    assert moves(state) == ["play X->P1"]
    with pytest.raises(IllegalMoveError, match=r"out of order: 5H must go onto P1$"):
        state.apply("play X->D")


def test_centre_first_with_tac_calls_a_card_put_elsewhere_is_an_offence() -> None:
    rules = Rules(players=3, centre_first=True, tac_calls=True)
    state = play(position(rules, ["3H KD", "QS", "JS 10S"], ["", "2D", "2S"], "AC 2C"), "flip")
    assert moves(state) == ["play X->C", "play X->P1", "play X->P2", "play X->D"]
    assert [str(m) for m in state.in_order_moves()] == ["play X->C"]
    state = play(state, "play X->P2")
    assert state.pending_offender == 0
    assert state.last_step is not None and state.last_step.offence
    state = state.apply("call P1", seat=1)
    assert state.last_step is not None and state.last_step.penalty == 2
    assert state.current_seat == 1 and texts(state.closed(0)) == "KD QS 10S"
    # Without centre_first the same choice keeps the order.
    free = play(position(CALLS3, ["3H KD", "QS", "JS 10S"], ["", "2D", "2S"], "AC 2C"), "flip")
    step = play(free, "play X->P2").last_step
    assert step is not None and not step.offence


def test_moves_have_a_canonical_text_form() -> None:
    for text in ("flip", "play D->C", "play D->P3", "play X->D", "play X->P0", "call P2"):
        move = Move.parse(text)
        assert str(move) == text and Move.parse(repr(move)[12:-2]) == move
    assert Move.parse("  PLAY x -> p02 ") == Move.play("X", 2)
    for bad in ("pass", "play D->D", "play C->D", "call", "call P", "flip X"):
        with pytest.raises(InvalidInputError):
            Move.parse(bad)
