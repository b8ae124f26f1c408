"""Moves: (card played, cards captured), frozen and hashable, with a canonical text form."""

from __future__ import annotations

from collections.abc import Iterable

from kafana.errors import InvalidInputError
from kafana.games.cards import CARDS, Card, check_distinct

EMPTY: frozenset[Card] = frozenset()


class Move(tuple[Card, frozenset[Card]]):
    """A move: the card played and the table cards it captures (none: a trail).

    >>> Move.parse("kc:kh+kd")
    Move.parse('KC:KD+KH')
    >>> str(Move(Card.parse("7S"))), Move.parse("7S").is_trail
    ('7S', True)
    """

    __slots__ = ()

    def __new__(cls, card: Card, captured: Iterable[Card] = EMPTY) -> Move:
        if not isinstance(card, Card):
            raise InvalidInputError(f"a move's card must be a Card, not {card!r}")
        if not isinstance(captured, frozenset):
            captured = tuple(captured)
            check_distinct(captured, "the captured cards")
            captured = frozenset(captured)
        for item in captured:
            if not isinstance(item, Card):
                raise InvalidInputError(f"captured cards must be Cards, not {item!r}")
        if card in captured:
            raise InvalidInputError(f"{card} cannot capture itself")
        return tuple.__new__(cls, (card, captured))

    def __getnewargs__(self) -> tuple[Card, frozenset[Card]]:
        """Copied and pickled as `Move(card, captured)` (a tuple's would be `Move((card, ...))`)."""
        return (self[0], self[1])

    @property
    def card(self) -> Card:
        """The card played from the hand."""
        return self[0]

    @property
    def captured(self) -> frozenset[Card]:
        """The table cards taken; empty for a trail."""
        return self[1]

    @property
    def is_trail(self) -> bool:
        """True when the card stays on the table."""
        return not self[1]

    @staticmethod
    def parse(text: str) -> Move:
        """Parse `KC:KD+KH` (a capture) or `7S` (a trail)."""
        if not isinstance(text, str) or len(text) > 200:
            raise InvalidInputError(f"a move must be text like 'KC:KD+KH' or '7S', not {text!r}")
        played, sep, rest = text.strip().partition(":")
        if sep and not rest.strip():
            raise InvalidInputError(f"move {text!r} names no captured cards after ':'")
        captured = [Card.parse(item) for item in rest.split("+")] if sep else []
        return Move(Card.parse(played), captured)

    def __str__(self) -> str:
        if not self[1]:
            return self[0].text
        return self[0].text + ":" + "+".join(c.text for c in sorted(self[1]))

    def __repr__(self) -> str:
        return f"Move.parse({str(self)!r})"


TRAILS: tuple[Move, ...] = tuple(tuple.__new__(Move, (card, EMPTY)) for card in CARDS)
"""The trail of each card, by `Card.index` (moves are immutable: one object serves all)."""
