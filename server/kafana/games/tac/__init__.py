"""Tač: every rule of `shared/RULES.md`'s Tač section, pure and fast.

>>> from kafana.games import tac
>>> state = tac.new_game(tac.Rules(players=3), seed=7)
>>> state.current_seat, [str(c) for c in state.central], state.closed_size(0)
(0, ['AD'], 17)
>>> state.legal_moves()
[Move.parse('flip')]
"""

from kafana.errors import (
    IllegalMoveError,
    InvalidInputError,
    KafanaError,
    MatchOverError,
    NotYourTurnError,
)
from kafana.games.cards import Card, parse_cards
from kafana.games.tac.move import Move
from kafana.games.tac.position import Position
from kafana.games.tac.rules import PLAYERS_FOR_DECKS, Rules
from kafana.games.tac.sequence import fits_centre, follows
from kafana.games.tac.shuffle import canonical_deck, shuffled_deck
from kafana.games.tac.state import (
    GameRecord,
    GameSetup,
    GameState,
    check_deck,
    new_game,
    start_position,
)
from kafana.games.tac.step import Step
from kafana.games.tac.view import View

__all__ = [
    "PLAYERS_FOR_DECKS",
    "Card",
    "GameRecord",
    "GameSetup",
    "GameState",
    "IllegalMoveError",
    "InvalidInputError",
    "KafanaError",
    "MatchOverError",
    "Move",
    "NotYourTurnError",
    "Position",
    "Rules",
    "Step",
    "View",
    "canonical_deck",
    "check_deck",
    "fits_centre",
    "follows",
    "new_game",
    "parse_cards",
    "shuffled_deck",
    "start_position",
]
