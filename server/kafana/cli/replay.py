"""`kafana replay FILE`: step through a match: a record, a fair record, or a line of an export.

FILE is what `kafana play --save`, `kafana watch --save` or `GetRecord` give (a match record),
a fair record (`kafana league match N --record`, what `kafana verify` checks), or the JSON
lines of an export: an event's `records.jsonl` (`kafana tournament status --out`) or a league
season's `matches.jsonl` (`kafana league export`). An export's line is the one of `--game`
(an event's game id, or a league's match number), or its only game with a record. The seats'
names come from `--names`, else the export's line (`seats`, `players`), else the fair
record's `meta seats`, else the record's `# seat N:` comments.

FILE is read up to `kafana_client.cli.paths.INPUT_BYTES` (64 MiB) and no further: a larger one
is refused in one line, exit status 2. A file that is no record (JSON nested too deeply
included) is one line naming what was wrong, exit status 1.

The drawing and the keys are the terminal client's (`kafana_client.cli.replay`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
from kafana_client.cli.paths import read_at_most
from kafana_client.cli.replay import show_record
from rich.console import Console

from kafana.competitions.envelope import HEADER, FairRecord
from kafana.errors import InvalidInputError
from kafana.games.records import json_value

LISTED = 5
"""Game ids named in the error that asks for `--game`."""


class Refused(click.ClickException):
    """A file the command does not read (larger than `INPUT_BYTES`): exit status 2."""

    exit_code = 2


@dataclass(frozen=True)
class Match:
    """The match record found in a file, and the seat names found with it (empty: none)."""

    record: str
    names: tuple[str, ...] = ()


def export_line(text: str, game: str | None) -> dict[str, Any]:
    """The JSON object of an export's line for `game` (its `game` id or league `match`
    number), or the only one with a record; InvalidInputError naming the line or the choice.
    """
    items: list[dict[str, Any]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            item = json_value(line)
        except ValueError as exc:
            raise InvalidInputError(f"line {number}: not a JSON object: {exc}") from None
        if not isinstance(item, dict):
            raise InvalidInputError(f"line {number}: not a JSON object")
        items.append(item)
    if game is not None:
        found = [item for item in items if game in (str(item.get("game")), _match(item))]
        if not found:
            raise InvalidInputError(f"no game {game!r} in the export")
        if not found[0].get("record"):
            raise InvalidInputError(f"game {game!r} has no record ({_ending(found[0])})")
        return found[0]
    played = [item for item in items if item.get("record")]
    if len(played) == 1:
        return played[0]
    if not played:
        raise InvalidInputError("the export holds no game with a record")
    ids = [str(item.get("game") or _match(item)) for item in played]
    shown = ", ".join(ids[:LISTED]) + (", ..." if len(ids) > LISTED else "")
    raise InvalidInputError(
        f"the export holds {len(played)} games with a record: choose one with --game ({shown})"
    )


def _match(item: dict[str, Any]) -> str:
    return str(item["match"]) if "match" in item else ""


def _ending(item: dict[str, Any]) -> str:
    return str(item.get("ending") or item.get("state") or "not played")


def _names(value: object) -> tuple[str, ...]:
    if isinstance(value, list) and all(isinstance(name, str) for name in value):
        return tuple(value)
    return ()


def unwrap(text: str, game: str | None = None) -> Match:
    """The match record inside `text` (an export's JSON lines, a fair record, or a record
    itself) and the seat names found with it."""
    names: tuple[str, ...] = ()
    if text.lstrip().startswith("{"):
        item = export_line(text, game)
        names = _names(item.get("seats")) or _names(item.get("players"))
        text = str(item["record"])
    elif game is not None:
        raise InvalidInputError("--game picks a line of an export (JSON lines), not of a record")
    if text.lstrip().startswith(HEADER):
        fair = FairRecord.from_text(text.lstrip())
        names = names or tuple(fair.get("seats").split())
        text = fair.record
    return Match(text, names)


@click.command()
@click.argument("record_file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--names", default=None, help="Comma-separated seat names, seat 0 first.")
@click.option(
    "--game",
    default=None,
    help="In an export (JSON lines): the game to replay, by its id (r1-g2) or league match number.",
)
@click.option(
    "--review",
    "reviewing",
    is_flag=True,
    help="Print the engine's review instead (Tablić): its choice and each move's cost.",
)
@click.option("--seat", type=click.IntRange(min=0), default=None, help="Review only this seat.")
@click.option(
    "--budget-ms",
    type=click.FloatRange(min=1, max=60_000),
    default=100.0,
    show_default=True,
    help="CPU milliseconds the engine thinks about each move of the review.",
)
def replay(
    record_file: Path,
    names: str | None,
    game: str | None,
    reviewing: bool,
    seat: int | None,
    budget_ms: float,
) -> None:
    """Step through the match in RECORD_FILE, Tablić or Tač: a record (`kafana play --save`),
    a fair record, or a game of an event's or league's JSON-lines export (--game), of at
    most 64 MiB.

    Enter: next move, b: back, a number: that move, h N: hand N, s/e: start/end, q: quit.
    With --review: the engine's choice at every move and what each move cost, then a total.
    """
    console = Console(highlight=False)
    given = [n.strip() for n in names.split(",")] if names else None
    try:
        data = read_at_most(record_file)
    except InvalidInputError as error:  # a file past the bound is not read: a usage error
        raise Refused(f"{record_file}: {error}") from None
    try:
        found = unwrap(data.decode("utf-8"), game)
        show_record(
            found.record,
            console,
            console.input,
            names=given or list(found.names) or None,
            reviewing=reviewing,
            seat=seat,
            budget_ms=budget_ms,
        )
    except (InvalidInputError, UnicodeDecodeError) as error:
        raise click.ClickException(f"{record_file}: {error}") from None
    except click.ClickException as error:
        if isinstance(error, click.BadParameter):
            raise
        raise click.ClickException(f"{record_file}: {error.message}") from None
