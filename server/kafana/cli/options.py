"""Options several commands declare alike: one declaration each, a command's words as parameters
(`server_options`, `--tls-ca` and `--key`, is `kafana_client.cli.reach`'s)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click
from kafana_client.cli.numbers import Finite
from kafana_client.cli.reach import TARGET, server_options

from kafana.cli.boundary import DEFAULT_SERVER
from kafana.games.tablic import PRESETS
from kafana.service.games import GAMES

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

F = TypeVar("F", bound=Callable[..., Any])
C = TypeVar("C", bound="DataclassInstance")

COUNT = click.IntRange(0, 2**32 - 1)
"""A count the proto carries as uint32: refused here, before a call."""
SEED = click.IntRange(0, 2**64 - 1)
"""A deal seed: the rules core's 64-bit seeds."""
MILLIS = click.IntRange(0, 3_600_000)
"""A clock's milliseconds (per move, a grace, a no-show): up to an hour."""

PRESET = click.option("--preset", type=click.Choice(PRESETS), default="serbian", show_default=True)
"""`--preset`: the Tablić preset a match is played by."""


def game_option(help: str | None = None) -> Callable[[F], F]:
    """`--game`: a game this server runs (`kafana.service.games.GAMES`), Tablić by default."""
    return click.option(
        "--game", type=click.Choice(list(GAMES)), default="tablic", show_default=True, help=help
    )


def delay_option(default: float, help: str) -> Callable[[F], F]:
    """`--delay`: seconds a bot waits before each move (0 to 60)."""
    return click.option(
        "--delay", type=Finite(0, 60), default=default, show_default=True, help=help
    )


def options_of(cls: type[C], **given: Any) -> C:
    """A `cls` dataclass of what the running command was asked: each field named as one of
    its options takes that option's value, unless `given` (a value the command worked out);
    a field no option names keeps its default."""
    asked = click.get_current_context().params
    taken = {f.name for f in dataclasses.fields(cls)} - given.keys()
    return cls(**{name: value for name, value in asked.items() if name in taken}, **given)


def need_four(players: int, partnerships: bool) -> None:
    """Refuse `--partnerships` unless `--players` is 4 (a usage error, exit 2)."""
    if partnerships and players != 4:
        raise click.BadParameter("partnerships need --players 4", param_hint="--partnerships")


def hosting_server(help: str) -> Callable[[F], F]:
    """`--server` (KAFANA_SERVER; default `DEFAULT_SERVER`) of a command that calls the server
    hosting something (an event, a league), with `server_options`."""
    option = click.option(
        "--server",
        envvar="KAFANA_SERVER",
        type=TARGET,
        default=DEFAULT_SERVER,
        show_default=True,
        help=help,
    )

    def decorate(command: F) -> F:
        return option(server_options(command))

    return decorate
