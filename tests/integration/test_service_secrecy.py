"""Tokens and secrets: refused callers, and nobody sees another hand, the deck or the seed."""

from __future__ import annotations

import random
from itertools import pairwise

import grpc
from google.protobuf.internal.encoder import _VarintBytes
from google.protobuf.message import Message
from kafana.games import tablic
from kafana.store.redis_store import RedisStore
from kafana.v1 import events_pb2, rules_pb2, service_pb2, state_pb2
from kafana_play import (
    Table,
    card_tokens,
    config,
    events,
    open_table,
    play_one,
    play_to_end,
    status_of,
)
from kit import Service, admin_md, reason_of, seat_md
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
    if isinstance(message, events_pb2.Event):
        return max(0, message.seq - 2)  # the seats first, then one event a move
    for name in ("state", "event"):
        if message.HasField(name) if name in message.DESCRIPTOR.fields_by_name else False:
            return move_count(getattr(message, name))
    return None


def without_rules(message: Message) -> Message:
    """A copy with every rules' card points cleared: their patterns ("10D", "2C") name cards
    that are no card of the match."""
    copy = type(message)()
    copy.CopyFrom(message)
    stack = [copy]
    while stack:
        item = stack.pop()
        if isinstance(item, rules_pb2.RulesSpec):
            item.tablic.ClearField("card_points")
            continue
        for field, value in item.ListFields():
            if field.message_type is not None:
                stack.extend(value if field.is_repeated else [value])
    return copy


def seat_call(seat: int | None, table: Table) -> dict[str, object]:
    """The call options of `seat` (None: a spectator, no token)."""
    return {} if seat is None else {"metadata": seat_md(table.tokens[seat])}


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
            request = service_pb2.GetStateRequest(table_id=table.table_id)
            seen.append((seat, await stub.GetState(request, **seat_call(seat, table))))
    deals: dict[int | None, list[events_pb2.Event]] = {}
    for seat in (None, 0, 1):
        for with_state in (False, True):
            request = service_pb2.WatchEventsRequest(table_id=table.table_id, with_state=with_state)
            call = stub.WatchEvents(request, **seat_call(seat, table))
            async for event in events(call):
                assert event.HasField("state") == with_state
                seen.append((seat, event))
                if event.HasField("deal"):
                    deals.setdefault(seat, []).append(event)
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
    # Every viewer saw the opening deal (and the deals after); a seat its own cards only.
    for seat in (None, 0, 1):
        dealt = deals[seat]
        rounds = 1 + sum(a.deck_remaining != b.deck_remaining for a, b in pairwise(positions))
        assert dealt[0].match_started and rounds == 3 and len(dealt) == 2 * rounds
        for event in dealt:
            position = positions[move_count(event) or 0]
            own = [] if seat is None else [c.text for c in sorted(position.hand(seat))]
            assert list(event.deal.hand) == own
            assert list(event.deal.hand_sizes) == [6, 6]
            assert event.deal.deck_remaining == position.deck_remaining
    seed_bytes = _VarintBytes(SEED)
    checked = 0
    for viewer, message in seen:
        assert seed_bytes not in message.SerializeToString()
        assert str(SEED) not in str(message)
        count = move_count(message)
        named = card_tokens(without_rules(message))
        if count is None:
            assert not named - set(positions[0].table), message
            continue
        position = positions[count]
        leaked = named & hidden_from(position, SEED, viewer)
        assert not leaked, (leaked, viewer, count, message)
        if isinstance(message, service_pb2.GetLegalMovesResponse):
            continue
        if isinstance(message, events_pb2.Event) and not message.HasField("state"):
            continue
        state = message if isinstance(message, state_pb2.TableState) else message.state
        own = [c.text for c in sorted(position.hand(viewer))] if viewer is not None else []
        if state.info.status == state_pb2.TABLE_STATUS_OPEN:
            own = []  # no card before every seat is taken (issue 31)
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
        return stub.GetState(service_pb2.GetStateRequest(table_id=tid), metadata=seat_md(token))

    def legal(token: str) -> object:
        request = service_pb2.GetLegalMovesRequest(table_id=tid)
        return stub.GetLegalMoves(request, metadata=seat_md(token))

    def play(token: str, move: str = "AS") -> object:
        request = service_pb2.PlayMoveRequest(
            table_id=tid, move=state_pb2.Move(text=move), client_move_id="m", last_seq=2
        )
        return stub.PlayMove(request, metadata=seat_md(token))

    def close(token: str) -> object:
        request = service_pb2.CloseTableRequest(table_id=tid)
        return stub.CloseTable(request, metadata=admin_md(token))

    assert await status_of(state("not-a-token")) == code.UNAUTHENTICATED
    assert await status_of(state(other.tokens[0])) == code.UNAUTHENTICATED
    assert await status_of(legal("")) == code.UNAUTHENTICATED
    assert await status_of(play("wrong")) == code.UNAUTHENTICATED
    waiting = await stub.GetLegalMoves(
        service_pb2.GetLegalMovesRequest(table_id=tid), metadata=seat_md(table.tokens[1])
    )
    assert not waiting.moves and waiting.current_seat == 0  # not its turn: nothing legal
    assert await status_of(play(table.tokens[1])) == code.FAILED_PRECONDITION
    assert await status_of(legal(table.admin_token)) == code.PERMISSION_DENIED
    assert await status_of(close(table.tokens[0])) == code.PERMISSION_DENIED
    assert await status_of(close("x")) == code.UNAUTHENTICATED
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
    create = service_pb2.CreateTableRequest
    bad = config()
    bad.rules.tablic.preset = 42  # type: ignore[assignment]
    assert await status_of(stub.CreateTable(create(config=bad))) == code.INVALID_ARGUMENT
    bad = config()
    bad.rules.game = 9  # type: ignore[assignment]
    assert await status_of(stub.CreateTable(create(config=bad))) == code.INVALID_ARGUMENT
    bad = config()
    bad.rules.game = rules_pb2.GAME_TAC  # with a Tablić branch
    try:
        await stub.CreateTable(create(config=bad))
        raise AssertionError("a Tač table with Tablić switches was created")
    except grpc.aio.AioRpcError as error:
        assert error.code() == code.INVALID_ARGUMENT and reason_of(error) == "INVALID_RULES"
        assert "rules.tablic" in (error.details() or "")
    spectator = await stub.GetState(service_pb2.GetStateRequest(table_id=tid))
    assert not spectator.tablic.HasField("seat") and not spectator.tablic.hand
    assert list(spectator.tablic.hand_sizes) == [6, 6] and spectator.current_seat == 0


