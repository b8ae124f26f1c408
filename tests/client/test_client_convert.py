"""The SDK's conversions, no server: typed rules from keywords, rules back for bots, enum words,
wire moves, bot events from slim events, the clock counted down from `remaining_millis`."""

from __future__ import annotations

import time
from typing import Any

import pytest
from kafana.errors import InvalidInputError
from kafana.games import tablic, tac
from kafana.v1 import events_pb2, rules_pb2, state_pb2
from kafana_bots import HandEnded, HandStarted, MatchEnded, MovePlayed
from kafana_client import rules_spec, table_config, word
from kafana_client.aio import LegalMoves
from kafana_client.bots import bot_events
from kafana_client.cli.render import clock_line, deadline_of, move_text, order_moves
from kafana_client.cli.tac_render import move_phrase
from kafana_client.convert import (
    current_seat,
    game_name,
    move_message,
    rules_of,
    switches_of,
    tablic_rules,
)
from kafana_client.tac import legal_by_move, tac_rules_of, tac_table_config, tac_view_of


def test_table_config_sets_each_switch_on_the_tablic_branch() -> None:
    config = table_config(
        preset="tablanette",
        players=4,
        partnerships=True,
        target=151,
        seed=3,
        must_capture=True,
        jack_value=11,
        card_points=[("A", 1), ("10D", 2)],
        move_millis=500,
        forfeit_on_timeout=True,
    )
    rules = config.rules
    assert rules.game == rules_pb2.GAME_TABLIC and rules.WhichOneof("variant") == "tablic"
    assert (rules.players, rules.partnerships) == (4, True)
    assert rules.tablic.preset == rules_pb2.TABLIC_PRESET_TABLANETTE
    assert rules.tablic.target == 151 and rules.tablic.must_capture is True
    assert rules.tablic.jack_value == 11 and rules.tablic.card_points_set
    assert [(p.pattern, p.points) for p in rules.tablic.card_points] == [("A", 1), ("10D", 2)]
    assert not rules.tablic.HasField("wild_jack")  # unset: the preset's value
    assert config.seed == 3 and config.clock.move_millis == 500
    assert config.clock.policy == rules_pb2.TIMEOUT_POLICY_FORFEIT


def test_target_zero_keeps_the_presets_and_an_empty_card_table_is_explicit() -> None:
    assert not table_config().rules.tablic.HasField("target")
    empty = rules_spec(card_points=[])
    assert empty.tablic.card_points_set and not empty.tablic.card_points
    assert tablic_rules(empty).card_points == ()


def test_an_unknown_switch_names_itself_and_the_valid_ones() -> None:
    with pytest.raises(InvalidInputError) as error:
        table_config(must_captur=True)
    text = str(error.value)
    assert "must_captur" in text and "must_capture" in text and "ace_high" in text
    with pytest.raises(InvalidInputError, match="tac_calls") as tac_error:
        tac_table_config(target=3)
    assert "unknown tac rule switch(es): target" in str(tac_error.value)
    with pytest.raises(InvalidInputError, match="unknown preset 'no-such'"):
        table_config(preset="no-such")
    with pytest.raises(InvalidInputError, match="unknown game 'chess'"):
        rules_spec("chess")
    with pytest.raises(InvalidInputError, match="rule switch target"):
        rules_spec(target="many")


def test_tac_config_is_typed_and_comes_back_as_the_core_rules() -> None:
    config = tac_table_config(players=4, decks=2, tac_calls=True, seed=5, deck=["AS"] * 0)
    assert config.rules.game == rules_pb2.GAME_TAC and game_name(config.rules) == "tac"
    assert config.rules.tac.decks == 2 and config.rules.tac.tac_calls
    info = state_pb2.TableInfo(rules=config.rules)
    assert tac_rules_of(info) == tac.Rules(players=4, decks=2, tac_calls=True)
    assert switches_of(config.rules) == {"decks": 2, "tac_calls": True}


def test_rules_in_force_come_back_as_the_core_rules() -> None:
    core = tablic.Rules.preset("wild_jack", players=3, target=77)
    spec = rules_spec(preset="wild_jack", players=3, **_every_switch(core))
    assert rules_of(state_pb2.TableInfo(rules=spec)) == core
    # a spec with only the preset set is the preset (four single players: target 51)
    four = rules_spec(preset="serbian", players=4)
    assert tablic_rules(four) == tablic.Rules.preset("serbian", players=4)


def _every_switch(rules: tablic.Rules) -> dict[str, Any]:
    data = rules.to_dict()
    data.pop("players")
    data.pop("partnerships")
    data["card_points"] = [tuple(pair) for pair in data["card_points"]]
    return data


