"""Check an event's JSON-lines export (`exports.records_jsonl`): every field of every line.

Each line's fair record is checked (`verify.verify`), then every field against it and its
replay: event, game, table, seats, commitment, ending and faults equal the record's meta lines;
scores are the replay's (Tablić scores; Tač places, or none as a table gives); the winner is the
side the record shows; round and board agree with the game id. A game without a record
(pending, or decided off the board) must say so consistently. Across lines: one event, each
game once, and every game of a duplicate board (a round's board) committed to the same secret.

All of that holds for an export anyone could have written from scratch: a record's meta lines
are not covered by its commitment. Given what the server published (`Published`, from its
`GetEvent` by `hosted.convert.published_of`: `kafana verify --server`), the export is also
bound to it: the event's id and name, every game of it (none left out, none added), and each
game's round, board, seats in order and commitment as they were announced; a revealed secret
as the server reveals it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kafana.competitions.envelope import FairRecord, check_commitment_text
from kafana.competitions.model import Ending
from kafana.competitions.policy import Reason
from kafana.competitions.verify import NAME, VerificationError, Verified, fail, verify
from kafana.competitions.verify import FaultCode as Code
from kafana.errors import KafanaError
from kafana.games.records import json_value

FIELDS = (
    "event",
    "game",
    "round",
    "board",
    "seats",
    "commitment",
    "scores",
    "winner",
    "ending",
    "faults",
    "table",
    "note",
    "record",
)
OPTIONAL = ("sides", "event_id")
PENDING = "pending"
GAME_ID = re.compile(r"r(\d+)-g\d+(?:-b(\d+)(?:-s\d+)?)?")
"""A game id: ``r<round>-g<table>``, a duplicate board's ``r<round>-g<table>-b<board>`` (before
2026-12 ``...-b<board>-s<seating>``)."""
MAX_NOTE = 1000


@dataclass(frozen=True)
class Checked:
    """One line of an export, checked: its game, and the fair record's check (None: no record)."""

    line: int
    game: str
    ending: str
    verified: Verified | None


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _ints(value: object) -> bool:
    return isinstance(value, list) and all(_is_int(v) for v in value)


