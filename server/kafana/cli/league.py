"""`kafana league ...`: leagues hosted by a server, through its gRPC API (an API key, no Redis).

kafana league create spring --server HOST:PORT --key $ORGANISER --target 51 --move-ms 5000
kafana league play spring greedy --server HOST:PORT --key $ANA --matches 10
kafana league list --server HOST:PORT                     # every league, by name
kafana league export spring --out spring/ --server HOST:PORT --key $ANA   # board, matches
kafana league report spring --server HOST:PORT --key $ANA   # pairs whose results are improbable
kafana league board spring --server HOST:PORT --key $ANA --page 2
kafana league player spring bob --server HOST:PORT --key $ANA
kafana league match spring 12 --record m12.txt --server HOST:PORT --key $ANA   # kafana verify
kafana league season spring --server HOST:PORT --key $ORGANISER     # the next season

The server pairs the queue, seats every match, referees and rates it (there is no referee
process to run). Errors are one line; exit status 2 for a usage error, 1 for a refusal or an
unreachable server.
"""

from __future__ import annotations

import asyncio
import csv
import io
import itertools
import json
import random
import shlex
import signal
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import click
from kafana_client.cli import interrupt
from kafana_client.cli.numbers import Finite
from kafana_client.cli.paths import OUTPUT_FILE
from kafana_client.cli.reach import reached
from kafana_client.cli.words import plural
from kafana_client.convert import switches_of
from kafana_client.leagues import match_numbers
from kafana_client.tournaments import enum_name

from kafana.cli.options import COUNT, game_option, hosting_server
from kafana.cli.tournament_hosted import rule_option, table_rules
from kafana.competitions.league import collusion
from kafana.games.tablic import PRESETS
from kafana.v1 import leagues_pb2 as pb
from kafana.v1 import rules_pb2, state_pb2

T = TypeVar("T")
SERVER = hosting_server("HOST:PORT of the Kafana server hosting the league (Env: KAFANA_SERVER).")
"""`--server`, `--tls-ca` and `--key` (KAFANA_KEY: the account's API key, sent with every call)."""


def with_leagues(
    target: str,
    job: Callable[[Any, Any], Awaitable[T]],
    signals: Sequence[int] = (signal.SIGINT,),
) -> T:
    """Run `job(client, leagues)` against `target`, waiting at most `CONNECT_SECONDS` for it,
    until one of `signals` (`interrupt.run`); a refusal or an unreachable server goes to the
    error boundary (one line naming `target`)."""
    from kafana_client.leagues import Leagues

    async def run() -> T:
        async with reached(target) as client:
            return await job(client, Leagues(client))

    return interrupt.run(run(), signals)


def show_info(info: pb.LeagueInfo) -> None:
    """The league's spec and counters, on one line each."""
    s = info.spec
    click.echo(
        f"league {info.league} (organiser {info.organiser or '-'}): season {info.season}, "
        f"{info.waiting} waiting, {plural(info.matches_made, 'match')} made, "
        f"{info.matches_settled} settled"
    )
    click.echo(
        f"  {enum_name(rules_pb2.Game, 'GAME_', s.game) or 'tablic'} "
        f"{enum_name(rules_pb2.TablicPreset, 'TABLIC_PRESET_', s.preset) or 'default preset'}, "
        f"target {s.target or 'preset'}, "
        f"{plural(s.players or 2, 'player')}, {s.move_ms or 'default'} ms per move, "
        f"forfeit after {plural(s.timeouts_to_forfeit or 3, 'timeout')}, "
        f"join within {s.join_deadline_ms or 30000} ms, "
        f"kept {plural(s.retention_days or 30, 'day')}, "
        f"no rematch within {plural(s.rematch_limit or 2, 'match')}"
    )
    if s.band_edges:
        edges = ", ".join(f"{e:g}" for e in s.band_edges)
        click.echo(f"  {len(s.band_edges) + 1} rating bands, edges at {edges}")
    if s.HasField("rules"):  # a table's RulesSpec: the switches it sets
        given = switches_of(s.rules)
        words = [f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in given.items()]
        click.echo("  rules " + (" ".join(words) or "as the preset"))


def result_line(match: pb.MatchInfo) -> str:
    """`ana 1-0 bob` (the players and scores of a settled match), with its ending and faults."""
    scores = "-".join(f"{score:g}" for score in match.scores) or "?"
    players = list(match.players)
    line = (
        f"{players[0]} {scores} {players[1]}"
        if len(players) == 2
        else f"{' - '.join(players)} {scores}"
    )
    if match.ending and match.ending != state_pb2.RESULT_REASON_SCORE:
        ending = enum_name(state_pb2.ResultReason, "RESULT_REASON_", match.ending)
        why = enum_name(state_pb2.EventReason, "EVENT_REASON_", match.forfeit_reason)
        line += f" ({ending}: {why})" if why else f" ({ending})"
    if not match.rated:
        line += ", not rated"
    if match.faults:
        line += f", faults {' '.join(f.code for f in match.faults)}"
    return line


