"""Moves on the wire: legal moves carry text and structure, and either (or both) plays."""

from __future__ import annotations

import random
from itertools import pairwise

import pytest
from kafana.errors import InvalidInputError
from kafana.games import tac
from kafana.service import convert
from kafana.service.games import GAMES
from kafana.store.redis_store import RedisStore
from kafana.v1 import events_pb2, rules_pb2, state_pb2
from wire_support import play_to_end, seated

TABLIC = GAMES["tablic"]
TAC = GAMES["tac"]
S = state_pb2


def tac_move(**action: object) -> S.Move:
    return S.Move(tac=S.TacMove(**action))  # type: ignore[arg-type]


def pile(kind: int, seat: int = 0) -> S.TacPile:
    return S.TacPile(kind=kind, seat=seat)  # type: ignore[arg-type]


async def test_tablic_legal_moves_are_text_and_structure_and_both_play(
    redis_store: RedisStore,
) -> None:
    tables, table_id, _tokens = await seated(redis_store, rules_pb2.RulesSpec(), seed=21)
    session = await tables.session(table_id)
    seat = session.match.current_seat
    legal = tables.legal(session, seat)
    wire = convert.moves(session, legal)
    assert [m.text for m in wire] == [str(m) for m in legal]
    for move, message in zip(legal, wire, strict=True):
        assert message.tablic.card == move.card.text
        assert list(message.tablic.captured) == sorted(c.text for c in move.captured)
        only = S.Move(tablic=message.tablic)
        assert convert.move_text(session, only, seat) == message.text
        assert convert.move_text(session, message, seat) == message.text  # sent back as is


def test_tablic_structure_in_any_order_and_loose_text() -> None:
    move = S.Move(text="kc:kh+kd", tablic=S.TablicMove(card="KC", captured=["KH", "KD"]))
    assert TABLIC.move_text(move, 0) == "KC:KD+KH"
    assert TABLIC.move_text(S.Move(tablic=S.TablicMove(card="7S")), 0) == "7S"
    assert TABLIC.move_text(S.Move(text="7s"), 0) == "7s"  # text alone: parsed by the table


@pytest.mark.parametrize(
    ("move", "words"),
    [
        (S.Move(text="KC:KD", tablic=S.TablicMove(card="KC")), "move.text and move.tablic"),
        (S.Move(), "the move is empty"),
        (S.Move(tac=S.TacMove(flip=S.TacFlip())), "move.tac"),
        (S.Move(tablic=S.TablicMove(captured=["KD"])), "move.tablic.card is empty"),
        (S.Move(tablic=S.TablicMove(card="KC", captured=["ZZ"])), "move.tablic.captured"),
    ],
)
def test_tablic_wire_moves_refused(move: S.Move, words: str) -> None:
    with pytest.raises(InvalidInputError, match=words) as refused:
        TABLIC.move_text(move, 0)
    assert refused.value.metadata["field"].startswith("move")


@pytest.mark.parametrize(
    ("move", "seat", "text"),
    [
        (tac_move(flip=S.TacFlip()), 1, "flip"),
        (
            tac_move(play=S.TacPlay(source=pile(S.TAC_PILE_KIND_TURNED), target=pile(1))),
            1,
            "play X->C",
        ),
        (
            tac_move(play=S.TacPlay(source=pile(S.TAC_PILE_KIND_TURNED), target=pile(2, 1))),
            1,
            "play X->D",
        ),
        (
            tac_move(play=S.TacPlay(source=pile(S.TAC_PILE_KIND_TURNED), target=pile(2, 2))),
            1,
            "play X->P2",
        ),
        (
            tac_move(play=S.TacPlay(source=pile(S.TAC_PILE_KIND_DISCARD, 1), target=pile(2, 0))),
            1,
            "play D->P0",
        ),
        (tac_move(call=S.TacCall(caller=2)), 1, "call P2"),
    ],
)
def test_tac_structure_names_the_piles(move: S.Move, seat: int, text: str) -> None:
    assert TAC.move_text(move, seat) == text
    move.text = text.upper()
    assert TAC.move_text(move, seat) == text  # both, the same move


@pytest.mark.parametrize(
    ("move", "words"),
    [
        (S.Move(text="flip", tac=S.TacMove(call=S.TacCall(caller=1))), "name different moves"),
        (tac_move(), "no action"),
        (
            tac_move(play=S.TacPlay(source=pile(S.TAC_PILE_KIND_DISCARD, 0), target=pile(1))),
            "own discard pile",
        ),
        (
            tac_move(play=S.TacPlay(source=pile(S.TAC_PILE_KIND_CENTRAL), target=pile(1))),
            "TURNED or DISCARD",
        ),
        (
            tac_move(play=S.TacPlay(source=pile(S.TAC_PILE_KIND_TURNED), target=pile(3))),
            "CENTRAL or DISCARD",
        ),
        (
            tac_move(play=S.TacPlay(source=pile(S.TAC_PILE_KIND_DISCARD, 1), target=pile(2, 1))),
            "moves nothing",
        ),
        (S.Move(tablic=S.TablicMove(card="KC")), "move.tablic"),
    ],
)
def test_tac_wire_moves_refused(move: S.Move, words: str) -> None:
    with pytest.raises(InvalidInputError, match=words):
        TAC.move_text(move, 1)


async def test_tac_legal_moves_round_trip_through_their_structure(redis_store: RedisStore) -> None:
    spec = rules_pb2.RulesSpec(game=rules_pb2.GAME_TAC, players=3)
    tables, table_id, tokens = await seated(redis_store, spec, seed=5)
    checked = 0
    for _ in range(40):
        session = await tables.session(table_id)
        seat = session.match.current_seat
        legal = tables.legal(session, seat)
        for move, message in zip(legal, convert.moves(session, legal), strict=True):
            assert message.text == str(move)
            assert convert.move_text(session, S.Move(tac=message.tac), seat) == str(move)
            if move.kind == "play" and move.source == "X":
                assert message.tac.play.card == session.match.turned.text
            checked += 1
        first = legal[0]
        structured = S.Move(tac=convert.moves(session, [first])[0].tac)
        await tables.play(table_id, tokens[seat], structured, f"m{session.seq}", session.seq)
        after = await tables.session(table_id)
        assert after.seq == session.seq + 1
        assert after.match.moves()[-1] == first
    assert checked > 40


async def test_tac_played_moves_and_steps_show_the_card_moved(redis_store: RedisStore) -> None:
    spec = rules_pb2.RulesSpec(game=rules_pb2.GAME_TAC, players=2)
    tables, table_id, tokens = await seated(redis_store, spec, seed=9)
    session = await play_to_end(tables, table_id, tokens, random.Random(1))
    replays = session.replays()
    plays = 0
    for before, after in pairwise(replays):
        event = convert.event(before, after, 0)
        if event.kind != events_pb2.EVENT_KIND_MOVE:
            continue
        step = after.match.last_step
        assert event.move.text == str(step.move)
        assert event.step.seat == step.seat and event.step.move == event.move
        if step.move.kind == "play":
            assert event.move.tac.play.card == event.step.card == step.card.text
            plays += 1
        else:
            assert event.move.tac.WhichOneof("action") == step.move.kind
    assert plays > 10
    assert isinstance(replays[-1].match, tac.GameState)
