"""`kafana bot run`: any bot plays a seat at a table on a running server.

The bot is a registry name (`greedy`) or `module:Class` (a `Bot` subclass, built with
`(seat, rules, rng, **options)`). It plays through `kafana_client.remote.run_remote`: the
seat loop follows the table's event feed, answers its turns and resumes after a lost
connection or a server restart. Run as `kafana bot run ...` or `python -m kafana.cli bot run ...`.
"""

from __future__ import annotations

import asyncio
import importlib
import random
import sys
from collections.abc import Callable
from typing import Any

import click
from kafana_bots import Bot, registry
from kafana_client.aio import AsyncSeat
from kafana_client.cli.key import cli_key, key_option
from kafana_client.connection import Tls
from kafana_client.remote import run_remote

from kafana.games.tablic import Rules


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
@key_option
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
            key=cli_key(),
        )
    )
    click.echo(f"match over: scores {list(final.tablic.scores)}")
    sys.stdout.flush()
