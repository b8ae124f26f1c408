"""Search workload through `HandSim` and through `MatchState`, side by side (a script, not a test).

The search bots spend their time in sampled worlds: the hidden cards dealt at random
(`worlds.sample_hidden`), a position built from the view and those cards, and moves played in
it. This script runs that workload twice on the same positions, worlds and choices: once on
`kafana_bots.sim.HandSim` (the mutable, index-based simulator the bots use) and once on
`MatchState` (the engine's immutable state, built with `determinize`), and checks that both
reach the same results. Two workloads:

- playout: one world per playout, played to the end of the hand with uniformly random moves;
- search: what `ismcts` does per world: each of the position's candidate moves played in that
  world, then a greedy playout of `horizon` more moves and the static estimate of the points.

Rounds alternate the two engines (which runs first alternates too); the medians of the rates
(by CPU time of this process) are printed with the ratio.
Run: `.venv/bin/python loadtests/bench_search.py [--players 2] [--rounds 9]`.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from kafana.games import tablic
from kafana.games.tablic import Card, MatchState, Move, Rules, View
from kafana_bots.rollout import estimate, truncated_rollout, utility, value_tables
from kafana_bots.values import CARD_WEIGHT
from kafana_bots.worlds import sample_hidden, sim_from_view


@dataclass(frozen=True)
class World:
    """One sampled world of a position: the real state, the seat's view and the hidden cards."""

    state: MatchState
    view: View
    hands: list[list[Card]]
    deck: list[Card]


def positions(rules: Rules, count: int, seed: int) -> list[tuple[MatchState, View]]:
    """`count` positions of first hands after a random number of random moves."""
    rng = random.Random(seed)
    out: list[tuple[MatchState, View]] = []
    per_hand = 48  # moves of a hand: the 48 cards dealt after the table's four
    k = 0
    while len(out) < count:
        state = tablic.new_match(rules, seed=seed + k)
        k += 1
        for _ in range(rng.randrange(per_hand - 4)):
            state = state.apply(rng.choice(state.legal_moves()))
        seat = state.current_seat
        assert seat is not None and not state.hand_results
        out.append((state, state.view(seat)))
    return out


def worlds(spots: Sequence[tuple[MatchState, View]], per: int, seed: int) -> list[World]:
    """`per` sampled worlds of each position, as a search bot samples them."""
    rng = random.Random(seed)
    return [
        World(state, view, *sample_hidden(view, rng)) for state, view in spots for _ in range(per)
    ]


# -- the playout workload ----------------------------------------------------------------


def playout_sim(items: Sequence[World], seed: int) -> list[tuple[int, ...]]:
    """Random playouts to the end of the hand in `HandSim`; the hand's points of each."""
    rng = random.Random(seed)
    out = []
    for w in items:
        sim = sim_from_view(w.view, w.hands, w.deck)
        while sim.current is not None:
            sim.play(*rng.choice(sim.legal()))
        out.append(tuple(sim.final_points()))
    return out


def playout_state(items: Sequence[World], seed: int) -> list[tuple[int, ...]]:
    """The same playouts in `MatchState` (built with `determinize`)."""
    rng = random.Random(seed)
    out = []
    for w in items:
        state = w.state.determinize(w.hands, w.deck)
        while not state.hand_results:
            state = state.apply(rng.choice(state.legal_moves()))
        out.append(state.hand_results[0].points)
    return out


# -- the search workload -----------------------------------------------------------------


def candidates(view: View, state: MatchState) -> list[Move]:
    """The moves a search compares: every legal move (at most 12, as `ismcts` keeps)."""
    return state.legal_moves()[:12]


def search_sim(items: Sequence[World], horizon: int) -> list[float]:
    """Per world: each candidate played, `horizon` greedy moves, the estimate (`HandSim`, the
    greedy moves by `truncated_rollout` as `ismcts` plays them)."""
    out = []
    for w in items:
        world = sim_from_view(w.view, w.hands, w.deck)
        side = w.view.rules.side_of(w.view.seat or 0)
        for move in candidates(w.view, w.state):
            sim = world.copy()
            sim.play(*world.to_sim(move))
            truncated_rollout(sim, horizon)  # in C in the compiled build: what ismcts runs
            out.append(utility(estimate(sim), side))
    return out


