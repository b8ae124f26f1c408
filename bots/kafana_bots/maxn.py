"""Max^n search of a known position with more than two sides, deepened ply by ply.

With two sides the last-deal solver's alpha-beta is exact; with three or four each for
itself, taking every other seat for this one's opponent (paranoid search) plays badly: the
others mostly take from each other. Max^n (Luckhardt and Irani) lets each seat pick the move
best for its own side, its result being its points minus the mean of the others'
(`rollout.utility`); a position cut off before the end of the hand is scored as `ismcts`
scores a world (`HORIZON` greedy moves, then `rollout.estimate`). No pruning: the budget
(nodes, and a `clock.Deadline`) decides how deep it gets; the deepest finished iteration
answers.
"""

from __future__ import annotations

from kafana_bots.clock import Deadline
from kafana_bots.exact import CLOCK_EVERY, plies_left
from kafana_bots.rollout import estimate, greedy_move, truncated_rollout, utility
from kafana_bots.sim import HandSim, SimMove

Points = list[float]
"""Points per side."""


class _OutOfBudget(Exception):
    """Raised inside the search when the node or time budget is spent."""


class MaxN:
    """Depth-limited max^n over a `HandSim` whose every card is known."""

    def __init__(self, max_nodes: int, deadline: Deadline | None, horizon: int) -> None:
        self.max_nodes = max_nodes
        self.deadline = deadline
        self.horizon = horizon
        self.nodes = 0

    def _tick(self, cost: int = 1) -> None:
        self.nodes += cost
        if self.nodes > self.max_nodes:
            raise _OutOfBudget
        if self.deadline is not None and self.nodes % CLOCK_EVERY < cost and self.deadline.passed():
            raise _OutOfBudget

    def points(self, sim: HandSim, depth: int) -> Points:
        """Points per side when each seat plays best for its side for `depth` plies."""
        self._tick()
        if sim.current is None:
            return [float(p) for p in sim.final_points()]
        if depth <= 0:
            plies = min(plies_left(sim), self.horizon)
            self._tick(plies)
            leaf = sim.copy()
            truncated_rollout(leaf, plies)
            return estimate(leaf)
        side = sim.side_of[sim.current]
        moves = sim.legal()
        greedy = greedy_move(sim)
        moves.sort(key=lambda m: (m != greedy, -m[1].bit_count()))
        best: Points | None = None
        best_value = -1e9
        for move in moves:
            child = sim.copy()
            child.play(*move)
            found = self.points(child, depth - 1)
            value = utility(found, side)
            if value > best_value:
                best, best_value = found, value
        assert best is not None
        return best


def search(
    sim: HandSim,
    candidates: list[SimMove],
    side: int,
    *,
    max_nodes: int,
    deadline: Deadline | None,
    horizon: int,
) -> list[float] | None:
    """The side's value of each candidate at the deepest depth the budget finishes (None if
    not even one ply does)."""
    search = MaxN(max_nodes, deadline, horizon)
    full = plies_left(sim)
    result: list[float] | None = None
    for depth in range(0, full):
        try:
            values = []
            for move in candidates:
                child = sim.copy()
                child.play(*move)
                values.append(utility(search.points(child, depth), side))
        except _OutOfBudget:
            return result
        result = values
    return result
