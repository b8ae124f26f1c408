"""Perfect-information search of the rest of a hand: iterative deepening alpha-beta.

With two players and an empty deck a seat knows the other hand (the unseen cards), so the
last deal is a perfect-information game. `solve` first searches straight to the end of the
hand with half the budget (most small endings finish there: deepening ply by ply costs 3 to 7
times the nodes, the rollouts at the cut-off leaves); if that does not finish, it deepens an
alpha-beta search one ply at a time with the rest, checking the node budget and the clock as
it goes; leaves cut off before the end of the hand are scored by a greedy rollout. A bounded
transposition table keeps each position's value (with the depth it was searched to) and best
move across the iterations, and orders the moves: the table's best move first, then the greedy
choice, then captures taking more cards before fewer. The last iteration that reaches the end
of the hand is exact; when the budget runs out first, the deepest finished iteration answers.
"""

from __future__ import annotations

from kafana_bots.clock import Deadline
from kafana_bots.rollout import greedy_move, rollout, utility
from kafana_bots.sim import HandSim, SimMove

EXACT, LOWER, UPPER = 0, 1, 2
TABLE_SIZE = 200_000
"""Positions the transposition table keeps; it is emptied when full (memory stays bounded)."""
EXACT_SHARE = 0.5
"""Share of the budget the first search, straight to the end of the hand, may use."""
CLOCK_EVERY = 64
"""Nodes between two looks at the clock."""

Entry = tuple[int, int, float, SimMove | None]
"""(depth searched, bound kind, value, best move)."""


class _OutOfBudget(Exception):
    """Raised inside the search when the node or time budget is spent."""


def plies_left(sim: HandSim) -> int:
    """Moves still to be played in this hand (every card in a hand or the deck is played)."""
    return sum(len(h) for h in sim.hands) + len(sim.deck)


class Solver:
    """Alpha-beta for one side, with a node and time budget: the other sides play against
    it (with more than two sides each is taken to minimize its result: paranoid search)."""

    def __init__(
        self, side: int, max_nodes: int, deadline: Deadline | None, table_size: int = TABLE_SIZE
    ) -> None:
        self.side = side
        self.max_nodes = max_nodes
        self.deadline = deadline
        self.table_size = table_size
        self.nodes = 0
        self.table: dict[tuple[object, ...], Entry] = {}

    def _tick(self, cost: int = 1) -> None:
        self.nodes += cost
        if self.nodes > self.max_nodes:
            raise _OutOfBudget
        deadline = self.deadline
        if deadline is not None and self.nodes % CLOCK_EVERY < cost and deadline.passed():
            raise _OutOfBudget

    def _ordered(self, sim: HandSim, first: SimMove | None) -> list[SimMove]:
        moves = sim.legal()
        greedy = greedy_move(sim)
        moves.sort(key=lambda m: (m != first, m != greedy, -m[1].bit_count()))
        return moves

    def leaf(self, sim: HandSim, left: int) -> float:
        """The side's utility at a position cut off before the end of the hand (`left` plies
        still to play): a greedy rollout to its end, whose moves count as nodes."""
        self._tick(left)
        leaf = sim.copy()
        rollout(leaf)
        return utility(leaf.final_points(), self.side)

    def value(self, sim: HandSim, depth: int, alpha: float, beta: float) -> float:
        """The side's utility with both sides playing best, searching `depth` plies (leaves
        cut off before the end of the hand are scored by a greedy rollout)."""
        self._tick()
        if sim.current is None:
            return utility(sim.final_points(), self.side)
        left = plies_left(sim)
        if depth <= 0:
            return self.leaf(sim, left)
        depth = min(depth, left)  # searching to the end of the hand: exact
        key = (
            *map(tuple, sim.hands),
            tuple(sim.table),
            sim.last_capturer,
            sim.current,
            *sim.cards,
        )
        # What is taken from here on does not depend on what was taken before: the table
        # keeps values relative to the points (and tablas) taken so far.
        tabla = sim.rules.tabla_points
        base = utility(
            [p + t * tabla for p, t in zip(sim.points, sim.tablas, strict=True)], self.side
        )
        found = self.table.get(key)
        first: SimMove | None = None
        if found is not None:
            stored_depth, flag, relative, first = found
            stored = relative + base
            if stored_depth >= depth and (
                flag == EXACT
                or (flag == LOWER and stored >= beta)
                or (flag == UPPER and stored <= alpha)
            ):
                return stored
        start_alpha, start_beta = alpha, beta
        maximize = sim.side_of[sim.current] == self.side
        best = -1e9 if maximize else 1e9
        best_move: SimMove | None = None
        for move in self._ordered(sim, first):
            child = sim.copy()
            child.play(*move)
            v = self.value(child, depth - 1, alpha, beta)
            if maximize:
                if v > best:
                    best, best_move = v, move
                alpha = max(alpha, v)
            else:
                if v < best:
                    best, best_move = v, move
                beta = min(beta, v)
            if alpha >= beta:
                break
        if len(self.table) >= self.table_size:
            self.table.clear()
        flag = UPPER if best <= start_alpha else LOWER if best >= start_beta else EXACT
        self.table[key] = (depth, flag, best - base, best_move)
        return best


def _values(solver: Solver, sim: HandSim, candidates: list[SimMove], depth: int) -> list[float]:
    values: list[float] = []
    for move in candidates:
        child = sim.copy()
        child.play(*move)
        floor = max(values, default=-1e9)  # worse moves only need to be shown worse
        value = solver.value(child, depth - 1, floor, 1e9)
        if values and value <= floor:
            value = floor - 1e-6  # only a bound: never ties with the move that set the floor
        values.append(value)
    return values


def solve(
    sim: HandSim,
    candidates: list[SimMove],
    side: int,
    *,
    max_nodes: int,
    deadline: Deadline | None = None,
    exact_only: bool = False,
    exact_share: float = EXACT_SHARE,
    solver_type: type[Solver] = Solver,
) -> tuple[list[float], bool] | None:
    """Values of the candidate moves; None if not even one iteration fit the budget.

    First searches to the end of the hand with `exact_share` of the budget (`max_nodes`, and
    the time until `deadline`, `clock.Deadline`: CPU time); if that does not finish (and not
    `exact_only`), deepens from one ply with the rest, the transposition table kept. Returns
    (values, exact): `exact` when the search reached the end of the hand. Only the best value
    is exact; the others may be bounds (they are shown no better than the best).
    `solver_type` may score the cut-off leaves its own way (`Solver.leaf`).
    """
    full = plies_left(sim)
    share = 1.0 if exact_only else exact_share
    first_deadline = None if deadline is None else deadline.part(share)
    solver = solver_type(side, int(share * max_nodes), first_deadline)
    try:
        return _values(solver, sim, candidates, full), True
    except _OutOfBudget:
        if exact_only:
            return None
    solver.max_nodes, solver.deadline = max_nodes, deadline
    order = list(range(len(candidates)))
    result: tuple[list[float], bool] | None = None
    for depth in range(1, full + 1):
        try:
            found = _values(solver, sim, [candidates[i] for i in order], depth)
        except _OutOfBudget:
            return result
        values = [0.0] * len(candidates)
        for i, v in zip(order, found, strict=True):
            values[i] = v
        result = (values, depth >= full)
        order.sort(key=lambda i: -values[i])  # the best so far is searched first next time
    return result
