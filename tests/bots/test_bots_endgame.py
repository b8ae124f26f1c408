"""The exact last deal: small known endings are solved, the budget holds, the table is bounded."""

from __future__ import annotations

import random
from typing import ClassVar

from kafana.games import tablic
from kafana.games.tablic import MatchState, Move
from kafana_bots.clock import Deadline
from kafana_bots.exact import CLOCK_EVERY, Solver, plies_left, solve
from kafana_bots.heuristic import HeuristicBot
from kafana_bots.ismcts import SearchBot
from kafana_bots.sim import HandSim
from kafana_bots.worlds import sim_from_view


def ending(seed: int, left: int) -> MatchState:
    """A two-player Serbian last deal, random play until `left` cards are in the hands."""
    rng = random.Random(seed)
    state = tablic.new_match(tablic.Rules.preset("serbian", players=2), seed=seed)
    while state.deck_remaining or len(state.hand(0)) + len(state.hand(1)) > left:
        state = state.apply(rng.choice(state.legal_moves()))
    return state


def to_move(state: MatchState) -> int:
    seat = state.current_seat
    assert seat is not None
    return seat


def sim_of(state: MatchState) -> HandSim:
    view = state.view(to_move(state))
    return sim_from_view(view, [list(state.hand(s)) for s in range(2)], [])


def exact_value(state: MatchState, moves: list[Move]) -> float:
    """The best exact value among `moves` for the seat to move (an unbounded search)."""
    sim = sim_of(state)
    side = state.rules.side_of(to_move(state))
    found = solve(sim, [sim.to_sim(m) for m in moves], side, max_nodes=10**8, exact_only=True)
    assert found is not None and found[1]
    return max(found[0])


def is_best(state: MatchState, move: Move) -> bool:
    """Whether `move` is worth as much as the best legal move."""
    return exact_value(state, [move]) == exact_value(state, state.legal_moves())


def test_ismcts_finds_the_move_of_an_eleven_card_ending() -> None:
    # 11 cards left: 6,000 nodes (the old cap whatever N) lose 7 points here; the exact
    # search needs about 7,600 nodes, which 5,000 worlds' budget (20,000 nodes) covers.
    state = ending(1, 11)
    seat = to_move(state)
    bot = SearchBot(seat, state.rules, random.Random(0), iterations=5000)
    picked = bot.choose(state.view(seat), state.legal_moves())
    assert bot.stats["exact"] == 1
    assert is_best(state, picked)


def test_heuristic_solves_small_endings_exactly() -> None:
    for seed in range(4):
        state = ending(seed, 8)
        seat = to_move(state)
        picked = HeuristicBot(seat, state.rules, random.Random(0)).choose(
            state.view(seat), state.legal_moves()
        )
        assert is_best(state, picked), seed


class Alarm(Deadline):
    """A deadline that passes at its `after`-th look (any part of it too): no clock at all."""

    def __init__(self, after: int) -> None:
        super().__init__(3600.0)
        self.after, self.looks = after, 0

    def passed(self) -> bool:
        self.looks += 1
        return self.looks >= self.after

    def part(self, share: float) -> Deadline:
        return self


class Counted(Solver):
    """A solver that notes its node count at every node."""

    seen: ClassVar[list[int]] = []

    def _tick(self, cost: int = 1) -> None:
        try:
            super()._tick(cost)
        finally:
            Counted.seen.append(self.nodes)


def test_the_clock_stops_the_search() -> None:
    # Counted, not timed (a shared machine's CPU time is noisy: the wall-time limit's test is
    # in tests/bots/test_bots_clock.py): the search stops at the clock's first "passed".
    sim = sim_of(ending(2, 12))  # far beyond 50 looks at the clock when solved exactly
    alarm = Alarm(after=50)
    Counted.seen = []
    found = solve(
        sim, sim.legal(), 0, max_nodes=400 * CLOCK_EVERY, deadline=alarm, solver_type=Counted
    )
    assert alarm.looks == 51  # 50 in the search to the end, then one in the deepening
    assert found is None or not found[1]
    assert max(Counted.seen) <= 51 * CLOCK_EVERY + plies_left(sim)  # a look every 64 nodes


def test_the_node_budget_grows_with_the_worlds() -> None:
    state = ending(1, 11)
    seat = to_move(state)
    small = SearchBot(seat, state.rules, random.Random(0), iterations=10)
    small.choose(state.view(seat), state.legal_moves())
    assert small.stats["exact"] == 0  # 6,000 nodes are not enough here


def test_the_transposition_table_is_bounded() -> None:
    sim = sim_of(ending(3, 8))
    solver = Solver(0, 10**8, None, table_size=50)
    sizes = []
    for move in sim.legal():
        child = sim.copy()
        child.play(*move)
        solver.value(child, plies_left(child), -1e9, 1e9)
        sizes.append(len(solver.table))
    assert max(sizes) <= 50 and solver.nodes > 50
