"""The fields of a `MatchState` that a move changes, behind one object.

`MatchState` keeps what is fixed for a whole match (setup, the rules' engine and parameters)
itself, and what a move changes (the position: hands, table, deck, piles, counters; the
history: the log of moves and the hands' results) in one `Fields` object: `PyFields` here, the
reference (the pure build, and a match with `building`), or in the compiled build
`_ccore.StateCore`, the same attributes over a C struct that the C transition plays on directly
(tuples made only when read, and kept).
"""

from __future__ import annotations

from typing import TypeAlias

from kafana.games.cards import Card
from kafana.games.tablic.move import Move
from kafana.games.tablic.result import HandResult

Log = tuple[int, Move, object] | None
"""The moves so far, newest first: None, or (seat, move, the log before)."""


class PyFields:
    """A position's moving fields as plain attributes: the declaration, and the reference the C
    one (`_ccore.StateCore`) equals, attribute by attribute (tests/games/tablic/test_fields.py)."""

    __slots__ = (
        "current",
        "deck",
        "hand_no",
        "hands",
        "last_capturer",
        "log",
        "move_count",
        "piles",
        "results",
        "scores",
        "tablas",
        "table",
        "vector",
    )

    hand_no: int
    move_count: int
    deck: tuple[Card, ...]
    hands: tuple[tuple[Card, ...], ...]
    table: tuple[Card, ...]
    vector: int  # the table's rank counts (`count_vector`), kept up to date move by move
    piles: tuple[int, ...]
    tablas: tuple[int, ...]
    last_capturer: int | None
    current: int | None
    scores: tuple[int, ...]
    log: Log
    results: tuple[HandResult, ...]

    def copy(self) -> PyFields:
        """A new object holding the same values (every field set). Field by field: a loop over
        `__slots__` (getattr, setattr) costs a pure playout hand 8% more instructions."""
        out = PyFields()
        out.hand_no = self.hand_no
        out.move_count = self.move_count
        out.deck = self.deck
        out.hands = self.hands
        out.table = self.table
        out.vector = self.vector
        out.piles = self.piles
        out.tablas = self.tablas
        out.last_capturer = self.last_capturer
        out.current = self.current
        out.scores = self.scores
        out.log = self.log
        out.results = self.results
        return out


Fields: TypeAlias = PyFields
"""The type a `MatchState` reads its position as: `PyFields`, or in the compiled build
`_ccore.StateCore`, which has the same attributes (typed here by PyFields': the C module is
untyped) and a `copy()`."""
