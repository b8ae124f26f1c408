"""Tokens and secrets: refused callers, and nobody sees another hand, the deck or the seed."""

from __future__ import annotations

import random

import grpc
from google.protobuf.internal.encoder import _VarintBytes
from google.protobuf.message import Message
from kafana.games import tablic
from kafana.store.redis_store import RedisStore
from kafana.v1 import events_pb2, service_pb2, state_pb2
from kafana_play import card_tokens, config, open_table, play_one, play_to_end, status_of
from kit import Service
from redis.asyncio import Redis

SEED = 0x5EED_1234_5678_9ABC


def hidden_from(state: tablic.MatchState, seed: int, viewer: int | None) -> set[tablic.Card]:
    """Cards `viewer` must not see: other hands and the undealt deck."""
    hidden = {c for s in range(state.rules.players) if s != viewer for c in state.hand(s)}
    deck = tablic.shuffled_deck(seed, state.hand_no)
    hidden |= set(deck[len(deck) - state.deck_remaining :])
    return hidden


def move_count(message: Message) -> int | None:
    """The match position a response shows, when it shows one."""
    if isinstance(message, state_pb2.TableState):
        return message.tablic.move_count
    if isinstance(message, service_pb2.GetLegalMovesResponse):
        return message.seq - 2  # two seats taken before the first move
    for name in ("state", "event"):
        if message.HasField(name) if name in message.DESCRIPTOR.fields_by_name else False:
            return move_count(getattr(message, name))
    return None


async def test_no_hidden_information_reaches_seats_or_spectators(service: Service) -> None:
    stub = service.stub
    table = await open_table(stub, config(seed=SEED))
    rules = tablic.Rules.preset("serbian", players=2)
    seen: list[tuple[int | None, Message]] = []  # (viewer, response)
    rng = random.Random(1)
    for _ in range(30):
        played = await play_one(stub, table, rng)
        assert played is not None
        seen.append((played.event.seat, played))
        for seat in (None, 0, 1):
            token = "" if seat is None else table.tokens[seat]
            request = service_pb2.GetStateRequest(table_id=table.table_id, seat_token=token)
            seen.append((seat, await stub.GetState(request)))
    for seat in (None, 0, 1):
        token = "" if seat is None else table.tokens[seat]
        request = service_pb2.WatchEventsRequest(table_id=table.table_id, seat_token=token)
        call = stub.WatchEvents(request)
        async for event in call:
            seen.append((seat, event))
            if event.seq == table.seq:
                call.cancel()
                break
    listed = await stub.ListTables(service_pb2.ListTablesRequest())
    info = await stub.GetTable(service_pb2.GetTableRequest(table_id=table.table_id))
    seen += [(None, listed), (None, info)]
    for i, response in enumerate(table.responses):
        if isinstance(response, service_pb2.JoinTableResponse):
            seen.append((response.seat, response))
        elif isinstance(response, service_pb2.GetLegalMovesResponse):
            mover = table.responses[i + 1]
            assert isinstance(mover, service_pb2.PlayMoveResponse)
            seen.append((mover.event.seat, response))
        elif not isinstance(response, service_pb2.PlayMoveResponse):
            seen.append((None, response))

    # The oracle: the engine's position after n moves, from the seed only the test knows.
    positions = [tablic.new_match(rules, seed=SEED)]
    for response in table.responses:
        if isinstance(response, service_pb2.PlayMoveResponse):
            positions.append(positions[-1].apply(response.event.move.text))
    seed_bytes = _VarintBytes(SEED)
    checked = 0
    for viewer, message in seen:
        assert seed_bytes not in message.SerializeToString()
        assert str(SEED) not in str(message)
        count = move_count(message)
        if count is None:
            assert not card_tokens(message) - set(positions[0].table), message
            continue
        position = positions[count]
        leaked = card_tokens(message) & hidden_from(position, SEED, viewer)
        assert not leaked, (viewer, message)
        if isinstance(message, service_pb2.GetLegalMovesResponse):
            continue
        state = message if isinstance(message, state_pb2.TableState) else message.state
        own = [c.text for c in sorted(position.hand(viewer))] if viewer is not None else []
        assert list(state.tablic.hand) == own
        checked += 1
    assert checked > 90


async def test_tokens_are_stored_only_as_hashes(service: Service, redis_url: str) -> None:
    table = await open_table(service.stub, config())
    assert isinstance(service.store, RedisStore)
    client = Redis.from_url(redis_url)  # redis-py: a second client, to read every key as is
    blob = b""
    for key in await client.keys("*"):
        kind = (await client.type(key)).decode()
        if kind == "string":
            blob += await client.get(key)
        elif kind == "hash":
            blob += b"".join(v for v in (await client.hgetall(key)).values())
        elif kind == "stream":
            blob += repr(await client.xrange(key)).encode()
    await client.aclose()
    for token in [table.admin_token, *table.tokens.values()]:
        assert token.encode() not in blob


