"""`kafana play`: the command of the terminal client (`kafana_client.cli.play`).

Without --server it first starts a server in-process (memory store) and plays there.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import click
from kafana_bots import registry
from kafana_client.cli import interrupt
from kafana_client.cli.paths import OUTPUT_FILE
from kafana_client.cli.play import DEFAULT_BOT, OPEN, PLAYERS, PlayOptions, default_name, run
from kafana_client.cli.reach import TARGET, cli_tls_ca, server_options
from kafana_client.cli.session import Outcome
from rich.console import Console

from kafana.cli.boundary import INTERRUPTED
from kafana.cli.embedded import embedded_server
from kafana.cli.options import (
    MILLIS,
    PRESET,
    SEED,
    delay_option,
    game_option,
    need_four,
    options_of,
)


async def _run(options: PlayOptions, console: Console) -> Outcome | None:
    """Play on the server given, or on one started here for the match."""
    if options.server:
        return await run(options, console)
    async with embedded_server() as target:
        return await run(replace(options, server=target), console)


@click.command()
@click.option(
    "--server",
    type=TARGET,
    default=None,
    help="HOST:PORT of a Kafana server; none: run one in-process.",
)
@server_options
@click.option("--table", "table_id", default=None, help="Join this table instead of creating one.")
@click.option(
    "--seat",
    type=click.IntRange(0, 7),
    default=None,
    help="The seat wanted (default: the first free one).",
)
@click.option("--name", default=None, help="Your name at the table.")
@game_option("The game: Tablić or Tač.")
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
@click.option("--building", is_flag=True, help="Tablić: builds and raises (docs/rules.md).")
@PRESET
@click.option(
    "--target", type=click.IntRange(0), default=0, help="Points to win (0: the preset's)."
)
@click.option("--seed", type=SEED, default=None, help="Deal seed (replayable match).")
@click.option("--hands", type=click.IntRange(1), default=None, help="Stop after this many hands.")
@click.option(
    "--move-ms",
    type=MILLIS,
    default=0,
    help="A clock: milliseconds per move, then the server plays for the seat (0: none).",
)
@delay_option(0.7, "Seconds before each bot move.")
@click.option(
    "--save",
    type=OUTPUT_FILE,
    default=None,
    help="Write the match record here at the end (also when you leave it).",
)
def play(
    server: str | None,
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
    building: bool,
    preset: str,
    target: int,
    seed: int | None,
    hands: int | None,
    move_ms: int,
    delay: float,
    save: Path | None,
) -> None:
    """Play Tablić (or Tač, --game tac) in the terminal against bots, or people via a server."""
    names = tuple(b.strip() for b in (bots or DEFAULT_BOT[game]).split(",") if b.strip())
    for bot in names:
        if bot != OPEN and bot not in registry.names(game):
            raise click.BadParameter(
                f"unknown {game} bot {bot!r}: choose from {', '.join(registry.names(game))}",
                param_hint="--bots",
            )
    if table_id is None and len(names) > players - 1:  # (fewer repeat, seat after seat)
        raise click.BadParameter(
            f"{len(names)} bots for the {players - 1} other seat(s) of a table of {players}",
            param_hint="--bots",
        )
    _refuse_other_game(game, tac_calls, play_on, decks, partnerships, target, preset, building)
    need_four(players, partnerships)
    if seat is not None and table_id is None and seat >= players:
        raise click.BadParameter(
            f"seat {seat} does not exist at a table of {players}: seats are 0..{players - 1}",
            param_hint="--seat",
        )
    if players not in PLAYERS[game]:
        raise click.BadParameter(
            f"{game} is played by {', '.join(map(str, PLAYERS[game]))} players",
            param_hint="--players",
        )
    options = options_of(PlayOptions, name=name or default_name(), bots=names, tls_ca=cli_tls_ca())
    console = Console(highlight=False)
    try:
        interrupt.run(_run(options, console))
    except KeyboardInterrupt:
        console.print("\nInterrupted: you left the table.")
        raise SystemExit(INTERRUPTED) from None


def _refuse_other_game(
    game: str,
    tac_calls: bool,
    play_on: bool,
    decks: int,
    partnerships: bool,
    target: int,
    preset: str,
    building: bool = False,
) -> None:
    """An option of the other game is refused, not ignored."""
    if game == "tablic":
        given = [("--tac-calls", tac_calls), ("--play-on", play_on), ("--decks", decks != 1)]
        other = "tac"
    else:
        given = [
            ("--partnerships", partnerships),
            ("--target", target != 0),
            ("--preset", preset != "serbian"),
            ("--building", building),
        ]
        other = "tablic"
    for name, used in given:
        if used:
            raise click.UsageError(f"{name} is an option of --game {other}, not of {game}")
