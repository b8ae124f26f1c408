"""`random`: a uniformly random legal move. The floor of the ladder."""

from __future__ import annotations

from collections.abc import Sequence

from kafana.games.tablic import Move, View

from kafana_bots.base import Bot


class RandomBot(Bot):
    """Plays a uniformly random legal move, drawn from its injected generator."""

    name = "random"

    def choose(self, view: View, legal_moves: Sequence[Move]) -> Move:
        """Any legal move, uniformly."""
        return self.rng.choice(list(legal_moves))
