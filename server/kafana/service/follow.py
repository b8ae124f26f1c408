"""Following a table on the domain layer: the session each time it changes, until it ends.

In-process followers (the built-in bot seats, a tournament's referee, a director waiting for a
game's end) use `follow` instead of the SDK: it waits with the service's `Feed`, the mechanism
`WatchEvents` uses, so moves made by any process on the same store are seen at once. `steps`
walks the events between two sessions of a table, for followers that need each one; `watch`
is the loop of a `WatchEvents` stream (the servicer only converts and writes what it hands on).

    async with contextlib.aclosing(follow(tables, feed, table_id)) as changes:
        async for session in changes:
            ...  # session.seq grew; the last session yielded is the finished one
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, Awaitable, Callable, Iterator

from kafana.errors import ServerStopping, TableNotFoundError
from kafana.service.feed import Feed
from kafana.service.session import Session
from kafana.service.tables import Tables
from kafana.store.base import FINISHED, Entry
from kafana.v1 import storage_pb2

WAIT_S = 1.0
"""How long one wait on the feed lasts before it is made again."""
RELOAD_EVERY = 5
"""Quiet waits after which the table is loaded anyway (a table that expired raises then)."""
EXPIRY_CHECK_S = 30.0
"""An idle stream checks this often that its table has not expired."""
Send = Callable[[Session, Session, Entry], Awaitable[None]]
"""Hands one event on: the table before it, after it, and its log entry."""
Beat = Callable[[int, int], Awaitable[None]]
"""Hands a heartbeat on: the time (Unix ms) and the seq the stream is at."""


async def follow(
    tables: Tables, feed: Feed, table_id: str, after_seq: int = 0
) -> AsyncGenerator[Session]:
    """The table whenever it is past the last seq seen (first: `after_seq`), until it is over.

    The first session comes at once when the table is already past `after_seq`; several events
    may lie between two sessions (`steps` lists them). The last session yielded is the finished
    one (none when the table was finished at `after_seq` already). When the store went back
    (it lost events: a failover, a crash) the table as the store holds it comes at once, with a
    lower seq or other events than the last one yielded: a follower acts on it (a bot seat
    whose turn it is again moves), and `steps` walks it from the start. Raises `NotFoundError`
    when the table does not exist or has expired.
    """
    seen = after_seq
    last: Session | None = None
    session = await tables.session(table_id)
    quiet = 0
    while True:
        if session.seq != seen or (last is not None and not continues(last, session)):
            seen = session.seq  # lower when the store went back (it lost events)
            last = session
            yield session
        if session.status == FINISHED:
            return
        if await feed.wait(table_id, seen, WAIT_S):
            quiet = 0
            session = await _fresh(tables, feed, table_id)
        else:
            quiet += 1
            if quiet % RELOAD_EVERY == 0 or 0 < feed.latest(table_id) < seen:
                session = await tables.session(table_id)


async def _fresh(tables: Tables, feed: Feed, table_id: str) -> Session:
    """The table as the feed knows it: this process's cached session when it is as new (a
    change made here or already loaded), else loaded from the store."""
    cached = tables.cached(table_id)
    if cached is not None and cached.seq >= feed.latest(table_id):
        return cached
    return await tables.session(table_id)


def continues(before: Session, after: Session) -> bool:
    """Whether `after` holds every event of `before` (not so when the store lost some)."""
    return after.seq >= before.seq and after.log.data.startswith(before.log.data)


def steps(before: Session, after: Session) -> Iterator[tuple[storage_pb2.StoredEvent, Session]]:
    """Each event after `before` up to `after` (two sessions of one table), with the table
    after it, oldest first. `Session.start(table_id, stored)` is the table before any event.

    One event (the usual case) costs no replay: the table after it is `after`. When `after`
    does not continue `before` (the store lost events `before` holds), every event of `after`
    from the table's start.
    """
    if after.seq == before.seq + 1 and continues(before, after):
        yield storage_pb2.StoredEvent.FromString(after.log.last().data), after
        return
    if not continues(before, after):
        before = Session.start(after.table_id, after.stored)
    session = before
    for entry in after.log[before.seq : after.seq]:
        session = session.apply(entry)
        yield storage_pb2.StoredEvent.FromString(entry.data), session


async def until_over(tables: Tables, feed: Feed, table_id: str) -> Session:
    """Wait for the table's match to end; the finished session."""
    last = await tables.session(table_id)
    async for later in follow(tables, feed, table_id, last.seq):
        last = later
    return last


async def watch(
    tables: Tables,
    feed: Feed,
    session: Session,
    seat: int | None,
    after_seq: int,
    send: Send,
    beat: Beat,
    *,
    stopping: asyncio.Event,
    heartbeat_s: float,
    done: Callable[[], bool],
) -> None:
    """A stream's loop: every event of `session`'s table after `after_seq` to `send`, then
    live ones, a `beat` after `heartbeat_s` idle; returns after the match-over event or once
    `done()` (the client went). `seat` is present while it watches. Raises ServerStopping
    when `stopping` is set, TableNotFoundError when the table expired."""
    table_id = session.table_id
    replayed = Session.start(table_id, session.stored)
    delivered = after_seq
    loop = asyncio.get_running_loop()
    sent = checked = loop.time()  # when it last sent something; checked the table is there
    while True:
        await tables.seen(session, seat)  # an open stream: its seat is present
        for entry in session.log[replayed.seq :]:
            after = replayed.apply(entry)
            if entry.seq > delivered:
                await send(replayed, after, entry)
                delivered = entry.seq
                sent = loop.time()
            replayed = after
        if replayed.status == FINISHED or done():
            # Checked each round: redis-py may swallow the cancellation of a gone client.
            return
        if stopping.is_set():
            raise ServerStopping(
                f"the server is stopping: resume with after_seq {delivered} (on another "
                "process, or once it is back)",
                after_seq=delivered,
            )
        idle = loop.time() - sent
        wait_s = max(0.0, min(WAIT_S, heartbeat_s - idle))
        if await feed.wait(table_id, replayed.seq, wait_s):
            session = await tables.session(table_id)
            continue
        if loop.time() - sent >= heartbeat_s and not stopping.is_set():
            await beat(int(time.time() * 1000), replayed.seq)
            sent = loop.time()
        if loop.time() - checked >= EXPIRY_CHECK_S:
            checked = loop.time()
            if await tables.store.load(table_id, 1 << 62) is None:
                raise TableNotFoundError(f"table {table_id} expired", table_id=table_id)
