"""The log's digest: the store keeps the digest of the log they hold, and refuse an append
decided on another history at the same seq (what a process that cached events the store then
lost would write)."""

from __future__ import annotations

import time

from kafana.store.base import Append, Outcome, TableStore
from kafana.store.framing import GENESIS, chain, digest_of, frame
from kafana.store.keys import table_keys
from kafana.store.redis_store import RedisStore

TTL = 60_000


async def opened(redis_url: str) -> TableStore:
    """A store on the private Redis with table t1 created."""
    store: TableStore = RedisStore.from_url(redis_url)
    assert await store.create("t1", b"record", TTL, int(time.time() * 1000))
    return store


async def digest(store: TableStore) -> str | None:
    snapshot = await store.load("t1")
    assert snapshot is not None
    return snapshot.digest


async def test_an_append_on_another_history_is_stale(redis_url: str) -> None:
    store = await opened(redis_url)
    try:
        assert await digest(store) == GENESIS
        first = await store.append(
            "t1", Append(b"m1", TTL, expected_seq=0, expected_digest=GENESIS)
        )
        assert first.outcome is Outcome.APPLIED
        held = chain(GENESIS, frame(b"m1"))
        assert await digest(store) == held  # the store's digest is the one the service computes
        lost = chain(GENESIS, frame(b"m0"))  # a process that holds another event 1
        refused = await store.append("t1", Append(b"m2", TTL, expected_seq=1, expected_digest=lost))
        assert (refused.outcome, refused.seq) == (Outcome.STALE, 1)
        applied = await store.append("t1", Append(b"m2", TTL, expected_seq=1, expected_digest=held))
        assert applied.outcome is Outcome.APPLIED
        snapshot = await store.load("t1")
        assert snapshot is not None and [e.data for e in snapshot.events] == [b"m1", b"m2"]
        assert snapshot.digest == digest_of(snapshot.tail)
        unchecked = await store.append("t1", Append(b"m3", TTL, expected_seq=2))
        assert unchecked.outcome is Outcome.APPLIED
        assert await digest(store) == digest_of(frame(b"m1") + frame(b"m2") + frame(b"m3"))
    finally:
        await store.close()


async def test_a_table_without_a_current_digest_takes_the_writers(redis_url: str) -> None:
    """A table last written by a version before digests: the store vouches for none, and the
    next checked append starts the chain again from the writer's digest."""
    store = RedisStore.from_url(redis_url)
    try:
        assert await store.create("t1", b"record", TTL, int(time.time() * 1000))
        await store.append("t1", Append(b"m1", TTL, expected_seq=0))
        state = table_keys("t1").state
        await store.client.call(state, "HSET", state, "h", "0:" + GENESIS)  # behind: seq 0
        snapshot = await store.load("t1")
        assert snapshot is not None and snapshot.digest is None
        held = digest_of(snapshot.tail)
        applied = await store.append("t1", Append(b"m2", TTL, expected_seq=1, expected_digest=held))
        assert applied.outcome is Outcome.APPLIED
        assert await digest(store) == chain(held, frame(b"m2"))
    finally:
        await store.close()