def test_enum_words() -> None:
    assert word(state_pb2.EventReason, state_pb2.EVENT_REASON_ILLEGAL_MOVE) == "illegal move"
    assert word(state_pb2.ResultReason, state_pb2.RESULT_REASON_SCORE) == "score"
    assert word(state_pb2.TacPhase, state_pb2.TAC_PHASE_PLACE) == "place"
    assert word(rules_pb2.Game, rules_pb2.GAME_TAC) == "tac"
    assert word(state_pb2.EventReason, state_pb2.EVENT_REASON_UNSPECIFIED) == ""
    assert word(state_pb2.EventReason, 999) == ""


def test_moves_on_the_wire() -> None:
    listed = state_pb2.Move(text="KC:KD", tablic=state_pb2.TablicMove(card="KC", captured=["KD"]))
    assert move_message(listed) is listed  # sent back as is: text and structured
    assert move_message("7S") == state_pb2.Move(text="7S")
    assert move_message(tablic.Move.parse("kc:kd+kh")).text == "KC:KD+KH"
    assert move_text(listed).plain == "K♣ takes K♦"
    assert move_text(state_pb2.Move(text="KC:KH+KD")).plain == "K♣ takes K♦ K♥"  # text only
    trail = state_pb2.Move(text="2S")
    assert [m.text for m in order_moves([trail, listed])] == ["KC:KD", "2S"]


def test_tac_moves_keep_their_wire_form() -> None:
    flip = state_pb2.Move(text="flip", tac=state_pb2.TacMove(flip=state_pb2.TacFlip()))
    play = state_pb2.Move(text="play X->C")
    moves = legal_by_move(LegalMoves(4, [flip, play]))
    assert moves[tac.Move.flip()] is flip and moves[tac.Move.parse("play X->C")] is play
    assert move_phrase(flip, ["ana", "bob"], 0, card="7H").plain == "turned up 7♥"


def test_views_read_current_seat_and_phase_from_the_new_places() -> None:
    spec = rules_spec("tac", players=2)
    info = state_pb2.TableInfo(rules=spec, status=state_pb2.TABLE_STATUS_PLAYING)
    state = state_pb2.TableState(info=info, seq=4, current_seat=1)
    state.tac.phase = state_pb2.TAC_PHASE_PLACE
    state.tac.closed_sizes.extend([20, 20])
    state.tac.discards.add()
    state.tac.discards.add()
    view = tac_view_of(state)
    assert view.current_seat == 1 and view.phase == "place" and current_seat(state) == 1
    info.status = state_pb2.TABLE_STATUS_FINISHED
    assert current_seat(state_pb2.TableState(info=info, current_seat=1)) is None


def test_bot_events_come_from_the_slim_event() -> None:
    deal = events_pb2.Deal(hand_no=1, table=["AS", "3D", "5C", "QC"])
    trail_7s = state_pb2.Move(text="7S")
    score = state_pb2.HandScore(hand=0, cards=[30, 22], points=[5, 2])
    move = events_pb2.Event(
        seq=9,
        kind=events_pb2.EVENT_KIND_MOVE,
        seat=1,
        move=state_pb2.Move(text="7S"),
        deal=deal,
        hand_score=score,
    )
    kinds = [type(e) for e in bot_events(move)]
    assert kinds == [MovePlayed, HandEnded, HandStarted]
    started = bot_events(move)[2]
    assert isinstance(started, HandStarted) and started.hand_no == 1 and len(started.table) == 4
    last = events_pb2.Event(
        kind=events_pb2.EVENT_KIND_MOVE,
        move=state_pb2.Move(text="7S"),
        match_over=True,
        hand_score=score,
        result=state_pb2.Result(scores=[101, 80]),
    )
    out = bot_events(last)
    assert [type(e) for e in out] == [MovePlayed, HandEnded, MatchEnded]
    assert out[-1] == MatchEnded((101, 80))
    begun = events_pb2.Event(kind=events_pb2.EVENT_KIND_SEAT_TAKEN, match_started=True, deal=deal)
    assert [type(e) for e in bot_events(begun)] == [HandStarted]
    redeal = events_pb2.Deal(hand_no=1, hand=["2C"] * 6)  # the hands ran out: the same hand
    more = events_pb2.Event(kind=events_pb2.EVENT_KIND_MOVE, move=trail_7s, deal=redeal)
    assert [type(e) for e in bot_events(more)] == [MovePlayed]


def test_the_clock_counts_down_from_remaining_millis() -> None:
    info = state_pb2.TableInfo(
        status=state_pb2.TABLE_STATUS_PLAYING,
        clock=rules_pb2.ClockSpec(move_millis=10_000),
        seats=[state_pb2.Seat(seat=0, name="ana"), state_pb2.Seat(seat=1, name="bob")],
    )
    state = state_pb2.TableState(info=info, current_seat=0, remaining_millis=[4000, 10000])
    assert deadline_of(state, received=100.0) == 104.0
    line = clock_line(state, 0)
    assert line is not None and "you 4 s left" in line.plain and "bob 10 s" in line.plain
    earlier = clock_line(state, 0, received=time.time() - 3)
    assert earlier is not None and "you 1 s left" in earlier.plain
    assert deadline_of(state_pb2.TableState(info=info)) is None  # no seat to move
