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

from kafana.games.cards import Card, parse_cards
from kafana.games.records import Item, TextRecord, cards_text, game_items
from kafana.games.tablic.move import Move
from kafana.games.tablic.rules import Rules

HEADER = "kafana-tablic-record 1"


@dataclass(frozen=True)
class MatchRecordText(TextRecord):
    """Rules, the source of the decks, and the moves: everything a replay needs."""

    HEADER = HEADER
    WHAT = "a match record"
    ITEMS = game_items(
        Rules.from_json,
        Rules.to_json,
        Move.parse,
        Item("deck", "decks", parse_cards, cards_text, many=True),
        result="scores",
    )

    rules: Rules
    seed: int | None
    decks: tuple[tuple[Card, ...], ...]
    moves: tuple[Move, ...]
    scores: tuple[int, ...] | None = None
