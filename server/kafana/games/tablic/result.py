"""The score of a finished hand of Tablić."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class HandResult:
    """The score of one finished hand, per side."""

    hand: int
    cards: tuple[int, ...]  # cards captured, leftovers included
    card_points: tuple[int, ...]
    most_cards: tuple[int, ...]  # the most-cards bonus (0 or the rule's points)
    tablas: tuple[int, ...]  # number of tablas
    points: tuple[int, ...]  # everything together
    last_capturer: int | None  # side that took the leftovers
