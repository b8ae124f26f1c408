"""The `building` switch, sentence by sentence from RULES.md ("Building", as in Cassino).

Each test names the sentence it checks. Two players unless said: seat 0 moves first, and
`deal` gives the opening table and each seat's first six cards (`build_deck`).
"""

from __future__ import annotations

import random
from itertools import combinations

import pytest
from kafana.errors import IllegalMoveError, InvalidInputError
from kafana.games import tablic
from kafana.games.tablic import Build, MatchRecord, MatchState, Move, Rules

from .helpers import ALL_CONFIGS, build_deck, c, cs, texts

FILLER = "KS KH KD KC QS QH"
"""Padding for short hands: high cards no small build reaches."""


def deal(table: str, *hands: str, preset: str = "serbian", **switches: object) -> MatchState:
    """A match with building on, the given opening table and first hands."""
    rules = Rules.preset(preset, building=True, **switches)  # type: ignore[arg-type]
    deck = build_deck(table, *hands, filler=FILLER)
    return tablic.new_match(rules, decks=[deck])


def texts_of(state: MatchState) -> set[str]:
    """The legal moves as text."""
    return {str(m) for m in state.legal_moves()}


def play(state: MatchState, *moves: str) -> MatchState:
    """Apply moves given as text, each checked as legal and listed."""
    for text in moves:
        assert text in texts_of(state), (text, sorted(texts_of(state)))
        state = state.apply(text)
    return state


# -- the switch ---------------------------------------------------------------------------


@pytest.mark.parametrize("preset", tablic.PRESETS)
def test_building_is_off_by_default_in_every_preset(preset: str) -> None:
    # "a soft house rule, off by default in every preset; switch `building`"
    assert Rules.preset(preset).building is False
    state = tablic.new_match(Rules.preset(preset), decks=[build_deck("5D 9S 10S 10C", "2C 7H")])
    with pytest.raises(IllegalMoveError, match="no building"):
        state.apply("2C>5D=7")
    assert not any(m.is_build for m in state.legal_moves())


def test_building_takes_the_python_paths_on_either_build() -> None:
    # The C fast paths know no builds: the compiled build lists (a list, not the C MoveList)
    # and applies in Python, so it plays building exactly as the pure one.
    state = deal("5D 9S 10S 10C", "2C 7H")
    assert type(state.legal_moves()) is list
    after = state.apply("2C>5D=7")
    assert type(after.legal_moves()) is list and after.builds
    off = tablic.new_match(Rules(), decks=[build_deck("5D 9S 10S 10C", "2C 7H")])
    assert (type(off.legal_moves()) is list) == (tablic.BUILD == "pure")  # else C's MoveList


def test_the_c_paths_decline_a_match_with_building() -> None:
    # The state's C parameters are empty with building: C lists, applies and deals nothing.
    from kafana.games.tablic import state as state_module

    assert state_module.state_params(Rules(building=True)) == b""
    state = deal("5D 9S 10S 10C", "2C 7H")
    if state_module._FAST_MOVES is not None:  # the compiled build only
        assert state_module._FAST_MOVES(state, 1024, 256) is None
        assert state_module._FAST_ADVANCE is not None and state_module._FAST_START is not None
        assert state_module._FAST_ADVANCE(state, state.legal_moves()[0]) is None
        assert state_module._FAST_START(state) is None


def test_rules_json_names_building_only_when_on() -> None:
    # Records of matches without building keep the JSON they had before the switch existed.
    assert "building" not in Rules().to_json()
    on = Rules(building=True)
    assert '"building":true' in on.to_json()
    assert Rules.from_json(on.to_json()) == on
    assert Rules.from_json(Rules().to_json()) == Rules()


# -- "a player may play a card onto one or more table cards to make a build" ---------------


def test_a_build_is_one_unit_with_its_value_and_owner() -> None:
    state = deal("5D 9S 10S 10C", "2C 7H")
    assert "2C>5D=7" in texts_of(state)
    after = state.apply("2C>5D=7")
    assert after.builds == (Build((c("2C"), c("5D")), 7, 0),)
    assert texts(after.table) == ["10C", "10S", "9S"]  # the loose cards only
    assert after.view(1).builds == after.builds
    assert after.view(1).to_dict()["builds"] == [{"cards": ["2C", "5D"], "value": 7, "owner": 0}]


