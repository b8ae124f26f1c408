"""`kafana verify RECORD`: check fair records (files, or a tournament's JSON-lines export)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from kafana.competitions import exports
from kafana.competitions.envelope import FairRecord
from kafana.competitions.verify import VerificationError
from kafana.competitions.verify import verify as check
from kafana.errors import KafanaError


@click.command()
@click.argument("records", nargs=-1, required=True, type=click.Path(dir_okay=False))
def verify(records: tuple[str, ...]) -> None:
    """Check fair records: the seed against its commitment, every deal, every move.

    RECORDS are fair-record files (or `-` for standard input), or the JSON-lines export of
    `kafana tournament run` (every game in it is checked). Exits 1 if any check fails.
    """
    failed = 0
    for path in records:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
        try:
            fairs = (
                exports.verify_jsonl(text)
                if text.lstrip().startswith("{")
                else [FairRecord.from_text(text)]
            )
        except (KafanaError, ValueError) as exc:
            click.echo(f"{path}: REJECTED: {exc}")
            failed += 1
            continue
        for fair in fairs:
            label = f"{path} {fair.get('game')}".rstrip()
            try:
                done = check(fair)
            except (VerificationError, KafanaError) as exc:
                click.echo(f"{label}: REJECTED: {exc}")
                failed += 1
                continue
            state = "final scores" if done.finished else "unfinished, scores so far"
            click.echo(
                f"{label}: OK: seed {done.seed} matches its commitment; {done.hands} deals "
                f"recomputed, {done.moves} moves replayed, {state} "
                + " : ".join(map(str, done.scores))
            )
    if failed:
        raise SystemExit(1)
