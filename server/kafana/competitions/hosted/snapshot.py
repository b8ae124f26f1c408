"""A tournament as JSON and back, so a director in another process can carry on with it.

>>> from kafana.competitions.tournament import EventConfig, Kind, Tournament
>>> t = Tournament(EventConfig("demo", Kind.SWISS, ("a", "b", "c", "d"), seed=1))
>>> games = t.next_round()
>>> back = loads(dumps(t))
>>> [g.seats for g in back.rounds[0]], back.seed_of("r1-g1") == t.seed_of("r1-g1")
([('a', 'b'), ('c', 'd')], True)
"""

from __future__ import annotations

import json
from typing import Any

from kafana.competitions.model import Bye, Ending, GameResult, GameSpec
from kafana.competitions.policy import Action, Fault, FaultPolicy, Reason
from kafana.competitions.ratings import RatingBook
from kafana.competitions.tournament import EventConfig, Kind, Status, Tournament
from kafana.games.tablic import Card


def config_dict(config: EventConfig) -> dict[str, Any]:
    """An event's configuration as plain data."""
    policy = config.policy
    return {
        "name": config.name,
        "kind": config.kind.value,
        "entrants": list(config.entrants),
        "rounds": config.rounds,
        "boards": config.boards,
        "hands_per_board": config.hands_per_board,
        "preset": config.preset,
        "target": config.target,
        "seed": config.seed,
        "policy": {
            "move_ms": policy.move_ms,
            "on_timeout": policy.on_timeout.value,
            "disconnect_grace_ms": policy.disconnect_grace_ms,
            "on_disconnect": policy.on_disconnect.value,
            "illegal_limit": policy.illegal_limit,
            "on_illegal": policy.on_illegal.value,
        },
    }


def config_of(data: dict[str, Any]) -> EventConfig:
    """Inverse of `config_dict`."""
    p = data["policy"]
    policy = FaultPolicy(
        move_ms=p["move_ms"],
        on_timeout=Action(p["on_timeout"]),
        disconnect_grace_ms=p["disconnect_grace_ms"],
        on_disconnect=Action(p["on_disconnect"]),
        illegal_limit=p["illegal_limit"],
        on_illegal=Action(p["on_illegal"]),
    )
    return EventConfig(
        data["name"],
        Kind(data["kind"]),
        tuple(data["entrants"]),
        data["rounds"],
        data["boards"],
        data["hands_per_board"],
        preset=data["preset"],
        target=data["target"],
        seed=data["seed"],
        policy=policy,
    )


def _spec(g: GameSpec) -> dict[str, Any]:
    return {
        "id": g.game_id,
        "round": g.round,
        "seats": list(g.seats),
        "commitment": g.commitment,
        "board": g.board,
        "decks": [" ".join(c.text for c in deck) for deck in g.decks],
    }


def _spec_of(d: dict[str, Any]) -> GameSpec:
    decks = tuple(tuple(Card.parse(t) for t in deck.split()) for deck in d["decks"])
    return GameSpec(d["id"], d["round"], tuple(d["seats"]), d["commitment"], d["board"], decks)


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
    )


def dumps(t: Tournament) -> str:
    """The whole tournament (seeds included: keep it server-side) as JSON."""
    data = {
        "config": config_dict(t.config),
        "status": t.status.value,
        "rounds": [[_spec(g) for g in r] for r in t.rounds],
        "byes": [[b.round, b.entrant, b.points] for b in t.byes],
        "results": [_result(r) for r in t.results.values()],
        "seeds": t.seeds(),
        "ratings": t.ratings.to_json(),
    }
    return json.dumps(data, sort_keys=True)


def loads(text: str) -> Tournament:
    """Inverse of `dumps`."""
    data = json.loads(text)
    t = Tournament(config_of(data["config"]), RatingBook.from_json(data["ratings"]))
    t.status = Status(data["status"])
    t.rounds = [[_spec_of(g) for g in r] for r in data["rounds"]]
    t.byes = [Bye(r, e, p) for r, e, p in data["byes"]]
    t.results = {r["id"]: _result_of(r) for r in data["results"]}
    t.restore_seeds({k: int(v) for k, v in data["seeds"].items()})
    return t