def test_a_build_may_join_several_table_cards() -> None:
    state = deal("2D 3D 9S 10S", "2C 7H")
    after = play(state, "2C>2D+3D=7")
    assert after.builds == (Build(tuple(cs("2C 2D 3D")), 7, 0),)


def test_the_value_must_be_that_of_a_card_left_in_the_hand() -> None:
    # "...sum to the capture value of a card still in the player's hand after this move"
    state = deal("5D 9S 10S 10C", "2C 9H 3H")  # no 7 in the hand
    assert "2C>5D=7" not in texts_of(state)
    with pytest.raises(IllegalMoveError, match="card left in the hand"):
        state.apply("2C>5D=7")
    # The played card does not count: 7H onto 7C makes 14 only with a K left, not with 7H.
    state = deal("7C 9S 10S 10C", "7H 2H 3H 4H 5H 6H")
    assert not any(m.is_build and m.card == c("7H") for m in state.legal_moves())


def test_the_cards_must_sum_to_the_value() -> None:
    state = deal("5D 9S 10S 10C", "2C 8H")
    with pytest.raises(IllegalMoveError, match="do not sum to 8"):
        state.apply("2C>5D=8")


def test_an_ace_is_declared_one_or_eleven_for_the_build() -> None:
    state = deal("AD 9S 10S 10C", "2C 3H QH")
    moves = texts_of(state)
    assert {"2C>AD=3", "2C>AD=13"} <= moves  # 2 + 1 with the 3H, 2 + 11 with the QH (13)


def test_values_are_counted_as_in_a_sum_group() -> None:
    # wild_jack: Q and K capture by rank only, so they have no value in a sum, nor a wild J.
    state = deal("QD 2S 10S 10C", "AC 3H KH JH", preset="wild_jack")
    joined = {c for m in state.legal_moves() if m.is_build for c in m.joined}
    assert c("QD") not in joined and c("2S") in joined
    with pytest.raises(IllegalMoveError, match="do not sum"):
        state.apply("AC>QD=13")


def test_a_build_cannot_be_made_on_an_empty_table() -> None:
    # "A build cannot be made on an empty table."
    state = deal("2D 3D 4D 5D", "KC 6H 7H", "8S 8H 8C")  # KC takes 2+3+4+5 = 14: a tabla
    after = play(state, "KC:2D+3D+4D+5D")
    assert after.table == () and after.builds == ()
    assert not any(m.is_build for m in after.legal_moves())
    with pytest.raises(IllegalMoveError, match="not on the table"):
        after.apply("8S>2D=10")


def test_a_builds_value_is_at_most_fourteen() -> None:
    # "A build's value is at most 14 (13 where K = 13)."
    state = deal("8D 9S 10S 10C", "6C KH")
    assert "6C>8D=14" in texts_of(state)
    with pytest.raises(InvalidInputError, match="between 2 and 14"):
        Move.parse("7C>8D=15")


def test_a_builds_value_is_at_most_thirteen_where_the_king_is_thirteen() -> None:
    state = deal("8D 9S 10S 10C", "5C KH", "6H 4H", preset="wild_jack")
    assert "5C>8D=13" in texts_of(state)
    # 6 + 8 = 14: no card captures 14 there, and the bound says so first.
    assert Rules.preset("wild_jack").king_value == 13
    state = deal("8D 9S 10S 10C", "6C KH", preset="wild_jack")
    with pytest.raises(IllegalMoveError, match="at most 13"):
        state.apply("6C>8D=14")


# -- "A build is captured only as a whole, by a card whose capture value equals its value" --


def test_a_build_is_captured_by_a_card_of_its_value() -> None:
    state = deal("5D 9S 10S 10C", "2C 7H", "7S 3S")
    after = play(state, "2C>5D=7", "7S:2C+5D")
    assert after.builds == ()
    assert {c("2C"), c("5D"), c("7S")} <= after.captured(1)


def test_a_build_is_taken_only_whole() -> None:
    state = deal("5D 9S 10S 10C", "2C 7H", "5S 3S")
    after = play(state, "2C>5D=7")
    assert "5S:5D" not in texts_of(after)
    with pytest.raises(IllegalMoveError, match="only whole"):
        after.apply("5S:5D")


def test_a_build_matches_nothing_by_rank() -> None:
    # "By rank it matches nothing (a build of value 7 is not a 7)": a 7 takes it by value,
    # but a build of 7 is no group of a 9 with a 2 beside it.
    state = deal("5D 2S 10S 10C", "2C 7H", "9S 3S")
    after = play(state, "2C>5D=7")
    with pytest.raises(IllegalMoveError, match="cannot capture"):
        after.apply("9S:2C+2S+5D")


