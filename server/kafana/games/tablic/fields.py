"""The fields of a `MatchState` that a move changes, behind one object.

`MatchState` keeps what is fixed for a whole match (setup, the rules' engine and parameters)
itself, and what a move changes (the position: hands, table, deck, piles, counters; the
history: the log of moves and the hands' results) in one `Fields` object: `PyFields` here, the
reference (the pure build, and a match with `building`), or in the compiled build
`_ccore.StateCore`, the same attributes over a C struct that the C transition plays on directly
(tuples made only when read, and kept).
"""

from __future__ import annotations

from typing import Protocol

from kafana.games.cards import Card
from kafana.games.tablic.move import Move
from kafana.games.tablic.result import HandResult

Log = tuple[int, Move, object] | None
"""The moves so far, newest first: None, or (seat, move, the log before)."""


class Fields(Protocol):
    """A position's moving fields; `copy()` is a new object with the same values."""

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

    def copy(self) -> Fields:
        """A new object holding the same values."""
        ...


class PyFields:
    """`Fields` as plain attributes: the reference the C one (`_ccore.StateCore`) equals."""

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
    vector: int
    piles: tuple[int, ...]
    tablas: tuple[int, ...]
    last_capturer: int | None
    current: int | None
    scores: tuple[int, ...]
    log: Log
    results: tuple[HandResult, ...]

    def copy(self) -> PyFields:
        """A new object holding the same values (every field set)."""
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