async def test_leave_forfeits_and_admin_closes(service: Service) -> None:
    stub = service.stub
    table = await open_table(stub, config(seed=13))
    await play_one(stub, table, random.Random(0))
    await stub.LeaveTable(
        service_pb2.LeaveTableRequest(table_id=table.table_id), metadata=seat_md(table.tokens[1])
    )
    record = await stub.GetRecord(service_pb2.GetRecordRequest(table_id=table.table_id))
    assert record.result.reason == state_pb2.RESULT_REASON_FORFEIT
    assert record.result.forfeit_seat == 1
    assert record.result.forfeit_reason == state_pb2.EVENT_REASON_LEFT
    assert record.result.winner_side == 0
    last = record.events[-1]
    assert last.kind == events_pb2.EVENT_KIND_FORFEIT and last.reason == state_pb2.EVENT_REASON_LEFT
    assert last.result == record.result and not last.HasField("current_seat")
    assert "# ended: forfeit by seat 1 (left)" in record.record

    closing = await open_table(stub, config(seed=14))
    await stub.CloseTable(
        service_pb2.CloseTableRequest(table_id=closing.table_id),
        metadata=admin_md(closing.admin_token),
    )
    state = await stub.GetState(service_pb2.GetStateRequest(table_id=closing.table_id))
    assert state.info.status == state_pb2.TABLE_STATUS_FINISHED
    assert state.result.reason == state_pb2.RESULT_REASON_CLOSED
    closed = await stub.GetRecord(service_pb2.GetRecordRequest(table_id=closing.table_id))
    assert closed.events[-1].reason == state_pb2.EVENT_REASON_ADMIN
    # Before the start, leaving frees the seat for someone else.
    created = await stub.CreateTable(service_pb2.CreateTableRequest(config=config()))
    joined = await stub.JoinTable(service_pb2.JoinTableRequest(table_id=created.table_id))
    await stub.LeaveTable(
        service_pb2.LeaveTableRequest(table_id=created.table_id),
        metadata=seat_md(joined.seat_token),
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
