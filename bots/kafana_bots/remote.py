"""`kafana bot run`: any bot plays a seat at a table on a running server.

The bot is a registry name (`greedy`) or `module:Class` (a `Bot` subclass, built with
`(seat, rules, rng, **options)`). It follows the table's event feed and answers its turns;
when the connection drops or the server restarts, it reconnects, replays the feed into a
fresh bot (so `observe` sees every event exactly once per bot) and carries on.
"""

from __future__ import annotations

import asyncio
import importlib
import random
import sys
from collections.abc import Callable
from typing import Any

import click
from kafana.games.tablic import Rules
from kafana.v1 import state_pb2
from kafana_client.aio import AsyncClient, AsyncSeat
from kafana_client.bots import bot_events, playable_moves
from kafana_client.connection import Retry, Tls
from kafana_client.convert import current_seat, rules_of, view_of
from kafana_client.errors import (
    DeadlineExceededError,
    NotYourTurnRpcError,
    RefusedMoveError,
    RpcError,
    StaleStateError,
    UnavailableError,
)

from kafana_bots import registry
from kafana_bots.base import Bot

BotMaker = Callable[[int, Rules], Bot]
RECONNECTS = 30
"""Consecutive failed reconnections before giving up (about a minute with the backoff)."""


def load_factory(spec: str) -> Callable[..., Bot]:
    """The factory of a registry name or of `module:Class`."""
    if ":" not in spec:
        return registry.entry(spec).factory
    module_name, _, attr = spec.partition(":")
    try:
        found = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise click.BadParameter(f"cannot load {spec!r}: {exc}") from None
    if not (isinstance(found, type) and issubclass(found, Bot)):
        raise click.BadParameter(f"{spec!r} is not a kafana_bots.Bot subclass")
    factory: Callable[..., Bot] = found
    return factory


class _Follower:
    """One pass over the event feed with one bot; raises on a lost connection."""

    def __init__(self, seat: AsyncSeat, bot: Bot, poll: float, delay: float) -> None:
        self.seat = seat
        self.bot = bot
        self.poll = poll
        self.delay = delay
        self.before: state_pb2.TableState | None = None
        self.acted = -1
        self.lock = asyncio.Lock()

    async def turn(self, state: state_pb2.TableState) -> None:
        """Play if `state` is this seat's turn and it has not played there yet."""
        async with self.lock:
            if current_seat(state) != self.seat.seat or state.seq <= self.acted:
                return
            if self.delay:
                await asyncio.sleep(self.delay)
            seq, moves = await playable_moves(self.seat, state)
            if seq != state.seq:
                return  # an older event of the feed: the table has moved on
            move = self.bot.choose(view_of(state), moves)
            try:
                await self.seat.play(move, last_seq=seq, with_state=False)
            except (StaleStateError, NotYourTurnRpcError, RefusedMoveError):
                return  # a clock timeout or a forfeit got there first, or a fallback trail
                # was refused (must capture): the clock decides
            self.acted = int(state.seq)

    async def watchdog(self) -> None:
        """A turn whose event came before a restart is not sent again: poll for it."""
        while True:
            await asyncio.sleep(self.poll)
            try:
                state = await self.seat.state()
                if self.before is not None and state.seq == self.before.seq:
                    await self.turn(state)
            except RpcError:
                continue

    async def run(self) -> state_pb2.TableState:
        task = asyncio.create_task(self.watchdog())
        try:
            async for event in self.seat.events():
                for item in bot_events(event, self.before):
                    self.bot.observe(item)
                self.before = event.state
                if event.match_over:
                    return event.state
                await self.turn(event.state)
        finally:
            task.cancel()
        return self.before if self.before is not None else await self.seat.state()


