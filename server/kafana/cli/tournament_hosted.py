"""`kafana tournament create | enter | start | status | watch`: hosted events from the terminal.

kafana tournament create friday --server HOST:PORT --format swiss --target 51 --move-ms 20000
kafana tournament enter EVENT greedy-1 --bot greedy --server HOST:PORT
kafana tournament enter EVENT ana --server HOST:PORT            # prints ana's entry token
kafana tournament start EVENT --token ORGANISER --server HOST:PORT
kafana tournament watch EVENT --token ENTRY --play --server HOST:PORT   # a person plays
kafana tournament watch EVENT --token ENTRY --bot mybots:Bot --server HOST:PORT
kafana tournament status EVENT --server HOST:PORT --out results/
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import itertools
import random
import shlex
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import click
from kafana_client.cli import interrupt
from kafana_client.cli.reach import cli_key, reach_args, reached
from kafana_client.cli.rule_args import switches
from kafana_client.cli.words import plural
from kafana_client.tournaments import enum_name

from kafana.cli.options import COUNT, PRESET, SEED, game_option, hosting_server
from kafana.competitions.hosted.event import DEFAULT_MOVE_MS, DEFAULT_TIMEOUTS_TO_FORFEIT
from kafana.competitions.policy import Action
from kafana.competitions.tournament import Kind
from kafana.competitions.wire import rules_spec
from kafana.v1 import competitions_pb2 as pb
from kafana.v1 import rules_pb2

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])
SERVER = hosting_server("HOST:PORT of the Kafana server hosting the event.")
"""`--server`, `--tls-ca` and `--key` (KAFANA_KEY, the API key sent with every call)."""


_RULES_OPTIONS = (
    PRESET,
    click.option("--target", type=COUNT, default=0, help="Points to win (0: the preset's)."),
    # refused with a pointer to --chosen-seed (fresh secrets deal every game): not in --help
    click.option("--seed", type=int, default=None, hidden=True),
    click.option(
        "--move-ms",
        type=COUNT,
        default=None,
        help="Time per move in ms (0: no clock; default: 10000 hosted, none for `run`).",
    ),
    click.option(
        "--on-timeout", type=click.Choice([a.value for a in Action]), default="default_move"
    ),
)


_FAULT_OPTIONS = (
    click.option(
        "--timeouts-to-forfeit", type=COUNT, default=None,
        help="A seat forfeits the game at this many timeouts (default: 3 with a clock; 0: never).",
    ),
    click.option(
        "--disconnect-grace-ms", type=COUNT, default=0,
        help="The seat to move is disconnected when not seen this long (0: 5000).",
    ),
    click.option(
        "--on-disconnect", type=click.Choice([a.value for a in Action]), default="forfeit_match",
        show_default=True,
    ),
    click.option(
        "--illegal-limit", type=COUNT, default=0,
        help="Refused illegal moves at which a seat forfeits (0: 3).",
    ),
    click.option(
        "--no-show-ms", type=COUNT, default=0,
        help="A seat not seen this long after its table was made forfeits (0: not checked).",
    ),
)  # fmt: skip


def _fault_options(command: Callable[..., None]) -> Callable[..., None]:
    """The fault policy's options of a hosted event (beyond --move-ms and --on-timeout)."""
    for option in reversed(_FAULT_OPTIONS):
        command = option(command)
    return command


_UNITS = {"s": 1_000, "m": 60_000, "h": 3_600_000}


def duration_ms(text: str, option: str) -> int:
    """Milliseconds of `N[smh]` (a bare N: seconds); a usage error naming `option` if bad.

    >>> duration_ms("10m", "--check-in"), duration_ms("90", "--check-in")
    (600000, 90000)
    """
    number, unit = (text[:-1], text[-1]) if text[-1:] in _UNITS else (text, "s")
    if not number.isdigit():
        raise click.BadParameter(f"{text!r} is not N, Ns, Nm or Nh", param_hint=option)
    return int(number) * _UNITS[unit]


