"""`kafana table create`: a table of either game on a running server, every rule, clock and
bot seat, and the lines a person or a bot pastes next.

kafana table create --server HOST:PORT --preset tabinet --rule target=61 --move-ms 20000
kafana table create --server HOST:PORT --game tac --players 3 --rule tac_calls=true --bot 2=loader

It prints the table id, the admin token (shown once: it closes the table) and, for the seats
left open, `kafana play --table T` for a person and `kafana bot run SPEC --table T` for a bot
(each takes a seat and its own seat token when run). Everything is checked before the table
is made: a bad switch or option here, a bad bot seat by the server (INVALID_ARGUMENT).
"""

from __future__ import annotations

import contextlib
import shlex
from typing import Any

import click
from kafana_client.aio import CreatedTable
from kafana_client.cli import interrupt
from kafana_client.cli.numbers import bot_option
from kafana_client.cli.reach import TARGET, reach_args, reached, server_options
from kafana_client.cli.render import rules_text
from kafana_client.cli.rule_args import switches
from kafana_client.convert import config_of, rules_spec

from kafana.cli.options import MILLIS, SEED, game_option, need_four
from kafana.games.tablic import PRESETS
from kafana.v1 import rules_pb2

POLICIES = {
    "default_move": rules_pb2.TIMEOUT_POLICY_DEFAULT_MOVE,
    "forfeit": rules_pb2.TIMEOUT_POLICY_FORFEIT,
}
COUNT = click.IntRange(0, 1000)


@click.group()
def table() -> None:
    """Tables on a running server (`kafana tables` lists them)."""


def bot_seats(items: tuple[str, ...]) -> list[rules_pb2.BotSeat]:
    """`SEAT=BOT[,key=value...]` items as bot seats (the server checks seat, bot, options)."""
    out = []
    for item in items:
        seat, sep, rest = item.partition("=")
        name, *options = rest.split(",")
        if not sep or not seat.isdigit() or not name:
            raise click.BadParameter(
                f"expected SEAT=BOT[,key=value...] (e.g. 1=ismcts,budget_ms=100), not {item!r}",
                param_hint="--bot",
            )
        given: dict[str, str] = {}
        for option in options:
            key, eq, value = option.partition("=")
            if not eq or not key:
                raise click.BadParameter(f"expected key=value, not {option!r}", param_hint="--bot")
            with contextlib.suppress(ValueError):  # text: the server says if the bot takes it
                bot_option(key, value, float(value), "--bot")
            given[key] = value
        out.append(rules_pb2.BotSeat(seat=int(seat), bot=name, options=given))
    return out


