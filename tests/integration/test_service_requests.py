"""What PlayMove and GetLegalMoves require and refuse: the move id, last_seq, seat tokens."""

from __future__ import annotations

import grpc
from kafana.v1 import service_pb2, state_pb2
from kafana_play import Table, config, legal_moves, open_table, play_text
from kit import Service, admin_md, info_metadata, reason_of, refusal, seat_md

STATE_METADATA = "kafana-state-bin"


def request(table: Table, text: str, **fields: object) -> service_pb2.PlayMoveRequest:
    """A PlayMove request of the move `text` with `fields` (no id, no last_seq by default)."""
    return service_pb2.PlayMoveRequest(
        table_id=table.table_id,
        move=state_pb2.Move(text=text),
        **fields,  # type: ignore[arg-type]
    )


async def test_a_move_needs_its_id_and_its_last_seq(service: Service) -> None:
    stub = service.stub
    table = await open_table(stub, config(seed=61))
    token = table.tokens[0]
    legal = await legal_moves(stub, table.table_id, token)
    text = legal.moves[0].text
    missing_id = await refusal(
        stub.PlayMove(request(table, text, last_seq=legal.seq), metadata=seat_md(token))
    )
    assert missing_id.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert reason_of(missing_id) == "MOVE_ID_MISSING"
    assert info_metadata(missing_id) == {"field": "client_move_id"}
    assert "client_move_id" in (missing_id.details() or "")
    long_id = await refusal(
        stub.PlayMove(
            request(table, text, last_seq=legal.seq, client_move_id="x" * 65),
            metadata=seat_md(token),
        )
    )
    assert long_id.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert reason_of(long_id) == "INVALID_ARGUMENT" and "64" in (long_id.details() or "")
    missing_seq = await refusal(
        stub.PlayMove(request(table, text, client_move_id="m1"), metadata=seat_md(token))
    )
    assert missing_seq.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert reason_of(missing_seq) == "LAST_SEQ_MISSING"
    assert info_metadata(missing_seq) == {"field": "last_seq"}
    ahead = await refusal(play_text(stub, table.table_id, token, text, legal.seq + 1))
    assert ahead.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert reason_of(ahead) == "SEQ_AHEAD" and f"{legal.seq + 1}" in (ahead.details() or "")
    assert info_metadata(ahead) == {"field": "last_seq"}
    state = await stub.GetState(service_pb2.GetStateRequest(table_id=table.table_id))
    assert state.seq == legal.seq  # nothing was applied
    played = await play_text(stub, table.table_id, token, text, legal.seq, move_id="x" * 64)
    assert played.event.seq == legal.seq + 1 and not played.duplicate


async def test_a_move_id_names_one_move(service: Service) -> None:
    stub = service.stub
    table = await open_table(stub, config(seed=62))
    first, second = table.tokens[0], table.tokens[1]
    legal = await legal_moves(stub, table.table_id, first)
    texts = [m.text for m in legal.moves]
    assert len(set(texts)) >= 2
    played = await play_text(stub, table.table_id, first, texts[0], legal.seq, move_id="m1")
    retry = await play_text(stub, table.table_id, first, texts[0], legal.seq, move_id="m1")
    assert retry.duplicate and retry.event.seq == played.event.seq == legal.seq + 1
    assert retry.event.move.text == played.event.move.text
    other = await refusal(play_text(stub, table.table_id, first, texts[1], legal.seq, move_id="m1"))
    assert other.code() == grpc.StatusCode.ALREADY_EXISTS
    assert reason_of(other) == "MOVE_ID_REUSED"
    assert texts[0] in (other.details() or "")  # names the move the id was used for

    # The other seat answers; the first seat's next move must not reuse its id either.
    reply = await legal_moves(stub, table.table_id, second)
    await play_text(stub, table.table_id, second, reply.moves[0].text, reply.seq, move_id="m1")
    again = await legal_moves(stub, table.table_id, first)
    reused = await refusal(
        play_text(stub, table.table_id, first, again.moves[0].text, again.seq, move_id="m1")
    )
    assert reason_of(reused) == "MOVE_ID_REUSED"
    state = await stub.GetState(service_pb2.GetStateRequest(table_id=table.table_id))
    assert state.seq == again.seq  # refusals apply nothing


