"""A Redis that loses acknowledged writes (a failover with lag, an `appendfsync everysec` crash),
simulated on one redis-server with DUMP/RESTORE under two processes that cache the table: no
process acts on the history the store lost, the table goes on from what the store holds, no
illegal move is ever written, and listing and spectating keep working."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager

import grpc
from kafana.games import tablic
from kafana.store.keys import table_keys
from kafana.store.redis_store import RedisStore
from kafana.v1 import events_pb2, service_pb2, state_pb2
from kit import Service, reason_of, refusal, running

from .reliability_support import Redis, Table, config, open_table
from .reliability_support import seat_md as md

HELD = 6  # moves the store keeps
LOST = 4  # moves played after the snapshot, then lost


@asynccontextmanager
async def two_processes(url: str) -> AsyncIterator[list[Service]]:
    """Two servers, each with its own store client and table cache, on one redis-server."""
    async with AsyncExitStack() as stack:
        services = []
        for _ in range(2):
            store = RedisStore.from_url(url)
            stack.push_async_callback(store.close)
            services.append(await stack.enter_async_context(running(store)))
        yield services


async def play(svc: Service, table: Table, rng: random.Random, avoid: str = "") -> str:
    """Through `svc`: the seat to move plays a random legal move (not `avoid` if it has another);
    the move's text ("" once the match is over)."""
    tid = table.table_id
    state = await svc.stub.GetState(service_pb2.GetStateRequest(table_id=tid))
    if state.info.status == state_pb2.TABLE_STATUS_FINISHED:
        return ""
    token = table.tokens[state.current_seat]
    legal = await svc.stub.GetLegalMoves(
        service_pb2.GetLegalMovesRequest(table_id=tid), metadata=md(token)
    )
    assert legal.seq == state.seq, (legal.seq, state.seq)
    texts = [m.text for m in legal.moves]
    choice = rng.choice([t for t in texts if t != avoid] or texts)
    played = await svc.stub.PlayMove(
        service_pb2.PlayMoveRequest(
            table_id=tid,
            move=state_pb2.Move(text=choice),
            client_move_id=f"{legal.seq}-{rng.random()}",
            last_seq=legal.seq,
        ),
        metadata=md(token),
    )
    assert played.event.seq == legal.seq + 1
    table.seq = played.event.seq
    return choice


async def dump(store: RedisStore, table_id: str) -> dict[str, tuple[bytes, int]]:
    """Every key of the table: its DUMP and its time to live."""
    saved = {}
    for key in table_keys(table_id):
        data = await store.client.call(key, "DUMP", key)
        ttl = await store.client.call(key, "PTTL", key)
        assert isinstance(data, bytes) and isinstance(ttl, int), (key, data, ttl)
        saved[key] = (data, max(ttl, 0))
    return saved


async def restore(store: RedisStore, saved: dict[str, tuple[bytes, int]]) -> None:
    """Put the keys back as they were: the store lost every write made since."""
    for key, (data, ttl) in saved.items():
        await store.client.call(key, "RESTORE", key, ttl, data, "REPLACE")


async def moves_of(svc: Service, table_id: str) -> tuple[dict[int, str], str]:
    """The finished table's moves by seq and its record text, both checked: seqs 1, 2, 3..., and
    the record replays with the rules core to the same moves and scores."""
    record = await svc.stub.GetRecord(service_pb2.GetRecordRequest(table_id=table_id))
    seqs = [event.seq for event in record.events]
    assert seqs == list(range(1, len(seqs) + 1)), seqs
    moves = {e.seq: e.move.text for e in record.events if e.kind == events_pb2.EVENT_KIND_MOVE}
    replayed = tablic.MatchRecord.from_text(record.record)
    assert [str(m) for m in replayed.moves] == [moves[s] for s in sorted(moves)]
    final = replayed.replay()  # raises on an illegal move
    assert final.is_over
    assert list(record.result.scores) == list(final.scores)
    return moves, record.record


