"""The one protocol every game's state implements, on the model of OpenSpiel's `State`.

A state is immutable: `apply` returns the next one. Seats are numbered 0 .. `seats` - 1 and
play for sides (`side_of`); the outcome has one shape for every game. Code that plays any game
(the service, a match runner, a generic test) uses only what is written here; a game's own
methods (Tablić's `scores`, Tač's `places()`) stay for code that knows which game it holds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, Self, TypeVar

M = TypeVar("M")
V_co = TypeVar("V_co", covariant=True)
R_co = TypeVar("R_co", covariant=True)

SCORE = "score"
"""An outcome's reason: a side reached the target (Tablić)."""
OUT = "out"
"""An outcome's reason: a player got rid of every card (Tač)."""
STALLED = "stalled"
"""An outcome's reason: the game was drawn by the rules (Tač's stall limit)."""
FORFEIT = "forfeit"
"""An outcome's reason: a seat forfeited."""


@dataclass(frozen=True)
class Outcome:
    """How a game ended, per side: the same shape for every game.

    `scores` is empty for a game that ranks instead of scoring (Tač); `places` gives each side
    its place (1 is best, tied sides share one) and is empty when play did not decide them
    (a forfeit before the end); `winner` is the winning side, None for a draw.
    """

    reason: str
    winner: int | None
    scores: tuple[int, ...] = ()
    places: tuple[int, ...] = ()


def places_by_score(scores: tuple[int, ...]) -> tuple[int, ...]:
    """Each side's place by points, more first (ties share a place)."""
    return tuple(1 + sum(other > mine for other in scores) for mine in scores)


class Record(Protocol):
    """A game's replayable record."""

    def to_text(self) -> str:
        """The canonical, replayable text form."""
        ...


class GameState(Protocol[M, V_co, R_co]):
    """One position of a game: `M` its moves, `V_co` its views, `R_co` its record."""

    @property
    def seats(self) -> int:
        """Number of seats."""
        ...

    @property
    def current_seat(self) -> int | None:
        """The seat to move, or None once the game is over."""
        ...

    @property
    def is_over(self) -> bool:
        """True once the game has ended."""
        ...

    def side_of(self, seat: int) -> int:
        """The side a seat plays for."""
        ...

    def legal_moves_for(self, seat: int) -> Sequence[M]:
        """The moves `seat` may make now (NotYourTurnError where only the seat to move acts):
        a sequence to read, not to change."""
        ...

    def apply(self, move: M | str, seat: int | None = None) -> Self:
        """The state after `seat` (if given: checked) plays `move` (a move or its text)."""
        ...

    def default_move(self) -> M:
        """The move a clock plays for the seat to move (raises KafanaError when none is found)."""
        ...

    def outcome(self, forfeit: int | None = None) -> Outcome | None:
        """How the game ended (None while it runs), or how it ends if `forfeit` forfeits now."""
        ...

    def view(self, seat: int) -> V_co:
        """What `seat` may know."""
        ...

    def public_view(self) -> V_co:
        """What a spectator may know."""
        ...

    def record(self) -> R_co:
        """The replayable record of the game so far."""
        ...
