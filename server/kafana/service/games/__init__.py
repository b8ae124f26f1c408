"""The games a table can run, by name: each behind the `Game` interface of `base.py`."""

from __future__ import annotations

from kafana.errors import InvalidInputError
from kafana.service.games.base import Game, GameRules, switches_of
from kafana.service.games.tablic import TablicGame
from kafana.service.games.tac import TacGame
from kafana.v1 import rules_pb2

GAMES: dict[str, Game] = {"tablic": TablicGame(), "tac": TacGame()}
"""Every game this server runs, by its RulesSpec name."""

__all__ = ["GAMES", "Game", "GameRules", "build_rules", "game_name", "game_of"]


def game_name(spec: rules_pb2.RulesSpec) -> str:
    """The spec's game, checked ("" means tablic)."""
    name = spec.game or "tablic"
    if name not in GAMES:
        raise InvalidInputError(f"unknown game {spec.game!r}: this server runs {', '.join(GAMES)}")
    return name


def game_of(spec: rules_pb2.RulesSpec) -> Game:
    """The `Game` a spec names."""
    return GAMES[game_name(spec)]


def build_rules(spec: rules_pb2.RulesSpec) -> GameRules:
    """The spec's game's Rules: preset, seats and switches (errors name the switch)."""
    return game_of(spec).build_rules(spec, switches_of(spec))
