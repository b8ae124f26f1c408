"""`kafana verify RECORD`: check fair records (files, an event's or a league's JSON-lines export).

`kafana verify records.jsonl --server HOST:PORT [--event EVENT]` also holds an export to what
that server published of the event (`GetEvent`): its id and name, every game, each game's
pairing, seats and commitment.

A file (or standard input) is read up to `kafana_client.cli.paths.INPUT_BYTES` (64 MiB) and no
further: a larger one is refused in one line, exit status 2. JSON nested too deeply to read
(a record's rules, an export's line) is a rejection like any other, exit status 1.
"""

from __future__ import annotations

from typing import Any

import click
from kafana_client.cli.paths import read_at_most
from kafana_client.cli.reach import TARGET, server_options
from kafana_client.cli.words import plural

from kafana.competitions.envelope import FairRecord
from kafana.competitions.hosted.convert import published_of
from kafana.competitions.league.verify_export import is_league_line, verify_matches
from kafana.competitions.verify import VerificationError, Verified
from kafana.competitions.verify import verify as check
from kafana.competitions.verify_export import Published, verify_export
from kafana.errors import InvalidInputError, KafanaError
from kafana.games.records import json_value
from kafana.v1 import competitions_pb2 as pb


def _read(path: str) -> str:
    """The file's text; a file that cannot be read, or is larger than `INPUT_BYTES`, is a usage
    error (exit 2, one line)."""
    try:
        data = read_at_most(path)
    except OSError as exc:
        click.echo(f"kafana verify: cannot read {path}: {exc.strerror or exc}", err=True)
        raise SystemExit(2) from None
    except InvalidInputError as exc:
        click.echo(f"kafana verify: {path}: {exc}", err=True)
        raise SystemExit(2) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise VerificationError(f"not UTF-8 text (byte {exc.start})") from None


def _ok(done: Verified) -> str:
    what = "places" if done.game == "tac" else "scores"
    state = f"final {what}" if done.finished else f"{done.ending}, {what} at the end"
    chosen = "; DEAL ORGANISER-CHOSEN (from the event seed mixed with the event's server salt)"
    return (
        f"OK: {done.game}, {' - '.join(done.seats)}: the secret matches its commitment, deal "
        f"seed {done.seed}; {plural(done.deals, 'deal')} recomputed, "
        f"{plural(done.moves, 'move')} replayed, "
        f"{state} {' : '.join(map(str, done.figures))}" + (chosen if done.chosen else "")
    )


def _event_id(text: str) -> str:
    """The `event_id` of an export's first line that has one ("" if none does)."""
    for line in text.splitlines():
        try:
            item = json_value(line)
        except ValueError:
            continue
        if isinstance(item, dict) and isinstance(item.get("event_id"), str):
            return str(item["event_id"])
    return ""


def _published(server: str, event_id: str) -> Published:
    """What `server` shows of `event_id` (GetEvent), to hold an export to."""
    from kafana.cli.tournament_hosted import with_events

    async def job(client: Any, events: Any) -> pb.EventInfo:
        info: pb.EventInfo = await events.get(event_id)
        return info

    try:
        return published_of(with_events(server, job))
    except KafanaError as exc:  # not the export's fault: say so, exit 1
        click.echo(f"kafana verify: {server}: event {event_id}: {exc}", err=True)
        raise SystemExit(1) from None


def _export(path: str, text: str, server: str | None, event: str | None) -> int:
    """Check every line of an export (against what `server` published, if given); the number
    rejected."""
    published = None
    first = next((line for line in text.splitlines() if line.strip()), "")
    league = is_league_line(first)
    if league and server:
        click.echo(
            f"kafana verify: {path} is a league's matches.jsonl: --server holds an event's"
            " export to the server; a league's is checked on its own",
            err=True,
        )
        raise SystemExit(2)
    if server:
        event_id = event or _event_id(text)
        if not event_id:
            click.echo(f"kafana verify: {path} names no event_id: give --event EVENT", err=True)
            raise SystemExit(2)
        published = _published(server, event_id)
    failed = 0
    for item in verify_matches(text) if league else verify_export(text, published):
        if isinstance(item, VerificationError):
            click.echo(f"{path}: REJECTED: {item}")
            failed += 1
        elif item.verified is None:
            click.echo(f"{path} {item.game}: no record ({item.ending}): nothing to replay")
        else:
            click.echo(f"{path} {item.game}: {_ok(item.verified)}")
    return failed


@click.command()
@click.argument("records", nargs=-1, required=True)
@click.option(
    "--server",
    type=TARGET,
    default=None,
    help="HOST:PORT of the server that hosted the event: hold every export to what it "
    "published (event id and name, every game, pairings, seats, commitments).",
)
@server_options
@click.option(
    "--event", default=None, help="With --server: the event's id (default: the export's)."
)
def verify(records: tuple[str, ...], server: str | None, event: str | None) -> None:
    """Check fair records: the secret against its commitment, every deal, every move and
    every meta line.

    RECORDS are fair-record files (or `-` for standard input), the JSON-lines export of an
    event (records.jsonl: every field of every game is checked; with --server, against what
    the server published), or a league season's matches.jsonl (`kafana league export`). Exits
    1 if any check fails or the server cannot answer for the event, 2 if a file cannot be
    read, is larger than 64 MiB, or an export names no event to hold it to (or is a league's,
    with --server).
    """
    if event and not server:
        raise click.UsageError("--event goes with --server (the server that hosted it)")
    failed = 0
    for path in records:
        try:
            text = _read(path)
            if text.lstrip().startswith("{"):
                failed += _export(path, text, server, event)
                continue
            click.echo(f"{path}: {_ok(check(FairRecord.from_text(text)))}")
        except KafanaError as exc:
            click.echo(f"{path}: REJECTED: {exc}")
            failed += 1
    if failed:
        raise SystemExit(1)
