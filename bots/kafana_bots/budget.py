"""A search bot's options, checked alike by the search bots of both games: its budget (CPU
time a decision, `budget_ms`, or a replayable number of iterations) and its playout horizon;
`Searcher` keeps them, with the bot's decision counts."""

from __future__ import annotations

import random
from typing import ClassVar

from kafana_bots.base import MoveT, Player, RulesT, ViewT


def budget_options(
    budget_ms: float | None, iterations: int | None, default_ms: float
) -> tuple[float, int | None]:
    """(budget_ms, iterations) as a bot keeps them: the default budget if none is given;
    `iterations`, if given, at least 1 (it then replaces the clock)."""
    if iterations is not None and iterations < 1:
        raise ValueError("iterations must be at least 1")
    return (default_ms if budget_ms is None else float(budget_ms)), iterations


def horizon_option(horizon: int | None, default: int, unit: str, end: str) -> int:
    """The playout horizon in `unit` (plies, turns), 0 meaning to the `end` (of the hand...)."""
    if horizon is not None and horizon < 0:
        raise ValueError(f"horizon must be 0 (to the end of the {end}) or more {unit}")
    return default if horizon is None else horizon


class Searcher(Player[RulesT, ViewT, MoveT]):
    """A search bot of either game: its budget (`budget_ms`, or `iterations`), its playout
    horizon (the class's `HORIZON` unless given) and its decision counts (`stats`, the keys
    of `STATS`). The registry says which of the options each bot takes."""

    DEFAULT_BUDGET_MS: ClassVar[float] = 200.0
    HORIZON: ClassVar[int] = 0
    HORIZON_UNITS: ClassVar[tuple[str, str]] = ("plies", "hand")
    """The horizon's unit and what 0 plays to the end of, for the error message."""
    STATS: ClassVar[tuple[str, ...]] = ("decisions",)

    def __init__(
        self,
        seat: int,
        rules: RulesT,
        rng: random.Random,
        *,
        budget_ms: float | None = None,
        iterations: int | None = None,
        horizon: int | None = None,
    ) -> None:
        super().__init__(seat, rules, rng)
        self.budget_ms, self.iterations = budget_options(
            budget_ms, iterations, self.DEFAULT_BUDGET_MS
        )
        self.horizon = horizon_option(horizon, self.HORIZON, *self.HORIZON_UNITS)
        self.stats: dict[str, int] = dict.fromkeys(self.STATS, 0)
