"""The sequence of Tač: A 2 3 ... 10 J Q K, and after K comes A again."""

from __future__ import annotations

from kafana.games.cards import Card

ACE = 1


def follows(top: Card, card: Card) -> bool:
    """Whether `card` is one rank above `top` (K is followed by A).

    >>> follows(Card.parse("KS"), Card.parse("AD")), follows(Card.parse("5H"), Card.parse("7H"))
    (True, False)
    """
    return card.rank == top.rank % 13 + 1


def fits_centre(central: tuple[Card, ...], card: Card) -> bool:
    """Whether `card` may go onto the central pile (an ace starts it)."""
    return follows(central[-1], card) if central else card.rank == ACE
