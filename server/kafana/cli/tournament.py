"""`kafana tournament run` and the organiser's pause, resume, end and adjudicate."""

from __future__ import annotations

import contextlib
import random
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import click
from kafana_client.cli import interrupt
from kafana_client.cli.reach import Target, cli_key, reached, server_options

from kafana.cli import tournament_hosted as hosted
from kafana.cli.bot_spec import BotSpec, load
from kafana.cli.tournament_hosted import rules_options, show_event, with_events
from kafana.competitions import exports
from kafana.competitions.control import EventControl
from kafana.competitions.hosted.redis_store import RedisEvents
from kafana.competitions.local_runner import BotFactory, run_local
from kafana.competitions.model import GameResult
from kafana.competitions.policy import Action, FaultPolicy
from kafana.competitions.ratings import RatingBook
from kafana.competitions.tournament import GAMES, EventConfig, Kind, Tournament
from kafana.errors import KafanaError
from kafana.store.client import RedisClient
from kafana.store.errors import StoreError, StoreUnavailable

OPTIONAL_TARGET = Target(optional=True)
"""`--server` where "" (none) plays the games in this process."""


@click.group()
def tournament() -> None:
    """Tournaments: hosted by a server (create, enter, start, status, watch), or run here."""


def _entrants(specs: tuple[str, ...]) -> dict[str, str]:
    """NAME=BOT or BOT (named BOT, BOT-2, ... when repeated) -> {name: bot}; a NAME given
    twice is a usage error (a bare BOT is never renamed into it)."""
    named = [spec.partition("=")[0] for spec in specs if "=" in spec]
    twice = sorted({name for name in named if named.count(name) > 1})
    if twice:
        raise click.BadParameter(
            f"entrant {twice[0]!r} is named twice: entrants' names are distinct",
            param_hint="ENTRANTS",
        )
    out: dict[str, str] = {}
    for spec in specs:
        given = "=" in spec
        name, _, bot = spec.partition("=") if given else (spec, "", spec)
        base, n = name, 1
        while name in out or (not given and name in named):
            n += 1
            name = f"{base}-{n}"
        out[name] = bot
    return out


def spec_bots(bot_of: dict[str, str], game: str) -> BotFactory:
    """Each entrant's bot from its SPEC (a registry name, `module:Class`, `./file.py:Class`):
    every spec is loaded and checked against `game` now, before a game is played (`remote:`
    entrants are loaded by their own process)."""
    found: dict[str, BotSpec] = {}
    for name, spec in bot_of.items():
        if not spec.startswith("remote:"):
            found[name] = load(spec)
            found[name].factory(game)  # a bot of the other game: a usage error now

    def factory(entrant: str, seat: int, rules: Any, rng: random.Random) -> Any:
        return found[entrant].factory(game)(seat, rules, rng)

    return factory


