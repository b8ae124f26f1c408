"""The PlayMove answer: the event, the scores and the result; the mover's table only if asked."""

from __future__ import annotations

import random
import uuid

import grpc
import pytest
from kafana.games import tablic
from kafana.v1 import rules_pb2, service_pb2
from kafana_play import Stub, Table, config, open_table
from kit import Service


async def play_match(
    stub: Stub, table: Table, seed: int, rng: random.Random, with_state: bool
) -> list[tuple[tablic.MatchState, service_pb2.PlayMoveResponse]]:
    """Follow the match with the local engine; every answer with the state after the move."""
    state = tablic.new_match(tablic.Rules.preset("serbian", players=2), seed=seed)
    out = []
    while not state.is_over:
        seat = state.current_seat
        assert seat is not None
        move = rng.choice(state.legal_moves())
        answer = await stub.PlayMove(
            service_pb2.PlayMoveRequest(
                table_id=table.table_id,
                seat_token=table.tokens[seat],
                move=str(move),
                client_move_id=uuid.uuid4().hex,
                last_seq=table.seq,
                with_state=with_state,
            )
        )
        table.seq += 1
        state = state.apply(move)
        out.append((state, answer))
    return out


async def test_the_answer_is_the_event_and_the_scores(any_service: Service) -> None:
    table = await open_table(any_service.stub, config(players=2, seed=11))
    answers = await play_match(any_service.stub, table, 11, random.Random(3), with_state=False)
    assert len(answers) > 100
    for number, (state, answer) in enumerate(answers):
        assert answer.event.seq == table.seq - len(answers) + number + 1
        assert answer.event.move.text == str(state.moves()[-1][1])
        assert not answer.event.HasField("state") and not answer.HasField("state")
        assert list(answer.scores) == list(state.scores)
        assert answer.event.match_over == state.is_over == answer.HasField("result")
    last = answers[-1][1]
    assert list(last.result.scores) == list(answers[-1][0].scores)
    assert last.result.reason == "score" and last.result.winner_side == answers[-1][0].winner


async def test_with_state_adds_the_movers_table_once(any_service: Service) -> None:
    table = await open_table(any_service.stub, config(players=2, seed=12))
    answers = await play_match(any_service.stub, table, 12, random.Random(4), with_state=True)
    for state, answer in answers:
        assert not answer.event.HasField("state")
        assert answer.state.seq == answer.event.seq
        assert answer.state.tablic.seat == answer.event.seat
        assert list(answer.state.tablic.hand) == [
            c.text for c in sorted(state.hand(answer.event.seat))
        ]
        assert list(answer.state.tablic.scores) == list(answer.scores)


async def test_a_retry_answers_the_same_event_and_scores(any_service: Service) -> None:
    stub = any_service.stub
    table = await open_table(stub, config(players=2, seed=13))
    state = tablic.new_match(tablic.Rules.preset("serbian", players=2), seed=13)
    seat = state.current_seat
    assert seat is not None
    request = service_pb2.PlayMoveRequest(
        table_id=table.table_id,
        seat_token=table.tokens[seat],
        move=str(state.legal_moves()[0]),
        client_move_id="once",
        last_seq=table.seq,
    )
    first = await stub.PlayMove(request)
    again = await stub.PlayMove(request)
    assert again.duplicate and not first.duplicate
    assert again.event == first.event and list(again.scores) == list(first.scores) == [0, 0]
    request.with_state = True
    asked = await stub.PlayMove(request)
    assert asked.duplicate and asked.event == first.event
    assert asked.state.seq == first.event.seq and asked.state.tablic.seat == seat


async def test_captures_bad_rules_are_refused_every_time(any_service: Service) -> None:
    """Rules are cached per spec for Captures; a bad spec is refused, never cached."""
    bad = rules_pb2.RulesSpec(game="tablic", preset="no-such-preset")
    good = rules_pb2.RulesSpec(game="tablic", preset="serbian", players=2)
    for _ in range(2):
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await any_service.stub.Captures(
                service_pb2.CapturesRequest(card="KC", table=["KD"], rules=bad)
            )
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "no-such-preset" in (refused.value.details() or "")
        found = await any_service.stub.Captures(
            service_pb2.CapturesRequest(card="KC", table=["KD", "KH"], rules=good)
        )
        assert sorted(list(c.cards) for c in found.captures) == [["KD"], ["KD", "KH"], ["KH"]]