def state_name(match: pb.MatchInfo) -> str:
    """ "playing" or "settled"."""
    return enum_name(pb.MatchState, "MATCH_STATE_", match.state)


def show_match(match: pb.MatchInfo) -> None:
    """A match: players, table, commitment, and once settled its result and secret."""
    click.echo(
        f"match {match.match} (season {match.season}): {' - '.join(match.players)}, "
        f"table {match.table_id}, {state_name(match)}"
    )
    click.echo(f"  commitment {match.commitment}")
    if match.state == pb.MATCH_STATE_SETTLED:
        click.echo(f"  result {result_line(match)}")
        click.echo(f"  secret {match.secret}")


def edges_option(ctx: click.Context, param: click.Parameter, value: str) -> tuple[float, ...]:
    """`--band-edges 20,30` as rising ratings (BadParameter naming the word that is not)."""
    edges = []
    for word in filter(None, (w.strip() for w in value.split(","))):
        try:
            edges.append(float(word))
        except ValueError:
            raise click.BadParameter(f"{word!r} is not a rating (R1,R2,...: numbers)") from None
    return tuple(edges)


def show_league(server: str, call: Callable[[Any], Awaitable[pb.LeagueInfo]]) -> None:
    """Show the league `call(leagues)` answers (`with_leagues` on `server`)."""

    async def job(client: Any, leagues: Any) -> pb.LeagueInfo:
        return await call(leagues)

    show_info(with_leagues(server, job))


@click.group()
def league() -> None:
    """Leagues hosted by a server: create, play, boards, players, matches, seasons."""


@league.command()
@click.argument("name")
@SERVER
@game_option()
@click.option(
    "--preset",
    type=click.Choice(PRESETS),
    default=None,
    help="Tablić rules preset (default: serbian).",
)
@click.option("--target", type=COUNT, default=0, help="Points to win (0: the preset's).")
@click.option("--players", type=COUNT, default=0, help="Players per match (0: 2).")
@click.option(
    "--move-ms", type=COUNT, default=0, help="Time per move in ms (0: the server's default)."
)
@click.option(
    "--timeouts-to-forfeit", type=COUNT, default=0, help="Timeouts that forfeit a match (0: 3)."
)
@click.option(
    "--join-deadline-ms", type=COUNT, default=0, help="Time to take a seat in ms (0: 30000)."
)
@click.option(
    "--retention-days", type=COUNT, default=0, help="Days a match's data is kept (0: 30)."
)
@click.option(
    "--disconnect-grace-ms", type=COUNT, default=0,
    help="A seated player not seen this long on its turn forfeits (0: 10000).",
)  # fmt: skip
@click.option(
    "--illegal-limit", type=COUNT, default=0, help="Illegal moves that forfeit a match (0: 3)."
)
@click.option(
    "--rematch-limit", type=click.IntRange(0, 8), default=0,
    help="Not paired with a player met in each of the last N matches, until both have waited "
    "60 s (0: 2; 1 to 8).",
)  # fmt: skip
@click.option(
    "--band-edges", callback=edges_option, default="", metavar="R1,R2,...",
    help="Split the queue into rating bands at these rising ratings (mu), each paired apart "
    "and kept on its own Redis Cluster slot (a big league spread over the nodes; default: one "
    "band).",
)  # fmt: skip
@rule_option("Every match table gets every one.")
def create(
    name: str,
    server: str,
    game: str,
    preset: str | None,
    target: int,
    players: int,
    move_ms: int,
    timeouts_to_forfeit: int,
    join_deadline_ms: int,
    retention_days: int,
    disconnect_grace_ms: int,
    illegal_limit: int,
    rematch_limit: int,
    band_edges: tuple[float, ...],
    rule: tuple[str, ...],
) -> None:
    """Create league NAME (an organiser's key); its rules, clock and fault policy are fixed."""
    # a table's RulesSpec (every --rule switch) stands for the game, preset, target and players
    spelled: dict[str, Any] = (
        {"rules": table_rules(game, preset or "", target, players, False, rule)}
        if rule
        else {"game": game, "preset": preset or "", "target": target, "players": players}
    )

    async def job(client: Any, leagues: Any) -> pb.LeagueInfo:
        info: pb.LeagueInfo = await leagues.create(
            name, move_ms=move_ms, timeouts_to_forfeit=timeouts_to_forfeit,
            join_deadline_ms=join_deadline_ms, retention_days=retention_days,
            disconnect_grace_ms=disconnect_grace_ms, illegal_limit=illegal_limit,
            rematch_limit=rematch_limit, band_edges=band_edges, **spelled,
        )  # fmt: skip
        return info

    show_info(with_leagues(server, job))


