"""Analyze over a real server and Redis: live hints where the table allows them, a review of
a finished match for any seat, the bots listed, and every bound refused cleanly."""

from __future__ import annotations

import asyncio
import random
import threading

import grpc
import pytest
from kafana.service.advice import Advisor
from kafana.v1 import events_pb2, rules_pb2, service_pb2, state_pb2
from kit import Service, finished, reason_of, refusal, seat_md, seated_table

pytestmark = pytest.mark.usefixtures("service")


async def _table(svc: Service, *, hints: bool, seed: int = 5) -> tuple[str, list[str]]:
    config = rules_pb2.TableConfig(
        rules=rules_pb2.RulesSpec(game=rules_pb2.GAME_TABLIC), hints=hints, seed=seed
    )
    table_id, tokens = await seated_table(svc, config)
    info = await svc.stub.GetTable(service_pb2.GetTableRequest(table_id=table_id))
    assert info.hints is hints
    return table_id, tokens


async def _to_move(svc: Service, table_id: str, tokens: list[str]) -> tuple[int, str]:
    state = await svc.stub.GetState(service_pb2.GetStateRequest(table_id=table_id))
    seat = state.current_seat
    return seat, tokens[seat]


async def test_live_advice_values_every_legal_move_on_a_table_with_hints(service: Service) -> None:
    table_id, tokens = await _table(service, hints=True)
    seat, token = await _to_move(service, table_id, tokens)
    legal = await service.stub.GetLegalMoves(
        service_pb2.GetLegalMovesRequest(table_id=table_id), metadata=seat_md(token)
    )
    found = await service.stub.Analyze(
        service_pb2.AnalyzeRequest(table_id=table_id, budget_millis=50), metadata=seat_md(token)
    )
    assert found.seat == seat and found.seq == legal.seq
    assert [m.move.text for m in found.moves] == [m.text for m in legal.moves]
    assert found.method == "sampled" and found.worlds >= 8
    best = max(found.moves, key=lambda m: m.value)
    assert found.best.text == best.move.text and best.cost == 0
    assert all(m.cost >= 0 for m in found.moves)
    # the other seat is not to move: nothing to analyse
    other = await refusal(
        service.stub.Analyze(
            service_pb2.AnalyzeRequest(table_id=table_id), metadata=seat_md(tokens[1 - seat])
        )
    )
    assert other.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert reason_of(other) == "NOT_YOUR_TURN"


async def test_no_live_advice_without_hints_nor_for_spectators(service: Service) -> None:
    table_id, tokens = await _table(service, hints=False)
    _, token = await _to_move(service, table_id, tokens)
    denied = await refusal(
        service.stub.Analyze(service_pb2.AnalyzeRequest(table_id=table_id), metadata=seat_md(token))
    )
    assert denied.code() == grpc.StatusCode.PERMISSION_DENIED
    assert "gives no hints" in (denied.details() or "")
    hinted, _ = await _table(service, hints=True)
    anonymous = await refusal(service.stub.Analyze(service_pb2.AnalyzeRequest(table_id=hinted)))
    assert anonymous.code() == grpc.StatusCode.UNAUTHENTICATED
    early = await refusal(
        service.stub.Analyze(service_pb2.AnalyzeRequest(table_id=table_id, at_seq=3, seat=0))
    )
    assert early.code() == grpc.StatusCode.INVALID_ARGUMENT


