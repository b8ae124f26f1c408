"""The canonical text form of a match record, from which the match replays exactly.

Format (UTF-8 text, one item per line, `#` lines are comments)::

    kafana-tablic-record 1
    rules {"ace_high":true,...}        canonical JSON of every switch
    seed 7                             and/or one `deck` line per explicit deck
    deck AC 2C ... (52 cards)
    move KC:KD+KH                      one line per move, in order
    scores 104 87                      only once the match is over; checked on replay

`MatchRecordText` is the record's fields and this form; `MatchRecord` (in `state.py`, beside
the state it replays into) adds `replay`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Self

from kafana.games.cards import Card, parse_cards
from kafana.games.records import RecordItems, numbers, numbers_text, record_text
from kafana.games.tablic.move import Move
from kafana.games.tablic.rules import Rules

HEADER = "kafana-tablic-record 1"
KEYS = ("rules", "seed", "deck", "move", "scores")


@dataclass(frozen=True)
class MatchRecordText:
    """Rules, the source of the decks, and the moves: everything a replay needs."""

    rules: Rules
    seed: int | None
    decks: tuple[tuple[Card, ...], ...]
    moves: tuple[Move, ...]
    scores: tuple[int, ...] | None = None

    def to_text(self) -> str:
        """The canonical text form (ends with a newline)."""
        return record_text(
            HEADER,
            [
                ("rules", self.rules.to_json()),
                ("seed", self.seed),
                *(("deck", " ".join(c.text for c in deck)) for deck in self.decks),
                *(("move", move) for move in self.moves),
                ("scores", numbers_text(self.scores)),
            ],
        )

    @classmethod
    def from_text(cls, text: str) -> Self:
        """Parse `to_text` output; errors name the line."""
        items = RecordItems(text, HEADER, "a match record", KEYS)
        return cls(
            items.required("rules", Rules.from_json),
            items.last("seed", int),
            items.every("deck", parse_cards),
            items.every("move", Move.parse),
            items.last("scores", numbers),
        )
