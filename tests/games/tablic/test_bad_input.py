"""Bad input: a clear KafanaError subclass naming the problem, and the state unchanged."""

from __future__ import annotations

import random
from typing import Any

import pytest
from kafana.errors import IllegalMoveError, InvalidInputError, KafanaError, MatchOverError
from kafana.games import tablic
from kafana.games.tablic import Card, MatchRecord, MatchState, Move, Rules

from .helpers import build_deck, c, cs, fs

SERBIAN = Rules.preset("serbian")


def snapshot(state: MatchState) -> tuple[Any, ...]:
    rules = state.rules
    return (
        state.legal_moves(),
        [state.hand(s) for s in range(rules.players)],
        state.table,
        state.move_count,
        state.current_seat,
        state.scores,
        [state.captured(s) for s in range(rules.sides)],
        state.deck_remaining,
        state.moves(),
    )


@pytest.fixture
def state() -> MatchState:
    # Seat 0 holds KC 9H 2D ...; the table is 7S 6H KD 5S.
    return tablic.new_match(SERBIAN, decks=[build_deck("7S 6H KD 5S", "KC 9H 2D")])


# -- cards and moves -------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["ZZ", "1C", "11H", "0S", "", "10", "A", "KX", "JOKER", "10DD"])
def test_unknown_card_text(text: str) -> None:
    with pytest.raises(InvalidInputError, match="unknown card") as info:
        Card.parse(text)
    assert repr(text) in str(info.value)


@pytest.mark.parametrize("value", [None, 10, b"KC", ["KC"]])
def test_card_must_be_text(value: Any) -> None:
    with pytest.raises(InvalidInputError, match="card"):
        Card.parse(value)


def test_card_parsing_is_case_insensitive_and_takes_suit_symbols() -> None:
    for text, canonical in [
        ("10♦", "10D"),
        ("as", "AS"),
        (" kh ", "KH"),
        ("2♣", "2C"),
        ("q♥", "QH"),
        ("J♠", "JS"),
    ]:
        card = Card.parse(text)
        assert str(card) == canonical and card is Card.parse(canonical)


def test_cards_are_interned_frozen_and_round_trip() -> None:
    assert len(set(tablic.CARDS)) == 52
    assert {str(card) for card in tablic.CARDS} == {
        r + s
        for r in ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
        for s in "CDHS"
    }
    for card in tablic.CARDS:
        assert Card.parse(str(card)) is card
        assert eval(repr(card), {"Card": Card}) is card
    with pytest.raises(AttributeError):
        c("KC").rank = 1  # type: ignore[misc]
    with pytest.raises(InvalidInputError):
        Card(14, "C")


def test_moves_are_frozen_hashable_and_round_trip() -> None:
    move = Move(c("KC"), cs("KD KH"))
    assert move == Move.parse("kc:kh+kd") == Move(c("KC"), fs("KH KD"))
    assert hash(move) == hash(Move.parse("KC:KD+KH"))
    assert str(move) == "KC:KD+KH" and Move.parse(str(move)) == move
    assert eval(repr(move), {"Move": Move}) == move
    trail = Move.parse("7S")
    assert trail.is_trail and trail.captured == frozenset() and str(trail) == "7S"
    with pytest.raises(AttributeError):
        move.card = c("QC")  # type: ignore[misc]


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("KC:", "no captured"),
        ("KC:KD+KD", "twice"),
        ("KC:KC", "itself"),
        ("KC:ZZ", "unknown card"),
        ("ZZ:KD", "unknown card"),
        ("", "unknown card"),
    ],
)
def test_bad_move_text(text: str, reason: str) -> None:
    with pytest.raises(InvalidInputError, match=reason):
        Move.parse(text)


def test_duplicate_captured_cards_in_a_move() -> None:
    with pytest.raises(InvalidInputError, match="KD appears twice"):
        Move(c("KC"), [c("KD"), c("KD")])


