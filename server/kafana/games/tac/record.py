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

from kafana.errors import InvalidInputError
from kafana.games.cards import Card, parse_cards
from kafana.games.records import record_items
from kafana.games.tac.move import Move
from kafana.games.tac.position import Position
from kafana.games.tac.rules import Rules

HEADER = "kafana-tac-record 1"


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
        lines = [HEADER, "rules " + self.rules.to_json()]
        if self.seed is not None:
            lines.append(f"seed {self.seed}")
        if self.deck is not None:
            lines.append("deck " + " ".join(c.text for c in self.deck))
        if self.position is not None:
            lines.append("position " + self.position.to_json())
        lines += [f"move {move}" for move in self.moves]
        if self.places is not None:
            lines.append("places " + " ".join(map(str, self.places)))
        return "\n".join(lines) + "\n"

    @classmethod
    def from_text(cls, text: str) -> Self:
        """Parse `to_text` output; errors name the line."""
        rules: Rules | None = None
        seed: int | None = None
        deck: tuple[Card, ...] | None = None
        moves: list[Move] = []
        places: tuple[int, ...] | None = None
        position: Position | None = None
        for number, key, rest in record_items(text, HEADER, "a Tač record"):
            try:
                if key == "rules":
                    rules = Rules.from_json(rest)
                elif key == "seed":
                    seed = int(rest)
                elif key == "deck":
                    deck = parse_cards(rest)
                elif key == "position":
                    position = Position.from_json(rest)
                elif key == "move":
                    moves.append(Move.parse(rest))
                elif key == "places":
                    places = tuple(int(x) for x in rest.split())
                else:
                    raise InvalidInputError(f"unknown item {key!r}")
            except (InvalidInputError, ValueError) as exc:
                raise InvalidInputError(f"record line {number}: {exc}") from None
        if rules is None:
            raise InvalidInputError("the record has no rules line")
        return cls(rules, seed, deck, tuple(moves), places, position)
