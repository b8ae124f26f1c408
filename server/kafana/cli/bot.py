"""`kafana bot run`: any bot plays a seat at a table on a running server.

The bot is a registry name (`greedy`, Tač: `loader`), `module:Class` (found in the current
folder first) or `./file.py:Class`: a `Bot` or `TacBot` subclass, built with
`(seat, rules, rng, **options)`. Everything is checked before the seat is taken (the bot, its
options, the table). It plays through `kafana_client.remote.run_remote`: the seat loop
follows the table's event feed, answers its turns and resumes after a lost connection or a
server restart. Run as `kafana bot run ...` or `python -m kafana.cli bot run ...`.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable

import click
from kafana_bots import Bot
from kafana_bots.tac_bots import TacBot
from kafana_client.aio import AsyncSeat
from kafana_client.cli import interrupt
from kafana_client.cli.numbers import Finite
from kafana_client.cli.reach import TARGET, cli_key, cli_tls, server_options
from kafana_client.remote import run_remote

from kafana.cli.bot_spec import load, parse_options
from kafana.cli.options import delay_option
from kafana.games import tablic, tac


@click.group()
def bot() -> None:
    """Bots that play on a Kafana server."""


@bot.command("run")
@click.argument("spec")
@click.option("--server", type=TARGET, required=True, help="HOST:PORT of the Kafana server.")
@click.option("--table", "table_id", required=True, help="The table to play at.")
@click.option(
    "--seat", type=click.IntRange(0, 7), default=None, help="Seat wanted (default: first free)."
)
@click.option("--token", default=None, help="Resume a seat already held, by its token.")
@click.option("--name", default="", help="Name shown at the table (default: the spec).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the bot's generator.")
@click.option("--option", "-o", "options", multiple=True, help="Bot option key=value, repeatable.")
@click.option(
    "--poll",
    type=Finite(0.1, 60),
    default=2.0,
    show_default=True,
    help="Seconds between checks for a turn the feed did not announce (after a restart).",
)
@delay_option(0.0, "Seconds before each move.")
@server_options
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
) -> None:
    """Play SPEC (a bot name, module:Class or ./file.py:Class) at a table until the match ends.

    \b
    kafana bot run greedy --server localhost:50051 --table T
    kafana bot run ./mybot.py:MyBot --server localhost:50051 --table T -o depth=2

    Options (-o) are the bot's keyword arguments after (seat, rules, rng): MyBot's
    `__init__(self, seat, rules, rng, depth: int = 1)` takes -o depth=2.
    """
    found = load(spec)
    extra = parse_options(options)
    for game in found.factories:
        found.check_options(game, extra)

    def make_bot(at: int, rules: tablic.Rules | tac.Rules) -> Bot | TacBot:
        game = "tac" if isinstance(rules, tac.Rules) else "tablic"
        found.check_options(game, extra)
        return found.factory(game)(at, rules, random.Random(f"{seed}:{at}"), **extra)

    def announce(held: AsyncSeat) -> None:
        click.echo(f"seat {held.seat} token {held.token}", err=True)

    final = interrupt.run(
        run_remote(
            server=server,
            table_id=table_id,
            make_bot=make_bot,
            seat=seat,
            token=token,
            name=name or spec,
            poll=poll,
            delay=delay,
            tls=cli_tls(),
            on_seat=announce,
            key=cli_key(),
        )
    )
    if final.WhichOneof("game") == "tac":
        click.echo(f"match over: places {list(final.result.places)}")
    else:
        click.echo(f"match over: scores {list(final.tablic.scores)}")
    sys.stdout.flush()


def load_factory(spec: str, game: str = "tablic") -> Callable[..., Bot | TacBot]:
    """The factory SPEC names for `game` (Tablić by default; a class plays its own game)."""
    found = load(spec)
    return found.factory(game if game in found.factories or ":" not in spec else found.game)


_parse_options = parse_options
"""The `-o key=value` parser (the name other commands import)."""
