"""One applied move of Tač with what it showed everyone."""

from __future__ import annotations

from dataclasses import dataclass

from kafana.games.cards import Card
from kafana.games.tac.move import Move


@dataclass(frozen=True)
class Step:
    """One applied move with what it showed everyone.

    `card` is the card turned up (flip) or moved (play); `turned_over` is True when a flip
    first turned the discard pile over; `penalty` is how many cards a call gave the offender
    (their faces stay hidden); `offence` is True when the move broke the order.
    """

    seat: int
    move: Move
    card: Card | None = None
    turned_over: bool = False
    penalty: int = 0
    offence: bool = False
