"""The embargo: a finished duplicate-board table's seed, decks and record stay unserved while
the board's other tables are dealt the same cards, on every server of one Redis.

The attack measured before: GetRecord on a finished event table (public id, no token) returned
the seed and all 8 decks while other games were still being dealt them.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pytest
from kafana.competitions.fairness import deal_seed, new_secret
from kafana.errors import InvalidInputError
from kafana.games import tablic
from kafana.service.embargo import EmbargoedError
from kafana.service.tables import Tables
from kafana.store.base import FINISHED
from kafana.store.redis_store import RedisStore
from kafana.v1 import rules_pb2, service_pb2, service_pb2_grpc, state_pb2
from kit import Service, healthy, refusal, seat_md, serving

LABEL = "cup/board-1"
PRECONDITION = grpc.StatusCode.FAILED_PRECONDITION


def board_config(seed: int, label: str = LABEL) -> rules_pb2.TableConfig:
    """A duplicate board's table: the board's deal seed and its 8 explicit decks, a label."""
    decks = [
        rules_pb2.Deck(cards=[c.text for c in tablic.shuffled_deck(seed, k)]) for k in range(8)
    ]
    return rules_pb2.TableConfig(
        rules=rules_pb2.RulesSpec(
            game=rules_pb2.GAME_TABLIC,
            players=2,
            tablic=rules_pb2.TablicRules(preset=rules_pb2.TABLIC_PRESET_SERBIAN, target=11),
        ),
        seed=seed,
        decks=decks,
        name="cup",
        embargo=label,
    )


@pytest.fixture
async def organiser(redis_url: str) -> AsyncIterator[Tables]:
    """The event's organiser: the domain layer on its own connection to the server's Redis."""
    store = RedisStore.from_url(redis_url)
    try:
        yield Tables(store)
    finally:
        await store.close()


async def seated(
    stub: service_pb2_grpc.KafanaServiceStub, config: rules_pb2.TableConfig
) -> list[str]:
    """Create a table and take both seats: [table id, seat 0's token, seat 1's token]."""
    created = await stub.CreateTable(service_pb2.CreateTableRequest(config=config))
    out = [created.table_id]
    for seat in (0, 1):
        joined = await stub.JoinTable(
            service_pb2.JoinTableRequest(table_id=created.table_id, seat=seat, name=f"p{seat}")
        )
        out.append(joined.seat_token)
    return out


async def finish(stub: service_pb2_grpc.KafanaServiceStub, table: list[str]) -> None:
    """Play the last legal move of the seat to move until the match is over (as the seats)."""
    table_id, *tokens = table
    while True:
        state = await stub.GetState(
            service_pb2.GetStateRequest(table_id=table_id), metadata=seat_md(tokens[0])
        )
        if state.info.status == state_pb2.TABLE_STATUS_FINISHED:
            return
        token = tokens[state.current_seat]
        legal = await stub.GetLegalMoves(
            service_pb2.GetLegalMovesRequest(table_id=table_id), metadata=seat_md(token)
        )
        await stub.PlayMove(
            service_pb2.PlayMoveRequest(
                table_id=table_id,
                move=legal.moves[-1],
                client_move_id=uuid.uuid4().hex,
                last_seq=legal.seq,
            ),
            metadata=seat_md(token),
        )


async def test_an_embargoed_record_is_refused_until_released(
    service: Service, organiser: Tables, tmp_path: Path, redis_url: str
) -> None:
    stub = service.stub
    seed = deal_seed(new_secret())
    await organiser.embargo(LABEL, 60_000)
    done, running = await seated(stub, board_config(seed)), await seated(stub, board_config(seed))
    await finish(stub, done)
    record = service_pb2.GetRecordRequest(table_id=done[0])

    error = await refusal(stub.GetRecord(record))
    assert error.code() == PRECONDITION
    assert f"under embargo {LABEL!r}" in (error.details() or "")
    # a spectator of either table would see the cards played: refused too
    for table_id in (done[0], running[0]):
        error = await refusal(stub.GetState(service_pb2.GetStateRequest(table_id=table_id)))
        assert error.code() == PRECONDITION, table_id
        watch = stub.WatchEvents(service_pb2.WatchEventsRequest(table_id=table_id))
        error = await refusal(watch.read())
        assert error.code() == PRECONDITION, table_id
    # the seats still see their own table; the public summary has no seed and no deck
    own = service_pb2.GetStateRequest(table_id=running[0])
    seat = seat_md(running[1])
    assert (await stub.GetState(own, metadata=seat)).info.status == state_pb2.TABLE_STATUS_PLAYING
    listed = await stub.ListTables(service_pb2.ListTablesRequest(page_size=10))
    shown = listed.SerializeToString()
    assert len(listed.tables) == 2 and str(seed).encode() not in shown
    assert " ".join(c.text for c in tablic.shuffled_deck(seed, 0)).encode() not in shown

    # another server process on the same Redis refuses it as well
    with serving(tmp_path, "--redis", redis_url, "--auth", "open") as (other,):
        other.wait_started()
        await healthy(other.target)
        async with grpc.aio.insecure_channel(other.target) as channel:
            error = await refusal(service_pb2_grpc.KafanaServiceStub(channel).GetRecord(record))
            assert error.code() == PRECONDITION
            assert f"under embargo {LABEL!r}" in (error.details() or "")

            # the organiser reads it (to publish the result); then releases the label
            assert (await organiser.record(done[0], past_embargo=True)).record_text()
            await organiser.release(LABEL)
            answer = await service_pb2_grpc.KafanaServiceStub(channel).GetRecord(record)
    assert f"seed {seed}" in answer.record
    assert answer.record.count("\ndeck ") == 8
    spectator = await stub.GetState(service_pb2.GetStateRequest(table_id=running[0]))
    assert spectator.info.status == state_pb2.TABLE_STATUS_PLAYING


async def finish_here(tables: Tables, table_id: str, tokens: list[str]) -> None:
    """Play the table out on the domain layer."""
    while (session := await tables.session(table_id)).status != FINISHED:
        seat = session.match.current_seat
        move = tables.legal(session, seat)[-1]
        await tables.play(table_id, tokens[seat], str(move), uuid.uuid4().hex, session.seq)


async def test_an_embargo_lapses_at_its_time_to_live(redis_store: RedisStore) -> None:
    tables = Tables(redis_store)
    seed = deal_seed(new_secret())
    table_id, _admin, _session = await tables.create(board_config(seed))
    tokens = [(await tables.join(table_id, seat, f"p{seat}"))[1] for seat in (0, 1)]
    await finish_here(tables, table_id, tokens)
    await tables.record(table_id)  # no embargo yet
    await tables.embargo(LABEL, 300)
    with pytest.raises(EmbargoedError, match="under embargo 'cup/board-1'"):
        await tables.record(table_id)
    await tables.embargo("cup/board-2", 60_000)  # another board's label: not this table's
    await asyncio.sleep(0.4)
    assert f"seed {seed}" in (await tables.record(table_id)).record_text()


async def test_bad_labels_and_times_are_refused(service: Service, organiser: Tables) -> None:
    config = board_config(deal_seed(new_secret()), label="cup\x1b[31m")
    error = await refusal(service.stub.CreateTable(service_pb2.CreateTableRequest(config=config)))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "an embargo label takes printable characters only" in (error.details() or "")
    listed = await service.stub.ListTables(service_pb2.ListTablesRequest(page_size=10))
    assert not listed.tables
    with pytest.raises(InvalidInputError, match="not empty"):
        await organiser.embargo("", 1000)
    with pytest.raises(InvalidInputError, match="an embargo lasts"):
        await organiser.embargo(LABEL, 0)
    assert not await organiser.embargoes.active(LABEL)