def table_rules(
    game: str, preset: str, target: int, players: int, partnerships: bool, rules: tuple[str, ...]
) -> rules_pb2.RulesSpec:
    """A table's RulesSpec: the game, preset, target and seats, with the `NAME=VALUE` switches
    of `--rule` read as `kafana table create --rule` reads them (`rule_args.switches`: names
    and types as the RulesSpec's; a usage error naming the bad one).

    >>> spec = table_rules("tablic", "", 21, 0, False, ("must_capture=true", "jack_value=11"))
    >>> spec.tablic.must_capture, spec.tablic.jack_value, spec.tablic.target, spec.players
    (True, 11, 21, 2)
    """
    seats = players or (4 if game == "tac" else 2)
    return rules_spec(game, preset, target, seats, partnerships, switches(game, rules))


def rule_option(which: str) -> Callable[[F], F]:
    """`--rule NAME=VALUE`, repeatable: the switches `table_rules` reads; `which` says which
    tables get them."""
    return click.option(
        "--rule", "rule", multiple=True, metavar="NAME=VALUE",
        help="A rule switch of the game, as a table's RulesSpec names it (e.g. "
        f"must_capture=true, jack_value=11); repeat for more. {which}",
    )  # fmt: skip


def _utc(ms: int) -> str:
    """Unix ms as a UTC time."""
    when = datetime.datetime.fromtimestamp(ms / 1000, datetime.UTC)
    return f"{when:%Y-%m-%d %H:%M:%S} UTC"


def start_time(text: str, now: float, option: str = "--start-at") -> int:
    """Unix ms of `--start-at`: ISO 8601 (UTC when no zone is given) or +N[smh] from `now`.

    >>> start_time("2026-12-06T18:00Z", 0), start_time("+2m", 100.0)
    (1796580000000, 220000)
    """
    if text.startswith("+"):
        return int(now * 1000) + duration_ms(text[1:], option)
    try:
        when = datetime.datetime.fromisoformat(text)
    except ValueError:
        raise click.BadParameter(
            f"{text!r} is not an ISO 8601 time (2026-12-06T18:00Z) or +N[smh]",
            param_hint=option,
        ) from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=datetime.UTC)
    return int(when.timestamp() * 1000)


def rules_options(command: Callable[..., None]) -> Callable[..., None]:
    """The rules and clock options of an event (`tournament create` and `tournament run`)."""
    for option in reversed(_RULES_OPTIONS):
        command = option(command)
    return command


def with_events(target: str, job: Callable[[Any, Any], Awaitable[T]]) -> T:
    """Run `job(client, tournaments)` against `target`, waiting at most `CONNECT_SECONDS` for
    it; a refusal or an unreachable server goes to the error boundary, which names `target`."""
    from kafana_client.tournaments import Tournaments

    async def run() -> T:
        async with reached(target) as client:
            return await job(client, Tournaments(client))

    return interrupt.run(run())


def pasteable(*words: str) -> str:
    """A command line that works when pasted: `words`, then the running command's `--server`
    and `--tls-ca`, and when one was typed its `--key` (a key from KAFANA_KEY is in the shell
    already)."""
    ctx = click.get_current_context()
    line = [*words, "--server", str(ctx.params.get("server") or "localhost:50051")]
    return shlex.join(line + reach_args())


def phase_of(value: int) -> str:
    """ "open", "started" or "finished"."""
    return enum_name(pb.EventPhase, "EVENT_PHASE_", value)


def status_of(value: int) -> str:
    """ "running", "paused" or "ended"."""
    return enum_name(pb.EventStatus, "EVENT_STATUS_", value)


def game_line(g: pb.GameInfo) -> tuple[str, str]:
    """A game's score (or where it stands) and its ending."""
    done = g.status == pb.GAME_STATUS_DONE
    state = enum_name(pb.GameStatus, "GAME_STATUS_", g.status)
    score = " : ".join(map(str, g.scores)) if done else state
    return score, enum_name(pb.GameEnding, "GAME_ENDING_", g.ending)