# -- moves on a state ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("move", "error", "reason"),
    [
        ("ZZ", InvalidInputError, "unknown card 'ZZ'"),
        ("KC:KD+KD", InvalidInputError, "twice"),
        ("QC", IllegalMoveError, "QC is not in the hand of seat 0"),
        ("QC:KD", IllegalMoveError, "not in the hand"),
        ("KC:7S+6H", IllegalMoveError, "KC cannot capture"),
        ("9H:5S+4D", IllegalMoveError, "4D is not on the table"),
        ("9H:4D+3D", IllegalMoveError, "3D 4D are not on the table"),
        ("KC:KD+5S", IllegalMoveError, "KC cannot capture"),
        ("2D:5S", IllegalMoveError, "2D cannot capture"),
    ],
)
def test_bad_moves_leave_the_state_unchanged(
    state: MatchState, move: str, error: type[KafanaError], reason: str
) -> None:
    before = snapshot(state)
    assert not state.is_legal(Move.parse(move)) if error is IllegalMoveError else True
    with pytest.raises(error, match=reason):
        state.apply(move)
    if error is IllegalMoveError:
        with pytest.raises(error, match=reason):
            state.apply(Move.parse(move))
    assert snapshot(state) == before
    # The state still plays on normally.
    assert state.apply("KC:KD").table == tuple(sorted(cs("7S 6H 5S")))


@pytest.mark.parametrize(
    "move",
    [None, 123, ("KC",), ["KC", []], {"card": "KC"}],
    ids=["none", "int", "tuple", "list", "dict"],
)
def test_a_move_of_the_wrong_type(state: MatchState, move: Any) -> None:
    before = snapshot(state)
    with pytest.raises(KafanaError):
        state.apply(move)
    assert snapshot(state) == before


def test_a_plain_tuple_is_treated_the_same_whether_or_not_moves_were_listed() -> None:
    # (card, frozenset()) equals the Move KC as a tuple, but it is not a Move: apply must
    # answer the same before and after legal_moves() (which caches the legal moves).
    deck = build_deck("7S 6H KD 5S", "KC 9H 2D")
    plain = (c("KC"), frozenset())
    fresh = tablic.new_match(SERBIAN, decks=[deck])
    with pytest.raises(InvalidInputError, match="expected a Move"):
        fresh.apply(plain)  # type: ignore[arg-type]
    listed = tablic.new_match(SERBIAN, decks=[deck])
    assert Move(c("KC")) in listed.legal_moves()
    with pytest.raises(InvalidInputError, match="expected a Move"):
        listed.apply(plain)  # type: ignore[arg-type]


def test_a_move_after_the_match_ended() -> None:
    rules = Rules.preset("serbian", target=20)
    state = tablic.new_match(rules, decks=[build_deck("5S 4D 8C 2H", "9H")]).apply("9H:5S+4D")
    while not state.is_over:
        seat = state.current_seat
        assert seat is not None
        state = state.apply(Move(min(state.hand(seat))))
    assert state.legal_moves() == []
    count = state.move_count
    with pytest.raises(MatchOverError, match="over"):
        state.apply("KC")
    with pytest.raises(MatchOverError):
        state.apply(Move(c("2C")))
    assert state.move_count == count and state.is_over


def test_a_seat_that_does_not_exist(state: MatchState) -> None:
    for seat in (-1, 2, 5, "0", None):
        with pytest.raises(InvalidInputError, match="seat"):
            state.view(seat)  # type: ignore[arg-type]


# -- rules -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (lambda: Rules.preset("serbian", players=5), "players must be 2, 3 or 4"),
        (lambda: Rules.preset("serbian", players=1), "players must be 2, 3 or 4"),
        (lambda: Rules.preset("serbian", players=3, partnerships=True), "partnerships"),
        (lambda: Rules.preset("serbian", players=2, partnerships=True), "partnerships"),
        (lambda: Rules.preset("scopa"), "unknown preset 'scopa'"),
        (lambda: Rules.preset("serbian", jokers=True), "unknown rule switch.*jokers"),
        (lambda: SERBIAN.with_switches(must_capture_all=True), "must_capture_all"),
        (lambda: Rules.from_dict({"players": 2, "speed": 3}), "speed"),
        (lambda: Rules.from_json("{not json"), "JSON"),
        (lambda: Rules.preset("serbian", players="2"), "players"),
        (lambda: Rules.preset("serbian", must_capture="yes"), "must_capture"),
        (lambda: Rules.preset("serbian", target=0), "target"),
        (lambda: Rules.preset("serbian", card_points=(("Z", 1),)), "card_points"),
        (lambda: Rules.preset("serbian", king_value=99), "king_value"),
    ],
)
def test_bad_rules(make: Any, reason: str) -> None:
    with pytest.raises(InvalidInputError, match=reason):
        make()


