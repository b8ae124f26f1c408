"""`kafana play`: a person plays Tablić or Tač in the terminal against bots or people."""

from __future__ import annotations

import asyncio
import contextlib
import getpass
import random
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, replace
from pathlib import Path

import click
from kafana.games.tablic import PRESETS
from kafana.v1 import state_pb2
from kafana_bots import registry
from rich.console import Console
from rich.text import Text

from kafana_client.aio import AsyncClient, AsyncSeat, CreatedTable
from kafana_client.bots import run_bot
from kafana_client.cli import render, tac_render
from kafana_client.cli.embedded import embedded_server, quiet_grpc
from kafana_client.cli.session import Outcome, PersonAtTable, Quit
from kafana_client.cli.tac_session import TacPersonAtTable
from kafana_client.connection import Tls
from kafana_client.convert import rules_of, table_config
from kafana_client.errors import RpcError
from kafana_client.tac import run_tac_bot, tac_rules_of, tac_table_config

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


@contextlib.asynccontextmanager
async def _target(server: str | None) -> AsyncIterator[str]:
    if server:
        yield server
        return
    async with embedded_server() as target:
        yield target


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
        task: asyncio.Task[object]
        if options.game == "tac":
            tac_bot = registry.create(name, seat=seat.seat, rules=tac_rules_of(table.info), rng=rng)
            task = asyncio.create_task(run_tac_bot(seat, tac_bot, delay=options.delay))
        else:
            bot = registry.create(name, seat=seat.seat, rules=rules_of(table.info), rng=rng)
            task = asyncio.create_task(run_bot(seat, bot, delay=options.delay))
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
            )
        )
    config = table_config(
        preset=options.preset,
        players=options.players,
        partnerships=options.partnerships,
        target=options.target,
        seed=options.seed,
        name=f"{options.name} in the terminal",
    )
    return await client.create_table(config)


async def run(options: PlayOptions, console: Console) -> Outcome | None:
    """Set up the table (and the server when none is given) and play; None if the person quit."""
    tls = Tls(root_certificates=options.tls_ca) if options.tls_ca else None
    async with _target(options.server) as target, AsyncClient.connect(target, tls=tls) as client:
        created: CreatedTable | None = None
        if options.table_id:
            table_id = options.table_id
            info = await client.get_table(table_id)
            options = replace(options, game=info.rules.game or "tablic")  # the table's game
            me = await client.join(table_id, seat=options.seat, name=options.name)
            tasks: list[asyncio.Task[object]] = []
        else:
            created = await _create(client, options)
            me = await client.join(created.table_id, seat=options.seat, name=options.name)
            tasks = await _seat_bots(client, created, options, console)
            if OPEN in options.bots:
                console.print(
                    Text(
                        f"Waiting for people: kafana play --server {target} "
                        f"--table {created.table_id}",
                        style="bold",
                    )
                )
        console.print(Text(f"You are {options.name}, seat {me.seat}.", style="bold"))
        try:
            if options.game == "tac":
                outcome = await TacPersonAtTable(me, console).play()
            else:
                outcome = await PersonAtTable(me, console).play(options.hands)
        except Quit:
            console.print("You left the table.")
            await _leave(me, created, client)
            return None
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        await _finish(client, me, created, outcome, options, console)
        return outcome


async def _leave(me: AsyncSeat, created: CreatedTable | None, client: AsyncClient) -> None:
    with contextlib.suppress(RpcError):
        if created is not None:
            await client.close_table(created.table_id, created.admin_token)
        else:
            await me.leave()


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
    if final.info.status == state_pb2.TABLE_STATUS_FINISHED and final.result.reason != "closed":
        draw = tac_render if tac else render
        console.print(draw.result_panel(final, side))
    if options.save is not None:
        record = await client.record(me.table_id)
        options.save.write_text(record.record)
        console.print(
            Text(f"Record saved to {options.save} (kafana replay {options.save}).", style="dim")
        )


