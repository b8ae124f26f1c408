"""`kafana play`: a person plays Tablić or Tač in the terminal against bots or people.

`run` sets up the table on a server and plays it; the command (`kafana.cli.play`) parses the
options and, when no server is given, starts one in-process first.
"""

from __future__ import annotations

import asyncio
import contextlib
import getpass
import random
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from kafana.v1 import state_pb2
from kafana_bots import registry
from rich.console import Console
from rich.text import Text

from kafana_client.aio import AsyncClient, AsyncSeat, CreatedTable
from kafana_client.bots import run_bot
from kafana_client.cli import render, tac_render
from kafana_client.cli.reach import reached
from kafana_client.cli.replay import names_comment
from kafana_client.cli.session import Outcome, PersonAtTable, Quit
from kafana_client.connection import Tls
from kafana_client.convert import game_name, rules_of, table_config
from kafana_client.errors import RpcError
from kafana_client.tac import tac_rules_of, tac_table_config

OPEN = "open"
DEFAULT_BOT = {"tablic": "heuristic", "tac": "loader"}
PLAYERS = {"tablic": (2, 3, 4), "tac": (2, 3, 4, 8)}


@dataclass(frozen=True)
class PlayOptions:
    """What `kafana play` was asked to do."""

    server: str | None
    table_id: str | None
    seat: int | None
    name: str
    bots: tuple[str, ...]
    players: int
    partnerships: bool
    preset: str
    target: int
    seed: int | None
    hands: int | None
    delay: float
    save: Path | None
    tls_ca: Path | None
    game: str = "tablic"
    decks: int = 1
    tac_calls: bool = False
    play_on: bool = False
    move_ms: int = 0
    building: bool = False


async def _seat_bots(
    client: AsyncClient, table: CreatedTable, options: PlayOptions, console: Console
) -> list[asyncio.Task[object]]:
    """Join a bot on every seat left (`open` ones stay free for people) and start them."""
    names = list(options.bots) or [DEFAULT_BOT[options.game]]
    tasks: list[asyncio.Task[object]] = []
    seated: list[str] = []
    for index in range(options.players - 1):
        name = names[index % len(names)]
        if name == OPEN:
            continue
        label = name if name not in seated else f"{name} {seated.count(name) + 1}"
        seated.append(name)
        seat = await client.join(table.table_id, name=label)
        rng = random.Random((options.seed or 0) * 31 + seat.seat)
        rules = tac_rules_of(table.info) if options.game == "tac" else rules_of(table.info)
        bot = registry.create(name, seat=seat.seat, rules=rules, rng=rng)
        task: asyncio.Task[object] = asyncio.create_task(run_bot(seat, bot, delay=options.delay))
        task.add_done_callback(_reporter(console, name, seat.seat))
        tasks.append(task)
    return tasks


def _reporter(console: Console, name: str, seat: int) -> Callable[[asyncio.Task[object]], None]:
    """Say so when a bot stops by an error (the person would otherwise wait for it forever)."""

    def report(task: asyncio.Task[object]) -> None:
        if not task.cancelled() and task.exception() is not None:
            console.print(
                Text(f"The {name} bot at seat {seat} stopped: {task.exception()}", style="bold red")
            )

    return report


async def _create(client: AsyncClient, options: PlayOptions) -> CreatedTable:
    if options.game == "tac":
        return await client.create_table(
            tac_table_config(
                players=options.players,
                seed=options.seed,
                name=f"{options.name} in the terminal",
                decks=options.decks,
                tac_calls=options.tac_calls,
                play_on=options.play_on,
                move_millis=options.move_ms,
            )
        )
    config = table_config(
        preset=options.preset,
        players=options.players,
        partnerships=options.partnerships,
        target=options.target,
        seed=options.seed,
        name=f"{options.name} in the terminal",
        move_millis=options.move_ms,
    )
    if options.building:
        config.rules.tablic.building = True
    return await client.create_table(config)


