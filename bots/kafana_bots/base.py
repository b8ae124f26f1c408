"""The bot interface: a seat's view and its legal moves in, one move out."""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Sequence

from kafana.games.tablic import Move, Rules, View

from kafana_bots.events import Event


class Bot(ABC):
    """A Tablić player for one seat.

    A bot is built with its seat, the rules and an injected random generator (its only source
    of randomness, so a match replays exactly from its seed). It sees only its seat's `View`:
    never the match state, another hand or the deck order.
    """

    name: str = "bot"

    def __init__(self, seat: int, rules: Rules, rng: random.Random) -> None:
        self.seat = seat
        self.rules = rules
        self.rng = rng

    @abstractmethod
    def choose(self, view: View, legal_moves: Sequence[Move]) -> Move:
        """Return one of `legal_moves` for the position `view` shows."""

    def observe(self, event: Event) -> None:  # noqa: B027 - optional hook, empty by default
        """Told of every public event (moves, hand and match ends); ignore by default."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r} seat={self.seat}>"
