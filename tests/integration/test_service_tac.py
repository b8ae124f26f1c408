"""Tač through the service: whole games, Tač calls and their refusals, secrecy, records."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass, field
from typing import Any

import grpc
import pytest
from google.protobuf.message import Message
from kafana.games import tac
from kafana.v1 import events_pb2, rules_pb2, service_pb2, state_pb2
from kafana_play import Stub, Table, card_tokens, events, legal_moves, open_table, status_of
from kit import Service, admin_md, seat_md


def tac_config(
    players: int = 2,
    seed: int | None = 7,
    move_millis: int = 0,
    deck_orders: list[list[str]] | None = None,
    **switches: Any,
) -> rules_pb2.TableConfig:
    """A Tač table configuration."""
    spec = rules_pb2.RulesSpec(
        game=rules_pb2.GAME_TAC, players=players, tac=rules_pb2.TacRules(**switches)
    )
    cfg = rules_pb2.TableConfig(
        rules=spec,
        clock=rules_pb2.ClockSpec(move_millis=move_millis),
        decks=[rules_pb2.Deck(cards=d) for d in deck_orders or []],
        name="tac test",
    )
    if seed is not None:
        cfg.seed = seed
    return cfg


@dataclass
class Seen:
    """Every response of a game, with the seat that received it (None: a spectator)."""

    items: list[tuple[int | None, Message]] = field(default_factory=list)

    def add(self, seat: int | None, *messages: Message) -> None:
        self.items.extend((seat, message) for message in messages)


async def legal(stub: Stub, table: Table, seat: int) -> service_pb2.GetLegalMovesResponse:
    return await legal_moves(stub, table.table_id, table.tokens[seat])


def wire(move: str | state_pb2.Move) -> state_pb2.Move:
    """A move's text, or a wire move as is."""
    return move if isinstance(move, state_pb2.Move) else state_pb2.Move(text=move)


async def play(
    stub: Stub, table: Table, seat: int, move: str | state_pb2.Move, seq: int
) -> service_pb2.PlayMoveResponse:
    played = await stub.PlayMove(
        service_pb2.PlayMoveRequest(
            table_id=table.table_id,
            move=wire(move),
            client_move_id=uuid.uuid4().hex,
            last_seq=seq,
            with_state=True,
        ),
        metadata=seat_md(table.tokens[seat]),
    )
    table.seq = played.event.seq
    return played


async def spectate(stub: Stub, table: Table) -> state_pb2.TableState:
    return await stub.GetState(service_pb2.GetStateRequest(table_id=table.table_id))


def own_moves(moves: list[state_pb2.Move]) -> list[str]:
    return [m.text for m in moves if not m.text.startswith("call")]


def own_wire_moves(moves: list[state_pb2.Move]) -> list[state_pb2.Move]:
    return [m for m in moves if not m.tac.HasField("call")]


async def play_in_order(stub: Stub, table: Table, seen: Seen, limit: int = 5000) -> int:
    """The seat to move plays its first move (in order: the list has them first) to the end,
    sent in turn as its text, its structure alone, and both (as GetLegalMoves gave it)."""
    state = await spectate(stub, table)
    count = 0
    while state.info.status != state_pb2.TABLE_STATUS_FINISHED and count < limit:
        seat = state.current_seat
        moves = await legal(stub, table, seat)
        seen.add(seat, moves)
        first = own_wire_moves(list(moves.moves))[0]
        sent = [state_pb2.Move(text=first.text), state_pb2.Move(tac=first.tac), first][count % 3]
        played = await play(stub, table, seat, sent, moves.seq)
        assert played.event.move == first and played.event.step.move == first
        seen.add(seat, played)
        state = played.state
        count += 1
    assert count < limit
    return count


def secrets_at(record: tac.GameRecord) -> list[set[tac.Card]]:
    """For each move count: the cards in closed piles that have never been face up."""
    state = tac.new_game(record.rules, seed=record.seed, deck=record.deck)
    shown: set[tac.Card] = set()
    out: list[set[tac.Card]] = []

    def note(s: tac.GameState) -> None:
        shown.update(s.central)
        for seat in range(s.rules.players):
            shown.update(s.discard(seat))
        if s.turned is not None:
            shown.add(s.turned)
        closed = {c for seat in range(s.rules.players) for c in s.closed(seat)}
        out.append(closed - shown)

    note(state)
    for move in record.moves:
        state = state.apply(move)
        note(state)
    return out


