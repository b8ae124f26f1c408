"""The canonical text form of a Tač game record, from which the game replays exactly.

Format (UTF-8 text, one item per line, `#` lines are comments)::

    kafana-tac-record 1
    rules {"decks":1,...}              canonical JSON of every switch
    seed 7                             or one `deck` line (52 or 104 cards, position 0 first)
    position {"closed":[...],...}      or a set-up position (`Position.to_json`)
    deck AC 2C ...                     with two decks each card appears twice, without a suffix
    move flip                          one line per move, in order
    move play X->P1
    move call P2
    places 1 2                         only once the game is over; checked on replay

`GameRecordText` is the record's fields and this form; `GameRecord` (in `state.py`, beside
the state it replays into) adds `replay`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Self

from kafana.games.cards import Card, parse_cards
from kafana.games.records import RecordItems, numbers, numbers_text, record_text
from kafana.games.tac.move import Move
from kafana.games.tac.position import Position
from kafana.games.tac.rules import Rules

HEADER = "kafana-tac-record 1"
KEYS = ("rules", "seed", "deck", "position", "move", "places")


@dataclass(frozen=True)
class GameRecordText:
    """Rules, the source of the deck, and the moves: everything a replay needs."""

    rules: Rules
    seed: int | None
    deck: tuple[Card, ...] | None
    moves: tuple[Move, ...]
    places: tuple[int, ...] | None = None
    position: Position | None = None

    def to_text(self) -> str:
        """The canonical text form (ends with a newline)."""
        deck = None if self.deck is None else " ".join(c.text for c in self.deck)
        position = None if self.position is None else self.position.to_json()
        return record_text(
            HEADER,
            [
                ("rules", self.rules.to_json()),
                ("seed", self.seed),
                ("deck", deck),
                ("position", position),
                *(("move", move) for move in self.moves),
                ("places", numbers_text(self.places)),
            ],
        )

    @classmethod
    def from_text(cls, text: str) -> Self:
        """Parse `to_text` output; errors name the line."""
        items = RecordItems(text, HEADER, "a Tač record", KEYS)
        return cls(
            items.required("rules", Rules.from_json),
            items.last("seed", int),
            items.last("deck", parse_cards),
            items.every("move", Move.parse),
            items.last("places", numbers),
            items.last("position", Position.from_json),
        )
