"""Tickets are pushed: a waiting player's stream does not poll the store; the referee of another
process pairs the player and makes the table, and its wake-up reaches the stream through the
store's pub/sub (real Redis, two stores as two processes)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from kafana.competitions.league.redis_store import RedisLeagues
from kafana.competitions.league.referee import Referee
from kafana.competitions.league.spec import dump, league_spec
from kafana.competitions.league.tickets import Waiters, watch
from kafana.service.tables import Tables
from kafana.store.redis_store import RedisStore
from kafana.v1 import leagues_pb2 as pb


class Counted(RedisLeagues):
    """The league store, counting the stream's looks (`status`: one a look)."""

    looks = 0

    async def status(self, league: str, player: str) -> tuple[str, int]:
        self.looks += 1
        return await super().status(league, player)


@contextlib.asynccontextmanager
async def stores(redis_url: str, count: int) -> AsyncIterator[list[RedisStore]]:
    """`count` table stores on the private Redis, as `count` processes would have."""
    opened = [RedisStore.from_url(redis_url) for _ in range(count)]
    try:
        yield opened
    finally:
        for store in opened:
            await store.close()


async def test_a_paired_player_learns_of_its_ticket_without_polling(redis_url: str) -> None:
    async with stores(redis_url, 2) as (here, there):
        leagues, watched = RedisLeagues(there.client), Counted(here.client)
        spec = league_spec(pb.LeagueSpec(target=11, join_deadline_ms=30_000))
        assert await leagues.create("push", {"spec": dump(spec), "organiser": "org"})
        waiters_here, waiters_there = Waiters(), Waiters()
        waiters_here.connect(here)
        waiters_there.connect(there)
        updates: list[pb.TicketUpdate] = []
        got = asyncio.Event()
        stop = False

        async def write(update: pb.TicketUpdate) -> None:
            updates.append(update)
            got.set()

        stream = asyncio.create_task(
            watch(
                watched, Tables(here), waiters_here, "push", "ana", 2000, write,
                lambda: stop, heartbeat_s=60, fallback_s=60,
            )
        )  # fmt: skip
        try:
            await asyncio.sleep(1.0)  # waiting: one look when it opened, then none
            assert watched.looks == 1
            for player in ("ana", "bob"):
                assert await leagues.join("push", player, 25.0, 1) == ("waiting", 0)
            await asyncio.sleep(0.5)  # joining elsewhere, without a wake-up: still no look
            assert watched.looks == 1
            # The other process pairs the two and makes the table: its wake-up is pushed.
            referee = Referee(leagues, Tables(there), wake_players=waiters_there.wake)
            assert len(await referee.pair("push", spec)) == 1
            await asyncio.wait_for(got.wait(), 5.0)  # the fallback look is a minute away
            (update,) = updates
            ticket = update.ticket
            assert ticket.league == "push" and sorted(ticket.players) == ["ana", "bob"]
            assert ticket.seat_token and ticket.table_id
            assert watched.looks <= 3  # woken, not polled
        finally:
            stop = True
            waiters_here.wake_all()
            await asyncio.wait_for(stream, 5.0)


async def test_without_a_wake_up_the_fallback_look_finds_the_ticket(redis_url: str) -> None:
    async with stores(redis_url, 1) as (store,):
        leagues = Counted(store.client)
        spec = league_spec(pb.LeagueSpec(target=11, join_deadline_ms=30_000))
        assert await leagues.create("slow", {"spec": dump(spec)})
        updates: list[pb.TicketUpdate] = []
        stop = False

        async def write(update: pb.TicketUpdate) -> None:
            updates.append(update)

        waiters = Waiters()  # not connected: no pub/sub, so only the fallback look
        stream = asyncio.create_task(
            watch(
                leagues, Tables(store), waiters, "slow", "ana", 2000, write,
                lambda: stop, heartbeat_s=60, fallback_s=0.3,
            )
        )  # fmt: skip
        try:
            for player in ("ana", "bob"):
                await leagues.join("slow", player, 25.0, 1)
            assert len(await Referee(leagues, Tables(store)).pair("slow", spec)) == 1
            async with asyncio.timeout(5.0):
                while not updates:
                    await asyncio.sleep(0.05)
            assert sorted(updates[0].ticket.players) == ["ana", "bob"]
        finally:
            stop = True
            waiters.wake_all()
            await asyncio.wait_for(stream, 5.0)