def move_count(message: Message, players: int) -> int | None:
    """The game position a response shows."""
    if isinstance(message, state_pb2.TableState):
        return message.tac.move_count if message.HasField("tac") else None
    if isinstance(message, service_pb2.GetLegalMovesResponse):
        return message.seq - players
    for name in ("state", "event"):
        if name in message.DESCRIPTOR.fields_by_name and message.HasField(name):
            return move_count(getattr(message, name), players)
    return None


def check_secrecy(seen: Seen, record: tac.GameRecord) -> int:
    """No response names a card of a closed pile that was never face up; returns the checks."""
    hidden = secrets_at(record)
    checked = 0
    for _seat, message in seen.items:
        count = move_count(message, record.rules.players)
        if count is None:
            continue
        leaked = card_tokens(message) & hidden[count]
        assert not leaked, f"{sorted(map(str, leaked))} shown at move {count}: {message}"
        checked += 1
    return checked


@pytest.mark.parametrize("players", [2, 3])
async def test_whole_game_through_the_service(service: Service, players: int) -> None:
    stub = service.stub
    table = await open_table(stub, tac_config(players=players, seed=11))
    seen = Seen()
    start = await spectate(stub, table)
    assert start.WhichOneof("game") == "tac"
    assert start.info.rules.game == rules_pb2.GAME_TAC
    assert start.info.status == state_pb2.TABLE_STATUS_PLAYING
    assert sum(start.tac.closed_sizes) + len(start.tac.central) == 52
    assert [s.side for s in start.info.seats] == list(range(players))
    moves = await play_in_order(stub, table, seen)
    final = await spectate(stub, table)
    assert final.info.status == state_pb2.TABLE_STATUS_FINISHED and final.tac.is_over
    result = final.result
    assert result.reason == state_pb2.RESULT_REASON_OUT and len(result.places) == players
    assert result.places[result.winner_side] == 1 and final.tac.held[result.winner_side] == 0
    # Every card is somewhere: the centre, the discard piles, the closed piles (counts).
    view = final.tac
    assert (
        len(view.central) + sum(len(p.cards) for p in view.discards) + sum(view.closed_sizes) == 52
    )
    got = await stub.GetRecord(service_pb2.GetRecordRequest(table_id=table.table_id))
    record = tac.GameRecord.from_text(got.record)
    assert record.seed == 11 and len(record.moves) == moves
    replayed = record.replay()
    assert replayed.places() == tuple(result.places)
    assert len(got.events) == moves + players
    assert got.events[-1].match_over and got.events[players].move.text == str(record.moves[0])
    assert got.events[-1].result == result and not any(e.HasField("state") for e in got.events)
    assert check_secrecy(seen, record) > moves
    # Each seat's feed: the deal at the start (sizes only: closed piles), a step every move.
    hidden = secrets_at(record)
    for seat in range(players):
        call = stub.WatchEvents(
            service_pb2.WatchEventsRequest(table_id=table.table_id),
            metadata=seat_md(table.tokens[seat]),
        )
        feed = [e async for e in events(call)]
        dealt = [e for e in feed if e.HasField("deal")]
        assert len(dealt) == 1 and dealt[0].match_started and not dealt[0].deal.hand
        assert sum(dealt[0].deal.hand_sizes) + len(dealt[0].deal.table) == 52
        assert all(e.HasField("step") for e in feed if e.kind == events_pb2.EVENT_KIND_MOVE)
        for event in feed:
            count = max(0, event.seq - players)
            leaked = card_tokens(event) & hidden[count]
            assert not leaked, f"{sorted(map(str, leaked))} in event {event.seq}"


async def find_offence(stub: Stub, table: Table, seen: Seen) -> tuple[int, str, int]:
    """Play in order until the seat to move may break the order; returns (seat, move, seq)."""
    for _ in range(2000):
        state = await spectate(stub, table)
        seat = state.current_seat
        moves = await legal(stub, table, seat)
        seen.add(seat, moves)
        own = own_moves(list(moves.moves))
        if any(m.startswith("play D->") for m in own):
            return seat, "flip", moves.seq
        if any(m.startswith("play X->") and m != "play X->D" for m in own):
            return seat, "play X->D", moves.seq
        seen.add(seat, await play(stub, table, seat, own[0], moves.seq))
    raise AssertionError("no chance to break the order")


