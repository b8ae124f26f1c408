"""Helpers of the hosted-event tests: entrants that play through the SDK."""

from __future__ import annotations

import asyncio
import io
import random
import shutil
import sys
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

from kafana.competitions.hosted.host import CompetitionsHost, events_for
from kafana.store.redis_store import RedisStore
from kafana.v1 import competitions_pb2 as pb
from kafana.v1 import competitions_pb2_grpc, rules_pb2, state_pb2
from kafana_bots import registry
from kafana_client import AsyncClient, AsyncSeat
from kafana_client.aio import LegalMoves
from kafana_client.bots import run_bot
from kafana_client.cli.session import PersonAtTable
from kafana_client.convert import rules_of
from kafana_client.errors import TooManyMovesRpcError
from kafana_client.seat_loop import Decision, Hooks, follow_seat
from kafana_client.tac import tac_rules_of
from kafana_client.tournaments import SeatPlayer, Tournaments, play_entry
from kit import Served, running, serve
from rich.console import Console


@asynccontextmanager
async def hosting(
    redis_url: str, scan: float = 0.1, **options: Any
) -> AsyncIterator[tuple[competitions_pb2_grpc.CompetitionsServiceStub, CompetitionsHost]]:
    """A server on loopback hosting events over the Redis at `redis_url` (its director
    scanning every `scan` s; `options` are its Settings'): a Competitions stub to it, and its
    host."""
    store = RedisStore.from_url(redis_url)
    try:
        host = CompetitionsHost(events_for(store), scan=scan)
        async with running(store, plugins=[host], **options) as svc:
            yield competitions_pb2_grpc.CompetitionsServiceStub(svc.channel), host
    finally:
        await store.close()


class FirstMove(Hooks):
    """Default moves: the first legal move (a trail when it has one)."""

    async def decide(self, state: state_pb2.TableState, legal: LegalMoves) -> Decision:
        """The first of the legal moves."""
        return legal.moves[0].text


async def follow(seat: AsyncSeat) -> None:
    """Play the seat's default moves to the end of the match."""
    await follow_seat(seat, FirstMove())


def bot_player(client: AsyncClient, bot: str = "greedy") -> SeatPlayer:
    """A remote bot: each assigned seat played by a registry bot through the SDK (a Tač bot of
    that name at a Tač table)."""

    async def play(seat: AsyncSeat, a: pb.Assignment) -> object:
        info = await client.get_table(a.table_id)
        rng = random.Random(a.game_id)
        if info.rules.game == rules_pb2.GAME_TAC:
            tac_bot = registry.create(bot, seat=a.seat, rules=tac_rules_of(info), rng=rng)
            return await run_bot(seat, tac_bot)
        made = registry.create(bot, seat=a.seat, rules=rules_of(info), rng=rng)
        try:
            return await run_bot(seat, made)
        except TooManyMovesRpcError:  # too many captures to list: trail from here on
            await follow(seat)
            return None

    return play


def person_player(screen: io.StringIO) -> SeatPlayer:
    """A person at the terminal session of `kafana play`, who always answers "1"."""

    async def play(seat: AsyncSeat, a: pb.Assignment) -> object:
        console = Console(file=screen, width=100)
        try:
            return await PersonAtTable(seat, console, ask=lambda prompt: "1").play()
        except TooManyMovesRpcError:  # too many captures to list: trail from here on
            await follow(seat)
            return None

    return play


async def entry_task(
    client: AsyncClient, event_id: str, token: str, play: SeatPlayer
) -> asyncio.Task[pb.EntryUpdate]:
    """Play an entry in the background until the event is over."""
    return asyncio.create_task(play_entry(client, event_id, token, play))


@contextmanager
def served(redis_url: str, *options: str) -> Iterator[Served]:
    """Run `kafana serve --redis URL [options]` (one event loop, as in production) until the
    block ends.

    The hosted tests use a real process rather than a server on a thread of the test process:
    grpc.aio servers and clients on two event loops of one process lost wakeups under load.
    """
    directory = Path(tempfile.mkdtemp(prefix="kafana-serve-"))
    running = serve(directory, "--redis", redis_url, "--auth", "open", *options)
    try:
        running.wait_started()
        yield running
    except BaseException:  # show what the server logged (the director's warnings) on failure
        print(running.output()[-20_000:], file=sys.stderr)
        raise
    finally:
        running.end()
        shutil.rmtree(directory, ignore_errors=True)


async def until(
    get: Callable[[], Awaitable[pb.EventInfo]],
    check: Callable[[pb.EventInfo], bool],
    timeout: float = 90.0,
) -> pb.EventInfo:
    """Poll the event until `check` holds."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        info = await get()
        if check(info):
            return info
        assert asyncio.get_running_loop().time() < deadline, f"timed out: {info}"
        await asyncio.sleep(0.1)


def games(info: pb.EventInfo) -> list[pb.GameInfo]:
    """Every game of every round."""
    return [g for r in info.rounds for g in r.games]


async def first_assignment(
    client: AsyncClient, event_id: str, token: str
) -> tuple[AsyncSeat, pb.Assignment]:
    """A remote entrant's first game: its seat (the token from `WatchEntry`) and assignment."""
    async for update in Tournaments(client).watch_entry(event_id, token):
        a = update.assignment
        if a.table_id:
            return AsyncSeat(client, a.table_id, a.seat, a.seat_token, ""), a
    raise AssertionError("the event ended before the entrant had a game")


async def play_moves(seats: list[AsyncSeat], count: int) -> None:
    """Play `count` first legal moves at one table, each by the seat to move."""
    for _ in range(count):
        view = await seats[0].state()
        seat = next(s for s in seats if s.seat == view.current_seat)
        await seat.state()
        await seat.play((await seat.legal_moves()).moves[0].text)
