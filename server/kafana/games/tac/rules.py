"""Rules of Tač: one frozen object of independent switches."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from kafana.games.switches import Switches, need

PLAYERS_FOR_DECKS: dict[int, tuple[int, ...]] = {1: (2, 3, 4), 2: (2, 4, 8)}
"""The player counts each number of decks allows."""


@dataclass(frozen=True)
class Rules(Switches):
    """Every switch of Tač. `Rules()` is two players, one deck, the order strictly enforced.

    `centre_first` reads the seed's numbered order strictly: a card that can go onto the
    central pile must go there, not onto another player's discard pile (off: the player
    chooses among the places it fits).

    >>> Rules(players=3).extra_cards, Rules(players=8, decks=2).pile_size
    (1, 13)
    """

    BOUNDS: ClassVar[dict[str, tuple[int, int]]] = {"stall_rounds": (1, 100_000)}

    players: int = 2
    decks: int = 1
    tac_calls: bool = False  # accept out-of-order moves; other players may call "Tač!"
    play_on: bool = False  # after the first player out, play on for every place
    centre_first: bool = False  # a card that fits the central pile must go there
    stall_rounds: int = 104  # rounds without a card onto the central pile: the game is drawn

    def _check(self) -> None:
        need(self.decks in PLAYERS_FOR_DECKS, f"decks must be 1 or 2, not {self.decks}")
        allowed = PLAYERS_FOR_DECKS[self.decks]
        need(
            self.players in allowed,
            f"players must be {', '.join(map(str, allowed[:-1]))} or {allowed[-1]} "
            f"with {self.decks} deck{'s' if self.decks > 1 else ''}, not {self.players}",
        )

    @property
    def cards(self) -> int:
        """Cards in play: 52 per deck."""
        return 52 * self.decks

    @property
    def extra_cards(self) -> int:
        """Cards left over by an even deal: 1 (an ace to the centre) with 3 players, else 0."""
        return self.cards % self.players

    @property
    def pile_size(self) -> int:
        """Cards each closed pile is dealt."""
        return self.cards // self.players

    def side_of(self, seat: int) -> int:
        """Everyone plays for themselves: a seat is its own side."""
        return seat
