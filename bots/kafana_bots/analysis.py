"""The engine's advice on one Tablić position: every legal move with its value, and its choice.

A move's value is what the seat's side expects to end the hand with, ahead of the others (the
side's points minus the mean of the other sides', `rollout.utility`), after that move:

- **exact** when nothing is hidden (two seats, the deck empty: the last deal): every move is
  searched to the end of the hand with a full window (`exact.Solver`), so each value is exact,
  not a bound;
- **sampled** otherwise: every move is played in the same sampled worlds (the unseen cards dealt
  at random, with the other seats' card weights where a `PlayLog` is given), then greedy
  playouts of `horizon` moves and the position's estimate, as the `ismcts` bot scores them,
  but with no move dropped, so every move gets a mean over the same worlds.

With `building` (which the simulator does not know) the worlds are states of the engine,
made by replaying the hand (`state_worlds.building_worlds`, as `ismcts` does), each move played
out greedily to the hand's end; there is no exact search.

The budget is CPU time of the calling thread (`time.thread_time`), or a number of worlds
(`worlds`, for replayable results); a last deal whose exact search does not fit the budget is
sampled instead. The difference between the best value and a move's is what that move cost.
`review` analyses every move of a finished match as its seat saw it then (a game review).
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from kafana.games.tablic import MatchRecord, MatchState, Move, View, new_match

from kafana_bots.events import HandStarted, MovePlayed
from kafana_bots.exact import CLOCK_EVERY, Solver, _OutOfBudget, plies_left
from kafana_bots.knowledge import PlayLog
from kafana_bots.rollout import estimate, truncated_rollout, utility
from kafana_bots.sim import HandSim
from kafana_bots.state_worlds import building_worlds, state_playout
from kafana_bots.worlds import WorldSampler, hands_known, sample_hidden, sim_from_view

DEFAULT_BUDGET_MS = 200.0
HORIZON = 10
"""Greedy plies played after each move before the estimate (as `ismcts` plays them)."""
MIN_WORLDS = 8
"""Worlds sampled however small the budget: fewer give no useful mean."""
EXACT_SHARE = 0.6
"""Share of the budget the exact last-deal search may take before sampling takes over."""

Method = Literal["exact", "sampled", "forced"]


@dataclass(frozen=True)
class MoveValue:
    """One legal move and the side's expected margin at the end of the hand after it."""

    move: Move
    value: float


@dataclass(frozen=True)
class Analysis:
    """Every legal move valued (in the order given), the engine's choice and how it knows."""

    moves: tuple[MoveValue, ...]
    best: Move
    method: Method
    worlds: int
    """Sampled worlds behind the values (1 for an exact search, 0 for a forced move)."""

    def cost(self, move: Move) -> float:
        """Points of margin `move` gives up against the engine's choice (0 for the best)."""
        values = {m.move: m.value for m in self.moves}
        return max(values.values()) - values[move]


def analyze(
    view: View,
    legal_moves: Sequence[Move],
    *,
    budget_ms: float = DEFAULT_BUDGET_MS,
    worlds: int | None = None,
    rng: random.Random | None = None,
    log: PlayLog | None = None,
    horizon: int = HORIZON,
) -> Analysis:
    """Value every move of `legal_moves` for the seat of `view` (see the module's text)."""
    moves = list(legal_moves)
    if not moves:
        raise ValueError("no legal move to analyse: the seat is not to move")
    if view.seat is None or view.current_seat != view.seat:
        raise ValueError("the view is not of the seat to move")
    if len(moves) == 1:
        return Analysis((MoveValue(moves[0], 0.0),), moves[0], "forced", 0)
    rng = rng or random.Random()
    side = view.rules.side_of(view.seat)
    deadline = time.thread_time() + max(0.0, budget_ms) / 1000
    if view.rules.building:  # the simulator knows no builds: worlds of the engine itself
        totals, count = _sample_states(view, moves, log or PlayLog(), rng, deadline, worlds)
        return _answer(moves, [t / count for t in totals], "sampled", count)
    if hands_known(view):
        hands, deck = sample_hidden(view, rng)  # the only world there is
        exact_until = time.thread_time() + EXACT_SHARE * max(0.0, budget_ms) / 1000
        values = _exact(sim_from_view(view, hands, deck), moves, side, exact_until)
        if values is not None:
            return _answer(moves, values, "exact", 1)
    weights = log.weights(view) if log is not None else None
    totals, count = _sample(view, moves, side, weights, rng, deadline, worlds, horizon)
    return _answer(moves, [t / count for t in totals], "sampled", count)


