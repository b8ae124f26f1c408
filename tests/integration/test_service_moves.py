"""Moves: retries apply once, concurrent moves have one winner, stale and bad moves refused."""

from __future__ import annotations

import asyncio

import grpc
from kafana.v1 import service_pb2, state_pb2
from kafana_play import config, open_table, status_of
from kit import Service


async def legal(svc: Service, table_id: str, token: str) -> service_pb2.GetLegalMovesResponse:
    return await svc.stub.GetLegalMoves(
        service_pb2.GetLegalMovesRequest(table_id=table_id, seat_token=token)
    )


def play_request(
    table_id: str, token: str, move: str, seq: int, move_id: str
) -> service_pb2.PlayMoveRequest:
    return service_pb2.PlayMoveRequest(
        table_id=table_id, seat_token=token, move=move, client_move_id=move_id, last_seq=seq
    )


async def test_retried_move_is_applied_once(any_service: Service) -> None:
    stub = any_service.stub
    table = await open_table(stub, config(seed=3))
    moves = await legal(any_service, table.table_id, table.tokens[0])
    request = play_request(table.table_id, table.tokens[0], moves.moves[0].text, moves.seq, "m-1")
    first = await stub.PlayMove(request)
    again = await stub.PlayMove(request)
    assert not first.duplicate and again.duplicate
    assert again.event.seq == first.event.seq == moves.seq + 1
    assert again.event.move.text == first.event.move.text
    state = await stub.GetState(service_pb2.GetStateRequest(table_id=table.table_id))
    assert state.seq == moves.seq + 1 and state.tablic.move_count == 1
    # The same id from the other seat, or another id, is not a retry: it is stale.
    other = play_request(table.table_id, table.tokens[1], moves.moves[0].text, moves.seq, "m-1")
    assert await status_of(stub.PlayMove(other)) == grpc.StatusCode.FAILED_PRECONDITION


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
    results = await asyncio.gather(*(stub.PlayMove(r) for r in requests), return_exceptions=True)
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
    await stub.PlayMove(
        play_request(table.table_id, table.tokens[0], moves.moves[0].text, moves.seq, "a")
    )
    seat1 = await legal(service, table.table_id, table.tokens[1])
    stale = play_request(table.table_id, table.tokens[1], seat1.moves[0].text, moves.seq, "b")
    try:
        await stub.PlayMove(stale)
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
    hand = {m.card for m in moves.moves}
    missing = next(c for c in ("AS", "2C", "3D", "4H", "5S", "6C", "7D", "8H") if c not in hand)
    cases = {
        "Z9": grpc.StatusCode.INVALID_ARGUMENT,
        missing: grpc.StatusCode.INVALID_ARGUMENT,
    }
    for text, code in cases.items():
        request = play_request(table.table_id, table.tokens[0], text, moves.seq, "")
        try:
            await stub.PlayMove(request)
            raise AssertionError(f"{text} accepted")
        except grpc.aio.AioRpcError as error:
            assert error.code() == code
            assert text in (error.details() or ""), error.details()
    not_turn = play_request(table.table_id, table.tokens[1], moves.moves[0].text, moves.seq, "")
    assert await status_of(stub.PlayMove(not_turn)) == grpc.StatusCode.FAILED_PRECONDITION