def show_event(info: pb.EventInfo) -> None:
    """Rounds, games, standings (and the report once finished)."""
    format_ = enum_name(pb.EventFormat, "EVENT_FORMAT_", info.format)
    click.echo(
        f"event {info.event_id} {info.name!r}: {format_}, {phase_of(info.phase)}, "
        f"{status_of(info.status)}"
        + (f" ({info.note})" if info.note else "")
        + f"; {plural(len(info.entrants), 'entrant')}"
    )
    if info.end_detail:
        click.echo(f"ended early: {info.end_detail}")
    if info.chosen_seed:
        click.echo("deals: organiser-chosen seed (predictable by whoever knows it)")
    for r in info.rounds:
        click.echo(f"round {r.number}" + (f"  bye: {', '.join(r.byes)}" if r.byes else ""))
        for g in r.games:
            score, ending = game_line(g)
            faults = f"  faults {' '.join(f.code for f in g.faults)}" if g.faults else ""
            click.echo(
                f"  {g.game_id}: {' - '.join(g.seats)}  {score} {ending}  table {g.table_id}"
                f"  commitment {g.commitment}{faults}"
            )
    if info.report:
        click.echo(info.report, nl=False)
    elif info.standings:
        for s in info.standings:
            click.echo(f"{s.rank:>3}. {s.entrant:<20} {s.points:>5.1f}  buchholz {s.buchholz:.1f}")


@click.command()
@click.argument("name")
@SERVER
@click.option("--format", "format_", type=click.Choice([k.value for k in Kind]), default="swiss")
@click.option("--rounds", type=COUNT, default=0, help="Swiss rounds (0: ceil(log2(entrants))).")
@click.option("--boards", type=COUNT, default=0, help="Duplicate: boards per pairing (0: 2).")
@click.option(
    "--hands-per-board", type=COUNT, default=0, help="Duplicate: explicit decks per board (0: 8)."
)
@game_option()
@click.option(
    "--players", type=click.IntRange(0, 4), default=0, help="Seats per game (0: 2; Tač 4)."
)
@click.option("--partnerships", is_flag=True, help="Four players as 2 against 2 (Tablić).")
@rules_options
@_fault_options
@click.option(
    "--chosen-seed",
    type=SEED,
    default=None,
    help="Deal every game from this event seed (reproducible, and predictable by whoever knows "
    "it; the records say so). Default: a fresh secret per game.",
)
@click.option("--parallel", type=COUNT, default=0, help="Games at once (0: a whole round).")
@click.option(
    "--entries-per-account",
    type=click.IntRange(0, 1024),
    default=0,
    help="Entrants one account may enter (0: 1).",
)
@click.option(
    "--max-entrants",
    type=click.IntRange(0, 1024),
    default=0,
    help="The most entrants the event takes (0: 1024).",
)
@click.option(
    "--start-at",
    default="",
    help="Start by itself at this time: ISO 8601 (2026-12-06T18:00Z; no zone: UTC) or +N[smh] "
    "from now. Default: when `tournament start` is run.",
)
@click.option(
    "--check-in", "check_in", default="",
    help="Entrants must check in (`tournament check-in`) in this window before the start, "
    "N[smh] (e.g. 10m); those who did not are dropped before round 1.",
)  # fmt: skip
@click.option(
    "--duration", default="",
    help="Arena (--format arena): how long it pairs entrants, N[smh] (10s to 24h); games "
    "running at the end are played out.",
)  # fmt: skip
@click.option(
    "--entries-open", default="",
    help="Registration opens at this time (as --start-at). Default: at once.",
)  # fmt: skip
@click.option(
    "--entries-close", default="",
    help="Registration closes at this time (as --start-at). Default: at the start.",
)  # fmt: skip
@rule_option("The event's tables get every one.")
def create(
    name: str,
    server: str,
    format_: str,
    rounds: int,
    boards: int,
    hands_per_board: int,
    game: str,
    players: int,
    partnerships: bool,
    preset: str,
    target: int,
    seed: int | None,
    move_ms: int | None,
    on_timeout: str,
    timeouts_to_forfeit: int | None,
    disconnect_grace_ms: int,
    on_disconnect: str,
    illegal_limit: int,
    no_show_ms: int,
    chosen_seed: int | None,
    parallel: int,
    entries_per_account: int,
    max_entrants: int,
    start_at: str,
    check_in: str,
    duration: str,
    entries_open: str,
    entries_close: str,
    rule: tuple[str, ...],
) -> None:
    """Create an event NAME hosted by the server; prints its id and the organiser token.

    Every game has a clock (--move-ms, 10000 unless told; 0: none) and forfeits a seat at its
    --timeouts-to-forfeit-th timeout (3 with a clock unless told; 0: never)."""
    if seed is not None:
        raise click.UsageError(
            "--seed is refused: fresh secrets deal every game; --chosen-seed N reproduces an "
            "event, predictably for whoever knows N"
        )
    if chosen_seed is not None:
        click.echo(
            f"warning: organiser-chosen seed {chosen_seed}: every deal is predictable by whoever "
            "knows it (records say `deal organiser-chosen`)",
            err=True,
        )

    clock = DEFAULT_MOVE_MS if move_ms is None else move_ms
    limit = timeouts_to_forfeit
    if limit is None:
        limit = DEFAULT_TIMEOUTS_TO_FORFEIT if clock else 0
    at = start_time(start_at, time.time()) if start_at else 0
    window = duration_ms(check_in, "--check-in") if check_in else 0
    length = duration_ms(duration, "--duration") if duration else 0
    if (format_ == "arena") != bool(length):
        raise click.UsageError("--duration goes with --format arena, and an arena needs it")
    opens = start_time(entries_open, time.time(), "--entries-open") if entries_open else 0
    closes = start_time(entries_close, time.time(), "--entries-close") if entries_close else 0

    # a table's RulesSpec (every --rule switch) stands for the game, preset, target and seats
    if rule:
        spelled: dict[str, Any] = {
            "rules": table_rules(game, preset, target, players, partnerships, rule)
        }
    else:
        spelled = dict(
            game=game, preset=preset, target=target, seats_per_game=players,
            partnerships=partnerships,
        )  # fmt: skip

    async def job(client: Any, events: Any) -> Any:
        return await events.create(
            name, format_, rounds=rounds, boards=boards, hands_per_board=hands_per_board,
            seed=chosen_seed, chosen_seed=chosen_seed is not None,
            move_ms=clock, on_timeout=on_timeout, timeouts_to_forfeit=limit,
            disconnect_grace_ms=disconnect_grace_ms, on_disconnect=on_disconnect,
            illegal_limit=illegal_limit, no_show_ms=no_show_ms, policy=True,
            parallel=parallel, entries_per_account=entries_per_account, max_entrants=max_entrants,
            start_at_ms=at, check_in_ms=window, duration_ms=length,
            entries_open_at_ms=opens, entries_close_at_ms=closes, **spelled,
        )  # fmt: skip

    made = with_events(server, job)
    click.echo(f"event {made.event_id}")
    if made.info.entries_open_at_ms or made.info.entries_close_at_ms:
        click.echo(
            "registration "
            + (f"opens {_utc(made.info.entries_open_at_ms)}" if opens else "open now")
            + (f", closes {_utc(made.info.entries_close_at_ms)}" if closes else "")
        )
    if at:
        when = datetime.datetime.fromtimestamp(made.info.start_at_ms / 1000, datetime.UTC)
        click.echo(f"starts by itself at {when:%Y-%m-%d %H:%M:%S} UTC")
    click.echo(f"organiser token {made.organiser_token}  (keep it: it is shown only now)")
    start = pasteable(
        "kafana", "tournament", "start", made.event_id, "--token", made.organiser_token
    )
    click.echo(f"once entries are in: {start}")