@click.command()
@click.option(
    "--server", default=None, help="HOST:PORT of a Kafana server; none: run one in-process."
)
@click.option(
    "--tls-ca",
    type=click.Path(exists=True, path_type=Path),
    default=None,
    help="Use TLS with this root certificate (PEM).",
)
@click.option("--table", "table_id", default=None, help="Join this table instead of creating one.")
@click.option(
    "--seat",
    type=click.IntRange(0, 7),
    default=None,
    help="The seat wanted (default: the first free one).",
)
@click.option("--name", default=None, help="Your name at the table.")
@click.option(
    "--game",
    type=click.Choice(["tablic", "tac"]),
    default="tablic",
    show_default=True,
    help="The game: Tablić or Tač.",
)
@click.option(
    "--bots",
    default=None,
    help=f"Comma-separated bots for the other seats (Tablić: {', '.join(registry.names())}, "
    f"default heuristic; Tač: {', '.join(registry.names('tac'))}, default loader); "
    f"'{OPEN}' leaves a seat for a person.",
)
@click.option(
    "--players",
    type=click.IntRange(2, 8),
    default=2,
    show_default=True,
    help="Seats: 2-4 (Tač: 2, 3, 4 on one deck; 2, 4, 8 on two).",
)
@click.option("--decks", type=click.IntRange(1, 2), default=1, show_default=True, help="Tač decks.")
@click.option("--tac-calls", is_flag=True, help="Tač: accept out-of-order moves, to be called.")
@click.option("--play-on", is_flag=True, help="Tač: play on for every place.")
@click.option("--partnerships", is_flag=True, help="Four players in two partnerships.")
@click.option("--preset", type=click.Choice(PRESETS), default="serbian", show_default=True)
@click.option(
    "--target", type=click.IntRange(0), default=0, help="Points to win (0: the preset's)."
)
@click.option(
    "--seed", type=click.IntRange(0, 2**63 - 1), default=None, help="Deal seed (replayable match)."
)
@click.option("--hands", type=click.IntRange(1), default=None, help="Stop after this many hands.")
@click.option(
    "--delay",
    type=click.FloatRange(0),
    default=0.7,
    show_default=True,
    help="Seconds before each bot move.",
)
@click.option(
    "--save",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write the match record here at the end.",
)
def play(
    server: str | None,
    tls_ca: Path | None,
    table_id: str | None,
    seat: int | None,
    name: str | None,
    game: str,
    bots: str | None,
    players: int,
    decks: int,
    tac_calls: bool,
    play_on: bool,
    partnerships: bool,
    preset: str,
    target: int,
    seed: int | None,
    hands: int | None,
    delay: float,
    save: Path | None,
) -> None:
    """Play Tablić (or Tač, --game tac) in the terminal against bots, or people via a server."""
    quiet_grpc()
    names = tuple(b.strip() for b in (bots or DEFAULT_BOT[game]).split(",") if b.strip())
    for bot in names:
        if bot != OPEN and bot not in registry.names(game):
            raise click.BadParameter(
                f"unknown {game} bot {bot!r}: choose from {', '.join(registry.names(game))}",
                param_hint="--bots",
            )
    if players not in PLAYERS[game]:
        raise click.BadParameter(
            f"{game} is played by {', '.join(map(str, PLAYERS[game]))} players",
            param_hint="--players",
        )
    options = PlayOptions(
        server=server,
        table_id=table_id,
        seat=seat,
        name=name or _default_name(),
        bots=names,
        players=players,
        partnerships=partnerships,
        preset=preset,
        target=target,
        seed=seed,
        hands=hands,
        delay=delay,
        save=save,
        tls_ca=tls_ca,
        game=game,
        decks=decks,
        tac_calls=tac_calls,
        play_on=play_on,
    )
    console = Console(highlight=False)
    try:
        asyncio.run(run(options, console))
    except RpcError as error:
        raise click.ClickException(
            f"the server refused: {error.message} ({error.code.name})"
        ) from None
    except KeyboardInterrupt:
        console.print("\nBye.")


def _default_name() -> str:
    with contextlib.suppress(Exception):
        return getpass.getuser()[:40] or "you"
    return "you"
