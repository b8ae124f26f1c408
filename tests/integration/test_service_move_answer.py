"""The PlayMove answer: the event, the scores and the result; the mover's table only if asked."""

from __future__ import annotations

import random

import grpc
import pytest
from kafana.games import tablic
from kafana.v1 import rules_pb2, service_pb2, state_pb2
from kafana_play import Stub, Table, config, open_table, play_text
from kit import Service, reason_of, seat_md


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
        answer = await play_text(
            stub, table.table_id, table.tokens[seat], str(move), table.seq, with_state=with_state
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
        assert answer.event.HasField("result") == state.is_over
        if state.is_over:
            assert not answer.event.HasField("current_seat")
        else:
            assert answer.event.current_seat == state.current_seat
        if answer.event.HasField("deal"):  # the mover's own new cards only
            assert list(answer.event.deal.hand) == [
                c.text for c in sorted(state.hand(seat_of(answer)))
            ]
    last = answers[-1][1]
    assert list(last.result.scores) == list(answers[-1][0].scores)
    assert last.result.reason == state_pb2.RESULT_REASON_SCORE
    assert last.result.winner_side == answers[-1][0].winner
    assert last.event.result == last.result
    dealt = [a for _s, a in answers if a.event.HasField("deal")]
    assert len(dealt) == 4 * len(answers[-1][0].hand_results) - 1  # the first at the start
    scored = [a.event.hand_score for _s, a in answers if a.event.HasField("hand_score")]
    assert [list(h.points) for h in scored] == [list(h.points) for h in answers[-1][0].hand_results]


def seat_of(answer: service_pb2.PlayMoveResponse) -> int:
    """The seat that moved."""
    return answer.event.seat


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
        move=state_pb2.Move(text=str(state.legal_moves()[0])),
        client_move_id="once",
        last_seq=table.seq,
    )
    token = seat_md(table.tokens[seat])
    first = await stub.PlayMove(request, metadata=token)
    again = await stub.PlayMove(request, metadata=token)
    assert again.duplicate and not first.duplicate
    assert again.event == first.event and list(again.scores) == list(first.scores) == [0, 0]
    request.with_state = True
    asked = await stub.PlayMove(request, metadata=token)
    assert asked.duplicate and asked.event == first.event
    assert asked.state.seq == first.event.seq and asked.state.tablic.seat == seat


async def test_captures_bad_rules_are_refused_every_time(any_service: Service) -> None:
    """Rules are cached per spec for Captures; a bad spec is refused, never cached."""
    bad = rules_pb2.RulesSpec(tablic=rules_pb2.TablicRules(jack_value=1))
    good = rules_pb2.RulesSpec(
        game=rules_pb2.GAME_TABLIC,
        players=2,
        tablic=rules_pb2.TablicRules(preset=rules_pb2.TABLIC_PRESET_SERBIAN),
    )
    for _ in range(2):
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await any_service.stub.Captures(
                service_pb2.CapturesRequest(card="KC", table=["KD"], rules=bad)
            )
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "jack_value must be between 2 and 20" in (refused.value.details() or "")
        assert reason_of(refused.value) == "INVALID_RULES"
        found = await any_service.stub.Captures(
            service_pb2.CapturesRequest(card="KC", table=["KD", "KH"], rules=good)
        )
        assert sorted(list(c.cards) for c in found.captures) == [["KD"], ["KD", "KH"], ["KH"]]