@click.command()
@click.argument("event")
@click.argument("name")
@SERVER
@click.option("--bot", default="", help="A registered bot the server plays (e.g. greedy).")
def enter(event: str, name: str, server: str, bot: str) -> None:
    """Enter NAME into EVENT: a built-in --bot, or yourself (prints your entry token)."""

    entry = with_events(server, lambda _, events: events.enter(event, name, bot=bot))
    if entry.token:
        click.echo(f"entry token {entry.token}")
        line = pasteable("kafana", "tournament", "watch", event, "--token", entry.token, "--play")
        click.echo(f"play: {line}")
    else:
        click.echo(f"{name} entered: the server plays {bot}")


@click.command("check-in")
@click.argument("event")
@click.argument("name")
@SERVER
@click.option("--token", default="", help="NAME's entry token (or the --key that entered it).")
def check_in(event: str, name: str, server: str, token: str) -> None:
    """Confirm entrant NAME is present for EVENT (its check-in window)."""

    with_events(server, lambda _, events: events.check_in(event, name, token))
    click.echo(f"{name} checked in to {event}")


def _remove(
    event: str, name: str, server: str, token: str, entry: str, note: str, disqualify: bool
) -> None:
    """Withdraw (open: WithdrawEntry; started: RemoveEntrant) or disqualify an entrant."""

    async def job(client: Any, events: Any) -> Any:
        info = await events.get(event)
        if info.phase == pb.EVENT_PHASE_OPEN and not disqualify:
            return await events.withdraw(event, name, entry_token=entry, organiser_token=token)
        return await events.remove(
            event, name, token, disqualify=disqualify, note=note, entry_token=entry
        )

    show_event(with_events(server, job))