@league.command()
@click.argument("name")
@SERVER
def info(name: str, server: str) -> None:
    """League NAME: its spec, season, queue and matches."""
    show_league(server, lambda leagues: leagues.get(name))


@league.command("list")
@SERVER
@click.option("--limit", type=click.IntRange(1, 10_000), default=50, show_default=True)
def list_leagues(server: str, limit: int) -> None:
    """The leagues the server hosts, by name: season, waiting, matches."""

    async def job(client: Any, leagues: Any) -> Any:
        return await leagues.list(limit)

    found = with_leagues(server, job)
    if not found:
        click.echo("no leagues")
    for info in found:
        show_info(info)


@league.command()
@click.argument("name")
@click.argument("bot")
@SERVER
@click.option(
    "--matches", type=click.IntRange(0), default=0,
    help="Stop after this many settled matches (0: never).",
)  # fmt: skip
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the bot's moves.")
@click.option("--option", "-o", "options", multiple=True, help="Bot option key=value, repeatable.")
def play(
    name: str, bot: str, server: str, matches: int, seed: int, options: tuple[str, ...]
) -> None:
    """Play league NAME with BOT (a bot name, module:Class or ./file.py:Class) for the --key's
    account.

    Joins the queue, plays each match the server pairs it into, joins again after each settled
    match; one line per settled match. A bot's exception is printed with its traceback (the
    league's fault policy then handles the seat). Ctrl-C (exit 130) or SIGTERM (exit 143)
    leaves the queue.
    """
    from kafana.cli.bot_spec import load, parse_options
    from kafana.games import tac

    found = load(bot)
    extra = parse_options(options)
    for game in found.factories:  # refused here, before the queue is joined
        found.check_options(game, extra)
    made = itertools.count()

    def make_bot(at: int, rules: Any) -> Any:
        game = "tac" if isinstance(rules, tac.Rules) else "tablic"
        rng = random.Random(f"{seed}:{next(made)}")
        return found.factory(game)(at, rules, rng, **extra)

    async def job(client: Any, leagues: Any) -> int:
        from kafana_client.leagues import play_league

        me = await leagues.player(name)
        click.echo(f"league {name}: {me.player} plays {bot} (rating {me.rating:.1f})")
        count = 0
        settled: asyncio.Queue[pb.MatchInfo | None] = asyncio.Queue()

        def told(update: pb.TicketUpdate) -> None:
            if update.WhichOneof("update") == "ticket":
                t = update.ticket
                click.echo(
                    f"match {t.match}: {' - '.join(t.players)}, table {t.table_id} seat {t.seat}"
                )
            else:
                nonlocal count
                count += 1
                settled.put_nowait(update.settled)

        async def report() -> None:  # one line per settled match, with the rating it left
            while (done := await settled.get()) is not None:
                now = await leagues.player(name)
                click.echo(
                    f"match {done.match} settled: {result_line(done)}, rating {now.rating:.1f}"
                )

        reporter = asyncio.create_task(report())
        try:
            await play_league(client, name, make_bot, matches=matches, on_update=told)
            settled.put_nowait(None)
            await reporter  # every settled match is reported before the total
        finally:
            reporter.cancel()
        return count

    try:  # SIGTERM as Ctrl-C: the queue is left on the way out
        settled = with_leagues(server, job, signals=(signal.SIGINT, signal.SIGTERM))
    except KeyboardInterrupt as stopped:
        click.echo(f"league {name}: stopped (left the queue)", err=True)
        raise SystemExit(interrupt.status(stopped)) from None
    click.echo(f"league {name}: {plural(settled, 'match')} settled")


