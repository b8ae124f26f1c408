"""Moves: (card played, cards captured), or a build, frozen and hashable, with a canonical text.

A capture or a trail is the pair (card, captured cards); a build or a raise (the `building`
switch) is the triple (card, table cards it joins, the build's value), written `7C>5D+AH=13`.
"""

from __future__ import annotations

from collections.abc import Iterable

from kafana.errors import InvalidInputError
from kafana.games.cards import CARDS, Card, check_distinct

EMPTY: frozenset[Card] = frozenset()


BUILD_VALUE_LIMIT = 14
"""The highest value a build may have under any rules (RULES.md: at most 14)."""


class Move(tuple[Card, frozenset[Card]]):
    """A move: the card played and the table cards it captures (none: a trail), or a build.

    A build (`Move.build`) is a third item, its value, after the card and the table cards it
    joins (loose cards, and every card of the build it raises): it captures nothing.

    >>> Move.parse("kc:kh+kd")
    Move.parse('KC:KD+KH')
    >>> str(Move(Card.parse("7S"))), Move.parse("7S").is_trail
    ('7S', True)
    >>> build = Move.parse("7c>ah+5d=13")
    >>> build, build.build_value, build.captured, sorted(map(str, build.joined))
    (Move.parse('7C>AH+5D=13'), 13, frozenset(), ['5D', 'AH'])
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

    @staticmethod
    def build(card: Card, joined: Iterable[Card], value: int) -> Move:
        """A build or a raise: `card` played onto the table cards `joined` (at least one; a
        raise names every card of the build it raises), making a build of `value`."""
        first = Move(card, joined)
        if not first[1]:
            raise InvalidInputError(f"a build of {card} must join at least one table card")
        if not isinstance(value, int) or isinstance(value, bool):
            raise InvalidInputError(f"a build's value must be a whole number, not {value!r}")
        if not 2 <= value <= BUILD_VALUE_LIMIT:
            raise InvalidInputError(
                f"a build's value must be between 2 and {BUILD_VALUE_LIMIT}, not {value}"
            )
        return tuple.__new__(Move, (card, first[1], value))

    def __reduce__(self) -> tuple[object, ...]:
        """Copied and pickled as `Move(card, captured)` or `Move.build(card, joined, value)`
        (a tuple's would be `Move((card, ...))`)."""
        if len(self) == 3:
            return (Move.build, tuple(self))
        return (Move, (self[0], self[1]))

    @property
    def card(self) -> Card:
        """The card played from the hand."""
        return self[0]

    @property
    def captured(self) -> frozenset[Card]:
        """The table cards taken; empty for a trail or a build."""
        return EMPTY if len(self) == 3 else self[1]

    @property
    def is_build(self) -> bool:
        """True for a build or a raise (the `building` switch)."""
        return len(self) == 3

    @property
    def joined(self) -> frozenset[Card]:
        """The table cards a build joins (loose cards and a raised build's); empty otherwise."""
        return self[1] if len(self) == 3 else EMPTY

    @property
    def build_value(self) -> int:
        """The value of the build this move makes; 0 for a capture or a trail."""
        return self[2] if len(self) == 3 else 0

    @property
    def is_trail(self) -> bool:
        """True when the card stays on the table."""
        return not self[1]

    @staticmethod
    def parse(text: str) -> Move:
        """Parse `KC:KD+KH` (a capture), `7S` (a trail) or `7C>5D+AH=13` (a build)."""
        if not isinstance(text, str) or len(text) > 200:
            raise InvalidInputError(
                f"a move must be text like 'KC:KD+KH', '7S' or '7C>5D+AH=13', not {text!r}"
            )
        if ">" in text:
            return _parse_build(text)
        played, sep, rest = text.strip().partition(":")
        if sep and not rest.strip():
            raise InvalidInputError(f"move {text!r} names no captured cards after ':'")
        captured = [Card.parse(item) for item in rest.split("+")] if sep else []
        return Move(Card.parse(played), captured)

    def __str__(self) -> str:
        if not self[1]:
            return self[0].text
        joined = "+".join(c.text for c in sorted(self[1]))
        if len(self) == 3:
            return f"{self[0].text}>{joined}={self[2]}"
        return self[0].text + ":" + joined

    def __repr__(self) -> str:
        return f"Move.parse({str(self)!r})"


def _parse_build(text: str) -> Move:
    """`7C>5D+AH=13`: the card, the table cards it joins, the build's value."""
    played, _, rest = text.strip().partition(">")
    joined, sep, value = rest.partition("=")
    if not sep or not value.strip().isdigit():
        raise InvalidInputError(
            f"build {text!r} must end with '=' and its value, like '7C>5D+AH=13'"
        )
    if not joined.strip():
        raise InvalidInputError(f"build {text!r} names no table cards after '>'")
    cards = [Card.parse(item) for item in joined.split("+")]
    return Move.build(Card.parse(played), cards, int(value.strip()))


TRAILS: tuple[Move, ...] = tuple(tuple.__new__(Move, (card, EMPTY)) for card in CARDS)
"""The trail of each card, by `Card.index` (moves are immutable: one object serves all)."""