async def test_a_finished_match_is_reviewed_move_by_move_for_either_seat(
    service: Service,
) -> None:
    table_id, tokens = await _table(service, hints=False, seed=9)
    rng = random.Random(3)
    while True:
        state = await service.stub.GetState(service_pb2.GetStateRequest(table_id=table_id))
        if state.info.status == state_pb2.TABLE_STATUS_FINISHED:
            break
        token = tokens[state.current_seat]
        legal = await service.stub.GetLegalMoves(
            service_pb2.GetLegalMovesRequest(table_id=table_id), metadata=seat_md(token)
        )
        move = rng.choice(list(legal.moves))
        await service.stub.PlayMove(
            service_pb2.PlayMoveRequest(
                table_id=table_id, move=move, client_move_id=f"m{legal.seq}", last_seq=legal.seq
            ),
            metadata=seat_md(token),
        )
    await finished(service, table_id)
    record = await service.stub.GetRecord(service_pb2.GetRecordRequest(table_id=table_id))
    moves = [e for e in record.events if e.kind == events_pb2.EVENT_KIND_MOVE]
    reviewed = 0
    for event in moves[:: max(1, len(moves) // 6)]:
        seat = event.seat
        found = await service.stub.Analyze(
            service_pb2.AnalyzeRequest(
                table_id=table_id, at_seq=event.seq - 1, seat=seat, budget_millis=20
            )
        )
        assert found.seq == event.seq - 1 and found.seat == seat
        assert found.played.text == event.move.text
        assert found.played.text in [m.move.text for m in found.moves]
        reviewed += 1
    assert reviewed >= 5
    wrong_seat = await refusal(
        service.stub.Analyze(
            service_pb2.AnalyzeRequest(
                table_id=table_id, at_seq=moves[0].seq - 1, seat=1 - moves[0].seat
            )
        )
    )
    assert wrong_seat.code() == grpc.StatusCode.FAILED_PRECONDITION
    past = await refusal(
        service.stub.Analyze(service_pb2.AnalyzeRequest(table_id=table_id, at_seq=10**6, seat=0))
    )
    assert past.code() == grpc.StatusCode.INVALID_ARGUMENT


async def test_one_analysis_at_a_time_per_caller_and_the_budget_is_capped(
    service: Service,
) -> None:
    table_id, tokens = await _table(service, hints=True)
    _, token = await _to_move(service, table_id, tokens)
    request = service_pb2.AnalyzeRequest(table_id=table_id, budget_millis=10**6)
    calls = [service.stub.Analyze(request, metadata=seat_md(token)) for _ in range(3)]
    results = await asyncio.gather(*calls, return_exceptions=True)
    refused = [r for r in results if isinstance(r, grpc.aio.AioRpcError)]
    answered = [r for r in results if isinstance(r, service_pb2.AnalyzeResponse)]
    assert len(answered) >= 1 and len(refused) >= 1
    assert all(r.code() == grpc.StatusCode.RESOURCE_EXHAUSTED for r in refused)
    assert Advisor().budget(10**6) == Advisor().max_ms and Advisor().budget(0) == 200
    info = await service.stub.GetServerInfo(service_pb2.GetServerInfoRequest())
    assert info.limits.max_analysis_millis == Advisor().max_ms


async def test_server_info_lists_the_built_in_bots_of_each_game(service: Service) -> None:
    info = await service.stub.GetServerInfo(service_pb2.GetServerInfoRequest())
    tablic_bots = [b.name for b in info.bots if b.game == rules_pb2.GAME_TABLIC]
    tac_bots = [b.name for b in info.bots if b.game == rules_pb2.GAME_TAC]
    assert {"random", "greedy", "heuristic", "ismcts"} <= set(tablic_bots)
    assert "search" in tac_bots and "loader" in tac_bots
    ismcts = next(b for b in info.bots if b.name == "ismcts")
    assert "budget_ms" in ismcts.options and ismcts.summary


async def test_the_replay_runs_in_a_worker_after_the_callers_slot_is_held(
    service: Service, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A review (7 Dec): the match was replayed to the position (135 ms for a long one) on the
    # event loop, every other call of the process waiting, before the one-analysis-per-caller
    # check: a caller refused anyway cost that replay each time
    from kafana.service import advice

    replays: list[str] = []
    replay = advice.position

    def counted(*args: object) -> advice.Position:
        replays.append(threading.current_thread().name)
        return replay(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(advice, "position", counted)
    table_id, tokens = await _table(service, hints=True)
    _, token = await _to_move(service, table_id, tokens)
    request = service_pb2.AnalyzeRequest(table_id=table_id, budget_millis=300)
    calls = [service.stub.Analyze(request, metadata=seat_md(token)) for _ in range(4)]
    results = await asyncio.gather(*calls, return_exceptions=True)
    answered = [r for r in results if isinstance(r, service_pb2.AnalyzeResponse)]
    assert len(answered) == len(replays) < 4  # a refused call replayed nothing
    assert all(name.startswith("kafana-analysis") for name in replays), replays