@click.command()
@click.argument("event")
@click.argument("name")
@SERVER
@click.option("--token", default="", help="The organiser token (an operator's --key: none).")
@click.option("--note", default="", help="Why (shown with the entrant and in the standings).")
def disqualify(event: str, name: str, server: str, token: str, note: str) -> None:
    """Disqualify NAME from started EVENT: paired no more, its later games forfeited."""
    _remove(event, name, server, token, "", note, True)


@click.command()
@click.argument("event")
@click.argument("name")
@SERVER
@click.option("--token", default="", help="The organiser token.")
@click.option(
    "--entry-token", default="", help="NAME's entry token (or the --key that entered it)."
)
@click.option("--note", default="", help="Why (shown with the entrant).")
def withdraw(event: str, name: str, server: str, token: str, entry_token: str, note: str) -> None:
    """Withdraw NAME from EVENT: out of an open event, or paired no more in a started one
    (its later games forfeited)."""
    _remove(event, name, server, token, entry_token, note, False)


@click.command()
@click.argument("event")
@click.argument("state", type=click.Choice(["open", "close"]))
@SERVER
@click.option("--token", default="", help="The organiser token (an operator's --key: none).")
def registration(event: str, state: str, server: str, token: str) -> None:
    """Open or close EVENT's registration now (entries made stay)."""
    if not token and not cli_key():
        raise click.UsageError("give the organiser --token (or an operator's --key)")

    info = with_events(
        server, lambda _, events: events.set_registration(event, state == "open", token)
    )
    click.echo(f"event {info.event_id}: registration {'open' if info.entries_open else 'closed'}")


@click.command("list")
@SERVER
@click.option("--limit", type=click.IntRange(1, 10_000), default=50, show_default=True)
def list_events(server: str, limit: int) -> None:
    """The events the server hosts, newest first: id, name, format, phase, entrants."""

    found = with_events(server, lambda _, events: events.list(limit))
    if not found:
        click.echo("no events")
    for info in found:
        format_ = enum_name(pb.EventFormat, "EVENT_FORMAT_", info.format)
        start = f"  starts {info.start_at_ms}" if info.start_at_ms else ""
        click.echo(
            f"{info.event_id}  {info.name:<24} {format_:<11} {phase_of(info.phase):<8}"
            f" {plural(len(info.entrants), 'entrant')}{start}"
        )


@click.command()
@click.argument("event")
@SERVER
@click.option("--token", default="", help="The organiser token (an operator's --key: none).")
def start(event: str, server: str, token: str) -> None:
    """Close entries and start EVENT."""
    if not token and not cli_key():
        raise click.UsageError("give the organiser --token (or an operator's --key)")

    show_event(with_events(server, lambda _, events: events.start(event, token)))


@click.command()
@click.argument("event")
@SERVER
@click.option("--out", type=click.Path(file_okay=False), default=None, help="Export directory.")
def status(event: str, server: str, out: str | None) -> None:
    """Show EVENT: rounds, games (tables, full commitments), standings, the final report.

    With --out, once finished, write the local runner's exports: records.jsonl (every game's
    fair record: `kafana verify` checks them), standings.csv, report.html (rating curves) and
    ratings.json.
    """

    info = with_events(server, lambda _, events: events.get(event, records=out is not None))
    show_event(info)
    if out is not None:
        if not info.exports:
            click.echo("records are published (secrets revealed) once the event is finished")
            return
        folder = Path(out)
        folder.mkdir(parents=True, exist_ok=True)
        for name, text in sorted(info.exports.items()):
            (folder / Path(name).name).write_text(text, encoding="utf-8")
        click.echo(f"exports in {folder}/: {' '.join(sorted(info.exports))}")


LEAVING = "your seat forfeits this game (later games: run this command again)"
"""What q costs in a game of an event played here."""


