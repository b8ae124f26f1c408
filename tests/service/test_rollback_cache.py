"""A process's cached tables after the store lost events (the table's keys rolled back with
DUMP/RESTORE, as a failover with lag or a crash with `appendfsync everysec` does to Redis):
the cache never outlives the store's history, the feed follows the store down, and a table
whose log no longer replays does not take listing down with it."""

from __future__ import annotations

import asyncio
import random
import uuid

import pytest
from kafana.errors import IllegalMoveError, SeqAhead
from kafana.service.feed import Feed
from kafana.service.follow import follow, steps
from kafana.service.records import encode
from kafana.service.tables import Tables
from kafana.store.base import Append
from kafana.store.keys import seat_accounts_key, table_keys
from kafana.store.redis_store import RedisStore
from kafana.v1 import events_pb2, rules_pb2, storage_pb2
from wire_support import seated

SPEC = rules_pb2.RulesSpec(
    game=rules_pb2.GAME_TABLIC,
    players=2,
    tablic=rules_pb2.TablicRules(preset=rules_pb2.TABLIC_PRESET_SERBIAN),
)


async def moves(
    tables: Tables, table_id: str, tokens: dict[int, str], count: int, seed: int
) -> list[str]:
    """`count` random legal moves through `tables`; their texts."""
    rng = random.Random(seed)
    played = []
    for _ in range(count):
        session = await tables.session(table_id)
        seat = session.match.current_seat
        move = str(rng.choice(tables.legal(session, seat)))
        await tables.play(table_id, tokens[seat], move, uuid.uuid4().hex, session.seq)
        played.append(move)
    return played


Saved = dict[str, tuple[bytes, int]]


def keys_of(table_id: str) -> list[str]:
    """Every key of the table."""
    return [*table_keys(table_id), seat_accounts_key(table_id)]


async def rolled_back(store: RedisStore, table_id: str) -> Saved:
    """The table's keys as the store holds them now (DUMP and PTTL; `restore` puts them back)."""
    saved = {}
    for key in keys_of(table_id):
        dumped = await store.client.call(key, "DUMP", key)
        if isinstance(dumped, bytes):
            ttl = await store.client.call(key, "PTTL", key)
            saved[key] = (dumped, max(int(ttl), 0) if isinstance(ttl, int) else 0)
    return saved


async def restore(store: RedisStore, table_id: str, saved: Saved) -> None:
    """Put the table's keys back as `rolled_back` saved them: what the store lost is gone."""
    for key in keys_of(table_id):
        if key in saved:
            dumped, ttl = saved[key]
            await store.client.call(key, "RESTORE", key, ttl, dumped, "REPLACE")
        else:
            await store.client.call(key, "DEL", key)


async def log_of(store: RedisStore, table_id: str) -> object:
    """The table's log as the store holds it."""
    key = table_keys(table_id).log
    return await store.client.call(key, "GET", key)


async def test_a_process_never_plays_on_events_the_store_lost(redis_store: RedisStore) -> None:
    tables, table_id, tokens = await seated(redis_store, SPEC, seed=5)
    store = redis_store
    other = Tables(store)  # a second process on the same store
    await moves(tables, table_id, tokens, 4, seed=1)
    saved = await rolled_back(store, table_id)
    held = (await other.session(table_id)).seq
    lost = await moves(tables, table_id, tokens, 3, seed=2)
    await other.session(table_id)  # both caches hold the lost moves
    await restore(store, table_id, saved)

    # The process that played them is told where the table is, and never decides on them.
    ahead = held + len(lost)
    session = tables.cached(table_id)
    assert session is not None and session.seq == ahead
    seat = session.match.current_seat
    for move in (str(tables.legal(session, seat)[0]), "KS:KD"):  # legal there; not a move
        with pytest.raises(SeqAhead, match=f"at {held}"):
            await tables.play(table_id, tokens[seat], move, "x", ahead)
        tables._cache.put(session)
    assert (await tables.session(table_id)).seq == held

    # The other process goes on past where the first one's cache stood, with other moves...
    stale = other.cached(table_id)
    assert stale is not None and stale.seq == ahead
    session = await other.session(table_id)
    for number in range(len(lost) + 2):
        seat = session.match.current_seat
        legal = [str(m) for m in other.legal(session, seat)]
        move = next((m for m in legal if number or m != lost[0]), legal[0])
        session = (
            await other.play(table_id, tokens[seat], move, f"o{number}", session.seq)
        ).session
    # ...and a process whose cache has the same seq count but another history sees the store's.
    tables._cache.put(stale)
    fresh = await tables.session(table_id)
    assert fresh.seq == session.seq and fresh.log.data == session.log.data
    assert fresh.log.digest == session.log.digest


