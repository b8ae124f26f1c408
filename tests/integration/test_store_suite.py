"""The store contract, run against a real Redis (the test kit's private redis-server)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from kafana.store.base import FINISHED, OPEN, PLAYING, Append, Outcome, TableStore
from kafana.store.redis_store import RedisStore
from kit import redis_server

TTL = 60_000


def now_ms() -> int:
    return int(time.time() * 1000)


async def make(store: TableStore, table_id: str = "t1") -> None:
    assert await store.create(table_id, b"record", TTL, now_ms())


async def test_create_and_load(store: TableStore) -> None:
    await make(store)
    assert not await store.create("t1", b"other", TTL, now_ms())
    snap = await store.load("t1")
    assert snap is not None
    assert (snap.table, snap.seq, snap.status, snap.deadline_ms) == (b"record", 0, OPEN, 0)
    assert snap.seats == {} and snap.events == []
    assert await store.load("nope") is None


async def test_append_numbers_events_and_reads_after(store: TableStore) -> None:
    await make(store)
    for i in range(3):
        result = await store.append("t1", Append(event=f"e{i}".encode(), ttl_ms=TTL))
        assert (result.outcome, result.seq) == (Outcome.APPLIED, i + 1)
    snap = await store.load("t1", after_seq=1)
    assert snap is not None and snap.seq == 3
    assert [(e.seq, e.data) for e in snap.events] == [(2, b"e1"), (3, b"e2")]
    assert [e.seq for e in await store.events("t1", 0, 0)] == [1, 2, 3]
    assert await store.events("t1", 3, 0) == []


async def test_expected_seq_stale_and_duplicate(store: TableStore) -> None:
    await make(store)
    first = await store.append("t1", Append(b"m1", TTL, expected_seq=0, dedupe="a"))
    assert first.outcome is Outcome.APPLIED and first.seq == 1
    retry = await store.append("t1", Append(b"m1", TTL, expected_seq=0, dedupe="a"))
    assert (retry.outcome, retry.seq) == (Outcome.DUPLICATE, 1)
    other = await store.append("t1", Append(b"m2", TTL, expected_seq=0, dedupe="b"))
    assert (other.outcome, other.seq) == (Outcome.STALE, 1)
    future = await store.append("t1", Append(b"m2", TTL, expected_seq=5, dedupe="b"))
    assert future.outcome is Outcome.STALE
    snap = await store.load("t1")
    assert snap is not None and [e.data for e in snap.events] == [b"m1"]


async def test_concurrent_appends_one_wins(store: TableStore) -> None:
    await make(store)
    results = await asyncio.gather(
        *(store.append("t1", Append(f"m{i}".encode(), TTL, expected_seq=0)) for i in range(8))
    )
    assert sorted(r.outcome.value for r in results).count("applied") == 1
    snap = await store.load("t1")
    assert snap is not None and snap.seq == 1


async def test_seats_and_start(store: TableStore) -> None:
    await make(store)
    take0 = Append(b"j0", TTL, require_status=OPEN, take_seat=0, seat_data=b"s0", start_at_seats=2)
    assert (await store.append("t1", take0)).status == OPEN
    again = await store.append("t1", take0)
    assert again.outcome is Outcome.SEAT_TAKEN
    take1 = Append(
        b"j1",
        TTL,
        require_status=OPEN,
        take_seat=1,
        seat_data=b"s1",
        start_at_seats=2,
        start_deadline_ms=123,
    )
    started = await store.append("t1", take1)
    assert (started.outcome, started.status) == (Outcome.APPLIED, PLAYING)
    snap = await store.load("t1")
    assert snap is not None
    assert snap.seats == {0: b"s0", 1: b"s1"} and snap.deadline_ms == 123
    late = Append(b"j2", TTL, require_status=OPEN, take_seat=2, seat_data=b"s2")
    assert (await store.append("t1", late)).outcome is Outcome.WRONG_STATUS
    free = await store.append("t1", Append(b"l1", TTL, free_seat=1, new_status=FINISHED))
    assert free.status == FINISHED
    snap = await store.load("t1")
    assert snap is not None and snap.seats == {0: b"s0"} and snap.status == FINISHED


async def test_blocking_read_wakes_on_append(store: TableStore) -> None:
    await make(store)
    reader = asyncio.create_task(store.events("t1", 0, 5000))
    await asyncio.sleep(0.1)
    assert not reader.done()
    await store.append("t1", Append(b"x", TTL))
    entries = await asyncio.wait_for(reader, 5)
    assert [e.data for e in entries] == [b"x"]
    assert await store.events("t1", 1, 100) == []


async def test_tables_expire(store: TableStore) -> None:
    assert await store.create("short", b"r", 1500, now_ms())
    await store.append("short", Append(b"x", 1500))
    assert await store.load("short") is not None
    await asyncio.sleep(1.8)
    assert await store.load("short") is None
    assert (await store.append("short", Append(b"y", 1500))).outcome is Outcome.MISSING
    assert "short" in [t for _, t in await store.list_tables(10)]
    await store.forget("short")
    assert "short" not in [t for _, t in await store.list_tables(10)]


async def test_list_newest_first(store: TableStore) -> None:
    for i in range(3):
        assert await store.create(f"t{i}", b"r", TTL, 1000 + i)
    assert await store.list_tables(2) == [(1002, "t2"), (1001, "t1")]
    assert await store.list_tables(5, before=(1002, "t2")) == [(1001, "t1"), (1000, "t0")]
    assert await store.list_tables(5, before=(1000, "t0")) == []


async def test_list_pages_through_ties_without_gaps(store: TableStore) -> None:
    """Tables created in one millisecond are ordered by id (descending) too: a cursor among
    them goes on with the next one, however many share its millisecond."""
    ids = [f"t{i:02d}" for i in range(40)]
    for table_id in ids:
        assert await store.create(table_id, b"r", TTL, 5000)
    assert await store.create("older", b"r", TTL, 4000)
    listed: list[tuple[int, str]] = []
    cursor = None
    while True:
        page = await store.list_tables(3, before=cursor)
        if not page:
            break
        listed += page
        cursor = page[-1]
    assert listed == [(5000, t) for t in reversed(ids)] + [(4000, "older")]
    await store.forget("t20")  # the cursor's own table gone: the page after it is the same
    assert await store.list_tables(2, before=(5000, "t20")) == [(5000, "t19"), (5000, "t18")]


async def test_deadlines_claim_once(store: TableStore) -> None:
    await make(store)
    await store.append("t1", Append(b"m", TTL, deadline_ms=1000))
    assert await store.due(999, 10) == []
    assert await store.due(1000, 10) == ["t1"]
    claims = await asyncio.gather(*(store.claim("t1", 1000, 5000) for _ in range(5)))
    assert claims.count(True) == 1
    assert await store.due(1000, 10) == []
    assert await store.due(6000, 10) == ["t1"]
    # An earlier deadline replaces a later index entry; a later one does not (index never late).
    await store.append("t1", Append(b"m2", TTL, deadline_ms=2000))
    assert await store.due(2000, 10) == ["t1"]
    await store.append("t1", Append(b"m3", TTL, deadline_ms=9000))
    assert await store.due(2000, 10) == ["t1"]
    await store.schedule("t1", 9000)
    assert await store.due(2000, 10) == []
    await store.schedule("t1", 0)
    assert await store.due(10**13, 10) == []


async def clients(store: RedisStore) -> list[bytes]:
    """The lines of `CLIENT LIST`: one per connection to the server."""
    listed = await store.client.call("", "CLIENT", "LIST")
    assert isinstance(listed, bytes)
    return listed.splitlines()


async def test_closing_releases_connections(tmp_path: Path) -> None:
    # A redis-server of this test alone: the session's shared one may hold other tests' clients.
    with redis_server(tmp_path) as redis:
        url = redis.url
        probe = RedisStore.from_url(url)
        store = RedisStore.from_url(url)
        await asyncio.gather(*(store.load(f"t{i}") for i in range(5)))
        before = await clients(probe)
        await store.close()
        # Redis notices a closed socket on its own time: wait (bounded) until it has.
        for _ in range(100):
            after = await clients(probe)
            if len(after) == 1:
                break
            await asyncio.sleep(0.02)
        await probe.close()
    assert len(before) > 1
    assert len(after) == 1, f"left open: {after}"  # only the probe itself


async def test_a_retry_is_found_while_it_is_its_seats_last_move(store: TableStore) -> None:
    await make(store)
    mine = Append(b"m1", TTL, expected_seq=0, dedupe="a", dedupe_slot=0)
    assert (await store.append("t1", mine)).outcome is Outcome.APPLIED
    theirs = Append(b"m2", TTL, expected_seq=1, dedupe="b", dedupe_slot=1)
    assert (await store.append("t1", theirs)).outcome is Outcome.APPLIED
    # The other seat moved since: the retry of seat 0's move is still recognised.
    assert (await store.append("t1", mine)).outcome is Outcome.DUPLICATE
    snap = await store.load("t1")
    assert snap is not None and snap.marks == {0: (1, "a"), 1: (2, "b")}
    again = Append(b"m3", TTL, expected_seq=2, dedupe="c", dedupe_slot=0)
    assert (await store.append("t1", again)).outcome is Outcome.APPLIED
    # Seat 0 moved again: its first move is no longer the one a retry can be of.
    assert (await store.append("t1", mine)).outcome is Outcome.STALE
    assert [e.data for e in (await store.load("t1")).events] == [b"m1", b"m2", b"m3"]  # type: ignore[union-attr]


async def test_load_from_an_offset_sends_only_the_rest(store: TableStore) -> None:
    await make(store)
    for data in (b"one", b"two", b"three"):
        await store.append("t1", Append(data, TTL))
    whole = await store.load("t1")
    assert whole is not None
    offset = len(whole.tail) - len(b"\x05three")
    rest = await store.load("t1", after_seq=2, offset=offset)
    assert rest is not None and [(e.seq, e.data) for e in rest.events] == [(3, b"three")]
    assert (await store.load("t1", after_seq=2)).tail == rest.tail  # type: ignore[union-attr]


async def test_wait_returns_at_once_when_ahead_and_minus_one_when_missing(
    store: TableStore,
) -> None:
    await make(store)
    await store.append("t1", Append(b"x", TTL))
    assert await store.wait("t1", 0, 5000) == 1
    assert await store.wait("nope", 0, 5000) == -1
    waiter = asyncio.create_task(store.wait("t1", 1, 5000))
    await asyncio.sleep(0.2)
    assert not waiter.done()
    await store.append("t1", Append(b"y", TTL))
    assert await asyncio.wait_for(waiter, 3) == 2
