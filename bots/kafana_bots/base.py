"""The bot interface: a seat's view and its legal moves in, one move out.

`Player` is what the bots of every game share (a seat, the rules, an injected generator, one
`choose`); `Bot` is Tablić's, told of public events; Tač's `TacBot` adds calls.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Generic, TypeVar

from kafana.games.tablic import Move, Rules, View

from kafana_bots.events import Event

RulesT = TypeVar("RulesT")
ViewT = TypeVar("ViewT")
MoveT = TypeVar("MoveT")


class Player(ABC, Generic[RulesT, ViewT, MoveT]):
    """A player for one seat of a game.

    A player is built with its seat, the rules and an injected random generator (its only
    source of randomness, so a game replays exactly from its seeds). It sees only its seat's
    view: never the game state, another hand or the order of a closed pile.
    """

    name: str = "bot"

    def __init__(self, seat: int, rules: RulesT, rng: random.Random) -> None:
        self.seat = seat
        self.rules = rules
        self.rng = rng

    @abstractmethod
    def choose(self, view: ViewT, legal_moves: Sequence[MoveT]) -> MoveT:
        """Return one of `legal_moves` for the position `view` shows."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r} seat={self.seat}>"


class Bot(Player[Rules, View, Move]):
    """A Tablić player for one seat: sees its seat's `View`, never the match state."""

    def observe(self, event: Event) -> None:
        """Told of every public event (moves, hand and match ends); ignore by default."""