async def test_a_move_chosen_on_the_lost_history_is_not_written(redis_store: RedisStore) -> None:
    tables, table_id, tokens = await seated(redis_store, SPEC, seed=6)
    store = redis_store
    await moves(tables, table_id, tokens, 2, seed=3)
    saved = await rolled_back(store, table_id)
    await moves(tables, table_id, tokens, 2, seed=4)
    stale = tables.cached(table_id)
    await restore(store, table_id, saved)
    other = Tables(store)
    await moves(other, table_id, tokens, 2, seed=5)  # the store is at the same seq again
    assert stale is not None and (await other.session(table_id)).seq == stale.seq
    before = await log_of(store, table_id)
    tables._cache.put(stale)
    seat = stale.match.current_seat
    move = str(tables.legal(stale, seat)[0])
    with pytest.raises(Exception, match="store lost events"):
        await tables.play(table_id, tokens[seat], move, "late", stale.seq)
    assert await log_of(store, table_id) == before  # nothing written


async def test_the_feed_follows_the_store_down(redis_store: RedisStore) -> None:
    tables, table_id, _tokens = await seated(redis_store, SPEC, seed=7)
    feed = Feed(tables.store, block_ms=50)
    seq = (await tables.session(table_id)).seq
    waiting = asyncio.create_task(feed.wait(table_id, seq, 5))
    await asyncio.sleep(0.01)
    feed.notify(table_id, seq + 5)  # events the store then lost
    assert await waiting
    feed.notify(table_id, seq)  # the store's word: it went back
    assert not await feed.wait(table_id, seq, 0.2)  # waits, no busy loop on lost events
    await feed.close()


async def test_a_table_that_no_longer_replays_does_not_break_listing(
    redis_store: RedisStore,
) -> None:
    tables, broken, _tokens = await seated(redis_store, SPEC, seed=8)
    good, _admin, _ = await tables.create(rules_pb2.TableConfig(rules=SPEC, seed=9))
    session = await tables.session(broken)
    event = storage_pb2.StoredEvent(
        kind=events_pb2.EVENT_KIND_MOVE, seat=session.match.current_seat, move="KS", time_ms=1
    )
    record = encode(event, session.log.last_ms)  # a card nobody holds (another version's bug)
    await tables.store.append(broken, Append(record, 60_000, expected_seq=session.seq))
    fresh = Tables(tables.store)
    with pytest.raises(IllegalMoveError):
        await fresh.session(broken)
    listed, _cursor = await fresh.list(0, "", 10)
    assert [s.table_id for s in listed] == [good]


async def test_followers_are_told_the_table_went_back(redis_store: RedisStore) -> None:
    """An in-process follower (a bot seat, a referee) that saw the lost events gets the table
    as the store holds it at once, and `steps` walks it from the start: a bot whose turn it is
    again moves (the table is not stuck waiting for a seq the store will not reach)."""
    tables, table_id, tokens = await seated(redis_store, SPEC, seed=10)
    store = redis_store
    feed = Feed(store, block_ms=50)
    await moves(tables, table_id, tokens, 2, seed=1)
    saved = await rolled_back(store, table_id)
    log = await log_of(store, table_id)
    await moves(tables, table_id, tokens, 3, seed=2)
    lost = await tables.session(table_id)
    await restore(store, table_id, saved)
    changes = follow(tables, feed, table_id, after_seq=lost.seq)
    try:
        back = await asyncio.wait_for(anext(changes), 5)
    finally:
        await changes.aclose()
        await feed.close()
    assert back.seq == lost.seq - 3 and back.log.data == log
    walked = list(steps(lost, back))
    assert [after.seq for _event, after in walked] == list(range(1, back.seq + 1))
    assert walked[-1][1].log.digest == back.log.digest
    assert walked[-1][1].record_text() == back.record_text()
