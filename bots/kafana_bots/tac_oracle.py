"""Tač's `oracle`: `search` shown every closed pile, the bound for Tač's bots.

The only hidden cards in Tač are the closed piles. `search` plays one world, the game itself,
when its memory knows every pile (`best_line`: its next choice points tried every way); the
oracle is that search always, the true piles given. Like Tablić's oracle it is lent to the
arena only (`registry.create(..., arena=True)`), which shows it the game before each of its
decisions (`see`); a position it was not shown is refused.
"""

from __future__ import annotations

from collections.abc import Sequence

from kafana.errors import InvalidInputError
from kafana.games.tac import GameState, Move, View

from kafana_bots.tac_search import Pile, TacSearchBot


class TacOracleBot(TacSearchBot):
    """`search` with every closed pile known: the one world it plays is the true game."""

    name = "oracle"
    truth: GameState | None = None

    def see(self, state: GameState) -> None:
        """Be shown the true game (the arena, before each decision of this seat)."""
        self.truth = state

    def known_piles(self, view: View) -> list[Pile | None]:
        """Every closed pile, top first, from the true game."""
        truth = self.truth
        if truth is None or truth.move_count != view.move_count:
            raise InvalidInputError(
                "the oracle was not shown this game: it plays only in the arena, which shows "
                "it the game (TacOracleBot.see)"
            )
        return [tuple(truth.closed(seat)) for seat in range(view.rules.players)]

    def choose(self, view: View, legal_moves: Sequence[Move]) -> Move:
        """`search`'s choice in the true game."""
        self.known_piles(view)  # refuse an unseen game even where search would not search
        return super().choose(view, legal_moves)
