"""A tournament as JSON and back, so a director in another process can carry on with it.

The snapshot keeps every game's secret (never sent to a client before its time), and every
field of every game and result: a partnership game stays two sides, a result keeps its places.
A round robin's or duplicate's schedule is kept as it was made: its rounds not yet handed out
(`Tournament.ahead`), so an event carries on with the schedule it began with, whatever the code
that loads it would make. A snapshot without one (written before they were kept) rebuilds it
from the entrants with its `seating`, "greedy" when it has none either (written before
seatings were kept): the schedule such an event began with.

>>> from kafana.competitions.tournament import EventConfig, Kind, Tournament
>>> t = Tournament(EventConfig("demo", Kind.SWISS, ("a", "b", "c", "d")))
>>> games = t.next_round()
>>> back = loads(dumps(t))
>>> back.rounds[0] == games, back.secret_of("r1-g1") == t.secret_of("r1-g1")
(True, True)
"""

from __future__ import annotations

import dataclasses
import json
import typing
from enum import Enum
from typing import Any

from kafana.competitions.model import Bye, Ending, GameResult, GameSpec
from kafana.competitions.pairing import Table
from kafana.competitions.policy import Action, Fault, FaultPolicy, Reason
from kafana.competitions.ratings import RatingBook
from kafana.competitions.tournament import EventConfig, Kind, Status, Tournament, schedule_of
from kafana.games.tablic import Card


def _plain(value: Any) -> Any:
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    return value


def _typed(cls: type[Any], data: dict[str, Any]) -> dict[str, Any]:
    """The fields of dataclass `cls` kept in `data`, back to their types (enums, tuples)."""
    hints = typing.get_type_hints(cls)
    out: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.name not in data:
            continue  # a field added since the snapshot was written: its default
        value, hint = data[f.name], hints[f.name]
        if isinstance(hint, type) and issubclass(hint, Enum):
            value = hint(value)
        elif hint is FaultPolicy:
            value = FaultPolicy(**_typed(FaultPolicy, value))
        elif isinstance(value, list):
            value = tuple(value)
        out[f.name] = value
    return out


def config_dict(config: EventConfig) -> dict[str, Any]:
    """An event's configuration as plain data (every field of `EventConfig`)."""
    data: dict[str, Any] = _plain(config)
    return data


def config_of(data: dict[str, Any]) -> EventConfig:
    """Inverse of `config_dict`."""
    return EventConfig(**_typed(EventConfig, data))


def _spec(g: GameSpec) -> dict[str, Any]:
    return {
        "id": g.game_id,
        "round": g.round,
        "seats": list(g.seats),
        "commitment": g.commitment,
        "board": g.board,
        "decks": [" ".join(c.text for c in deck) for deck in g.decks],
        "partnerships": g.partnerships,
    }


def _spec_of(d: dict[str, Any], partnerships: bool) -> GameSpec:
    """A game back; `partnerships`: the event's, for snapshots written before games kept it."""
    decks = tuple(tuple(Card.parse(t) for t in deck.split()) for deck in d["decks"])
    return GameSpec(
        d["id"],
        d["round"],
        tuple(d["seats"]),
        d["commitment"],
        d["board"],
        decks,
        bool(d.get("partnerships", partnerships)),
    )


def _fault(f: Fault) -> list[Any]:
    return [f.seat, f.reason.value, f.action.value, f.move_no, f.detail]


def _result(r: GameResult) -> dict[str, Any]:
    return {
        "id": r.game_id,
        "scores": list(r.scores),
        "winner": r.winner,
        "ending": r.ending.value,
        "faults": [_fault(f) for f in r.faults],
        "record": r.record,
        "table": r.table_id,
        "note": r.note,
        "places": list(r.places),
    }


def _result_of(d: dict[str, Any]) -> GameResult:
    faults = tuple(Fault(s, Reason(r), Action(a), m, t) for s, r, a, m, t in d["faults"])
    return GameResult(
        d["id"],
        tuple(d["scores"]),
        d["winner"],
        Ending(d["ending"]),
        faults,
        d["record"],
        d["table"],
        d["note"],
        tuple(d.get("places", ())),
    )


def dumps(t: Tournament) -> str:
    """The whole tournament (secrets included: keep it server-side) as JSON."""
    data: dict[str, Any] = {
        "config": config_dict(t.config),
        "status": t.status.value,
        "rounds": [[_spec(g) for g in r] for r in t.rounds],
        "byes": [[b.round, b.entrant, b.points] for b in t.byes],
        "results": [_result(r) for r in t.results.values()],
        "secrets": t.secrets(),
        "ratings": t.ratings.to_json(),
        "end_reason": t.end_reason,
        "removed": {name: list(out) for name, out in t.removed.items()},
        "ends_ms": t.ends_ms,
        "closed": t.closed,
        "seating": t.seating,
    }
    if t.config.kind in (Kind.ROUND_ROBIN, Kind.DUPLICATE):
        data["schedule"] = _numbered(t.ahead, t.config.entrants)
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


def _numbered(rounds: list[list[Table]], entrants: tuple[str, ...]) -> list[list[int]]:
    """Rounds of tables as entrant numbers (places in `entrants`), a round's tables one after
    another: a 128-entrant round robin's 127 rounds in 54 KB (by name about four times that)."""
    number = {e: i for i, e in enumerate(entrants)}
    return [[number[e] for table in tables for e in table] for tables in rounds]


def _tables(rounds: list[list[int]], config: EventConfig) -> list[list[Table]]:
    """Inverse of `_numbered` (every table has `config.players` seats)."""
    names, k = config.entrants, config.players
    return [
        [tuple(names[i] for i in seats[at : at + k]) for at in range(0, len(seats), k)]
        for seats in rounds
    ]


def loads(text: str) -> Tournament:
    """Inverse of `dumps`."""
    data = json.loads(text)
    book = RatingBook.from_json(data["ratings"])
    config = config_of(data["config"])
    seating = data.get("seating", "greedy")  # a snapshot from before seatings were kept
    if "schedule" in data:
        ahead = _tables(data["schedule"], config)
    else:  # from before schedules were kept: rebuilt as it was made, less the rounds out
        ahead = schedule_of(config, seating)[len(data["rounds"]) :]
    t = Tournament(config, book, seating=seating, ahead=ahead)
    t.status = Status(data["status"])
    partnerships = t.config.partnerships
    t.rounds = [[_spec_of(g, partnerships) for g in r] for r in data["rounds"]]
    t.byes = [Bye(r, e, p) for r, e, p in data["byes"]]
    t.results = {r["id"]: _result_of(r) for r in data["results"]}
    t.restore_secrets(dict(data["secrets"]))
    t.end_reason = data.get("end_reason", "")
    t.removed = {name: (state, note) for name, (state, note) in data.get("removed", {}).items()}
    t.ends_ms = int(data.get("ends_ms", 0))
    t.closed = bool(data.get("closed", False))
    return t
