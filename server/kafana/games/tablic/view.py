"""Per-seat views: exactly what one seat (or a spectator) may know, nothing more."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kafana.games.cards import Card
from kafana.games.tablic.builds import Build
from kafana.games.tablic.result import HandResult
from kafana.games.tablic.rules import Rules


@dataclass(frozen=True)
class View:
    """A seat's knowledge of the match. `seat` and `hand` are None for a spectator.

    Captured cards are public: every capture is made face up before it goes to the pile.
    Other hands appear only as sizes; the deck only as a count; the seed not at all.
    `table` is the loose cards; with `building`, `builds` are the builds beside them.
    """

    rules: Rules
    seat: int | None
    hand: tuple[Card, ...] | None
    table: tuple[Card, ...]
    current_seat: int | None
    hand_no: int
    dealer: int
    move_count: int
    hand_sizes: tuple[int, ...]
    deck_remaining: int
    captured: tuple[frozenset[Card], ...]  # per side, this hand
    tablas: tuple[int, ...]  # per side, this hand
    last_capturer: int | None  # side
    scores: tuple[int, ...]  # per side, the match
    hand_results: tuple[HandResult, ...]
    is_over: bool
    builds: tuple[Build, ...] = ()  # on the table, beside its loose cards (`building`)

    @property
    def side(self) -> int | None:
        """The side of the viewing seat."""
        return None if self.seat is None else self.rules.side_of(self.seat)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form with cards as canonical text."""

        def cards(items: Any) -> list[str]:
            return [c.text for c in sorted(items)]

        out: dict[str, Any] = {
            "seat": self.seat,
            "hand": None if self.hand is None else cards(self.hand),
            "table": cards(self.table),
            "current_seat": self.current_seat,
            "hand_no": self.hand_no,
            "dealer": self.dealer,
            "move_count": self.move_count,
            "hand_sizes": list(self.hand_sizes),
            "deck_remaining": self.deck_remaining,
            "captured": [cards(side) for side in self.captured],
            "tablas": list(self.tablas),
            "last_capturer": self.last_capturer,
            "scores": list(self.scores),
            "is_over": self.is_over,
        }
        if self.rules.building:
            out["builds"] = [b.to_dict() for b in self.builds]
        return out
