"""Cards: 52 interned, frozen values with a canonical text form (`10D`, `AS`, `KH`)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NoReturn

from kafana.errors import InvalidInputError

RANKS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS: tuple[str, ...] = ("C", "D", "H", "S")
_SUIT_ALIASES = {"C": 0, "D": 1, "H": 2, "S": 3, "♣": 0, "♦": 1, "♥": 2, "♠": 3}
_RANK_ALIASES = {name: number for number, name in enumerate(RANKS, start=1)} | {"T": 10}


class Card:
    """A playing card. There are exactly 52 instances; compare and hash by identity.

    >>> Card.parse("10♦")
    Card.parse('10D')
    >>> str(Card.parse("as")), Card.parse("QH").rank
    ('AS', 12)
    """

    __slots__ = ("index", "rank", "suit", "text")
    index: int  # (rank - 1) * 4 + suit index: sorts by rank, then suit C D H S
    rank: int  # 1 (ace) .. 13 (king)
    suit: str  # "C", "D", "H" or "S"
    text: str

    def __new__(cls, rank: int, suit: str) -> Card:
        """Return the interned card of that rank (1..13) and suit letter."""
        if not (isinstance(rank, int) and 1 <= rank <= 13) or suit not in SUITS:
            raise InvalidInputError(f"no card of rank {rank!r} and suit {suit!r}")
        return CARDS[(rank - 1) * 4 + SUITS.index(suit)]

    @staticmethod
    def parse(text: str) -> Card:
        """Parse `10D`, `10♦`, `as`, `Kh`: rank then suit, case-insensitive."""
        if not isinstance(text, str):
            raise InvalidInputError(f"a card must be text like '10D', not {text!r}")
        cleaned = text.strip().upper()
        card = _BY_TEXT.get(cleaned)
        if card is None:
            rank = _RANK_ALIASES.get(cleaned[:-1])
            suit = _SUIT_ALIASES.get(cleaned[-1:])
            if rank is None or suit is None:
                shown = text if len(text) <= 20 else text[:20] + "..."
                raise InvalidInputError(
                    f"unknown card {shown!r}: expected a rank A 2-10 J Q K and a suit C D H S"
                )
            card = CARDS[(rank - 1) * 4 + suit]
        return card

    @property
    def rank_text(self) -> str:
        """The rank as printed: `A`, `2`..`10`, `J`, `Q`, `K`."""
        return RANKS[self.rank - 1]

    def __setattr__(self, name: str, value: Any) -> NoReturn:
        raise AttributeError("Card is immutable")

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return (Card.parse, (self.text,))

    def __copy__(self) -> Card:
        return self

    def __deepcopy__(self, memo: Any) -> Card:
        return self

    def __lt__(self, other: Card) -> bool:
        return self.index < other.index

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Card.parse({self.text!r})"


def _make(index: int) -> Card:
    card = object.__new__(Card)
    rank, suit = index // 4 + 1, SUITS[index % 4]
    object.__setattr__(card, "index", index)
    object.__setattr__(card, "rank", rank)
    object.__setattr__(card, "suit", suit)
    object.__setattr__(card, "text", RANKS[rank - 1] + suit)
    return card


CARDS: tuple[Card, ...] = tuple(_make(i) for i in range(52))
"""All 52 cards, indexed by `Card.index` (ranks A..K, each in suits C D H S)."""
_BY_TEXT = {card.text: card for card in CARDS}

CANONICAL_DECK: tuple[Card, ...] = tuple(
    CARDS[(rank - 1) * 4 + suit] for suit in range(4) for rank in range(1, 14)
)
"""The unshuffled deck the documented shuffle starts from: AC..KC, AD..KD, AH..KH, AS..KS."""


def parse_cards(items: Iterable[Card | str] | str) -> tuple[Card, ...]:
    """Parse cards given as Card objects, texts, or one space/comma separated text."""
    if isinstance(items, str):
        items = items.replace(",", " ").split()
    return tuple(item if isinstance(item, Card) else Card.parse(item) for item in items)


def check_distinct(cards: Iterable[Card], what: str) -> None:
    """Raise InvalidInputError naming the first card that appears twice."""
    seen: set[Card] = set()
    for card in cards:
        if card in seen:
            raise InvalidInputError(f"{card} appears twice in {what}")
        seen.add(card)


def format_cards(cards: Iterable[Card]) -> str:
    """Space-separated canonical texts, in rank order."""
    return " ".join(card.text for card in sorted(cards))
