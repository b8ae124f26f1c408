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

from kafana.errors import InvalidInputError
from kafana.games.cards import Card, parse_cards
from kafana.games.records import record_items
from kafana.games.tablic.move import Move
from kafana.games.tablic.rules import Rules

HEADER = "kafana-tablic-record 1"


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
        lines = [HEADER, "rules " + self.rules.to_json()]
        if self.seed is not None:
            lines.append(f"seed {self.seed}")
        lines += ["deck " + " ".join(c.text for c in deck) for deck in self.decks]
        lines += [f"move {move}" for move in self.moves]
        if self.scores is not None:
            lines.append("scores " + " ".join(map(str, self.scores)))
        return "\n".join(lines) + "\n"

    @classmethod
    def from_text(cls, text: str) -> Self:
        """Parse `to_text` output; errors name the line."""
        rules: Rules | None = None
        seed: int | None = None
        decks: list[tuple[Card, ...]] = []
        moves: list[Move] = []
        scores: tuple[int, ...] | None = None
        for number, key, rest in record_items(text, HEADER, "a match record"):
            try:
                if key == "rules":
                    rules = Rules.from_json(rest)
                elif key == "seed":
                    seed = int(rest)
                elif key == "deck":
                    decks.append(parse_cards(rest))
                elif key == "move":
                    moves.append(Move.parse(rest))
                elif key == "scores":
                    scores = tuple(int(x) for x in rest.split())
                else:
                    raise InvalidInputError(f"unknown item {key!r}")
            except (InvalidInputError, ValueError) as exc:
                raise InvalidInputError(f"record line {number}: {exc}") from None
        if rules is None:
            raise InvalidInputError("the record has no rules line")
        return cls(rules, seed, tuple(decks), tuple(moves), scores)
