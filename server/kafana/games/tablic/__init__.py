"""Tablić: every rule and variant of `shared/RULES.md`, pure and fast.

>>> from kafana.games import tablic
>>> state = tablic.new_match(tablic.Rules.preset("serbian", players=2), seed=7)
>>> state.current_seat, len(state.table), len(state.hand(0))
(0, 4, 6)

`BUILD` says which build of the core is loaded: "compiled" (mypyc, built by `make venv`) or
"pure" (`KAFANA_PURE=1`, no compiler, or a source edited since the build); see `build`.
"""

from kafana.errors import (
    IllegalMoveError,
    InvalidInputError,
    KafanaError,
    MatchOverError,
)
from kafana.games.cards import CANONICAL_DECK, CARDS, Card, format_cards, parse_cards
from kafana.games.tablic.build import BUILD  # first of the package: it picks the build
from kafana.games.tablic.builds import Build
from kafana.games.tablic.capture import CaptureEngine, captures, engine_for
from kafana.games.tablic.move import Move
from kafana.games.tablic.result import HandResult
from kafana.games.tablic.rules import PRESETS, Rules
from kafana.games.tablic.shuffle import shuffled_deck
from kafana.games.tablic.state import MatchRecord, MatchSetup, MatchState, new_match
from kafana.games.tablic.view import View

__all__ = [
    "BUILD",
    "CANONICAL_DECK",
    "CARDS",
    "PRESETS",
    "Build",
    "CaptureEngine",
    "Card",
    "HandResult",
    "IllegalMoveError",
    "InvalidInputError",
    "KafanaError",
    "MatchOverError",
    "MatchRecord",
    "MatchSetup",
    "MatchState",
    "Move",
    "Rules",
    "View",
    "captures",
    "engine_for",
    "format_cards",
    "new_match",
    "parse_cards",
    "shuffled_deck",
]
