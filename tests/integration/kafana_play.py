"""Client-side helpers of the integration tests: seat players, play a match, scan for secrets."""

from __future__ import annotations

import random
import uuid
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass, field
from typing import Any

import grpc
from google.protobuf.message import Message
from kafana.games import tablic
from kafana.v1 import events_pb2, rules_pb2, service_pb2, service_pb2_grpc, state_pb2
from kit import seat_md

Stub = service_pb2_grpc.KafanaServiceStub


@dataclass
class Table:
    """A created table with every seat taken."""

    table_id: str
    admin_token: str
    tokens: dict[int, str]
    seq: int = 0
    responses: list[Message] = field(default_factory=list)


def config(
    players: int = 2,
    partnerships: bool = False,
    seed: int | None = 7,
    move_millis: int = 0,
    policy: int = rules_pb2.TIMEOUT_POLICY_DEFAULT_MOVE,
    preset: str = "serbian",
    target: int = 0,
) -> rules_pb2.TableConfig:
    """A table configuration for tests (`preset`: a TablicPreset's name, any case)."""
    switches = rules_pb2.TablicRules(
        preset=rules_pb2.TablicPreset.Value("TABLIC_PRESET_" + preset.upper())
    )
    if target:
        switches.target = target
    cfg = rules_pb2.TableConfig(
        rules=rules_pb2.RulesSpec(
            game=rules_pb2.GAME_TABLIC,
            players=players,
            partnerships=partnerships,
            tablic=switches,
        ),
        clock=rules_pb2.ClockSpec(move_millis=move_millis, policy=policy),
        name="test",
    )
    if seed is not None:
        cfg.seed = seed
    return cfg


async def open_table(stub: Stub, cfg: rules_pb2.TableConfig) -> Table:
    """Create a table and fill every seat."""
    created = await stub.CreateTable(service_pb2.CreateTableRequest(config=cfg))
    players = cfg.rules.players or 2
    table = Table(created.table_id, created.admin_token, {}, responses=[created])
    for seat in range(players):
        joined = await stub.JoinTable(
            service_pb2.JoinTableRequest(table_id=created.table_id, seat=seat, name=f"p{seat}")
        )
        assert joined.seat == seat
        table.tokens[seat] = joined.seat_token
        table.seq = max(table.seq, joined.state.seq)
        table.responses.append(joined)
    return table


async def play_one(
    stub: Stub, table: Table, rng: random.Random
) -> service_pb2.PlayMoveResponse | None:
    """The seat to move plays a random legal move (the answer with its table); None once over."""
    state = await stub.GetState(service_pb2.GetStateRequest(table_id=table.table_id))
    table.responses.append(state)
    if state.info.status == state_pb2.TABLE_STATUS_FINISHED:
        return None
    seat = state.current_seat
    token = table.tokens[seat]
    legal = await stub.GetLegalMoves(
        service_pb2.GetLegalMovesRequest(table_id=table.table_id), metadata=seat_md(token)
    )
    table.responses.append(legal)
    move = rng.choice(list(legal.moves))
    played = await stub.PlayMove(
        service_pb2.PlayMoveRequest(
            table_id=table.table_id,
            move=state_pb2.Move(text=move.text),
            client_move_id=uuid.uuid4().hex,
            last_seq=legal.seq,
            with_state=True,
        ),
        metadata=seat_md(token),
    )
    table.responses.append(played)
    table.seq = played.event.seq
    return played


async def legal_moves(stub: Stub, table_id: str, token: str) -> service_pb2.GetLegalMovesResponse:
    """GetLegalMoves for the seat of `token`."""
    return await stub.GetLegalMoves(
        service_pb2.GetLegalMovesRequest(table_id=table_id), metadata=seat_md(token)
    )


async def play_text(
    stub: Stub,
    table_id: str,
    token: str,
    text: str,
    last_seq: int,
    *,
    move_id: str | None = None,
    with_state: bool = False,
) -> service_pb2.PlayMoveResponse:
    """PlayMove of the move `text` for the seat of `token`, chosen at `last_seq` (a fresh
    client_move_id unless `move_id`)."""
    return await stub.PlayMove(
        service_pb2.PlayMoveRequest(
            table_id=table_id,
            move=state_pb2.Move(text=text),
            client_move_id=move_id or uuid.uuid4().hex,
            last_seq=last_seq,
            with_state=with_state,
        ),
        metadata=seat_md(token),
    )


async def play_to_end(stub: Stub, table: Table, rng: random.Random, limit: int = 100_000) -> int:
    """Play random legal moves until the match ends; returns the number of moves."""
    count = 0
    while count < limit and await play_one(stub, table, rng) is not None:
        count += 1
    return count


async def status_of(call: Any) -> grpc.StatusCode:
    """The status code a call fails with (the test fails if it succeeds)."""
    try:
        await call
    except grpc.aio.AioRpcError as error:
        return error.code()
    raise AssertionError("the call succeeded")


def strings(message: Message) -> Iterable[str]:
    """Every string value anywhere inside a message."""
    for descriptor, value in message.ListFields():
        items = value if descriptor.is_repeated else [value]
        for item in items:
            if isinstance(item, Message):
                yield from strings(item)
            elif isinstance(item, str):
                yield item


def card_tokens(message: Message) -> set[tablic.Card]:
    """Every card named in any string of a message (moves, hands, tables, records...)."""
    found: set[tablic.Card] = set()
    for text in strings(message):
        for word in text.replace(":", " ").replace("+", " ").replace(",", " ").split():
            try:
                found.add(tablic.Card.parse(word))
            except tablic.InvalidInputError:
                continue
    return found


async def events(call: Any) -> AsyncIterator[events_pb2.Event]:
    """The events of a WatchEvents call, its heartbeats left out."""
    async for item in call:
        if item.HasField("event"):
            yield item.event


async def take_events(stub: Stub, table_id: str, after: int, count: int) -> list[Any]:
    """Read `count` events after `after` from the feed, then hang up."""
    out: list[Any] = []
    call = stub.WatchEvents(service_pb2.WatchEventsRequest(table_id=table_id, after_seq=after))
    async for item in call:
        if not item.HasField("event"):
            continue  # a heartbeat
        out.append(item.event)
        if len(out) == count:
            call.cancel()
            break
    return out
