"""The games a table can run, by name: each behind a `TableGame` of conversions (`base.py`)."""

from __future__ import annotations

from typing import Any

from kafana.errors import InvalidInputError
from kafana.service.games.base import AnyState, GameRules, TableGame, switches_of
from kafana.service.games.tablic import TablicGame, captures
from kafana.service.games.tac import TacGame
from kafana.v1 import rules_pb2

Game = TableGame[Any, Any]
"""Some game's `TableGame`, as the service holds it: which game is known at run time only
(its state is an `AnyState`; moves pass from that state to the same game's `TableGame`)."""

GAMES: dict[str, Game] = {"tablic": TablicGame(), "tac": TacGame()}
"""Every game this server runs, by its RulesSpec name."""

__all__ = [
    "GAMES",
    "AnyState",
    "Game",
    "GameRules",
    "build_rules",
    "captures",
    "game_name",
    "game_of",
]


def game_name(spec: rules_pb2.RulesSpec) -> str:
    """The spec's game, checked ("" means tablic)."""
    name = spec.game or "tablic"
    if name not in GAMES:
        raise InvalidInputError(f"unknown game {spec.game!r}: this server runs {', '.join(GAMES)}")
    return name


def game_of(spec: rules_pb2.RulesSpec) -> Game:
    """The `TableGame` a spec names."""
    return GAMES[game_name(spec)]


def build_rules(spec: rules_pb2.RulesSpec) -> GameRules:
    """The spec's game's Rules: preset, seats and switches (errors name the switch)."""
    return game_of(spec).build_rules(spec, switches_of(spec))