@table.command()
@click.option(
    "--server", envvar="KAFANA_SERVER", type=TARGET, required=True, help="HOST:PORT of the server."
)
@server_options
@game_option()
@click.option("--players", type=click.IntRange(2, 8), default=2, show_default=True)
@click.option("--partnerships", is_flag=True, help="Tablić: four players, 2 against 2.")
@click.option(
    "--preset", type=click.Choice(PRESETS), default=None, help="Tablić (default serbian)."
)
@click.option(
    "--rule", "rules", multiple=True, metavar="NAME=VALUE",
    help="A rule switch of the game, repeatable (e.g. target=61, must_capture=true, "
    "card_points=A=1,10D=2; Tač: decks=2, tac_calls=true). `kafana rules` shows them.",
)  # fmt: skip
@click.option("--move-ms", type=MILLIS, default=0, help="A clock: ms per move (0: none).")
@click.option(
    "--on-timeout", type=click.Choice(list(POLICIES)), default="default_move", show_default=True,
    help="Out of time: the server plays a default move, or the seat forfeits.",
)  # fmt: skip
@click.option("--forfeit-after", type=COUNT, default=0, help="The N-th timeout forfeits (0: off).")
@click.option("--disconnect-grace-ms", type=MILLIS, default=0, help="An absent seat to move...")
@click.option(
    "--on-disconnect", type=click.Choice(list(POLICIES)), default="default_move",
    show_default=True, help="...after the grace: a default move, or a forfeit.",
)  # fmt: skip
@click.option("--no-show-ms", type=MILLIS, default=0, help="A seat never seen by then forfeits.")
@click.option("--illegal-limit", type=COUNT, default=0, help="The N-th illegal move forfeits.")
@click.option(
    "--seed", type=SEED, default=None,
    help="Deal seed (you then know every hand; players are told so). Default: a secret one.",
)  # fmt: skip
@click.option("--name", default="", help="A label for lists (at most 80 characters).")
@click.option("--hints", is_flag=True, help="Serve the engine's advice to the seats.")
@click.option(
    "--bot", "bots", multiple=True, metavar="SEAT=BOT[,k=v]",
    help="A built-in bot the server plays at SEAT (e.g. 1=greedy, 1=ismcts,budget_ms=100).",
)  # fmt: skip
def create(
    server: str,
    game: str,
    players: int,
    partnerships: bool,
    preset: str | None,
    rules: tuple[str, ...],
    move_ms: int,
    on_timeout: str,
    forfeit_after: int,
    disconnect_grace_ms: int,
    on_disconnect: str,
    no_show_ms: int,
    illegal_limit: int,
    seed: int | None,
    name: str,
    hints: bool,
    bots: tuple[str, ...],
) -> None:
    """Create a table; print its id, its admin token and what to run next."""
    if game == "tac" and (preset or partnerships):
        flag = "--preset" if preset else "--partnerships"
        raise click.UsageError(f"{flag} is an option of --game tablic, not of tac")
    need_four(players, partnerships)
    spec = rules_spec(
        game,
        players=players,
        partnerships=partnerships,
        preset=(preset or "serbian") if game == "tablic" else None,
    )
    config = config_of(spec, (), switches(game, rules), move_ms, False, name, seed)
    config.clock.policy = POLICIES[on_timeout]
    config.clock.forfeit_after_timeouts = forfeit_after
    config.clock.disconnect_grace_millis = disconnect_grace_ms
    config.clock.on_disconnect = POLICIES[on_disconnect]
    config.clock.no_show_millis = no_show_ms
    config.clock.illegal_limit = illegal_limit
    config.hints = hints
    config.bots.extend(bot_seats(bots))

    async def make() -> CreatedTable:
        async with reached(server) as client:
            return await client.create_table(config)

    created = interrupt.run(make())
    show(created, server)


def show(created: CreatedTable, server: str) -> None:
    """The table made and the lines to run next (with --server and --tls-ca; never the key:
    whoever takes a seat uses their own, `--key` or KAFANA_KEY)."""
    info = created.info
    reach = ["--server", server, *reach_args(key=False)]
    click.echo(f"table {created.table_id}")
    click.echo(f"admin token {created.admin_token}  (keep it: it closes the table; shown once)")
    click.echo(f"rules: {rules_text(info.rules)}")
    if info.clock.move_millis:
        click.echo(f"clock: {info.clock.move_millis / 1000:g} s a move")
    if info.deal_chosen_by_creator:
        click.echo("chosen deal: the seed is yours, so you know every hand (players are told)")
    seats = [f"{s.seat} {s.name or 'bot'}" if s.taken else f"{s.seat} open" for s in info.seats]
    click.echo(f"seats: {', '.join(seats)}")
    if any(not s.taken for s in info.seats):
        click.echo("a person takes a seat with:")
        click.echo(f"  {_line('kafana', 'play', '--table', created.table_id, *reach)}")
        click.echo("a bot (SPEC: a bot name, module:Class or ./file.py:Class) with:")
        click.echo(
            f"  {_line('kafana', 'bot', 'run', 'SPEC', '--table', created.table_id, *reach)}"
        )
    click.echo("anyone watches with:")
    click.echo(f"  {_line('kafana', 'watch', created.table_id, *reach)}")


def _line(*words: Any) -> str:
    return shlex.join(str(word) for word in words)
