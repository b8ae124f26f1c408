"""Benchmark of the Tablić rules core, compiled and pure side by side (a script, not a test).

    .venv/bin/python loadtests/bench_core.py            # both builds, 5 alternating rounds
    .venv/bin/python loadtests/bench_core.py --build pure --rounds 3

Each round runs both builds in fresh processes one after the other (the compiled one, then
`KAFANA_PURE=1`), so both meet the same moments of a noisy machine; the medians per build and
their ratio are printed. Figures: `captures()` calls per second on random tables of 4, 8, 12
and 16 cards (a fresh random card and table every call, so nothing is served from a warm cache
of the same inputs; the answer is the contract's set of frozensets), beside the floor of pure
Python on the same inputs (only building answers of the same shape from ready tuples); then
random-playout hands per second for 2 players through the public API (`new_match`,
`legal_moves`, `apply`), beside the same loop alone on recorded states (what the benchmark's
own loop costs: `random.choice`, `is_over`, `hand_no`), and in the search simulator
(`kafana_bots.sim.HandSim`), each after an untimed warm-up on other deals (a server or a bot
runs warm: its listing caches are full).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

from kafana.errors import TooManyMovesError
from kafana.games import tablic
from kafana.games.tablic import Card


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
    hands: int,
    seed: int,
    rules: tablic.Rules,
    timer: Callable[[], float] = time.perf_counter,
    new_match: Callable[..., Any] = tablic.new_match,
) -> float:
    """Hands per second of uniformly random play through the public API (by `timer`)."""
    rng = random.Random(seed)
    played = 0
    start = timer()
    match_seed = seed
    while played < hands:
        state = new_match(rules, seed=match_seed)
        match_seed += 1
        while not state.is_over and played < hands:
            before = state.hand_no
            state = state.apply(rng.choice(state.legal_moves()))
            if state.hand_no != before or state.is_over:
                played += 1
    return played / (timer() - start)


class Recorded:
    """A recorded position: its listing, and the position the recorded move led to."""

    __slots__ = ("_legal", "_next", "hand_no", "is_over")

    def __init__(self, state: tablic.MatchState) -> None:
        self.hand_no, self.is_over = state.hand_no, state.is_over
        self._legal = list(state.legal_moves())
        self._next: Recorded | None = None

    def legal_moves(self) -> list[tablic.Move]:
        return self._legal

    def apply(self, move: object) -> Recorded | None:
        return self._next


def loop_rate(hands: int, seed: int, rules: tablic.Rules) -> float:
    """Hands per second of `playout_rate`'s own loop: the same loop over recorded matches whose
    `legal_moves` and `apply` only hand back what was recorded (Python methods, slower to call
    than the compiled ones: the loop's true share of a playout is smaller)."""
    rng, starts, played, first_seed = random.Random(seed), [], 0, seed
    while played < hands + 200:  # the loop below stops mid-match: record beyond it
        state = tablic.new_match(rules, seed=seed + len(starts))
        node = first = Recorded(state)
        while not state.is_over:
            nxt = state.apply(rng.choice(state.legal_moves()))
            played += nxt.hand_no != state.hand_no or nxt.is_over
            node._next = node = Recorded(nxt)
            state = nxt
        starts.append(first)
    return playout_rate(
        hands, seed, rules, new_match=lambda _rules, seed: starts[seed - first_seed]
    )


def simulator_rate(
    hands: int,
    seed: int,
    rules: tablic.Rules,
    timer: Callable[[], float] = time.perf_counter,
) -> float:
    """Hands per second of uniformly random play in the search simulator of `kafana_bots` (by
    `timer`).

    `HandSim` is the mutable, index-based copy of the rules that search bots use for
    playouts (checked move by move against `MatchState` in tests/bots/test_bots_sim.py). The
    compiled build plays them out in C (`fast_playout`, checked against HandSim in
    tests/bots/test_bots_fast_playout.py); the pure build by `legal()` and `play()`.
    """
    from kafana_bots.sim import HandSim, fast_playout

    rng = random.Random(seed)
    starts = []
    for k in range(hands):
        state = tablic.new_match(rules, seed=seed + k)
        starts.append(
            HandSim.build(
                rules,
                hands=[state.hand(s) for s in range(rules.players)],
                table=state.table,
                deck=state._f.deck,
                captured=[() for _ in range(rules.sides)],
                tablas=[0] * rules.sides,
                last_capturer=None,
                current=0,
                hand_no=0,
            )
        )
    start = timer()
    for k, sim in enumerate(starts):
        if fast_playout(sim, -1, seed + k):  # the compiled build's C playout
            continue
        while not sim.is_over:
            sim.play(*rng.choice(sim.legal()))
    return hands / (timer() - start)


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


SIZES = (4, 8, 12, 16)
BUILDS = ("compiled", "pure")


def measure(calls: int, hands: int, seed: int) -> dict[str, float]:
    """One round of every figure in this process (whichever build it loaded)."""
    rules = tablic.Rules.preset("serbian", players=2)
    rng = random.Random(seed)
    out: dict[str, float] = {}
    for size in SIZES:
        inputs = random_inputs(size, calls if size < 16 else max(1, calls // 10), rng)
        out[f"captures {size}"] = captures_rate(inputs, rules)
        out[f"floor {size}"] = floor_rate(answer_shapes(inputs, rules))
    playout_rate(hands, 10**6 + seed, rules)  # a warm-up: the listing caches of a long run
    out["playout"] = playout_rate(hands, 1000 * seed, rules)
    out["loop"] = loop_rate(hands, 1000 * seed, rules)
    simulator_rate(hands // 2, 10**6 + seed, rules)
    out["simulator"] = simulator_rate(hands, 1000 * seed, rules)
    return out


def child(build: str, calls: int, hands: int, seed: int) -> dict[str, float]:
    """One round in a fresh process of `build`."""
    env = {k: v for k, v in os.environ.items() if k != "KAFANA_PURE"}
    if build == "pure":
        env["KAFANA_PURE"] = "1"
    command = [sys.executable, __file__, "--child", str(calls), str(hands), str(seed)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    loaded, figures = json.loads(done.stdout)
    if loaded != build:
        raise SystemExit(f"asked for the {build} build, the process loaded {loaded}: {done.stderr}")
    return dict(figures)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=10_000, help="per table size (16: a tenth)")
    parser.add_argument("--hands", type=int, default=2_000)
    parser.add_argument("--build", choices=[*BUILDS, "both"], default="both")
    parser.add_argument("--child", nargs=3, type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps([tablic.BUILD, measure(*args.child)]))
        return
    builds = BUILDS if args.build == "both" else (args.build,)
    load = os.getloadavg()[0]
    references = [reference_rate()]
    rounds: dict[str, list[dict[str, float]]] = {build: [] for build in builds}
    for r in range(args.rounds):
        for build in builds:
            rounds[build].append(child(build, args.calls, args.hands, r + 1))
    references.append(reference_rate())

    def median(build: str, key: str) -> float:
        return statistics.median(figures[key] for figures in rounds[build])

    print(
        f"medians of {args.rounds} rounds, serbian 2 players, {', '.join(builds)} alternating "
        f"(fresh process each); load average {load:.1f} at the start, "
        f"{os.getloadavg()[0]:.1f} at the end"
    )
    header = "".join(f"{build:>14}" for build in builds)
    print(f"{'':36}{header}" + ("   compiled/pure" if len(builds) == 2 else ""))
    rows = [(f"captures() {size}-card tables, calls/s", f"captures {size}") for size in SIZES]
    rows += [("  pure-Python floor at 12 cards", "floor 12")]
    rows += [("random playout (public API), hands/s", "playout")]
    rows += [("  its loop alone, on recorded states", "loop")]
    rows += [("search simulator (HandSim), hands/s", "simulator")]
    for label, key in rows:
        values = [median(build, key) for build in builds]
        line = f"{label:36}" + "".join(f"{v:>14,.0f}" for v in values)
        if len(builds) == 2:
            line += f"   {values[0] / values[1]:>13.1f}x"
        print(line)
    print(
        "machine speed: a plain Python loop ran at "
        + " and ".join(f"{rate:.1f}" for rate in references)
        + " M iterations/s (at the start and at the end)"
    )


if __name__ == "__main__":
    main()