@tournament.command("run")
@click.argument("entrants", nargs=-1, required=True)
@click.option(
    "--kind",
    type=click.Choice([k.value for k in Kind if k is not Kind.ARENA]),  # arenas: hosted only
    default="swiss",
)
@click.option("--name", default="event", help="The event's name.")
@click.option(
    "--rounds", type=click.IntRange(0), default=0, help="Swiss rounds (0: ceil(log2(entrants)))."
)
@click.option("--boards", type=click.IntRange(1), default=2, help="Duplicate: boards per table.")
@click.option("--game", type=click.Choice(list(GAMES)), default="tablic", help="The game.")
@click.option("--players", type=click.IntRange(2, 4), default=2, help="Players per game.")
@click.option("--partnerships", is_flag=True, help="Four players as 2 against 2 (Tablić).")
@rules_options
@click.option(
    "--chosen-seed",
    type=int,
    default=None,
    help="Deal every game from this event seed (reproducible, and predictable by whoever knows "
    "it; the records say so). Default: a fresh secret per game.",
)
@click.option(
    "--ratings",
    "ratings_file",
    type=click.Path(dir_okay=False, exists=True),
    default=None,
    help="ratings.json of an earlier event: a Swiss pairs round 1 by it, and ratings go on.",
)
@click.option(
    "--server", type=OPTIONAL_TARGET, default="", help="HOST:PORT: play every game on that server."
)
@server_options
@click.option("--parallel", type=click.IntRange(1), default=4, help="Games at once on a server.")
@click.option("--out", type=click.Path(file_okay=False), default=None, help="Export directory.")
@click.option(
    "--control-redis",
    default="",
    help="redis://... where organisers pause, end and adjudicate this event (with --server).",
)
def run(
    entrants: tuple[str, ...],
    kind: str,
    name: str,
    rounds: int,
    boards: int,
    game: str,
    players: int,
    partnerships: bool,
    preset: str,
    target: int,
    move_ms: int | None,
    on_timeout: str,
    chosen_seed: int | None,
    ratings_file: str | None,
    server: str,
    parallel: int,
    out: str | None,
    control_redis: str,
    seed: int | None = None,
) -> None:
    """Play an event between ENTRANTS (`NAME=SPEC` or SPEC: a bot name, module:Class or
    ./file.py:Class) and report.

    With --server, `NAME=remote:SPEC` enters a bot that plays as its own process through the
    remote bot runner (`python -m kafana.cli bot run SPEC ...`).

    \b
    kafana tournament run greedy heuristic random ismcts --kind swiss --target 51
    kafana tournament run greedy heuristic random --players 3 --kind duplicate --boards 1
    kafana tournament run loader random random --game tac --players 3
    kafana tournament run a=greedy b=heuristic --kind duplicate --server localhost:50051
    """
    if seed is not None:
        click.echo(
            "--seed is refused: fresh secrets deal every game; --chosen-seed N reproduces an "
            "event, predictably for whoever knows N",
            err=True,
        )
        raise SystemExit(2)
    if chosen_seed is not None:
        click.echo(
            f"warning: organiser-chosen seed {chosen_seed}: every deal is predictable by whoever "
            "knows it (records say `deal organiser-chosen`)",
            err=True,
        )
    move_ms = move_ms or 0  # `run` plays without a clock unless told
    for option, value in (("--target", target), ("--move-ms", move_ms)):
        if value < 0:
            raise click.BadParameter(f"{value} is negative", param_hint=option)
    bots = _entrants(entrants)
    remote = {n: b.removeprefix("remote:") for n, b in bots.items() if b.startswith("remote:")}
    if remote and not server:
        raise click.UsageError("remote entrants play through a server: give --server")
    policy = FaultPolicy(move_ms=move_ms, on_timeout=Action(on_timeout))
    try:
        config = EventConfig(
            name, Kind(kind), tuple(bots), rounds, boards, preset=preset, target=target,
            chosen_seed=chosen_seed, policy=policy, game=game, players=players,
            partnerships=partnerships,
        )  # fmt: skip
        book = RatingBook()
        if ratings_file is not None:
            book = RatingBook.from_json(Path(ratings_file).read_text(encoding="utf-8"))
            config = replace(config, ratings=book.seeding(config.pool, config.entrants))
    except KafanaError as error:
        raise click.UsageError(str(error)) from None
    except (ValueError, KeyError, TypeError) as error:  # not what `ratings.json` holds
        raise click.UsageError(f"--ratings {ratings_file}: not a ratings.json ({error})") from None
    event = Tournament(config, book)
    made = spec_bots(bots, game)

    def progress(result: GameResult) -> None:
        spec = event.game(result.game_id)
        score = exports.score_text(result.scores, result.side_places(len(spec.sides)))
        click.echo(f"{result.game_id}: {' - '.join(spec.seats)}  {score} ({result.ending.value})")

    if server:
        interrupt.run(_on_server(server, event, made, parallel, progress, remote, control_redis))
    else:
        run_local(event, made, on_result=progress)
    click.echo(exports.report_text(event), nl=False)
    if out is not None:
        folder = Path(out)
        folder.mkdir(parents=True, exist_ok=True)
        files = exports.all_exports(event)
        for filename, text in files.items():
            (folder / filename).write_text(text, encoding="utf-8")
        click.echo(f"exports in {folder}/: {' '.join(files)}")


@contextlib.asynccontextmanager
async def _control(url: str, event: str) -> AsyncIterator[EventControl]:
    """The controls of `event` in the event store at `url` (the store's own Redis client)."""
    client = RedisClient.from_url(url)
    try:
        yield EventControl(RedisEvents(client), event)
    finally:
        await client.close()


