"""Positions: a game set up with chosen piles instead of a deal (puzzles, tests, analysis).

Like a chess FEN: every pile is given in full. Closed piles are listed top first, discard
piles and the central pile bottom first (the last card is the top). With `decks` decks a card
may appear at most `decks` times; cards left out are simply not in the game.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from kafana.errors import InvalidInputError
from kafana.games.cards import Card, parse_cards
from kafana.games.tac.rules import Rules


@dataclass(frozen=True)
class Position:
    """Piles per seat and the central pile, and the seat to move."""

    closed: tuple[tuple[Card, ...], ...]  # per seat, top first
    discards: tuple[tuple[Card, ...], ...]  # per seat, bottom first
    central: tuple[Card, ...] = ()  # bottom first
    current: int = 0

    @staticmethod
    def of(
        closed: Sequence[Iterable[Card | str] | str],
        discards: Sequence[Iterable[Card | str] | str] | None = None,
        central: Iterable[Card | str] | str = (),
        current: int = 0,
    ) -> Position:
        """Build from card texts: `Position.of(["5H 2C", "KS"], ["", "4D"], "AC 2D 3S")`."""
        piles = tuple(parse_cards(p) for p in closed)
        found = tuple(parse_cards(p) for p in discards) if discards else ((),) * len(piles)
        return Position(piles, found, parse_cards(central), current)

    def check(self, rules: Rules) -> None:
        """Raise InvalidInputError unless this position fits the rules."""
        n = rules.players
        if len(self.closed) != n or len(self.discards) != n:
            raise InvalidInputError(f"a position needs closed and discard piles for {n} seats")
        if not isinstance(self.current, int) or not 0 <= self.current < n:
            raise InvalidInputError(f"no seat {self.current!r} to move at a {n}-player table")
        for seat in range(n):
            if not self.closed[seat] and not self.discards[seat]:
                raise InvalidInputError(f"seat {seat} holds no card: it would already be out")
        counts = Counter(self.central)
        for pile in (*self.closed, *self.discards):
            counts.update(pile)
        for card, count in counts.items():
            if count > rules.decks:
                raise InvalidInputError(f"{card} appears {count} times with {rules.decks} deck(s)")

    def to_json(self) -> str:
        """Canonical JSON with cards as text."""

        def texts(pile: tuple[Card, ...]) -> str:
            return " ".join(c.text for c in pile)

        data: dict[str, Any] = {
            "closed": [texts(p) for p in self.closed],
            "discards": [texts(p) for p in self.discards],
            "central": texts(self.central),
            "current": self.current,
        }
        return json.dumps(data, sort_keys=True, separators=(",", ":"))

    @staticmethod
    def from_json(text: str) -> Position:
        """Parse `to_json` output."""
        try:
            data = json.loads(text)
            return Position.of(data["closed"], data["discards"], data["central"], data["current"])
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise InvalidInputError(f"not a Tač position: {exc}") from None
