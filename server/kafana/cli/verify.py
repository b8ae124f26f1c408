"""`kafana verify RECORD`: check fair records (files, or an event's JSON-lines export)."""

from __future__ import annotations

import sys
from pathlib import Path

import click
from kafana_client.cli.words import plural

from kafana.competitions.envelope import FairRecord
from kafana.competitions.verify import VerificationError, Verified
from kafana.competitions.verify import verify as check
from kafana.competitions.verify_export import verify_export
from kafana.errors import KafanaError


def _read(path: str) -> str:
    """The file's text; a file that cannot be read is a usage error (exit 2, one line)."""
    if path == "-":
        return sys.stdin.read()
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        click.echo(f"kafana verify: cannot read {path}: {exc.strerror or exc}", err=True)
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


def _export(path: str, text: str) -> int:
    """Check every line of an export; the number rejected."""
    failed = 0
    for item in verify_export(text):
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
def verify(records: tuple[str, ...]) -> None:
    """Check fair records: the secret against its commitment, every deal, every move and
    every meta line.

    RECORDS are fair-record files (or `-` for standard input), or the JSON-lines export of an
    event (records.jsonl: every field of every game is checked). Exits 1 if any check fails,
    2 if a file cannot be read.
    """
    failed = 0
    for path in records:
        try:
            text = _read(path)
            if text.lstrip().startswith("{"):
                failed += _export(path, text)
                continue
            click.echo(f"{path}: {_ok(check(FairRecord.from_text(text)))}")
        except KafanaError as exc:
            click.echo(f"{path}: REJECTED: {exc}")
            failed += 1
    if failed:
        raise SystemExit(1)