async def run(options: PlayOptions, console: Console) -> Outcome | None:
    """Set up the table on `options.server` and play; None if the person quit."""
    target = options.server
    if not target:
        raise ValueError("kafana play needs a server to play on")
    tls = Tls(root_certificates=options.tls_ca) if options.tls_ca else None
    async with reached(target, tls) as client:
        created: CreatedTable | None = None
        if options.table_id:
            table_id = options.table_id
            info = await client.get_table(table_id)
            options = replace(options, game=game_name(info.rules))  # the table's game
            me = await client.join(table_id, seat=options.seat, name=options.name)
            tasks: list[asyncio.Task[object]] = []
        else:
            created = await _create(client, options)
            me = await client.join(created.table_id, seat=options.seat, name=options.name)
            tasks = await _seat_bots(client, created, options, console)
            if OPEN in options.bots:
                console.print(Text("Waiting for people: the other person runs", style="bold"))
                console.print(
                    Text(
                        f"kafana play --server {target} --table {created.table_id}"
                        + (f" --tls-ca {options.tls_ca}" if options.tls_ca else "")
                    ),
                    soft_wrap=True,
                )
        console.print(Text(f"You are {options.name}, seat {me.seat}.", style="bold"))
        leaving = _consequence(created, options)
        try:
            outcome = await PersonAtTable(me, console, leaving=leaving).play(options.hands)
        except Quit:
            console.print("You left the table.")
            await _leave(me, created, client, options)
            await _save(client, me, options, console)
            return None
        except asyncio.CancelledError:  # Ctrl-C: leave as `q` would, then stop
            await _leave(me, created, client, options)
            raise
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        await _finish(client, me, created, outcome, options, console)
        return outcome


def _among_people(created: CreatedTable | None, options: PlayOptions) -> bool:
    """Whether other people play here: a table joined, or made here with `open` seats."""
    return created is None or OPEN in options.bots


def _consequence(created: CreatedTable | None, options: PlayOptions) -> str:
    """What leaving costs: a table of bots made here ends; a seat among people forfeits."""
    if not _among_people(created, options):
        return "the match ends here: the table is closed"
    return "your seat forfeits the match (the other side wins)"


async def _leave(
    me: AsyncSeat, created: CreatedTable | None, client: AsyncClient, options: PlayOptions
) -> None:
    """Leave as `_consequence` says: among people the seat forfeits (whoever made the table);
    a table made here that is not over then (only bots, or nobody came yet) is closed."""
    if _among_people(created, options):
        with contextlib.suppress(RpcError):
            await me.leave()
    if created is not None:
        with contextlib.suppress(RpcError):
            info = await client.get_table(created.table_id)
            if info.status != state_pb2.TABLE_STATUS_FINISHED:
                await client.close_table(created.table_id, created.admin_token)


async def _finish(
    client: AsyncClient,
    me: AsyncSeat,
    created: CreatedTable | None,
    outcome: Outcome,
    options: PlayOptions,
    console: Console,
) -> None:
    tac = options.game == "tac"
    side = me.seat if tac else rules_of(outcome.state.info).side_of(me.seat)
    if not outcome.over:
        hands = options.hands or 0
        console.print(Text(f"Stopped after {hands} hand{'s' if hands != 1 else ''}.", style="bold"))
        if created is not None:
            await client.close_table(created.table_id, created.admin_token)
    final = await me.state()
    if (
        final.info.status == state_pb2.TABLE_STATUS_FINISHED
        and final.result.reason != state_pb2.RESULT_REASON_CLOSED
    ):
        draw = tac_render if tac else render
        console.print(draw.result_panel(final, side))
    await _save(client, me, options, console)


async def _save(client: AsyncClient, me: AsyncSeat, options: PlayOptions, console: Console) -> None:
    """Write the match record to `options.save` (if given): at the end, or once left."""
    if options.save is None:
        return
    record = await client.record(me.table_id)
    names = render.seat_names(await client.get_table(me.table_id))
    options.save.write_text(record.record + names_comment(names))
    console.print(
        Text(f"Record saved to {options.save} (kafana replay {options.save}).", style="dim")
    )


def default_name() -> str:
    """The person's login name (at most 40 characters), else "you"."""
    with contextlib.suppress(Exception):
        return getpass.getuser()[:40] or "you"
    return "you"