# -- seeds and decks -------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [-1, 2**64, "7", 1.5, True, None])
def test_bad_seeds(seed: Any) -> None:
    with pytest.raises(InvalidInputError, match="seed"):
        tablic.new_match(SERBIAN, seed=seed) if seed is not None else tablic.shuffled_deck(seed, 0)


def test_bad_hand_number_for_the_shuffle() -> None:
    with pytest.raises(InvalidInputError, match="hand"):
        tablic.shuffled_deck(1, -1)


def test_largest_seed_is_fine() -> None:
    assert tablic.new_match(SERBIAN, seed=2**64 - 1).deck_remaining == 36


def test_bad_decks() -> None:
    deck = [str(card) for card in tablic.shuffled_deck(1, 0)]
    with pytest.raises(InvalidInputError, match="51 cards"):
        tablic.new_match(SERBIAN, decks=[deck[:-1]])
    with pytest.raises(InvalidInputError, match="53 cards"):
        tablic.new_match(SERBIAN, decks=[[*deck, deck[0]]])
    with pytest.raises(InvalidInputError, match=f"{deck[0]} appears twice"):
        tablic.new_match(SERBIAN, decks=[[*deck[:-1], deck[0]]])
    with pytest.raises(InvalidInputError, match="unknown card 'XX'"):
        tablic.new_match(SERBIAN, decks=[[*deck[:-1], "XX"]])
    with pytest.raises(InvalidInputError, match="deck 1"):
        tablic.new_match(SERBIAN, decks=[deck, deck[:10]])
    with pytest.raises(InvalidInputError, match="seed or"):
        tablic.new_match(SERBIAN)
    with pytest.raises(InvalidInputError, match="seed or"):
        tablic.new_match(SERBIAN, decks=[])
    with pytest.raises(InvalidInputError, match="Rules"):
        tablic.new_match("serbian", seed=1)  # type: ignore[arg-type]


def test_captures_refuses_impossible_tables() -> None:
    with pytest.raises(InvalidInputError, match="both played and on the table"):
        tablic.captures(c("KC"), cs("KC KD"), SERBIAN)
    with pytest.raises(InvalidInputError, match="KD appears twice"):
        tablic.captures(c("KC"), cs("KD KD"), SERBIAN)
    with pytest.raises(InvalidInputError, match="Card"):
        tablic.captures("KC", cs("KD"), SERBIAN)  # type: ignore[arg-type]


# -- records ---------------------------------------------------------------------------------


def finished_record() -> str:
    rng = random.Random(3)
    state = tablic.new_match(Rules.preset("serbian", target=30), seed=3)
    while not state.is_over:
        state = state.apply(rng.choice(state.legal_moves()))
    return state.record().to_text()


def test_bad_records() -> None:
    text = finished_record()
    lines = text.splitlines()
    with pytest.raises(InvalidInputError, match="starts with"):
        MatchRecord.from_text("\n".join(lines[1:]))
    with pytest.raises(InvalidInputError, match="line 3"):
        MatchRecord.from_text("\n".join([*lines[:2], "seed many", *lines[3:]]))
    with pytest.raises(InvalidInputError, match="unknown item 'mvoe'"):
        MatchRecord.from_text(text + "mvoe KC\n")
    with pytest.raises(InvalidInputError, match="no rules"):
        MatchRecord.from_text("\n".join(line for line in lines if not line.startswith("rules")))
    # Comments and blank lines are fine.
    assert MatchRecord.from_text("# a comment\n\n" + text).replay().is_over


def test_an_illegal_move_in_a_record_names_the_move() -> None:
    lines = finished_record().splitlines()
    first_move = next(i for i, line in enumerate(lines) if line.startswith("move "))
    broken = [*lines[:first_move], "move KC:2C+3C+4C+5C", *lines[first_move + 1 :]]
    with pytest.raises(KafanaError, match=r"record move 1 \(KC:2C\+3C\+4C\+5C\)"):
        MatchRecord.from_text("\n".join(broken)).replay()


def test_a_move_after_the_end_in_a_record_names_the_move() -> None:
    lines = finished_record().splitlines()
    moves = sum(line.startswith("move ") for line in lines)
    extra = [line for line in lines if not line.startswith("scores")] + ["move KC"]
    with pytest.raises(KafanaError, match=f"record move {moves + 1} "):
        MatchRecord.from_text("\n".join(extra)).replay()
