"""Helpers of the competition tests: small events and bots that misbehave on purpose."""

from __future__ import annotations

import random
import time
from collections.abc import Sequence

from kafana.competitions.local_runner import BotFactory, registry_bots
from kafana.games.tablic import Move, Rules, View
from kafana_bots import Bot, registry


class SlowBot(Bot):
    """Greedy, but sleeps `seconds` before its first `slow_moves` decisions."""

    name = "slow"

    def __init__(
        self, seat: int, rules: Rules, rng: random.Random, seconds: float, slow_moves: int
    ) -> None:
        super().__init__(seat, rules, rng)
        self.inner = registry.create("greedy", seat=seat, rules=rules, rng=rng)
        self.seconds = seconds
        self.slow_moves = slow_moves

    def choose(self, view: View, legal_moves: Sequence[Move]) -> Move:
        if self.slow_moves > 0:
            self.slow_moves -= 1
            time.sleep(self.seconds)
        return self.inner.choose(view, legal_moves)


class IllegalBot(Bot):
    """Always answers with a move that is not among the legal ones."""

    name = "illegal"

    def choose(self, view: View, legal_moves: Sequence[Move]) -> Move:
        return Move.parse("AC:2C+3C+4C+5C")


class CrashingBot(Bot):
    """Raises on its first decision, like a bot whose process died."""

    name = "crash"

    def choose(self, view: View, legal_moves: Sequence[Move]) -> Move:
        raise ConnectionError("bot process went away")


def with_special(
    bots: dict[str, str], special: dict[str, type[Bot]], **options: float
) -> BotFactory:
    """Registry bots, except the entrants in `special`, built from their class."""
    base = registry_bots(bots)

    def factory(name: str, seat: int, rules: Rules, rng: random.Random) -> Bot:
        if name in special:
            cls = special[name]
            if cls is SlowBot:
                return SlowBot(
                    seat, rules, rng, float(options["seconds"]), int(options["slow_moves"])
                )
            return cls(seat, rules, rng)
        return base(name, seat, rules, rng)

    return factory