def greedy_state(state: MatchState) -> Move:
    """`rollout.greedy_move` on a `MatchState`: the same values, the same tie order."""
    seat = state.current_seat
    assert seat is not None
    rules = state.rules
    taken_value, played_value, trailed_value = value_tables(rules)
    table = state.table
    last = not state.deck_remaining and sum(len(state.hand(s)) for s in range(rules.players)) == 1
    tabla = rules.tabla_points if (rules.last_card_tabla or not last) else 0
    best: Move | None = None
    best_value = -1e9
    best_trail: Move | None = None
    best_trail_value = -1e9
    for move in state.legal_moves():
        card = move.card.index
        taken = move.captured
        if taken:
            v = played_value[card]
            for c in table:  # in table order, as HandSim adds them (floats: the same sums)
                if c in taken:
                    v += taken_value[c.index]
            if len(taken) == len(table):
                v += tabla
            if v > best_value:
                best, best_value = move, v
        else:
            trail = trailed_value[card]
            if trail > best_trail_value:
                best_trail, best_trail_value = move, trail
    if best is not None and (best_value >= best_trail_value or rules.must_capture):
        return best
    assert best_trail is not None
    return best_trail


def estimate_state(state: MatchState) -> list[float]:
    """`rollout.estimate` on a `MatchState` (points taken so far, tablas, the cards' race)."""
    rules = state.rules
    if state.hand_results:
        return [float(p) for p in state.hand_results[0].points]
    value = rules.points_by_index
    piles = [state.captured(side) for side in range(rules.sides)]
    out = [
        sum(value[c.index] for c in pile) + state.tablas(side) * rules.tabla_points
        for side, pile in enumerate(piles)
    ]
    cards = [len(pile) for pile in piles]
    if len(cards) == 2 and max(cards) >= 27:
        out[0 if cards[0] >= 27 else 1] += rules.most_cards_points
        return [float(v) for v in out]
    return [v + CARD_WEIGHT * c for v, c in zip(out, cards, strict=True)]


def search_state(items: Sequence[World], horizon: int) -> list[float]:
    """The same search in `MatchState`: immutable, so a candidate needs no copy."""
    out = []
    for w in items:
        world = w.state.determinize(w.hands, w.deck)
        side = w.view.rules.side_of(w.view.seat or 0)
        for move in candidates(w.view, w.state):
            state = world.apply(move)
            plies = horizon
            while not state.hand_results and plies > 0:
                state = state.apply(greedy_state(state))
                plies -= 1
            out.append(utility(estimate_state(state), side))
    return out


# -- side by side ------------------------------------------------------------------------


def timed(run: Callable[[], object]) -> tuple[float, object]:
    """CPU seconds one call took (other jobs on a shared machine do not count), and its result."""
    start = time.process_time()
    result = run()
    return time.process_time() - start, result


def side_by_side(
    label: str,
    unit: str,
    count: int,
    sim: Callable[[], object],
    state: Callable[[], object],
    rounds: int,
) -> None:
    """Alternate the two engines `rounds` times; print the medians and their ratio.

    Both run once first, untimed, so that neither pays for warming the shared capture cache.
    """
    rates: dict[str, list[float]] = {"HandSim": [], "MatchState": []}
    results: dict[str, object] = {"HandSim": sim(), "MatchState": state()}
    for r in range(rounds):
        order = [("HandSim", sim), ("MatchState", state)]
        if r % 2:
            order.reverse()
        for name, run in order:
            seconds, results[name] = timed(run)
            rates[name].append(count / seconds)
    if results["HandSim"] != results["MatchState"]:
        raise SystemExit(f"{label}: the two engines disagree")
    a, b = (statistics.median(rates[k]) for k in ("HandSim", "MatchState"))
    print(
        f"{label}: HandSim {a:,.0f} {unit}/s, MatchState {b:,.0f} {unit}/s: "
        f"MatchState at {b / a:.0%} of HandSim's speed "
        f"(medians of {rounds} alternating rounds, CPU time)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--preset", choices=tablic.PRESETS, default="serbian")
    parser.add_argument("--players", type=int, choices=(2, 3, 4), default=2)
    parser.add_argument("--positions", type=int, default=100)
    parser.add_argument("--worlds", type=int, default=10, help="sampled worlds per position")
    parser.add_argument("--horizon", type=int, default=10, help="greedy moves after a candidate")
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rules = Rules.preset(args.preset, players=args.players)
    spots = positions(rules, args.positions, args.seed)
    items = worlds(spots, args.worlds, args.seed)
    print(
        f"{args.preset}, {args.players} players: {len(spots)} positions of a first hand, "
        f"{args.worlds} sampled worlds each"
    )
    side_by_side(
        "random playout to the end of the hand",
        "playouts",
        len(items),
        lambda: playout_sim(items, args.seed),
        lambda: playout_state(items, args.seed),
        args.rounds,
    )
    moves = sum(len(candidates(w.view, w.state)) for w in items)
    side_by_side(
        f"search (every candidate, then {args.horizon} greedy moves and the estimate)",
        "worlds",
        len(items),
        lambda: search_sim(items, args.horizon),
        lambda: search_state(items, args.horizon),
        args.rounds,
    )
    print(f"  ({moves / len(items):.1f} candidates per world)")


if __name__ == "__main__":
    main()