async def play_seat(
    seat: AsyncSeat, make_bot: BotMaker, rules: Rules, *, poll: float = 2.0, delay: float = 0.0
) -> state_pb2.TableState:
    """Play `seat` until the match is over, reconnecting after failures; the last state."""
    failures = 0
    while True:
        try:
            return await _Follower(seat, make_bot(seat.seat, rules), poll, delay).run()
        except (UnavailableError, DeadlineExceededError) as error:
            failures += 1
            if failures > RECONNECTS:
                raise
            print(f"kafana bot: {error}; reconnecting ({failures})", file=sys.stderr, flush=True)
            await asyncio.sleep(min(2.0, 0.1 * 2**failures))


async def run_remote(
    *,
    server: str,
    table_id: str,
    make_bot: BotMaker,
    seat: int | None = None,
    token: str | None = None,
    name: str = "",
    poll: float = 2.0,
    delay: float = 0.0,
    tls: Tls | None = None,
    on_seat: Callable[[AsyncSeat], None] | None = None,
) -> state_pb2.TableState:
    """Join (or, with `token`, resume) a seat on `server` and play it to the end."""
    client = AsyncClient.connect(server, tls=tls, retry=Retry(attempts=8, max_backoff=2.0))
    try:
        await client.wait_ready(30.0)
        if token:
            held = AsyncSeat(client, table_id, -1, token, name)
            state = await held.state()
            held.seat = state.tablic.seat
        else:
            held = await client.join(table_id, seat=seat, name=name)
        if on_seat is not None:
            on_seat(held)
        rules = rules_of(await client.get_table(table_id))
        return await play_seat(held, make_bot, rules, poll=poll, delay=delay)
    finally:
        await client.close()


def _parse_options(items: tuple[str, ...]) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for item in items:
        key, sep, text = item.partition("=")
        if not sep:
            raise click.BadParameter(f"expected key=value, not {item!r}", param_hint="--option")
        value: Any = text
        for kind in (int, float):
            try:
                value = kind(text)
                break
            except ValueError:
                continue
        options[key.replace("-", "_")] = value
    return options


@click.group()
def bot() -> None:
    """Bots that play on a Kafana server."""


@bot.command("run")
@click.argument("spec")
@click.option("--server", required=True, help="HOST:PORT of the Kafana server.")
@click.option("--table", "table_id", required=True, help="The table to play at.")
@click.option(
    "--seat", type=click.IntRange(0, 3), default=None, help="Seat wanted (default: first free)."
)
@click.option("--token", default=None, help="Resume a seat already held, by its token.")
@click.option("--name", default="", help="Name shown at the table (default: the spec).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the bot's generator.")
@click.option("--option", "-o", "options", multiple=True, help="Bot option key=value, repeatable.")
@click.option(
    "--poll",
    type=click.FloatRange(0.1),
    default=2.0,
    show_default=True,
    help="Seconds between checks for a turn the feed did not announce (after a restart).",
)
@click.option("--delay", type=click.FloatRange(0), default=0.0, help="Seconds before each move.")
@click.option("--tls-ca", type=click.Path(exists=True, dir_okay=False), default=None)
def run(
    spec: str,
    server: str,
    table_id: str,
    seat: int | None,
    token: str | None,
    name: str,
    seed: int,
    options: tuple[str, ...],
    poll: float,
    delay: float,
    tls_ca: str | None,
) -> None:
    """Play SPEC (a bot name or module:Class) at a table until the match is over."""
    factory = load_factory(spec)
    extra = _parse_options(options)

    def make_bot(at: int, rules: Rules) -> Bot:
        return factory(at, rules, random.Random(f"{seed}:{at}"), **extra)

    def announce(held: AsyncSeat) -> None:
        click.echo(f"seat {held.seat} token {held.token}", err=True)

    final = asyncio.run(
        run_remote(
            server=server,
            table_id=table_id,
            make_bot=make_bot,
            seat=seat,
            token=token,
            name=name or spec,
            poll=poll,
            delay=delay,
            tls=Tls(root_certificates=tls_ca) if tls_ca else None,
            on_seat=announce,
        )
    )
    click.echo(f"match over: scores {list(final.tablic.scores)}")
    sys.stdout.flush()


if __name__ == "__main__":
    bot()