def _answer(moves: list[Move], values: list[float], method: Method, worlds: int) -> Analysis:
    best = max(range(len(moves)), key=values.__getitem__)
    valued = tuple(MoveValue(m, v) for m, v in zip(moves, values, strict=True))
    return Analysis(valued, moves[best], method, worlds)


class _CpuSolver(Solver):
    """The last-deal solver, its time budget read on this thread's CPU clock."""

    def __init__(self, side: int, until: float) -> None:
        super().__init__(side, 10**9, None)
        self.until = until

    def _tick(self, cost: int = 1) -> None:
        self.nodes += cost
        if self.nodes % CLOCK_EVERY < cost and time.thread_time() > self.until:
            raise _OutOfBudget


def _exact(sim: HandSim, moves: list[Move], side: int, until: float) -> list[float] | None:
    """Exact values of every move in the last deal, or None if the budget runs out first."""
    solver = _CpuSolver(side, until)
    depth = plies_left(sim)
    values: list[float] = []
    try:
        for move in moves:
            child = sim.copy()
            child.play(*sim.to_sim(move))
            values.append(solver.value(child, depth - 1, -1e9, 1e9))
    except _OutOfBudget:
        return None
    return values


def _sample(
    view: View,
    moves: list[Move],
    side: int,
    weights: dict[int, dict[int, float]] | None,
    rng: random.Random,
    deadline: float,
    limit: int | None,
    horizon: int,
) -> tuple[list[float], int]:
    """Sum of each move's result over the worlds sampled, and how many."""
    sampler = WorldSampler(view, weights)
    totals = [0.0] * len(moves)
    sims = None
    count = 0
    while True:
        if limit is not None and count >= limit:
            break
        if limit is None and count >= MIN_WORLDS and time.thread_time() > deadline:
            break
        world = sampler.sample(rng)
        if sims is None:
            sims = [world.to_sim(m) for m in moves]
        for i, sim_move in enumerate(sims):
            sim = world.copy()
            sim.play(*sim_move)
            truncated_rollout(sim, horizon or 52)
            totals[i] += utility(estimate(sim), side)
        count += 1
    return totals, count


def _sample_states(
    view: View,
    moves: list[Move],
    log: PlayLog,
    rng: random.Random,
    deadline: float,
    limit: int | None,
) -> tuple[list[float], int]:
    """`_sample` with `building`: each world an engine state (`state_worlds.building_worlds`),
    each move played out greedily to the hand's end."""
    worlds = building_worlds(view, log, rng)
    if worlds is None:
        raise ValueError("a position with builds is analysed from every move of its hand")
    new_world, side = worlds
    totals = [0.0] * len(moves)
    count = 0
    while limit is None or count < limit:
        if limit is None and count >= MIN_WORLDS and time.thread_time() > deadline:
            break
        state = new_world()
        for i, move in enumerate(moves):
            totals[i] += utility(state_playout(state.apply(move), 52), side)
        count += 1
    return totals, count


@dataclass(frozen=True)
class Reviewed:
    """One move of a match with the engine's analysis of its position (`number` from 1)."""

    number: int
    seat: int
    played: Move
    analysis: Analysis

    @property
    def cost(self) -> float:
        """Margin the move gave up against the engine's choice."""
        return self.analysis.cost(self.played)


def review(
    record: MatchRecord,
    seats: set[int] | None = None,
    *,
    budget_ms: float = DEFAULT_BUDGET_MS,
    rng: random.Random | None = None,
) -> list[Reviewed]:
    """Every move of `record` by `seats` (None: all) analysed as its seat saw it then, with
    the public moves of the deal for inference."""
    state: MatchState = new_match(record.rules, seed=record.seed, decks=record.decks or None)
    log = PlayLog()
    hand = -1
    out: list[Reviewed] = []
    for number, move in enumerate(record.moves, start=1):
        if state.hand_no != hand:
            hand = state.hand_no
            log.observe(HandStarted(hand, tuple(state.table)))
        seat = state.current_seat
        assert seat is not None
        if seats is None or seat in seats:
            view = state.view(seat)
            found = analyze(view, state.legal_moves(), budget_ms=budget_ms, rng=rng, log=log)
            out.append(Reviewed(number, seat, move, found))
        log.observe(MovePlayed(seat, move))
        state = state.apply(move)
    return out
