"""`kafana league ...`: the referee loop of a league, and its queue and leaderboard.

kafana league run spring --redis redis://HOST:6379/0 --target 51   # --tables: the servers' store
kafana league join spring ana --redis redis://HOST:6379/0     # then: kafana league ticket
kafana league ticket spring ana --redis redis://HOST:6379/0   # table and seat, once paired
kafana league board spring --redis redis://HOST:6379/0
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Awaitable, Callable
from typing import TypeVar

import click

from kafana.competitions.league.leaderboard import Leaderboard
from kafana.store.client import RedisClient

T = TypeVar("T")
REDIS = click.option(
    "--redis",
    "redis_url",
    envvar="KAFANA_REDIS",
    required=True,
    help="redis://host:port/db of the league (Env: KAFANA_REDIS).",
)


def _with_redis(url: str, job: Callable[[RedisClient], Awaitable[T]]) -> T:
    async def run() -> T:
        client = RedisClient.from_url(url)
        try:
            return await job(client)
        finally:
            await client.close()

    return asyncio.run(run())


@click.group()
def league() -> None:
    """Leagues: a matchmaking queue, seasons and leaderboards in Redis."""


@league.command()
@click.argument("name")
@REDIS
@click.option(
    "--tables", "tables_url", envvar="KAFANA_TABLES", default="",
    help="redis://... (or redis+cluster://...) of the servers' table store, where the "
    "league's tables are made (default: the league's --redis).",
)  # fmt: skip
@click.option("--interval", default=1.0, show_default=True, help="Seconds between queue ticks.")
@click.option("--preset", default="serbian", show_default=True)
@click.option("--target", default=0, help="Points to win (0: the preset's).")
@click.option("--move-ms", default=0, help="Time per move (0: no clock).")
@click.option("--window", nargs=3, type=float, default=(1.0, 0.5, 25.0), show_default=True,
              help="Rating gap accepted: BASE PER_SECOND MAX.")  # fmt: skip
@click.option("--for-seconds", type=float, default=0.0, help="Stop after this long (0: never).")
def run(
    name: str,
    redis_url: str,
    tables_url: str,
    interval: float,
    preset: str,
    target: int,
    move_ms: int,
    window: tuple[float, float, float],
    for_seconds: float,
) -> None:
    """Referee league NAME: pair the queue every --interval, create the tables in the servers'
    table store, rate each match when it ends and publish its fair record. Stops on SIGINT /
    SIGTERM (the matches in play are settled first)."""
    from kafana.competitions.league.matchmaking import Matchmaker, Window
    from kafana.competitions.league.referee import referee
    from kafana.competitions.league.tables import store_tables
    from kafana.service.feed import Feed
    from kafana.service.tables import Tables
    from kafana.store.redis_store import RedisStore

    async def job(redis: RedisClient) -> int:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(sig, stop.set)
        if for_seconds:
            loop.call_later(for_seconds, stop.set)
        store = RedisStore.from_url(tables_url or redis_url)
        feed = Feed(store)
        try:
            tables = Tables(store)
            maker = store_tables(tables, league=name, preset=preset, target=target, move_ms=move_ms)
            queue = Matchmaker(redis, name, maker, window=Window(*window))
            board = Leaderboard(redis, name)
            click.echo(f"league {name}: refereeing (season {await board.season()})")
            return await referee(tables, feed, board, queue, interval=interval, stop=stop)
        finally:
            await feed.close()
            await store.close()

    settled = _with_redis(redis_url, job)
    click.echo(f"league {name}: stopped, {settled} matches settled")


@league.command()
@click.argument("name")
@click.argument("player")
@REDIS
def join(name: str, player: str, redis_url: str) -> None:
    """PLAYER waits for a game in league NAME (paired by its current rating)."""
    from kafana.competitions.league.matchmaking import Matchmaker, no_table

    async def job(redis: RedisClient) -> float:
        mu = (await Leaderboard(redis, name).rating(player)).mu
        await Matchmaker(redis, name, no_table).join(player, mu)
        return mu

    mu = _with_redis(redis_url, job)
    click.echo(f"{player} is waiting in {name} (rating mu {mu:.2f})")


@league.command()
@click.argument("name")
@click.argument("player")
@REDIS
def ticket(name: str, player: str, redis_url: str) -> None:
    """PLAYER's table and seat once paired (exit 1 while still waiting)."""
    from kafana.competitions.league.matchmaking import Matchmaker, no_table

    async def job(redis: RedisClient) -> tuple[str, int] | None:
        return await Matchmaker(redis, name, no_table).ticket(player)

    found = _with_redis(redis_url, job)
    if found is None:
        click.echo(f"{player}: no table yet")
        raise SystemExit(1)
    click.echo(f"{player}: table {found[0]} seat {found[1]}")


@league.command()
@click.argument("name")
@REDIS
@click.option("--page", default=1, show_default=True)
@click.option("--size", default=20, show_default=True)
def board(name: str, redis_url: str, page: int, size: int) -> None:
    """A page of league NAME's leaderboard (rating = mu - 3 sigma)."""

    async def job(redis: RedisClient) -> list[str]:
        leaderboard = Leaderboard(redis, name)
        rows = await leaderboard.page(page, size)
        total = await leaderboard.size()
        lines = [f"league {name}, season {await leaderboard.season()}: {total} players"]
        lines += [f"{r.rank:>6}. {r.player:<24} {r.rating:8.2f}" for r in rows]
        return lines

    for line in _with_redis(redis_url, job):
        click.echo(line)


@league.command("new-season")
@click.argument("name")
@REDIS
def new_season(name: str, redis_url: str) -> None:
    """Start a new season of league NAME (empty boards; old seasons are kept)."""

    async def job(redis: RedisClient) -> int:
        return await Leaderboard(redis, name).new_season()

    click.echo(f"league {name}: season {_with_redis(redis_url, job)}")
