"""The bot interface: a seat's view and its legal moves in, one move out.

`Player` is what the bots of every game share (a seat, the rules, an injected generator, one
`choose`); `Bot` is Tablić's, told of public events; Tač's `TacBot` adds calls.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Generic, TypeVar

from kafana.errors import IllegalMoveError
from kafana.games.tablic import Move, Rules, View

from kafana_bots.events import Event

RulesT = TypeVar("RulesT")
ViewT = TypeVar("ViewT")
MoveT = TypeVar("MoveT")


class BotError(IllegalMoveError):
    """A bot's `choose` raised, or answered something that is not one of its legal moves (the
    error names the bot and its seat)."""


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

    def decided(
        self, view: ViewT, legal_moves: Sequence[MoveT], name: str = "", *, judged: bool = False
    ) -> MoveT:
        """`choose`, checked, as every player of bots asks it: its answer when it is one of
        `legal_moves`; BotError naming the bot (`name`, as the caller knows it, else its repr)
        when it raises, returns None (a `return` forgotten: it waited for good on a server)
        or returns anything else (a move's text passed on a server, not in the arena).
        `judged`: a move outside `legal_moves` is returned, for a judge that says why (the
        server, which refuses it naming the card)."""
        who = f"the bot {name} at seat {self.seat}" if name else repr(self)
        try:
            move = self.choose(view, legal_moves)
        except Exception as error:
            raise BotError(f"{who} raised {type(error).__name__} in choose: {error}") from error
        if move in legal_moves:
            return move
        if move is None:
            raise BotError(f"{who} returned None from choose: return one of legal_moves")
        kind = type(legal_moves[0]) if legal_moves else type(move)
        if not isinstance(move, kind):
            raise BotError(
                f"{who} chose {move!r}, a {type(move).__name__}: choose returns one of "
                f"legal_moves (a {kind.__name__})"
            )
        if judged:
            return move
        raise BotError(f"{who} chose {move!r}, which is not legal here")

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r} seat={self.seat}>"


class Bot(Player[Rules, View, Move]):
    """A Tablić player for one seat: sees its seat's `View`, never the match state."""

    def observe(self, event: Event) -> None:
        """Told of every public event (moves, hand and match ends); ignore by default."""
