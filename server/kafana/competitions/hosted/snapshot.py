"""A tournament as JSON and back, so a director in another process can carry on with it.

The snapshot keeps every game's secret (never sent to a client before its time), and every
field of every game and result: a partnership game stays two sides, a result keeps its places.
It keeps the event's round robin seating (`Tournament.seating`); a snapshot written before
snapshots kept it is of an event seated "greedy", and that event carries on so: the rest of
its own schedule, not another's rounds.

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
from kafana.competitions.policy import Action, Fault, FaultPolicy, Reason
from kafana.competitions.ratings import RatingBook
from kafana.competitions.tournament import EventConfig, Status, Tournament
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
    data = {
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
    return json.dumps(data, sort_keys=True)


def loads(text: str) -> Tournament:
    """Inverse of `dumps`."""
    data = json.loads(text)
    book = RatingBook.from_json(data["ratings"])
    seating = data.get("seating", "greedy")  # a snapshot from before seatings were kept
    t = Tournament(config_of(data["config"]), book, seating=seating)
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
