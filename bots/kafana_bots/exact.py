"""Perfect-information search of the rest of a hand: alpha-beta, exact when it fits.

With two players and an empty deck a seat knows the other hand (the unseen cards), so the
last deal is a perfect-information game. `solve` runs iterative deepening alpha-beta over a
`HandSim`; a leaf cut off by the depth is scored by a greedy rollout. When the deepest
iteration reaches the end of the hand everywhere the result is exact.
"""

from __future__ import annotations

import time

from kafana_bots.rollout import greedy_move, rollout, utility
from kafana_bots.sim import HandSim, SimMove


class _OutOfBudget(Exception):
    """Raised inside the search when the node or time budget is spent."""


class Solver:
    """Alpha-beta for one side over a two-side hand, with a node and time budget."""

    def __init__(self, side: int, max_nodes: int, deadline: float | None) -> None:
        self.side = side
        self.max_nodes = max_nodes
        self.deadline = deadline
        self.nodes = 0
        self.cutoff = False  # some leaf was scored by a rollout, not by the end of the hand

    def _ordered(self, sim: HandSim) -> list[SimMove]:
        moves = sim.legal()
        first = greedy_move(sim)
        moves.sort(key=lambda m: (m != first, -m[1].bit_count()))
        return moves

    def value(self, sim: HandSim, depth: int, alpha: float, beta: float) -> float:
        """The side's utility of `sim` with both sides playing best (within `depth` plies)."""
        self.nodes += 1
        if self.nodes > self.max_nodes or (
            self.deadline is not None
            and self.nodes & 255 == 0
            and time.perf_counter() > self.deadline
        ):
            raise _OutOfBudget
        if sim.current is None:
            return utility(sim.final_points(), self.side)
        if depth == 0:
            self.cutoff = True
            leaf = sim.copy()
            rollout(leaf)
            return utility(leaf.final_points(), self.side)
        maximize = sim.side_of[sim.current] == self.side
        best = -1e9 if maximize else 1e9
        for move in self._ordered(sim):
            child = sim.copy()
            child.play(*move)
            v = self.value(child, depth - 1, alpha, beta)
            if maximize:
                best = max(best, v)
                alpha = max(alpha, v)
            else:
                best = min(best, v)
                beta = min(beta, v)
            if alpha >= beta:
                break
        return best


def solve(
    sim: HandSim,
    candidates: list[SimMove],
    side: int,
    *,
    max_nodes: int,
    deadline: float | None = None,
) -> tuple[list[float], bool] | None:
    """Values of each candidate move by iterative deepening; None if no depth completed.

    Returns (values, exact): `exact` is True when the search reached the end of the hand.
    """
    solver = Solver(side, max_nodes, deadline)
    plies = sum(len(h) for h in sim.hands) + len(sim.deck)
    result: tuple[list[float], bool] | None = None
    for depth in range(1, plies + 1):
        solver.cutoff = False
        values: list[float] = []
        try:
            for move in candidates:
                child = sim.copy()
                child.play(*move)
                floor = max(values, default=-1e9)  # worse moves only need to be shown worse
                values.append(solver.value(child, depth - 1, floor, 1e9))
        except _OutOfBudget:
            return result
        result = (values, not solver.cutoff)
        if not solver.cutoff:
            return result
    return result
