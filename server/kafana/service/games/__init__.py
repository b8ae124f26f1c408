"""The games a table can run, by name: each behind a `TableGame` of conversions (`base.py`)."""

from __future__ import annotations

import functools
from typing import Any

from kafana.errors import InvalidRulesError
from kafana.service.games.base import AnyState, GameRules, TableGame, game_label
from kafana.service.games.tablic import TablicGame, captures
from kafana.service.games.tac import TacGame
from kafana.v1 import rules_pb2

Game = TableGame[Any, Any]
"""Some game's `TableGame`, as the service holds it: which game is known at run time only
(its state is an `AnyState`; moves pass from that state to the same game's `TableGame`)."""

GAMES: dict[str, Game] = {"tablic": TablicGame(), "tac": TacGame()}
"""Every game this server runs, by its name (the records' and the logs' word for it)."""

BY_ENUM: dict[int, Game] = {game.game: game for game in GAMES.values()}
"""Every game by its `Game` enum value (GAME_UNSPECIFIED is Tablić)."""
BY_ENUM[rules_pb2.GAME_UNSPECIFIED] = GAMES["tablic"]

__all__ = [
    "BY_ENUM",
    "GAMES",
    "AnyState",
    "Game",
    "GameRules",
    "build_rules",
    "captures",
    "game_enum",
    "game_name",
    "game_of",
    "rules_in_force",
    "rules_in_force_bytes",
]


def game_of(spec: rules_pb2.RulesSpec) -> Game:
    """The `TableGame` a spec names (UNSPECIFIED: Tablić); an unknown game is refused."""
    game = BY_ENUM.get(spec.game)
    if game is None:
        names = ", ".join(rules_pb2.Game.Name(g.game) for g in GAMES.values())
        raise InvalidRulesError(
            f"rules.game {game_label(spec.game)} is not a game this server runs ({names})",
            field="rules.game",
        )
    return game


def game_name(spec: rules_pb2.RulesSpec) -> str:
    """The spec's game's name ("tablic" or "tac"), checked."""
    return game_of(spec).name


def game_enum(spec: rules_pb2.RulesSpec) -> rules_pb2.Game.ValueType:
    """The spec's game as a `Game` value, never UNSPECIFIED (a filter compares with it)."""
    return game_of(spec).game


def build_rules(spec: rules_pb2.RulesSpec) -> GameRules:
    """The spec's game's Rules: preset, seats and the branch's set switches (errors name the
    field)."""
    return game_of(spec).build_rules(spec)


@functools.lru_cache(maxsize=256)
def _in_force(spec: bytes, rules_json: str) -> bytes:
    """The serialized rules in force of a serialized spec and its rules' JSON (cached: tables
    repeat a few specs). Bounded: the 256 pairs used last (~1 KB each)."""
    parsed = rules_pb2.RulesSpec.FromString(spec)
    game = game_of(parsed)
    return game.spec_of(game.rules_from_json(rules_json), parsed).SerializeToString()


def rules_in_force_bytes(spec: rules_pb2.RulesSpec, rules_json: str) -> bytes:
    """`rules_in_force`, serialized (to merge into a message's field without a copy)."""
    return _in_force(spec.SerializeToString(deterministic=True), rules_json)


def rules_in_force(spec: rules_pb2.RulesSpec, rules_json: str) -> rules_pb2.RulesSpec:
    """The rules a table plays (`TableInfo.rules`): `game` and every switch of its branch set.
    `spec` is the one it was created with, `rules_json` its Rules' JSON (`StoredTable`)."""
    return rules_pb2.RulesSpec.FromString(rules_in_force_bytes(spec, rules_json))