@league.command()
@click.argument("name")
@SERVER
@click.option("--season", type=COUNT, default=0, help="Season (0: the current one).")
@click.option("--page", default=1, show_default=True, type=click.IntRange(1))
@click.option("--size", default=20, show_default=True, type=click.IntRange(1, 200))
def board(name: str, server: str, season: int, page: int, size: int) -> None:
    """A page of league NAME's leaderboard (rating = mu - 3 sigma), best first."""

    async def job(client: Any, leagues: Any) -> pb.LeaderboardPage:
        found: pb.LeaderboardPage = await leagues.board(name, season=season, page_size=size)
        for _ in range(page - 1):  # page tokens lead from one page to the next
            if not found.next_page_token:
                return pb.LeaderboardPage(league=name, season=found.season, total=found.total)
            found = await leagues.board(
                name, season=found.season, page_size=size, page_token=found.next_page_token
            )
        return found

    found = with_leagues(server, job)
    pages = max(1, -(-found.total // size))
    click.echo(
        f"league {name}, season {found.season}: {plural(found.total, 'player')}, "
        f"page {page}/{pages}"
    )
    for row in found.rows:
        click.echo(f"{row.rank:>6}. {row.player:<24} {row.rating:8.2f}")


def season_exports(board: list[pb.BoardRow], matches: list[pb.MatchInfo]) -> dict[str, str]:
    """A season's files: `board.csv` (rank, player, rating = mu - 3 sigma) and
    `matches.jsonl` (one match a line, every field of `GetMatch` with its fair record; enums by
    name, 64-bit numbers as strings, as the proto's JSON mapping writes them)."""
    from google.protobuf.json_format import MessageToDict

    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(("rank", "player", "rating"))
    for row in board:
        writer.writerow((row.rank, row.player, f"{row.rating:.6f}"))
    lines = [
        json.dumps(MessageToDict(m, preserving_proto_field_name=True), sort_keys=True)
        for m in matches
    ]
    jsonl = "".join(f"{x}\n" for x in lines)
    suspects = collusion.report(collusion.from_export(jsonl))
    return {
        "board.csv": out.getvalue(),
        "matches.jsonl": jsonl,
        "collusion.csv": collusion.report_csv(suspects),
    }


Season = tuple[int, list[pb.BoardRow], list[pb.MatchInfo]]


def _season(server: str, name: str, season: int) -> Season:
    """League NAME's season (0: the current one): its number, every board row and every
    match still kept, with its record."""

    async def job(client: Any, leagues: Any) -> Season:
        from kafana_client.errors import NotFoundRpcError

        page = await leagues.board(name, season=season, page_size=200)
        chosen = page.season
        rows = list(page.rows)
        while page.next_page_token:
            page = await leagues.board(
                name, season=chosen, page_size=200, page_token=page.next_page_token
            )
            rows += page.rows
        found = []
        for number in match_numbers(await leagues.get(name)):
            try:
                m = await leagues.match(name, number, record=True)
            except NotFoundRpcError:  # past its retention
                continue
            if m.season == chosen:
                found.append(m)
        return chosen, rows, found

    return with_leagues(server, job)


@league.command()
@click.argument("name")
@SERVER
@click.option("--season", type=COUNT, default=0, help="Season (0: the current one).")
@click.option(
    "--out", type=click.Path(file_okay=False, path_type=Path), required=True,
    help="Directory for board.csv, matches.jsonl and collusion.csv.",
)  # fmt: skip
def export(name: str, server: str, season: int, out: Path) -> None:
    """League NAME's season as files: its board (board.csv) and its matches with their fair
    records (matches.jsonl; each record checks with `kafana verify`) and its collusion report
    (collusion.csv, as `kafana league report`)."""
    chosen, rows, found = _season(server, name, season)
    out.mkdir(parents=True, exist_ok=True)
    for file, text in season_exports(rows, found).items():
        (out / file).write_text(text, encoding="utf-8")
    click.echo(
        f"league {name}, season {chosen}: {plural(len(rows), 'player')},"
        f" {plural(len(found), 'match')} in {out}/ (board.csv, matches.jsonl, collusion.csv)"
    )


@league.command()
@click.argument("name", default="")
@SERVER
@click.option("--season", type=COUNT, default=0, help="Season (0: the current one).")
@click.option(
    "--matches", "matches_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
    help="Read an exported matches.jsonl instead of asking a server.",
)  # fmt: skip
@click.option(
    "--min-games", type=click.IntRange(2, 1000), default=collusion.MIN_GAMES, show_default=True,
    help="Pairs that met at least this often are looked at.",
)  # fmt: skip
@click.option(
    "--alpha", type=Finite(0, 1, min_open=True, max_open=True),
    default=collusion.ALPHA, show_default=True,
    help="The chance of flagging any pair of an honest league.",
)  # fmt: skip
def report(
    name: str, server: str, season: int, matches_file: Path | None, min_games: int, alpha: float
) -> None:
    """Pairs of players in league NAME whose results against each other are improbable for
    their ratings (rated without those games): possible collusion, to look into. Exit 0
    either way."""
    if matches_file is not None:
        try:
            text = matches_file.read_text(encoding="utf-8")
            played = collusion.from_export(text)
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise click.UsageError(f"cannot read {matches_file}: {error}") from None
        where = str(matches_file)
    elif name:
        chosen, _rows, found = _season(server, name, season)
        played = collusion.from_export(season_exports([], found)["matches.jsonl"])
        where = f"league {name}, season {chosen}"
    else:
        raise click.UsageError("name a league (with --server) or give --matches FILE")
    suspects = collusion.report(played, min_games, alpha)
    looked = collusion.pairs_met(played, min_games)
    click.echo(
        f"{where}: {plural(len(played), 'rated match')},"
        f" {plural(looked, 'pair')} met {min_games} times or more"
    )
    if not suspects:
        click.echo("no pair's results are improbable for their ratings")
    for x in suspects:
        click.echo(
            f"{x.winner} over {x.loser}: {x.wins:g} of {x.games} won, {x.expected:.1f} expected,"
            f" p = {x.p_value:.2g} (flagged below {x.threshold:.2g})"
        )


@league.command()
@click.argument("name")
@click.argument("player", default="")
@SERVER
@click.option("--season", type=COUNT, default=0, help="Season (0: the current one).")
@click.option("--matches", default=10, show_default=True, type=click.IntRange(1, 200))
def player(name: str, player: str, server: str, season: int, matches: int) -> None:
    """PLAYER's rating, rank, history and latest matches in league NAME (default: yours)."""

    async def job(client: Any, leagues: Any) -> pb.PlayerInfo:
        found: pb.PlayerInfo = await leagues.player(name, player, season=season, matches=matches)
        return found

    p = with_leagues(server, job)
    rank = f"rank {p.rank}" if p.rank else "not on the board"
    provisional = ", provisional" if p.provisional else ""
    click.echo(
        f"{p.player} in {p.league}, season {p.season}: rating {p.rating:.2f} "
        f"(mu {p.mu:.2f}, sigma {p.sigma:.2f}), {plural(p.games, 'game')}, {rank}{provisional}"
    )
    if p.history:
        click.echo(
            "  history " + " ".join(f"{h.game}:{h.mu - 3 * h.sigma:.1f}" for h in p.history[-10:])
        )
    for m in p.matches:
        settled = m.state == pb.MATCH_STATE_SETTLED
        state = result_line(m) if settled else f"{' - '.join(m.players)} playing"
        click.echo(f"  match {m.match}: {state}")


@league.command()
@click.argument("name")
@click.argument("number", type=click.IntRange(1, 2**64 - 1))  # GetMatchRequest.match: uint64
@SERVER
@click.option(
    "--record", "record_path", type=OUTPUT_FILE, default=None,
    help="Write the match's fair record here (check it with kafana verify FILE).",
)  # fmt: skip
def match(name: str, number: int, server: str, record_path: Path | None) -> None:
    """Match NUMBER of league NAME; with --record its fair record, once settled."""

    async def job(client: Any, leagues: Any) -> pb.MatchInfo:
        found: pb.MatchInfo = await leagues.match(name, number, record=record_path is not None)
        return found

    found = with_leagues(server, job)
    show_match(found)
    if record_path is None:
        return
    if not found.record:
        raise click.ClickException(
            f"match {number} is {state_name(found)}: its record is published once it is settled"
        )
    record_path.write_text(found.record, encoding="utf-8")
    click.echo(
        f"record in {record_path} (check it: {shlex.join(['kafana', 'verify', str(record_path)])})"
    )


@league.command()
@click.argument("name")
@SERVER
def season(name: str, server: str) -> None:
    """Start the next season of league NAME (an organiser's key); old boards are kept."""
    show_league(server, lambda leagues: leagues.new_season(name))


GONE = {
    "run": "the server referees league matches: `kafana league create` makes a league on it",
    "join": "`kafana league play NAME BOT --key KEY` joins the queue and plays (no Redis)",
    "ticket": "tickets come to `kafana league play` on the server's stream (no Redis)",
    "new-season": "`kafana league season NAME --key KEY` (an organiser's key)",
}


def _gone(command: str, pointer: str) -> click.Command:
    @click.pass_context
    def refuse(ctx: click.Context, args: tuple[str, ...]) -> None:
        raise click.UsageError(f"`kafana league {command}` is gone: {pointer}", ctx)

    return click.Command(
        command,
        callback=refuse,
        params=[click.Argument(["args"], nargs=-1, type=click.UNPROCESSED)],
        context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
        hidden=True,
        help=f"Gone: {pointer}.",
    )


for _name, _pointer in GONE.items():
    league.add_command(_gone(_name, _pointer))
