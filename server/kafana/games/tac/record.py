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

from kafana.games.cards import Card, parse_cards
from kafana.games.records import Item, TextRecord, cards_text, game_items
from kafana.games.tac.move import Move
from kafana.games.tac.position import Position
from kafana.games.tac.rules import Rules

HEADER = "kafana-tac-record 1"


@dataclass(frozen=True)
class GameRecordText(TextRecord):
    """Rules, the source of the deck, and the moves: everything a replay needs."""

    HEADER = HEADER
    WHAT = "a Tač record"
    ITEMS = game_items(
        Rules.from_json,
        Rules.to_json,
        Move.parse,
        Item("deck", "deck", parse_cards, cards_text),
        Item("position", "position", Position.from_json, Position.to_json),
        result="places",
    )

    rules: Rules
    seed: int | None
    deck: tuple[Card, ...] | None
    moves: tuple[Move, ...]
    places: tuple[int, ...] | None = None
    position: Position | None = None