def test_a_build_joins_other_groups_where_several_groups_are_allowed() -> None:
    state = deal("5D 3D 4C 10C", "2C 7H", "7S KS")
    after = play(state, "2C>5D=7")
    assert "7S:2C+3D+4C+5D" in texts_of(after)  # the build and 3 + 4: two groups of 7
    assert "7S:2C+5D" in texts_of(after) and "7S:3D+4C" in texts_of(after)


def test_a_build_is_a_group_alone_where_one_group_is_allowed() -> None:
    state = deal("5D 3D 4C 10C", "2C 7H", "7S KS", preset="tablanette")
    after = play(state, "2C>5D=7")
    assert "7S:2C+5D" in texts_of(after) and "7S:3D+4C" in texts_of(after)
    with pytest.raises(IllegalMoveError, match="one group only"):
        after.apply("7S:2C+3D+4C+5D")


def test_any_player_may_capture_a_build() -> None:
    # "(any player's)": the owner too.
    state = deal("5D 9S 10S 10C", "2C 7H 8H", "3S 4S")
    after = play(state, "2C>5D=7", "3S")
    assert "7H:2C+5D" in texts_of(after)


def test_an_ace_takes_a_build_of_eleven() -> None:
    state = deal("5D 9S 10S 10C", "6C AH", "2S 3S")
    after = play(state, "6C>5D=11", "2S")
    assert "AH:5D+6C" in texts_of(after)


# -- raising -----------------------------------------------------------------------------


def test_any_player_may_raise_a_build_and_it_changes_owner() -> None:
    state = deal("5D 9S 10S 10C", "2C 7H", "3S 10H")
    after = play(state, "2C>5D=7", "3S>2C+5D=10")
    assert after.builds == (Build(tuple(cs("2C 3S 5D")), 10, 1),)
    # "A build that another player has raised is no longer the first owner's": seat 0 may trail.
    assert "7H" in texts_of(after)


def test_a_raise_may_join_more_table_cards() -> None:
    # "(with or without more table cards)": 7 + 2 + an ace as 1 = 10, with a 10 left.
    state = deal("5D 2D 10S 10C", "2C 7H", "AS 10H")
    after = play(state, "2C>5D=7")
    assert "AS>2C+2D+5D=10" in texts_of(after)
    assert "AS>2C+5D=8" not in texts_of(after)  # no 8 in that hand
    after = play(after, "AS>2C+2D+5D=10")
    assert after.builds == (Build(tuple(cs("AS 2C 2D 5D")), 10, 1),)
    assert texts(after.table) == ["10C", "10S"]


def test_the_owner_may_raise_its_own_build() -> None:
    state = deal("5D 9S 10S 10C", "2C 7H 3H 10H", "KS")
    after = play(state, "2C>5D=7", "KS")
    assert "3H>2C+5D=10" in texts_of(after)


def test_a_raise_joins_one_build() -> None:
    state = deal("2D 3D 10S 10C", "2C AC 4H", "KS AS 9S")
    after = play(state, "2C>2D=4", "KS", "AC>3D=4")
    assert [b.value for b in after.builds] == [4, 4]
    with pytest.raises(IllegalMoveError, match="one build"):
        after.apply("AS>2C+2D+AC+3D=9")


# -- "While a player owns a build they may not trail" --------------------------------------


def test_an_owner_may_not_trail() -> None:
    state = deal("5D 9S 10S 10C", "2C 7H 8H", "KS")
    after = play(state, "2C>5D=7", "KS")
    moves = after.legal_moves()
    assert moves and not any(m.is_trail for m in moves)
    with pytest.raises(IllegalMoveError, match="owns a build"):
        after.apply("8H")


def test_an_owner_with_no_other_move_may_trail() -> None:
    # A player always has a move: when no capture, build or raise is possible, it trails.
    state = deal(
        "5D 3D 4C 10D", "2C 7H 9C 9D 9H 9S", "KS KH KD KC QS QH"
    )  # seat 0 builds 7, then plays its 7 elsewhere: its nines take and build nothing
    after = play(state, "2C>5D=7", "KS", "7H:3D+4C", "KH")
    assert after.builds == (Build(tuple(cs("2C 5D")), 7, 0),)
    assert sorted(texts_of(after)) == ["9C", "9D", "9H", "9S"]
    assert after.apply("9C").current_seat == 1


