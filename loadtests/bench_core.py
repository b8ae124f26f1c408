"""Benchmark of the Tablić rules core (a script, not a test).

Prints `captures()` calls per second on random tables of 4, 8, 12 and 16 cards (a fresh
random card and table every call, so nothing is served from a warm cache of the same
inputs), side by side with the floor of pure Python on the same inputs (only building answers
of the same shape, a set of frozensets, from ready tuples) and the mean and median number of
captures per call; then random-playout hands per second for 2 players, each the median of
several rounds on one core. Run: `.venv/bin/python loadtests/bench_core.py`.
"""

from __future__ import annotations

import argparse
import contextlib
import random
import statistics
import time
from collections.abc import Callable

from kafana.errors import TooManyMovesError
from kafana.games import tablic
from kafana.games.tablic import Card
from kafana.games.tablic.capture import reset_engines


def random_inputs(size: int, calls: int, rng: random.Random) -> list[tuple[Card, list[Card]]]:
    """`calls` fresh random (played card, table of `size` cards) pairs."""
    deck = list(tablic.CARDS)
    inputs = []
    for _ in range(calls):
        cards = rng.sample(deck, size + 1)
        inputs.append((cards[0], cards[1:]))
    return inputs


def captures_rate(inputs: list[tuple[Card, list[Card]]], rules: tablic.Rules) -> float:
    """captures() calls per second on these inputs.

    A call refused with TooManyMovesError (more than CAPTURE_LIMIT captures) counts as a call.
    """
    captures = tablic.captures
    start = time.perf_counter()
    for card, table in inputs:
        with contextlib.suppress(TooManyMovesError):
            captures(card, table, rules)
    return len(inputs) / (time.perf_counter() - start)


def answer_shapes(
    inputs: list[tuple[Card, list[Card]]], rules: tablic.Rules
) -> list[list[tuple[Card, ...]]]:
    """Each input's answer as plain tuples of cards (refused calls: no captures)."""
    shapes = []
    for card, table in inputs:
        try:
            found = tablic.captures(card, table, rules)
        except TooManyMovesError:
            found = set()
        shapes.append([tuple(capture) for capture in found])
    return shapes


def floor_rate(shapes: list[list[tuple[Card, ...]]]) -> float:
    """Calls per second of only building answers of the same shape from ready tuples.

    `set(map(frozenset, tuples))`: one frozenset per capture and the set holding them, what
    any pure-Python `captures()` must at least do; the rest is finding the captures.
    """
    start = time.perf_counter()
    for tuples in shapes:
        set(map(frozenset, tuples))
    return len(shapes) / (time.perf_counter() - start)


def playout_rate(
    hands: int, seed: int, rules: tablic.Rules, timer: Callable[[], float] = time.perf_counter
) -> float:
    """Hands per second of uniformly random play through the public API (by `timer`)."""
    rng = random.Random(seed)
    played = 0
    start = timer()
    match_seed = seed
    while played < hands:
        state = tablic.new_match(rules, seed=match_seed)
        match_seed += 1
        while not state.is_over and played < hands:
            before = state.hand_no
            state = state.apply(rng.choice(state.legal_moves()))
            if state.hand_no != before or state.is_over:
                played += 1
    return played / (timer() - start)


def simulator_rate(hands: int, seed: int, rules: tablic.Rules) -> float:
    """Hands per second of uniformly random play in the search simulator of `kafana_bots`.

    `HandSim` is the mutable, index-based copy of the rules that search bots use for
    playouts (checked move by move against `MatchState` in tests/bots/test_bots_sim.py).
    """
    from kafana_bots.sim import HandSim

    rng = random.Random(seed)
    starts = []
    for k in range(hands):
        state = tablic.new_match(rules, seed=seed + k)
        starts.append(
            HandSim.build(
                rules,
                hands=[state.hand(s) for s in range(rules.players)],
                table=state.table,
                deck=state._deck,
                captured=[() for _ in range(rules.sides)],
                tablas=[0] * rules.sides,
                last_capturer=None,
                current=0,
                hand_no=0,
            )
        )
    start = time.perf_counter()
    for sim in starts:
        while not sim.is_over:
            sim.play(*rng.choice(sim.legal()))
    return hands / (time.perf_counter() - start)


def reference_rate(iterations: int = 2_000_000) -> float:
    """Millions of iterations per second of a plain Python loop: this machine's speed now.

    Rates of this script move with the machine (its clock, other jobs on the core); printed
    beside them, this says how fast the interpreter ran in the same minutes.
    """
    start = time.perf_counter()
    total = 0
    for i in range(iterations):
        total += i & 7
    return iterations / (time.perf_counter() - start) / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=20_000)
    parser.add_argument("--hands", type=int, default=2_000)
    parser.add_argument("--cold", action="store_true", help="clear the capture cache each round")
    args = parser.parse_args()
    rules = tablic.Rules.preset("serbian", players=2)
    rng = random.Random(1)
    references = [reference_rate()]
    print(
        f"captures() calls/s, serbian, median of {args.rounds} rounds of {args.calls} calls; "
        "floor: building answers of the same shape from ready tuples, same inputs"
    )
    for size in (4, 8, 12, 16):
        rates, floors, counts = [], [], []
        for _ in range(args.rounds):
            if args.cold:
                reset_engines()
            inputs = random_inputs(size, args.calls, rng)
            rates.append(captures_rate(inputs, rules))
            shapes = answer_shapes(inputs, rules)
            floors.append(floor_rate(shapes))
            counts += [len(tuples) for tuples in shapes]
        rate, floor = statistics.median(rates), statistics.median(floors)
        print(
            f"  {size:>2}-card tables: {rate:>10,.0f} calls/s   floor {floor:>10,.0f} calls/s "
            f"({rate / floor:.0%} of it)   captures per call: mean "
            f"{statistics.mean(counts):.1f}, median {statistics.median(counts):g}"
        )
    rates = [playout_rate(args.hands, 1000 * r, rules) for r in range(args.rounds)]
    print(
        f"random playout, serbian 2 players: {statistics.median(rates):,.0f} hands/s "
        f"(median of {args.rounds} rounds of {args.hands} hands)"
    )
    rates = [simulator_rate(args.hands, 1000 * r, rules) for r in range(args.rounds)]
    print(
        f"random playout in the search simulator (kafana_bots.sim.HandSim): "
        f"{statistics.median(rates):,.0f} hands/s"
    )
    references.append(reference_rate())
    print(
        "machine speed: a plain Python loop ran at "
        + " and ".join(f"{rate:.1f}" for rate in references)
        + " M iterations/s (at the start and at the end)"
    )


if __name__ == "__main__":
    main()