async def _on_server(
    target: str,
    event: Tournament,
    bots: BotFactory,
    parallel: int,
    progress: Callable[[GameResult], None],
    remote: dict[str, str],
    control_redis: str,
) -> None:

    from kafana.cli.runner.server_runner import run_on_server

    async with contextlib.AsyncExitStack() as stack:
        control = None
        if control_redis:
            control = await stack.enter_async_context(_control(control_redis, event.config.name))
        client = await stack.enter_async_context(reached(target))
        await run_on_server(
            client,
            event,
            bots,
            parallel=parallel,
            on_result=progress,
            remote=remote,
            control=control,
        )


def _organiser(
    action: str, event: str, redis_url: str, game: str, winner: str, note: str, server: str,
    token: str,
) -> None:  # fmt: skip
    """An organiser's action: on a `tournament run` event (its control Redis) or a hosted one."""
    if server:
        _hosted_organiser(action, event, server, token, game, winner, note)
        return
    if not redis_url:
        raise click.UsageError(
            "give --redis URL (a `tournament run` event) or --server and --token"
        )

    async def act() -> None:
        async with _control(redis_url, event) as control:
            if not (await control.store.control(event))[0]:
                raise click.ClickException(
                    f"no event {event!r} at {redis_url}: it is the --name of a `tournament run "
                    "--control-redis` (or give --server and --token for a hosted event)"
                )
            if action == "adjudicate":
                await control.adjudicate(game, None if winner == "draw" else int(winner), note)
            else:
                await getattr(control, action)(note)

    try:
        interrupt.run(act())
    except (StoreUnavailable, StoreError, OSError) as error:
        raise click.ClickException(f"the control Redis at {redis_url} failed: {error}") from None
    except ValueError as error:  # not a Redis URL
        raise click.UsageError(f"--redis {redis_url}: {error}") from None
    click.echo(f"{event}: {action} {game} {winner}".rstrip())


def _hosted_organiser(
    action: str, event: str, server: str, token: str, game: str, winner: str, note: str
) -> None:
    """An organiser's action on an event hosted by `server` (the organiser token)."""

    if not token and not cli_key():
        raise click.UsageError("--server needs the organiser --token (or an operator's --key)")

    async def job(client: Any, events: Any) -> Any:
        if action == "adjudicate":
            seat = None if winner == "draw" else int(winner)
            return await events.adjudicate(event, token, game, seat, note)
        return await getattr(events, action)(event, token, note)

    show_event(with_events(server, job))


_ORGANISER_OPTIONS = (
    click.option(
        "--redis", "redis_url", default="", help="The control Redis of a `tournament run` event."
    ),
    click.option("--note", default="", help="Why (kept with the event)."),
    click.option(
        "--server",
        type=OPTIONAL_TARGET,
        default="",
        help="HOST:PORT: an event hosted by this server.",
    ),
    click.option("--token", default="", help="The organiser token (with --server)."),
    server_options,
)


def _organiser_options(command: Callable[..., None]) -> Callable[..., None]:
    """The options every organiser command takes."""
    for option in reversed(_ORGANISER_OPTIONS):
        command = option(command)
    return command


def _status_command(action: str, help: str) -> click.Command:
    """`kafana tournament ACTION EVENT`: pause, resume or end an event."""

    def command(event: str, redis_url: str, note: str, server: str, token: str) -> None:
        _organiser(action, event, redis_url, "", "", note, server, token)

    command.__doc__ = help
    return click.command(action)(click.argument("event")(_organiser_options(command)))


for _action, _help in (
    ("pause", "Pause EVENT: no new game starts (running games finish)."),
    ("resume", "Resume a paused EVENT."),
    ("end", "End EVENT now: running games stop, undecided ones are recorded as not played."),
):
    tournament.add_command(_status_command(_action, _help))


@tournament.command()
@click.argument("event")
@click.argument("game")
@click.argument("winner", type=click.Choice(["0", "1", "draw"]))
@_organiser_options
def adjudicate(
    event: str, game: str, winner: str, redis_url: str, note: str, server: str, token: str
) -> None:
    """Decide GAME of EVENT: WINNER is the winning seat (0 or 1) or draw."""
    _organiser("adjudicate", event, redis_url, game, winner, note, server, token)


for _command in (
    hosted.create, hosted.enter, hosted.check_in, hosted.start, hosted.status, hosted.watch,
    hosted.withdraw, hosted.disqualify, hosted.list_events, hosted.registration,
):  # fmt: skip
    tournament.add_command(_command)
