"""`follow`: an in-process follower sees every change of a table, also one made by another
process on the same store, and ends with the finished table."""

from __future__ import annotations

import asyncio
import contextlib

import pytest
from kafana.errors import NotFoundError
from kafana.service.feed import Feed
from kafana.service.follow import follow, steps, until_over
from kafana.service.session import Session
from kafana.service.tables import Tables
from kafana.store.base import FINISHED, TableStore
from kafana.v1 import events_pb2, rules_pb2


def config() -> rules_pb2.TableConfig:
    rules = rules_pb2.RulesSpec(
        game=rules_pb2.GAME_TABLIC, players=2, tablic=rules_pb2.TablicRules(target=11)
    )
    return rules_pb2.TableConfig(rules=rules, seed=7)


async def test_follow_sees_moves_of_another_process_until_the_end(store: TableStore) -> None:
    here, there = Tables(store), Tables(store)  # two server processes on one store
    feed = Feed(store, block_ms=200)
    here.listeners.append(feed.notify)
    table_id, _admin, _ = await there.create(config())
    tokens = [(await there.join(table_id, seat, f"p{seat}"))[1] for seat in (0, 1)]
    seen: list[Session] = []

    async def watch() -> None:
        async with contextlib.aclosing(follow(here, feed, table_id)) as changes:
            async for session in changes:
                seen.append(session)

    watcher = asyncio.create_task(watch())
    moves = 0
    while (session := await there.session(table_id)).status != FINISHED:
        seat = session.match.current_seat
        assert seat is not None
        move = str(there.legal(session, seat)[-1])  # a capture when it has one
        await there.play(table_id, tokens[seat], move, f"m{moves}", session.seq)
        moves += 1
        if moves % 10 == 0:
            await asyncio.sleep(0.01)  # let the watcher see a few in between
    await asyncio.wait_for(watcher, 10)
    final = await there.session(table_id)
    assert seen[-1].seq == final.seq and seen[-1].status == FINISHED
    assert [s.seq for s in seen] == sorted({s.seq for s in seen})  # each newer than the last
    walked = list(steps(Session.start(table_id, final.stored), seen[-1]))
    assert [after.seq for _event, after in walked] == list(range(1, final.seq + 1))
    kinds = [event.kind for event, _after in walked]
    assert kinds[:2] == [events_pb2.EVENT_KIND_SEAT_TAKEN] * 2
    assert kinds.count(events_pb2.EVENT_KIND_MOVE) == moves
    assert walked[-1][1].status == FINISHED
    assert (await until_over(here, feed, table_id)).seq == final.seq  # over already: at once
    await feed.close()


async def test_follow_of_a_missing_table_raises(store: TableStore) -> None:
    tables = Tables(store)
    with pytest.raises(NotFoundError):
        async for _session in follow(tables, Feed(tables.store), "nope"):
            pass


async def test_a_cancelled_wait_ends_even_when_the_table_moves_at_that_moment(
    store: TableStore,
) -> None:
    # Python 3.11's wait_for returns the result when its inner wait completes in the same
    # step as the cancellation: a bot seat of a busy table then never stopped (server stop
    # and the event loop's close hung), found with paced bot tables
    feed = Feed(store, block_ms=200)
    waiting = asyncio.create_task(feed.wait("t1", 0, 30.0))
    await asyncio.sleep(0.01)
    feed.notify("t1", 1)  # the table moves on ...
    waiting.cancel()  # ... as the watcher is cancelled
    with pytest.raises(asyncio.CancelledError):
        await waiting
    await feed.close()
