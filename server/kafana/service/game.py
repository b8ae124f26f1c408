"""The games a table can run; today Tablić (`tac` joins later behind the same functions)."""

from __future__ import annotations

from typing import Any

from google.protobuf.json_format import MessageToDict

from kafana.errors import InvalidInputError
from kafana.games import tablic
from kafana.v1 import rules_pb2, storage_pb2

GAMES = ("tablic",)


def game_name(spec: rules_pb2.RulesSpec) -> str:
    """The spec's game, checked ("" means tablic)."""
    game = spec.game or "tablic"
    if game not in GAMES:
        raise InvalidInputError(f"unknown game {spec.game!r}: this server runs {', '.join(GAMES)}")
    return game


def _plain(value: Any) -> Any:
    """JSON numbers arrive as floats from a Struct; whole ones become ints again."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def build_rules(spec: rules_pb2.RulesSpec) -> tablic.Rules:
    """Preset, seats, target and switches to one Rules object (errors name the switch)."""
    game_name(spec)
    switches: dict[str, Any] = (
        _plain(MessageToDict(spec.switches)) if spec.HasField("switches") else {}
    )
    for fixed in ("players", "partnerships"):
        if fixed in switches:
            raise InvalidInputError(f"set {fixed!r} with the RulesSpec field, not as a switch")
    if spec.target:
        switches["target"] = spec.target
    try:
        return tablic.Rules.preset(
            spec.preset or "serbian",
            players=spec.players or 2,
            partnerships=spec.partnerships,
            **switches,
        )
    except TypeError as error:
        raise InvalidInputError(f"bad rule switches: {error}") from None


def start_match(stored: storage_pb2.StoredTable) -> tablic.MatchState:
    """The match at move 0, from the stored rules and seed or decks."""
    rules = tablic.Rules.from_json(stored.rules_json)
    seed = stored.seed if stored.HasField("seed") else None
    decks = [list(deck.cards) for deck in stored.decks] or None
    return tablic.new_match(rules, seed=seed, decks=decks)