async def refusal(call: Any) -> tuple[grpc.StatusCode, str]:
    try:
        await call
    except grpc.aio.AioRpcError as error:
        return error.code(), error.details() or ""
    raise AssertionError("the call succeeded")


async def test_tac_call_penalises_an_out_of_order_move(service: Service) -> None:
    stub = service.stub
    table = await open_table(stub, tac_config(players=3, seed=5, tac_calls=True))
    seen = Seen()
    seat, wrong, seq = await find_offence(stub, table, seen)
    before = await spectate(stub, table)
    offended = await play(stub, table, seat, wrong, seq)
    assert offended.state.tac.pending_offender == seat
    assert offended.state.tac.last_step.offence
    # The offender may not call on themselves; a seat may not call for another.
    caller = (seat + 1) % 3
    other = (seat + 2) % 3
    code, reason = await refusal(send(stub, table, seat, "call", table.seq))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "own move" in reason
    code, reason = await refusal(send(stub, table, caller, f"call P{other}", table.seq))
    assert code == grpc.StatusCode.FAILED_PRECONDITION and "call" in reason
    # Any other seat's legal moves now include its call, even while it is not to move.
    offer = await legal(stub, table, other)
    assert f"call P{other}" in [m.text for m in offer.moves]
    called = await play(stub, table, caller, "call", table.seq)
    assert called.event.seat == caller and called.event.move.text == f"call P{caller}"
    step = called.state.tac.last_step
    assert step.seat == caller and step.penalty > 0
    after = called.state.tac
    assert not after.HasField("pending_offender")
    assert after.held[seat] == before.tac.held[seat] + step.penalty
    assert called.state.current_seat != seat  # the offender's turn ended
    assert called.event.step == step and called.event.current_seat == called.state.current_seat
    # Calling again, on nothing, is a wrong call with a reason.
    code, reason = await refusal(send(stub, table, other, "call", table.seq))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "wrong call" in reason
    # The game still plays to its end and the record replays, call included.
    await play_in_order(stub, table, seen)
    got = await stub.GetRecord(service_pb2.GetRecordRequest(table_id=table.table_id))
    record = tac.GameRecord.from_text(got.record)
    assert tac.Move.call(caller) in record.moves
    assert record.replay().places() == tuple(got.result.places)
    check_secrecy(seen, record)


def send(stub: Stub, table: Table, seat: int, move: str | state_pb2.Move, seq: int) -> Any:
    """A PlayMove call of `seat` (awaitable), with a fresh client_move_id."""
    request = service_pb2.PlayMoveRequest(
        table_id=table.table_id, move=wire(move), client_move_id=uuid.uuid4().hex, last_seq=seq
    )
    return stub.PlayMove(request, metadata=seat_md(table.tokens[seat]))


async def test_strict_table_refuses_out_of_order_moves_and_calls(service: Service) -> None:
    stub = service.stub
    table = await open_table(stub, tac_config(players=2, seed=5))
    seen = Seen()
    seat, wrong, seq = await find_offence(stub, table, seen)
    code, reason = await refusal(send(stub, table, seat, wrong, seq))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "out of order" in reason
    other = 1 - seat
    code, reason = await refusal(send(stub, table, other, "call", seq))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "no Tač calls" in reason
    assert (await legal(stub, table, other)).moves == []
    code, reason = await refusal(send(stub, table, other, "flip", seq))
    assert code == grpc.StatusCode.FAILED_PRECONDITION and "turn" in reason


