"""The values a tournament hands out and takes back: games to play and their results."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from kafana.competitions.policy import Fault
from kafana.games.tablic import Card


class Ending(StrEnum):
    """How a game's result came about."""

    SCORE = "score"  # played to the target
    FORFEIT = "forfeit"  # a seat forfeited under the fault policy (or left)
    ADJUDICATED = "adjudicated"  # an organiser decided it
    NOT_PLAYED = "not_played"  # the event ended first (counts for nobody)


@dataclass(frozen=True)
class GameSpec:
    """One game to play: who sits where, and the commitment to its secret (published now).

    The secret itself stays with the organiser (`Tournament.secret_of`) until every game
    sharing its deals is over; the table deals from `fairness.deal_seed(secret)`.
    `decks` are explicit deal orders (duplicate events: the same decks for every pairing).
    """

    game_id: str
    round: int
    seats: tuple[str, ...]  # entrant name per seat
    commitment: str
    board: int | None = None
    decks: tuple[tuple[Card, ...], ...] = ()


@dataclass(frozen=True)
class GameResult:
    """A finished (or decided) game: points per seat, the winning seat, why, and the record."""

    game_id: str
    scores: tuple[int, ...]
    winner: int | None  # seat; None for a draw or a game not played
    ending: Ending = Ending.SCORE
    faults: tuple[Fault, ...] = ()
    record: str = ""  # the fair record text (`FairRecord.to_text()`), "" if none
    table_id: str = ""  # the server's table, when played on one
    note: str = ""

    def match_points(self, seat: int) -> float:
        """1 for a win, 0.5 for a draw, 0 for a loss (nothing for a game not played)."""
        if self.ending is Ending.NOT_PLAYED:
            return 0.0
        if self.winner is None:
            return 0.5
        return 1.0 if self.winner == seat else 0.0


@dataclass
class Bye:
    """An entrant without an opponent in a round (Swiss or round robin with an odd field)."""

    round: int
    entrant: str
    points: float = field(default=1.0)
