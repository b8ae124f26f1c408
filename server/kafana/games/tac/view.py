"""Views: what a seat (or a spectator) may know of a game of Tač.

Every card that was ever placed face up is public, so the central pile, the discard piles and
the turned-up card are shown in full. Closed piles are face down for everyone, their owner
included: a view shows only their sizes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kafana.games.cards import Card
from kafana.games.tac.rules import Rules
from kafana.games.tac.step import Step


@dataclass(frozen=True)
class View:
    """A seat's knowledge of the game; `seat` is None for a spectator."""

    rules: Rules
    seat: int | None
    current_seat: int | None
    phase: str  # "draw", "place" or "over"
    central: tuple[Card, ...]  # bottom first
    discards: tuple[tuple[Card, ...], ...]  # per seat, bottom first
    closed_sizes: tuple[int, ...]
    turned: Card | None
    pending_offender: int | None
    out_order: tuple[int, ...]
    places: tuple[int, ...] | None
    stalled: bool
    move_count: int
    turn: int
    stall_turns: int
    last_step: Step | None
    is_over: bool

    def held(self, seat: int) -> int:
        """Cards `seat` still holds (closed, discard and a turned-up card)."""
        turned = self.turned is not None and seat == self.current_seat
        return self.closed_sizes[seat] + len(self.discards[seat]) + turned

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form with cards as canonical text, piles bottom first."""

        def cards(items: tuple[Card, ...]) -> list[str]:
            return [c.text for c in items]

        step = self.last_step
        return {
            "seat": self.seat,
            "current_seat": self.current_seat,
            "phase": self.phase,
            "central": cards(self.central),
            "discards": [cards(pile) for pile in self.discards],
            "closed_sizes": list(self.closed_sizes),
            "turned": None if self.turned is None else self.turned.text,
            "pending_offender": self.pending_offender,
            "out_order": list(self.out_order),
            "places": None if self.places is None else list(self.places),
            "stalled": self.stalled,
            "move_count": self.move_count,
            "turn": self.turn,
            "stall_turns": self.stall_turns,
            "last_step": None
            if step is None
            else {
                "seat": step.seat,
                "move": str(step.move),
                "card": None if step.card is None else step.card.text,
                "turned_over": step.turned_over,
                "penalty": step.penalty,
                "offence": step.offence,
            },
            "is_over": self.is_over,
        }