async def test_a_stale_move_gets_the_current_state(service: Service) -> None:
    stub = service.stub
    table = await open_table(stub, config(seed=63))
    legal = await legal_moves(stub, table.table_id, table.tokens[0])
    await play_text(stub, table.table_id, table.tokens[0], legal.moves[0].text, legal.seq)
    reply = await legal_moves(stub, table.table_id, table.tokens[1])
    stale = await refusal(
        play_text(stub, table.table_id, table.tokens[1], reply.moves[0].text, legal.seq)
    )
    assert stale.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert reason_of(stale) == "STALE_SEQ"
    sent = dict(stale.trailing_metadata() or ())
    state = state_pb2.TableState.FromString(sent[STATE_METADATA])
    assert state.seq == reply.seq and state.current_seat == 1
    assert list(state.tablic.hand)  # as seat 1 sees it: its own hand


async def test_legal_moves_only_for_the_seat_to_move(service: Service) -> None:
    stub = service.stub
    lonely = await stub.CreateTable(service_pb2.CreateTableRequest(config=config(seed=64)))
    joined = await stub.JoinTable(
        service_pb2.JoinTableRequest(table_id=lonely.table_id, seat=0, name="early")
    )
    before = await legal_moves(stub, lonely.table_id, joined.seat_token)
    assert not before.moves and not before.HasField("current_seat")

    table = await open_table(stub, config(seed=65))
    mover = await legal_moves(stub, table.table_id, table.tokens[0])
    waiting = await legal_moves(stub, table.table_id, table.tokens[1])
    assert mover.moves and mover.current_seat == 0 and mover.seq == table.seq
    assert not waiting.moves and waiting.current_seat == 0 and waiting.seq == table.seq

    closed = await stub.CloseTable(
        service_pb2.CloseTableRequest(table_id=table.table_id), metadata=admin_md(table.admin_token)
    )
    over = await legal_moves(stub, table.table_id, table.tokens[0])
    assert not over.moves and not over.HasField("current_seat") and over.seq == closed.seq


async def test_tokens_travel_in_metadata(service: Service) -> None:
    stub = service.stub
    table = await open_table(stub, config(seed=66))
    get_moves = service_pb2.GetLegalMovesRequest(table_id=table.table_id)
    missing = await refusal(stub.GetLegalMoves(get_moves))
    assert missing.code() == grpc.StatusCode.UNAUTHENTICATED
    assert reason_of(missing) == "TOKEN_INVALID"
    malformed = await refusal(stub.GetLegalMoves(get_moves, metadata=seat_md("not a token!")))
    assert malformed.code() == grpc.StatusCode.UNAUTHENTICATED
    assert "kafana-seat-token metadata is malformed" in (malformed.details() or "")
    twice = (*seat_md(table.tokens[0]), *seat_md(table.tokens[1]))
    doubled = await refusal(stub.GetLegalMoves(get_moves, metadata=twice))
    assert "sent twice" in (doubled.details() or "")
    wrong = await refusal(stub.GetLegalMoves(get_moves, metadata=seat_md("A" * 32)))
    assert reason_of(wrong) == "TOKEN_INVALID"
    close = service_pb2.CloseTableRequest(table_id=table.table_id)
    as_seat = await refusal(stub.CloseTable(close, metadata=admin_md(table.tokens[0])))
    assert as_seat.code() == grpc.StatusCode.PERMISSION_DENIED
    seat_view = await stub.GetState(
        service_pb2.GetStateRequest(table_id=table.table_id), metadata=seat_md(table.tokens[1])
    )
    spectator = await stub.GetState(service_pb2.GetStateRequest(table_id=table.table_id))
    assert list(seat_view.tablic.hand) and not list(spectator.tablic.hand)
    assert seat_view.tablic.seat == 1 and not spectator.tablic.HasField("seat")
