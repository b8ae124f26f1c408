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
    decks: tuple[tuple[Card, ...], ...] = ()  # Tač: one deck (the whole game's deal)
    partnerships: bool = False  # four seats as two sides: seats 0 and 2 against 1 and 3

    @property
    def sides(self) -> tuple[tuple[str, ...], ...]:
        """The entrants of each side: one seat a side, or the two partnerships.

        >>> GameSpec("g", 1, ("a", "b", "c", "d"), "", partnerships=True).sides
        (('a', 'c'), ('b', 'd'))
        """
        if self.partnerships:
            return (self.seats[0::2], self.seats[1::2])
        return tuple((name,) for name in self.seats)

    def side_of(self, seat: int) -> int:
        """The side `seat` plays for."""
        return seat % 2 if self.partnerships else seat


@dataclass(frozen=True)
class GameResult:
    """A finished (or decided) game: points per side, the winning side, why, and the record.

    A side is a seat, or a partnership (`GameSpec.sides`); with two players side and seat
    are the same. `places` ranks the sides (1 is best, tied sides share a place); empty, it
    follows from `winner` (the winner first, every other side second). Tač scores nothing:
    its `scores` are empty and `places` say who went out first.
    """

    game_id: str
    scores: tuple[int, ...]
    winner: int | None  # side; None for a draw or a game not played
    ending: Ending = Ending.SCORE
    faults: tuple[Fault, ...] = ()
    record: str = ""  # the fair record text (`FairRecord.to_text()`), "" if none
    table_id: str = ""  # the server's table, when played on one
    note: str = ""
    places: tuple[int, ...] = ()  # per side, 1 is best; () -> from `winner`

    def side_places(self, sides: int = 2) -> tuple[int, ...]:
        """Each side's place (1 is best, ties share).

        >>> GameResult("g", (10, 3, 7), 0).side_places(3), GameResult("g", (), None).side_places()
        ((1, 2, 2), (1, 1))
        """
        if self.places:
            return self.places
        if self.winner is None:
            return (1,) * sides
        return tuple(1 if side == self.winner else 2 for side in range(sides))

    def match_points(self, side: int, sides: int = 2) -> float:
        """The share of the other sides `side` finished ahead of, a tie counting half.

        Two sides: 1 for a win, 0.5 for a draw, 0 for a loss. Three or four players: the
        winner 1, the last 0, a middle place between (0.5 for second of three). A game not
        played gives nobody anything.

        >>> GameResult("g", (61, 40, 12), 0, places=(1, 2, 3)).match_points(1, 3)
        0.5
        """
        if self.ending is Ending.NOT_PLAYED:
            return 0.0
        places = self.side_places(sides)
        mine = places[side]
        others = [p for i, p in enumerate(places) if i != side]
        if not others:
            return 0.0
        beaten = sum(1.0 if mine < p else 0.5 if mine == p else 0.0 for p in others)
        return beaten / len(others)


@dataclass
class Bye:
    """An entrant without an opponent in a round (Swiss or round robin with an odd field)."""

    round: int
    entrant: str
    points: float = field(default=1.0)


def forfeit_places(sides: int, loser: int, scores: tuple[int, ...] = ()) -> tuple[int, ...]:
    """The places of a game that side `loser` forfeited: it is last, the others by points.

    >>> forfeit_places(3, 0, (40, 12, 30)), forfeit_places(2, 1), forfeit_places(3, 2)
    ((3, 2, 1), (1, 2), (1, 1, 3))
    """
    places = []
    for side in range(sides):
        if side == loser:
            places.append(sides)
            continue
        ahead = [o for o in range(sides) if o not in (side, loser)]
        places.append(1 + sum(1 for o in ahead if scores and scores[o] > scores[side]))
    return tuple(places)
