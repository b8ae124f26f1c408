"""Following a table on the domain layer: the session each time it changes, until it ends.

In-process followers (the built-in bot seats, a tournament's referee, a director waiting for a
game's end) use `follow` instead of the SDK: it waits with the service's `Feed`, the mechanism
`WatchEvents` uses, so moves made by any process on the same store are seen at once. `steps`
walks the events between two sessions of a table, for followers that need each one.

    async with contextlib.aclosing(follow(tables, feed, table_id)) as changes:
        async for session in changes:
            ...  # session.seq grew; the last session yielded is the finished one
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Iterator

from kafana.service.feed import Feed
from kafana.service.session import Session
from kafana.service.tables import Tables
from kafana.store.base import FINISHED
from kafana.v1 import storage_pb2

WAIT_S = 1.0
"""How long one wait on the feed lasts before it is made again."""
RELOAD_EVERY = 5
"""Quiet waits after which the table is loaded anyway (a table that expired raises then)."""


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