def test_a_player_may_own_several_builds() -> None:
    state = deal("5D 3D 10S 10C", "2C 7H 4C 9H", "KS QS")
    after = play(state, "2C>5D=7", "KS", "4C>3D=7")
    assert [b.owner for b in after.builds] == [0, 0]
    assert {b.value for b in after.builds} == {7}
    assert "7H:2C+3D+4C+5D" in texts_of(play(after, "QS"))  # both builds, each a group


# -- wild jack and the end of the hand -----------------------------------------------------


def test_a_wild_jack_takes_builds_with_everything_else() -> None:
    state = deal("5D 9S 10S 10C", "2C 7H", "JS KS", preset="wild_jack")
    after = play(state, "2C>5D=7")
    (move,) = [m for m in after.legal_moves() if m.card == c("JS") and m.captured]
    assert texts(move.captured) == texts(cs("2C 5D 9S 10S 10C"))
    taken = after.apply(move)
    assert taken.table == () and taken.builds == () and taken.tablas(1) == 1
    with pytest.raises(IllegalMoveError, match="whole table"):
        after.apply("JS:9S+10S+10C")


def test_builds_left_at_the_end_go_to_the_last_capturer_card_by_card() -> None:
    # "Builds left at the end of the hand go with the other cards to the last capturer; their
    # cards count one by one for points and most cards." Random play of one-hand matches
    # until some hands end with builds on the table.
    rng = random.Random(33)
    seen = 0
    for seed in range(200):
        rules = Rules(building=True, target=1)
        state = before = tablic.new_match(rules, seed=seed)
        while not state.hand_results:
            moves = state.legal_moves()
            builds = [m for m in moves if m.is_build]
            before = state
            state = state.apply(rng.choice(builds if builds and rng.random() < 0.7 else moves))
        (result,) = state.hand_results
        side = result.last_capturer
        if not before.builds or side is None or not state.is_over:
            continue
        pile = state.captured(side)
        assert {c for b in before.builds for c in b.cards} <= pile
        assert result.cards[side] == len(pile) and sum(result.cards) == 52
        assert result.card_points[side] == sum(rules.points_by_index[c.index] for c in pile)
        for other in range(2):
            if other != side:
                assert result.cards[other] == len(before.captured(other))
        seen += 1
        if seen == 3:
            break
    assert seen == 3


# -- must capture --------------------------------------------------------------------------


def test_must_capture_refuses_a_build_where_a_capture_exists() -> None:
    state = deal("5D 9S 10S 10C", "2C 7H 9H", must_capture=True)
    assert all(m.captured for m in state.legal_moves())
    with pytest.raises(IllegalMoveError, match="capture is possible"):
        state.apply("2C>5D=7")


# -- records -----------------------------------------------------------------------------


def test_the_move_text_round_trips() -> None:
    move = Move.parse("7c>5d+ah=13")
    assert str(move) == "7C>AH+5D=13" and Move.parse(str(move)) == move
    assert move.is_build and not move.is_trail and move.captured == frozenset()
    assert move.joined == frozenset(cs("5D AH")) and move.build_value == 13
    assert move != Move.parse("7C:5D+AH")
    for bad in ("7C>=7", "7C>5D", "7C>5D=x", "7C>7C=14", "7C>5D=1"):
        with pytest.raises(InvalidInputError):
            Move.parse(bad)


def test_a_record_with_builds_replays_exactly() -> None:
    # "Records write a build as the played card, the table cards it joins and its value."
    rng = random.Random(7)
    state = tablic.new_match(Rules(building=True, target=60), seed=11)
    while not state.is_over:
        moves = state.legal_moves()
        builds = [m for m in moves if m.is_build]
        state = state.apply(rng.choice(builds if builds and rng.random() < 0.5 else moves))
    text = state.record().to_text()
    assert ">" in text and '"building":true' in text
    replayed = MatchRecord.from_text(text).replay()
    assert replayed.scores == state.scores and replayed.moves() == state.moves()


# -- every legal move, by brute force --------------------------------------------------------