def _strings(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


TYPES: dict[str, tuple[str, Any]] = {
    "event": ("a string", lambda v: isinstance(v, str)),
    "game": ("a string", lambda v: isinstance(v, str)),
    "round": ("a whole number >= 1", lambda v: _is_int(v) and v >= 1),
    "board": ("null or a whole number >= 1", lambda v: v is None or (_is_int(v) and v >= 1)),
    "seats": ("a list of names", _strings),
    "commitment": ("a string", lambda v: isinstance(v, str)),
    "scores": ("null or a list of whole numbers", lambda v: v is None or _ints(v)),
    "winner": ("null or a whole number >= 0", lambda v: v is None or (_is_int(v) and v >= 0)),
    "ending": ("a string", lambda v: isinstance(v, str)),
    "faults": ("a list of fault codes", _strings),
    "table": ("a string", lambda v: isinstance(v, str)),
    "note": ("a string", lambda v: isinstance(v, str)),
    "record": ("a string", lambda v: isinstance(v, str)),
    "sides": ("a list of whole numbers (a side per seat)", _ints),
    "event_id": ("a string", lambda v: isinstance(v, str)),
}


def _fields(raw: str) -> dict[str, Any]:
    try:
        item = json_value(raw)  # nested past what a line holds: refused before anything recurses
    except ValueError as exc:
        raise fail(f"not a JSON object: {exc}") from None
    if not isinstance(item, dict):
        raise fail("not a JSON object")
    unknown = sorted(set(item) - set(FIELDS) - set(OPTIONAL))
    if unknown:
        raise fail(f"unknown field(s) {', '.join(map(repr, unknown))}")
    missing = [name for name in FIELDS if name not in item]
    if missing:
        raise fail(f"missing field(s) {', '.join(missing)}")
    for name, value in item.items():
        what, ok = TYPES[name]
        if not ok(value):
            raise fail(f"field {name} is {what}, not {json.dumps(value)[:60]}")
    return item


def agree(name: str, said: object, record: object) -> None:
    """A field of a line is what the fair record says (else a rejection naming both)."""
    if said != record:
        raise fail(f"field {name} is {json.dumps(said)[:80]} but the fair record says "
                   f"{json.dumps(record)[:80]}")  # fmt: skip


def _ids(item: dict[str, Any]) -> None:
    """The game id's round and board agree with the fields; names and the note are sane."""
    for name in ("event", "game"):
        if not NAME.fullmatch(item[name]):
            raise fail(f"field {name} is not a name (1-200 printable characters)")
    found = GAME_ID.fullmatch(item["game"])
    if found is not None:
        agree("round", item["round"], int(found[1]))
        agree("board", item["board"], None if found[2] is None else int(found[2]))
    if len(item["note"]) > MAX_NOTE or (item["note"] and not NAME.fullmatch(item["note"][:200])):
        raise fail(f"field note is at most {MAX_NOTE} printable characters")
    if any(not name or " " in name for name in item["seats"]) or not item["seats"]:
        raise fail("field seats lists one name (without spaces) per seat")
    check = item["commitment"]
    try:
        check_commitment_text(check)
    except KafanaError as exc:
        raise fail(f"field commitment: {exc}") from None


def _without_record(item: dict[str, Any]) -> None:
    """A game with no fair record: pending, or decided off the board (nothing to replay)."""
    ending, seats = item["ending"], item["seats"]
    sides = item.get("sides", list(range(len(seats))))
    if len(sides) != len(seats) or any(not 0 <= side < len(seats) for side in sides):
        raise fail(f"field sides gives each of the {len(seats)} seats a side, not {sides}")
    if ending == PENDING:
        for name, empty in (("scores", None), ("winner", None), ("faults", []), ("table", "")):
            if item[name] != empty:
                raise fail(f"a pending game has {name} {json.dumps(empty)}, not "
                           f"{json.dumps(item[name])[:60]}")  # fmt: skip
        return
    if ending not in (Ending.NOT_PLAYED, Ending.ADJUDICATED):
        raise fail(f"a game that ended by {ending[:40]!r} has its fair record (field record)")
    count = max(sides) + 1  # sides
    if item["scores"] not in ([0] * count, [0] * len(seats), []):
        raise fail(f"a game decided without a record scores 0 for each side, not {item['scores']}")
    codes = [Code.parse(text) for text in item["faults"]]
    winner = item["winner"]
    if ending == Ending.NOT_PLAYED and winner is not None:
        raise fail("a game not played has no winner")
    for code in codes:
        if not code.seat < len(seats) or code.at != 0:
            raise fail(f"fault {code.seat}@{code.at}: no seat of that game, or no move played")
        if ending == Ending.NOT_PLAYED and code.reason is not Reason.EVENT_ENDED:
            raise fail(f"a game not played has only event_ended faults, not {code.reason}")
        if ending == Ending.ADJUDICATED and (code.reason is not Reason.ADJUDICATED):
            raise fail(f"an adjudicated game has only adjudicated faults, not {code.reason}")
        if sides[code.seat] == winner:
            raise fail(f"the winner, side {winner}, has a fault that lost it the game")
    if winner is not None and not winner < count:
        raise fail(f"the winner is side {winner}, but the game has {count} sides")


def _with_record(item: dict[str, Any]) -> Verified:
    """Every field against the fair record and its replay."""
    try:
        fair = FairRecord.from_text(item["record"])
    except KafanaError as exc:
        raise fail(f"field record: {exc}") from None
    try:
        done = verify(fair)
    except VerificationError as exc:
        raise fail(f"field record: {exc}") from None
    agree("commitment", item["commitment"], fair.commitment)
    agree("event", item["event"], fair.get("event") or None)
    agree("game", item["game"], fair.get("game") or None)
    agree("table", item["table"], fair.get("table"))
    agree("seats", item["seats"], list(done.seats))
    agree("ending", item["ending"], done.ending)
    agree("faults", item["faults"], fair.every("fault"))
    if "sides" in item:
        agree("sides", item["sides"], list(done.sides))
    figures = list(done.figures)
    if done.ending == Ending.ADJUDICATED:
        if item["scores"] not in ([0] * len(figures), figures):
            raise fail(f"field scores of an adjudicated game are 0s or the record's {figures}")
    elif done.game == "tac":
        if item["scores"] not in ([], figures):
            raise fail(f"field scores of a Tač game are [] or its places {figures}")
    else:
        agree("scores", item["scores"], figures)
    if done.ending == Ending.ADJUDICATED:
        winner = item["winner"]
        count = max(done.sides) + 1
        if winner is not None and not winner < count:
            raise fail(f"field winner is side {winner}, but the game has {count} sides")
    else:
        agree("winner", item["winner"], done.winner)
    return done


def check_line(raw: str) -> tuple[dict[str, Any], Verified | None]:
    """One line of an export, checked: its fields and the fair record's check (None: none)."""
    item = _fields(raw)
    _ids(item)
    if not item["record"]:
        _without_record(item)
        return item, None
    return item, _with_record(item)


@dataclass(frozen=True)
class PublishedGame:
    """One game as the server announced it (its commitment with the pairing) and revealed it."""

    round: int
    board: int | None
    seats: tuple[str, ...]
    commitment: str
    secret: str = ""  # "" until the server reveals it


@dataclass(frozen=True)
class Published:
    """What a server published of one event: its id, name and every game."""

    event_id: str
    name: str
    games: Mapping[str, PublishedGame]


def _as_published(item: dict[str, Any], published: Published) -> None:
    """The line is a game the server published, as it published it."""
    if "event_id" in item and item["event_id"] != published.event_id:
        raise fail(f"field event_id is {item['event_id'][:80]!r}, but the server's event is "
                   f"{published.event_id!r}")  # fmt: skip
    if item["event"] != published.name:
        raise fail(f"field event is {item['event'][:80]!r}, but the server published event "
                   f"{published.event_id} as {published.name!r}")  # fmt: skip
    game = published.games.get(item["game"])
    if game is None:
        raise fail(f"game {item['game'][:80]!r} is not a game the server published for "
                   f"{published.event_id}")  # fmt: skip
    said = {"round": item["round"], "board": item["board"], "seats": item["seats"],
            "commitment": item["commitment"]}  # fmt: skip
    shown = {"round": game.round, "board": game.board, "seats": list(game.seats),
             "commitment": game.commitment}  # fmt: skip
    for name, value in said.items():
        if value != shown[name]:
            raise fail(f"field {name} is {json.dumps(value)[:80]} but the server published "
                       f"{json.dumps(shown[name])[:80]} for game {item['game']}")  # fmt: skip
    revealed = FairRecord.from_text(item["record"]).revealed if item["record"] else None
    if revealed is not None and game.secret and revealed != game.secret:
        raise fail(f"the record reveals another secret than the server's for {item['game']}")


def _game_of(raw: str) -> str:
    """The `game` field of a line, if it has one ("" else)."""
    try:
        item = json_value(raw)
    except ValueError:
        return ""
    game = item.get("game", "") if isinstance(item, dict) else ""
    return game if isinstance(game, str) else ""


def verify_export(
    text: str, published: Published | None = None
) -> list[Checked | VerificationError]:
    """Every line of an export, checked (a failure names its line); then the lines together;
    with `published`, every line against it and every published game present (a game left out
    is an error of its own, naming the game)."""
    out: list[Checked | VerificationError] = []
    seen: set[str] = set()  # the game of every line, checked or not
    event: tuple[str, int] | None = None
    games: dict[str, int] = {}
    boards: dict[tuple[int, int], tuple[str, int]] = {}  # (round, board) -> commitment, line
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        seen.add(_game_of(raw))
        try:
            item, done = check_line(raw)
            if published is not None:
                _as_published(item, published)
            event = event or (item["event"], number)
            if item["event"] != event[0]:
                raise fail(f"event {item['event']!r}, but line {event[1]} is of {event[0]!r}")
            if item["game"] in games:
                raise fail(f"game {item['game']} is on line {games[item['game']]} already")
            games[item["game"]] = number
            board = item["board"]
            if board is not None:
                key = (item["round"], board)
                commit, where = boards.setdefault(key, (item["commitment"], number))
                if commit != item["commitment"]:
                    raise fail(f"board {board} has another commitment on line {where}")
            out.append(Checked(number, item["game"], item["ending"], done))
        except VerificationError as exc:
            out.append(VerificationError(f"line {number}: {exc}"))
    if published is not None:
        for game in published.games:
            if game not in seen:
                out.append(fail(f"game {game} of {published.event_id} (published by the server)"
                                " is not in the export"))  # fmt: skip
    return out