async def watched(svc: Service, table_id: str, after_seq: int) -> list[tuple[int, str]]:
    """What a spectator resuming at `after_seq` on `svc` is sent, to the end: (seq, move)."""
    request = service_pb2.WatchEventsRequest(table_id=table_id, after_seq=after_seq)
    return [
        (item.event.seq, item.event.move.text)
        async for item in svc.stub.WatchEvents(request, timeout=30)
        if item.HasField("event")
    ]


async def test_a_store_that_rolls_back_under_two_processes(redis: Redis) -> None:
    rng = random.Random(30)
    async with two_processes(redis.url) as (a, b):
        admin = RedisStore.from_url(redis.url)
        try:
            tables = [await open_table(a.stub, config(seed=seed, target=1)) for seed in (11, 12)]
            joined = tables[0].seq
            held: list[dict[int, str]] = [{}, {}]
            for table, kept in zip(tables, held, strict=True):
                for i in range(HELD):  # both processes play, so both cache the table
                    kept[joined + i + 1] = await play((a, b)[i % 2], table, rng)
            saved = {t.table_id: await dump(admin, t.table_id) for t in tables}
            lost: list[dict[int, str]] = [{}, {}]
            for table, gone in zip(tables, lost, strict=True):
                for i in range(LOST):  # acknowledged through A, then lost by the store
                    gone[joined + HELD + i + 1] = await play(a, table, rng)
                await b.stub.GetState(service_pb2.GetStateRequest(table_id=table.table_id))
            for table in tables:
                await restore(admin, saved[table.table_id])
            at = joined + HELD

            # A client that saw the lost moves is told where the table is now, by either process.
            first = tables[0]
            for svc in (a, b):
                state = await svc.stub.GetState(
                    service_pb2.GetStateRequest(table_id=first.table_id)
                )
                assert state.seq == at, (state.seq, at)
                token = first.tokens[state.current_seat]
                legal = await svc.stub.GetLegalMoves(
                    service_pb2.GetLegalMovesRequest(table_id=first.table_id), metadata=md(token)
                )
                assert legal.seq == at
                error = await refusal(
                    svc.stub.PlayMove(
                        service_pb2.PlayMoveRequest(
                            table_id=first.table_id,
                            move=state_pb2.Move(text=legal.moves[0].text),
                            client_move_id=f"lost-{svc.port}",
                            last_seq=at + LOST,
                        ),
                        metadata=md(token),
                    )
                )
                assert reason_of(error) == "SEQ_AHEAD", error
                assert f"at {at}" in (error.details() or ""), error.details()
                spectator = await refusal(
                    svc.stub.WatchEvents(
                        service_pb2.WatchEventsRequest(table_id=first.table_id, after_seq=at + LOST)
                    ).read()
                )
                assert spectator.code() == grpc.StatusCode.INVALID_ARGUMENT
                assert f"at {at}" in (spectator.details() or "")

            # Table 0 goes on at once through A, the process whose cache held the lost moves.
            # Table 1 goes on through B past where A's cache stood, with other moves, then A.
            await play(a, first, rng, avoid=lost[0][at + 1])
            second = tables[1]
            await play(b, second, rng, avoid=lost[1][at + 1])
            for _ in range(LOST + 1):
                await play(b, second, rng)
            for table in tables:
                for i in range(1000):
                    if not await play((a, b)[i % 2], table, rng):
                        break

            for table, kept, gone in zip(tables, held, lost, strict=True):
                texts = set()
                for svc in (a, b):
                    moves, text = await moves_of(svc, table.table_id)
                    texts.add(text)
                    assert {s: moves[s] for s in kept} == kept  # what the store held stays
                    assert moves[at + 1] != gone[at + 1]  # the lost moves are gone
                    spectated = await watched(svc, table.table_id, at)
                    end = max(moves)
                    assert spectated == [(s, moves.get(s, "")) for s in range(at + 1, end + 1)]
                assert len(texts) == 1  # both processes serve the same record
            for svc in (a, b):
                listed = await svc.stub.ListTables(service_pb2.ListTablesRequest(page_size=10))
                assert {t.table_id for t in listed.tables} >= {t.table_id for t in tables}
        finally:
            await admin.close()