def candidates(state: MatchState) -> set[Move]:
    """Moves of the seat to move, legal or not: every trail, every capture and build of up to
    three table items (loose cards or whole builds, or a build's part), every build value."""
    seat = state.current_seat
    assert seat is not None
    items: list[tuple[tablic.Card, ...]] = [(card,) for card in state.table]
    items += [b.cards for b in state.builds]
    items += [b.cards[:1] for b in state.builds]
    out: set[Move] = set()
    for card in state.hand(seat):
        out.add(Move(card))
        for size in (1, 2, 3):
            for chosen in combinations(items, size):
                cards = [x for item in chosen for x in item]
                if len(set(cards)) != len(cards):
                    continue
                out.add(Move(card, cards))
                out.update(Move.build(card, cards, value) for value in range(2, 15))
    return out


@pytest.mark.parametrize("preset", tablic.PRESETS)
def test_legal_moves_are_exactly_the_moves_accepted(preset: str) -> None:
    rng = random.Random(preset)
    rules = Rules.preset(preset, building=True, target=30)
    checked = 0
    for seed in range(2):  # ~10,000 candidates a position: 15 positions a seed
        state = tablic.new_match(rules, seed=seed)
        while not state.is_over and checked < 15 * (seed + 1):
            legal = set(state.legal_moves())
            if len(state.table) + len(state.builds) <= 7:
                for move in candidates(state):
                    assert state.is_legal(move) == (move in legal), move
                checked += 1
            builds = [m for m in legal if m.is_build]
            pool = builds if builds and rng.random() < 0.5 else list(legal)
            state = state.apply(rng.choice(sorted(pool, key=str)))
    assert checked == 30


# -- random play: the invariants -----------------------------------------------------------


@pytest.mark.parametrize(("players", "partnerships"), ALL_CONFIGS)
@pytest.mark.parametrize("preset", tablic.PRESETS)
def test_random_play_with_building_keeps_the_invariants(
    preset: str, players: int, partnerships: bool
) -> None:
    rules = Rules.preset(
        preset, players=players, partnerships=partnerships, building=True, target=40
    )
    rng = random.Random(f"{preset} {players} {partnerships}")
    made = 0
    for seed in range(2):
        state = tablic.new_match(rules, seed=seed)
        while not state.is_over:
            seat = state.current_seat
            assert seat is not None
            held = sum(len(state.hand(s)) for s in range(players))
            built = sum(len(b.cards) for b in state.builds)
            piles = sum(len(state.captured(s)) for s in range(rules.sides))
            assert held + state.deck_remaining + len(state.table) + built + piles == 52
            moves = state.legal_moves()
            assert moves and len(set(moves)) == len(moves)
            for move in rng.sample(list(moves), min(30, len(moves))):  # all, or 30
                assert state.is_legal(move) and Move.parse(str(move)) == move
                state.apply(move)
            if any(b.owner == seat for b in state.builds) and any(not m.is_trail for m in moves):
                assert not any(m.is_trail for m in moves)
            assert all(b.value <= (14 if rules.king_value >= 14 else 13) for b in state.builds)
            builds = [m for m in moves if m.is_build]
            made += bool(builds)
            state = state.apply(rng.choice(builds if builds and rng.random() < 0.5 else moves))
        points = [sum(r.points[s] for r in state.hand_results) for s in range(rules.sides)]
        assert list(state.scores) == points
        for result in state.hand_results:
            if result.last_capturer is not None:
                assert sum(result.cards) == 52
    assert made


def test_rank_priority_counts_loose_cards_only_not_a_build_s() -> None:
    """A review (7 Dec): with `building` and `rank_priority`, AC was listed as taking the
    build AS+3D+7D (=11) while AD lay loose. RULES.md: a capture must take a card of the played
    rank when one is loose, and a build "by rank matches nothing": the AS inside it does not
    count. The listing and the check now agree (the listing kept the move, the check refused
    it, so `apply` depended on whether the listing was read)."""
    rules = Rules.preset("tablanette", building=True, rank_priority=True)
    deck = build_deck("AD 3D 7D 5C", "AS AC 2H 4H 6H 8H", "9C 9D 9S 10C 10H QS")
    state = tablic.new_match(rules, decks=[deck]).apply("AS>3D+7D=11").apply("9C")
    listed = {str(m) for m in state.legal_moves() if str(m).startswith("AC")}
    assert "AC:AD" in listed and "AC:AS+3D+7D" not in listed, listed
    assert not state.is_legal(Move.parse("AC:AS+3D+7D"))
    fresh = tablic.new_match(rules, decks=[deck]).apply("AS>3D+7D=11").apply("9C")
    for s in (state, fresh):
        with pytest.raises(IllegalMoveError, match="rank priority"):
            s.apply("AC:AS+3D+7D")