async def test_tac_tables_check_their_rules(service: Service) -> None:
    stub = service.stub

    def create(cfg: rules_pb2.TableConfig) -> Any:
        return stub.CreateTable(service_pb2.CreateTableRequest(config=cfg))

    bad = [
        tac_config(players=5),
        tac_config(players=3, decks=2),
        tac_config(stall_rounds=0),
        tac_config(deck_orders=[["AS"] * 52]),
    ]
    preset = tac_config()
    preset.rules.tablic.preset = rules_pb2.TABLIC_PRESET_SERBIAN  # Tablić switches on Tač
    bad.append(preset)
    partners = tac_config(players=4)
    partners.rules.partnerships = True
    bad.append(partners)
    for cfg in bad:
        assert await status_of(create(cfg)) == grpc.StatusCode.INVALID_ARGUMENT
    two = await create(tac_config(players=8, decks=2, play_on=True))
    in_force = two.info.rules
    assert in_force.game == rules_pb2.GAME_TAC and in_force.players == 8
    assert in_force.tac.decks == 2 and in_force.tac.play_on
    assert in_force.tac.HasField("tac_calls") and in_force.tac.stall_rounds == 104
    deck = [c.text for c in tac.canonical_deck(1)]
    table = await open_table(stub, tac_config(seed=None, deck_orders=[deck]))
    state = await spectate(stub, table)
    assert list(state.tac.closed_sizes) == [26, 26]
    listed = await stub.ListTables(service_pb2.ListTablesRequest(game=rules_pb2.GAME_TAC))
    assert {t.rules.game for t in listed.tables} == {rules_pb2.GAME_TAC}
    captures = service_pb2.CapturesRequest(
        card="KC", table=["KD"], rules=rules_pb2.RulesSpec(game=rules_pb2.GAME_TAC)
    )
    assert await status_of(stub.Captures(captures)) == grpc.StatusCode.INVALID_ARGUMENT


async def test_clock_plays_an_in_order_move(service: Service) -> None:
    stub = service.stub
    table = await open_table(stub, tac_config(players=2, seed=3, move_millis=150, tac_calls=True))
    for _ in range(200):
        state = await spectate(stub, table)
        if state.tac.move_count >= 2:
            break
        await asyncio.sleep(0.05)
    got = await stub.GetState(service_pb2.GetStateRequest(table_id=table.table_id))
    assert got.tac.move_count >= 2
    feed = []
    call = stub.WatchEvents(service_pb2.WatchEventsRequest(table_id=table.table_id))
    async for event in events(call):
        feed.append(event)
        if len(feed) == 4:
            call.cancel()
            break
    timed = [e for e in feed if e.move.text]
    assert timed and all(e.reason == state_pb2.EVENT_REASON_TIMEOUT for e in timed)
    assert all(e.HasField("step") and not e.step.offence for e in timed)
    await stub.CloseTable(
        service_pb2.CloseTableRequest(table_id=table.table_id), metadata=admin_md(table.admin_token)
    )
    got = await stub.GetRecord(service_pb2.GetRecordRequest(table_id=table.table_id))
    assert got.result.reason == state_pb2.RESULT_REASON_CLOSED
    assert "ran out of time" in got.record
    record = tac.GameRecord.from_text(got.record)  # the comments are skipped
    assert len(record.moves) == len(record.replay().moves()) >= 2


async def test_a_seat_that_leaves_forfeits(service: Service) -> None:
    stub = service.stub
    table = await open_table(stub, tac_config(players=3, seed=2))
    await play_in_order_moves(stub, table, 30)
    state = await spectate(stub, table)
    await stub.LeaveTable(
        service_pb2.LeaveTableRequest(table_id=table.table_id), metadata=seat_md(table.tokens[1])
    )
    got = await stub.GetRecord(service_pb2.GetRecordRequest(table_id=table.table_id))
    held = list(state.tac.held)
    best = min((0, 2), key=lambda s: (held[s], s))
    assert got.result.reason == state_pb2.RESULT_REASON_FORFEIT and got.result.forfeit_seat == 1
    assert got.result.forfeit_reason == state_pb2.EVENT_REASON_LEFT
    assert got.result.winner_side == best and not got.result.places
    assert len(tac.GameRecord.from_text(got.record).moves) == 30


async def play_in_order_moves(stub: Stub, table: Table, count: int) -> None:
    """The seat to move plays its first move, `count` times."""
    for _ in range(count):
        state = await spectate(stub, table)
        seat = state.current_seat
        moves = await legal(stub, table, seat)
        await play(stub, table, seat, own_moves(list(moves.moves))[0], moves.seq)
