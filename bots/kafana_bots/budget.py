"""A search bot's options, checked alike by the search bots of both games: its budget (CPU
time a decision, `budget_ms`, or a replayable number of iterations) and its playout horizon."""

from __future__ import annotations


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