def _player(client: Any, bot: str, play: bool) -> Callable[[Any, pb.Assignment], Any] | None:
    """Who plays each of the entrant's games: a person here, a bot, or nobody (None).

    Both are the SDK's seat loop, which trails when a table has too many captures to list.
    """
    if play:
        from kafana_client.cli.session import PersonAtTable, Quit
        from kafana_client.errors import RpcError
        from kafana_client.tournaments import LeftEvent
        from rich.console import Console

        console = Console(highlight=False)

        async def person(seat: Any, a: pb.Assignment) -> object:
            try:
                return await PersonAtTable(seat, console, leaving=LEAVING).play()
            except Quit:
                with contextlib.suppress(RpcError):
                    await seat.leave()  # the seat forfeits this game, as the prompt said
                console.print(
                    f"You left game {a.game_id}: your seat forfeits it. Your later games: run "
                    "this command again."
                )
                raise LeftEvent from None

        return person
    if bot:
        from kafana_client.remote import bot_player

        from kafana.cli.bot_spec import load
        from kafana.games import tac

        found = load(bot)
        made = itertools.count()

        def make_bot(at: int, rules: Any) -> Any:  # the event's game: Tablić or Tač
            game = "tac" if isinstance(rules, tac.Rules) else "tablic"
            return found.factory(game)(at, rules, random.Random(next(made)))

        return bot_player(make_bot)
    return None


@click.command()
@click.argument("event")
@SERVER
@click.option("--token", default="", help="Your entry token: follow your games.")
@click.option("--bot", default="", help="With --token: play every game with this bot.")
@click.option("--play", is_flag=True, help="With --token: play every game in the terminal.")
def watch(event: str, server: str, token: str, bot: str, play: bool) -> None:
    """Follow EVENT until it is over.

    With --token, your games: each table and seat token as it is created (play it with
    `kafana bot run SPEC --table T --token SEAT_TOKEN`), or played here with --bot or --play.
    Without, the games and standings as they come.
    """
    if (bot or play) and not token:
        raise click.UsageError("--bot and --play need your entry --token")
    if bot:
        from kafana.cli.bot_spec import load

        load(bot)  # an unknown bot is refused before anything is asked of the server

    async def entrant(client: Any, events: Any) -> None:
        from kafana_client.tournaments import play_entry

        if bot:  # and one that does not play the event's game, before any game of it
            from kafana.cli.bot_spec import load

            game = enum_name(rules_pb2.Game, "GAME_", (await events.get(event)).game)
            load(bot).factory(game or "tablic")
        player = _player(client, bot, play)

        def told(update: pb.EntryUpdate) -> None:
            a = update.assignment
            if a.table_id:
                run = pasteable(
                    "kafana", "bot", "run", "SPEC", "--table", a.table_id, "--token",
                    a.seat_token,
                )  # fmt: skip  # SPEC: the bot (a name, module:Class, ./file.py:Class)
                click.echo(
                    f"{a.game_id}: {' - '.join(a.seats)}: table {a.table_id} seat {a.seat} "
                    f"token {a.seat_token}  (a bot plays it: {run})"
                )
            elif update.event_over:
                click.echo("the event is over")
                for s in update.standings:
                    click.echo(f"{s.rank:>3}. {s.entrant:<20} {s.points:>5.1f}")
            else:
                phase, state = phase_of(update.phase), status_of(update.status)
                click.echo(f"event {phase}, {state} {update.note}".rstrip())

        async def nothing(seat: Any, a: pb.Assignment) -> None:
            return None

        await play_entry(client, event, token, player or nothing, on_update=told)

    async def spectator(client: Any, events: Any) -> None:
        seen: set[str] = set()
        while True:
            info = await events.get(event)
            for r in info.rounds:
                for g in r.games:
                    if g.status == pb.GAME_STATUS_DONE and g.game_id not in seen:
                        seen.add(g.game_id)
                        score, ending = game_line(g)
                        click.echo(f"{g.game_id}: {' - '.join(g.seats)}  {score} ({ending})")
            if info.phase == pb.EVENT_PHASE_FINISHED:
                show_event(info)
                return
            await asyncio.sleep(1.0)

    with_events(server, entrant if token else spectator)
