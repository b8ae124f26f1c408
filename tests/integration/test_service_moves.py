"""Moves: retries apply once, concurrent moves have one winner, stale and bad moves refused."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import grpc
from kafana.v1 import service_pb2, state_pb2
from kafana_play import config, legal_moves, open_table, status_of
from kit import Service, refusal, seat_md


async def legal(svc: Service, table_id: str, token: str) -> service_pb2.GetLegalMovesResponse:
    return await legal_moves(svc.stub, table_id, token)


@dataclass
class Request:
    """A PlayMove and the seat token it goes with (in the call's metadata)."""

    message: service_pb2.PlayMoveRequest
    token: str


def play_request(
    table_id: str, token: str, move: str | state_pb2.Move, seq: int, move_id: str
) -> Request:
    wire = move if isinstance(move, state_pb2.Move) else state_pb2.Move(text=move)
    message = service_pb2.PlayMoveRequest(
        table_id=table_id, move=wire, client_move_id=move_id, last_seq=seq
    )
    return Request(message, token)


def send(svc: Service, request: Request) -> Any:
    """The PlayMove call of `request` (awaitable)."""
    return svc.stub.PlayMove(request.message, metadata=seat_md(request.token))


async def test_retried_move_is_applied_once(any_service: Service) -> None:
    stub = any_service.stub
    table = await open_table(stub, config(seed=3))
    moves = await legal(any_service, table.table_id, table.tokens[0])
    request = play_request(table.table_id, table.tokens[0], moves.moves[0].text, moves.seq, "m-1")
    first = await send(any_service, request)
    again = await send(any_service, request)
    assert not first.duplicate and again.duplicate
    assert again.event.seq == first.event.seq == moves.seq + 1
    assert again.event.move.text == first.event.move.text
    state = await stub.GetState(service_pb2.GetStateRequest(table_id=table.table_id))
    assert state.seq == moves.seq + 1 and state.tablic.move_count == 1
    # The same id from the other seat, or another id, is not a retry: it is stale.
    other = play_request(table.table_id, table.tokens[1], moves.moves[0].text, moves.seq, "m-1")
    assert await status_of(send(any_service, other)) == grpc.StatusCode.FAILED_PRECONDITION


async def test_concurrent_moves_one_wins(any_service: Service) -> None:
    stub = any_service.stub
    table = await open_table(stub, config(seed=4))
    moves = await legal(any_service, table.table_id, table.tokens[0])
    texts = [m.text for m in moves.moves][:6]
    assert len(texts) >= 2
    requests = [
        play_request(table.table_id, table.tokens[0], text, moves.seq, f"c-{i}")
        for i, text in enumerate(texts)
    ]
    results = await asyncio.gather(
        *(send(any_service, r) for r in requests), return_exceptions=True
    )
    wins = [r for r in results if isinstance(r, service_pb2.PlayMoveResponse)]
    losses = [r for r in results if isinstance(r, grpc.aio.AioRpcError)]
    assert len(wins) == 1 and len(losses) == len(texts) - 1
    assert all(e.code() == grpc.StatusCode.FAILED_PRECONDITION for e in losses)
    state = await stub.GetState(service_pb2.GetStateRequest(table_id=table.table_id))
    assert state.seq == moves.seq + 1 and state.tablic.move_count == 1


async def test_stale_sequence_carries_current_state(service: Service) -> None:
    stub = service.stub
    table = await open_table(stub, config(seed=6))
    moves = await legal(service, table.table_id, table.tokens[0])
    await send(
        service, play_request(table.table_id, table.tokens[0], moves.moves[0], moves.seq, "a")
    )
    seat1 = await legal(service, table.table_id, table.tokens[1])
    stale = play_request(table.table_id, table.tokens[1], seat1.moves[0].text, moves.seq, "b")
    try:
        await send(service, stale)
        raise AssertionError("a stale move was accepted")
    except grpc.aio.AioRpcError as error:
        assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert "stale" in (error.details() or "")
        metadata = dict(error.trailing_metadata() or ())
        state = state_pb2.TableState.FromString(metadata["kafana-state-bin"])
        assert state.seq == seat1.seq and state.tablic.seat == 1


async def test_bad_moves_say_why(service: Service) -> None:
    stub = service.stub
    table = await open_table(stub, config(seed=8))
    moves = await legal(service, table.table_id, table.tokens[0])
    hand = {m.tablic.card for m in moves.moves}
    missing = next(c for c in ("AS", "2C", "3D", "4H", "5S", "6C", "7D", "8H") if c not in hand)
    cases = {
        "Z9": grpc.StatusCode.INVALID_ARGUMENT,
        missing: grpc.StatusCode.INVALID_ARGUMENT,
    }
    for text, code in cases.items():
        request = play_request(table.table_id, table.tokens[0], text, moves.seq, f"bad-{text}")
        try:
            await send(service, request)
            raise AssertionError(f"{text} accepted")
        except grpc.aio.AioRpcError as error:
            assert error.code() == code
            assert text in (error.details() or ""), error.details()
    not_turn = play_request(table.table_id, table.tokens[1], moves.moves[0].text, moves.seq, "t")
    assert await status_of(send(service, not_turn)) == grpc.StatusCode.FAILED_PRECONDITION


async def test_structured_moves_play_and_must_agree_with_the_text(any_service: Service) -> None:
    stub = any_service.stub
    table = await open_table(stub, config(seed=5))
    moves = await legal(any_service, table.table_id, table.tokens[0])
    first, second = moves.moves[0], moves.moves[1]
    assert all(m.HasField("tablic") and m.text for m in moves.moves)
    mixed = state_pb2.Move(text=second.text, tablic=first.tablic)
    request = play_request(table.table_id, table.tokens[0], mixed, moves.seq, "mixed")
    error = await refusal(send(any_service, request))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "move.text and move.tablic name different moves" in (error.details() or "")
    wrong_game = state_pb2.Move(tac=state_pb2.TacMove(flip=state_pb2.TacFlip()))
    request = play_request(table.table_id, table.tokens[0], wrong_game, moves.seq, "tac")
    assert (await refusal(send(any_service, request))).code() == grpc.StatusCode.INVALID_ARGUMENT
    # The structured branch alone plays, and the event names the move both ways.
    only = state_pb2.Move(tablic=first.tablic)
    played = await send(
        any_service, play_request(table.table_id, table.tokens[0], only, moves.seq, "s")
    )
    assert played.event.move == first and played.event.reason == state_pb2.EVENT_REASON_PLAYED
    assert played.event.current_seat == 1 and not played.event.HasField("deal")
    # A legal move sent back as it came (text and structure) plays too.
    reply = await legal(any_service, table.table_id, table.tokens[1])
    back = play_request(table.table_id, table.tokens[1], reply.moves[-1], reply.seq, "b")
    assert (await send(any_service, back)).event.move == reply.moves[-1]
