"""Perfect-information search of the rest of a hand: alpha-beta, exact when it fits.

With two players and an empty deck a seat knows the other hand (the unseen cards), so the
last deal is a perfect-information game. `solve` first tries a full alpha-beta search to
the end of the hand, with a transposition table; if that does not fit the node budget, it
deepens a depth-limited search whose cut-off leaves are scored by a greedy rollout.
"""

from __future__ import annotations

import time

from kafana_bots.rollout import greedy_move, rollout, utility
from kafana_bots.sim import HandSim, SimMove

EXACT, LOWER, UPPER = 0, 1, 2


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
        self.table: dict[tuple[object, ...], tuple[int, float]] = {}

    def _ordered(self, sim: HandSim) -> list[SimMove]:
        moves = sim.legal()
        first = greedy_move(sim)
        moves.sort(key=lambda m: (m != first, -m[1].bit_count()))
        return moves

    def _tick(self) -> None:
        self.nodes += 1
        if self.nodes > self.max_nodes or (
            self.deadline is not None
            and self.nodes & 127 == 0
            and time.perf_counter() > self.deadline
        ):
            raise _OutOfBudget

    def value(self, sim: HandSim, depth: int, alpha: float, beta: float) -> float:
        """The side's utility with both sides playing best; `depth` < 0: to the end."""
        self._tick()
        if sim.current is None:
            return utility(sim.final_points(), self.side)
        if depth == 0:
            self.cutoff = True
            leaf = sim.copy()
            rollout(leaf)
            return utility(leaf.final_points(), self.side)
        key: tuple[object, ...] | None = None
        if depth < 0:
            key = (
                *map(tuple, sim.hands),
                tuple(sim.table),
                sim.last_capturer,
                sim.current,
                *sim.cards,
                *sim.points,
                *sim.tablas,
            )
            found = self.table.get(key)
            if found is not None:
                flag, stored = found
                if flag == EXACT:
                    return stored
                if flag == LOWER and stored >= beta:
                    return stored
                if flag == UPPER and stored <= alpha:
                    return stored
        start_alpha, start_beta = alpha, beta
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
        if key is not None:
            if best <= start_alpha:
                self.table[key] = (UPPER, best)
            elif best >= start_beta:
                self.table[key] = (LOWER, best)
            else:
                self.table[key] = (EXACT, best)
        return best


def _values(solver: Solver, sim: HandSim, candidates: list[SimMove], depth: int) -> list[float]:
    values: list[float] = []
    for move in candidates:
        child = sim.copy()
        child.play(*move)
        floor = max(values, default=-1e9)  # worse moves only need to be shown worse
        values.append(solver.value(child, depth - 1, floor, 1e9))
    return values


def solve(
    sim: HandSim,
    candidates: list[SimMove],
    side: int,
    *,
    max_nodes: int,
    deadline: float | None = None,
    exact_deadline: float | None = None,
) -> tuple[list[float], bool] | None:
    """Values of the candidate moves; None if not even one ply fit the budget.

    The full search may use half the nodes and stops at `exact_deadline`; the depth-limited
    one uses what is left, until `deadline`. Returns (values, exact): `exact` when the search
    reached the end of the hand. Only the best value is exact; the others may be bounds
    (they are shown no better than the best).
    """
    exact = Solver(side, max_nodes // 2, exact_deadline or deadline)
    try:
        return _values(exact, sim, candidates, -1), True
    except _OutOfBudget:
        pass
    solver = Solver(side, max_nodes - exact.nodes, deadline)
    result: tuple[list[float], bool] | None = None
    for depth in range(1, 13):
        solver.cutoff = False
        try:
            values = _values(solver, sim, candidates, depth)
        except _OutOfBudget:
            return result
        result = (values, not solver.cutoff)
        if not solver.cutoff:
            break
    return result