async def test_refusals_map_to_status_codes(service: Service) -> None:
    stub = service.stub
    code = grpc.StatusCode
    table = await open_table(stub, config(seed=9))
    other = await open_table(stub, config(seed=10))
    tid = table.table_id

    def state(token: str) -> object:
        return stub.GetState(service_pb2.GetStateRequest(table_id=tid, seat_token=token))

    def legal(token: str) -> object:
        return stub.GetLegalMoves(service_pb2.GetLegalMovesRequest(table_id=tid, seat_token=token))

    def play(token: str, move: str = "AS") -> object:
        request = service_pb2.PlayMoveRequest(table_id=tid, seat_token=token, move=move, last_seq=2)
        return stub.PlayMove(request)

    assert await status_of(state("not-a-token")) == code.UNAUTHENTICATED
    assert await status_of(state(other.tokens[0])) == code.UNAUTHENTICATED
    assert await status_of(legal("")) == code.UNAUTHENTICATED
    assert await status_of(play("wrong")) == code.UNAUTHENTICATED
    assert await status_of(legal(table.tokens[1])) == code.FAILED_PRECONDITION  # not its turn
    assert await status_of(play(table.tokens[1])) == code.FAILED_PRECONDITION
    assert await status_of(legal(table.admin_token)) == code.PERMISSION_DENIED
    close = service_pb2.CloseTableRequest
    assert (
        await status_of(stub.CloseTable(close(table_id=tid, admin_token=table.tokens[0])))
        == code.PERMISSION_DENIED
    )
    assert (
        await status_of(stub.CloseTable(close(table_id=tid, admin_token="x")))
        == code.UNAUTHENTICATED
    )
    assert (
        await status_of(stub.GetRecord(service_pb2.GetRecordRequest(table_id=tid)))
        == code.FAILED_PRECONDITION
    )
    missing = service_pb2.GetStateRequest(table_id="no-such-table")
    assert await status_of(stub.GetState(missing)) == code.NOT_FOUND
    join = service_pb2.JoinTableRequest
    assert await status_of(stub.JoinTable(join(table_id=tid, seat=0))) == code.FAILED_PRECONDITION
    fresh = await stub.CreateTable(service_pb2.CreateTableRequest(config=config()))
    assert (
        await status_of(stub.JoinTable(join(table_id=fresh.table_id, seat=7)))
        == code.INVALID_ARGUMENT
    )
    bad = config()
    bad.rules.preset = "poker"
    create = service_pb2.CreateTableRequest
    assert await status_of(stub.CreateTable(create(config=bad))) == code.INVALID_ARGUMENT
    bad = config()
    bad.rules.game = "chess"
    assert await status_of(stub.CreateTable(create(config=bad))) == code.INVALID_ARGUMENT
    spectator = await stub.GetState(service_pb2.GetStateRequest(table_id=tid))
    assert not spectator.tablic.HasField("seat") and not spectator.tablic.hand
    assert list(spectator.tablic.hand_sizes) == [6, 6]


async def test_leave_forfeits_and_admin_closes(service: Service) -> None:
    stub = service.stub
    table = await open_table(stub, config(seed=13))
    await play_one(stub, table, random.Random(0))
    await stub.LeaveTable(
        service_pb2.LeaveTableRequest(table_id=table.table_id, seat_token=table.tokens[1])
    )
    record = await stub.GetRecord(service_pb2.GetRecordRequest(table_id=table.table_id))
    assert record.result.reason == "forfeit" and record.result.forfeit_seat == 1
    assert record.result.winner_side == 0
    assert record.events[-1].kind == events_pb2.EVENT_KIND_FORFEIT
    assert "# ended: forfeit by seat 1 (left)" in record.record

    closing = await open_table(stub, config(seed=14))
    await stub.CloseTable(
        service_pb2.CloseTableRequest(table_id=closing.table_id, admin_token=closing.admin_token)
    )
    state = await stub.GetState(service_pb2.GetStateRequest(table_id=closing.table_id))
    assert state.info.status == state_pb2.TABLE_STATUS_FINISHED and state.result.reason == "closed"
    # Before the start, leaving frees the seat for someone else.
    created = await stub.CreateTable(service_pb2.CreateTableRequest(config=config()))
    joined = await stub.JoinTable(service_pb2.JoinTableRequest(table_id=created.table_id))
    await stub.LeaveTable(
        service_pb2.LeaveTableRequest(table_id=created.table_id, seat_token=joined.seat_token)
    )
    again = await stub.JoinTable(service_pb2.JoinTableRequest(table_id=created.table_id, seat=0))
    assert again.seat == 0 and again.seat_token != joined.seat_token


async def test_record_after_the_end_reveals_the_seed(service: Service) -> None:
    table = await open_table(service.stub, config(seed=SEED))
    await play_to_end(service.stub, table, random.Random(2))
    record = await service.stub.GetRecord(service_pb2.GetRecordRequest(table_id=table.table_id))
    assert f"seed {SEED}" in record.record


async def test_captures_service(service: Service) -> None:
    request = service_pb2.CapturesRequest(
        card="JC", table=["JS", "8H", "4D", "2C"], rules=config().rules
    )
    answer = await service.stub.Captures(request)
    assert [list(c.cards) for c in answer.captures] == [
        ["JS"],
        ["4D", "8H"],
        ["4D", "8H", "JS"],
    ]
    bad = service_pb2.CapturesRequest(card="1X", table=["JS"])
    assert await status_of(service.stub.Captures(bad)) == grpc.StatusCode.INVALID_ARGUMENT
