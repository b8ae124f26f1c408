"""Playouts from a root position: a `HandSim` copied and played out (`fast_playout`, what the
search does: in the compiled build the HandSim's position is a `_ccore.SimCore`) against the
bare `SimCore` copied and played out, in one process, alternating rounds, process CPU time:
what the HandSim around the C position costs.

    .venv/bin/python loadtests/bench_simcore.py --rounds 9

The roots: for each seed, a 2-player serbian match after `seed * 7` random moves, its unseen
cards dealt in a random order (the compiled build only).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from kafana.games import tablic
from kafana.games.tablic.capture import NATIVE
from kafana_bots.sim import HandSim, fast_playout
from kafana_bots.worlds import sim_from_view


def root(seed: int) -> HandSim:
    """A simulator of a match after `seed * 7` random moves."""
    rng = random.Random(seed)
    rules = tablic.Rules.preset("serbian", players=2)
    state = tablic.new_match(rules, seed=seed)
    for _ in range(seed * 7):
        state = state.apply(rng.choice(state.legal_moves()))
    shown = set(state.table)
    for s in range(rules.players):
        shown |= set(state.hand(s))
    for side in range(rules.sides):
        shown |= state.captured(side)
    deck = [c for c in tablic.CARDS if c not in shown]
    rng.shuffle(deck)
    hands = [state.hand(s) for s in range(rules.players)]
    state = state.determinize(hands, deck)
    return sim_from_view(state.public_view(), [list(h) for h in hands], deck)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--playouts", type=int, default=3_000)
    args = parser.parse_args()
    if NATIVE is None:
        raise SystemExit("the pure build has no C playouts")
    roots = [root(seed) for seed in range(3)]
    for sim in roots:
        sim.copy()  # the position moved into C
    cores = [sim._core for sim in roots]
    assert all(core is not None for core in cores)
    n = args.playouts
    sims: list[float] = []
    owned: list[float] = []
    for _ in range(args.rounds):
        start = time.process_time()
        for i in range(n):
            sim = roots[i % 3].copy()
            fast_playout(sim, -1, i)
        sims.append(n / (time.process_time() - start))
        start = time.process_time()
        for i in range(n):
            core = cores[i % 3].copy()  # type: ignore[union-attr]
            core.playout(-1, i, None)
        owned.append(n / (time.process_time() - start))
    old, new = statistics.median(sims), statistics.median(owned)
    print(f"HandSim.copy() + fast_playout (on its SimCore): median {old:,.0f} playouts/s")
    print(f"SimCore.copy().playout: median {new:,.0f} playouts/s")
    print(f"SimCore / HandSim = {new / old:.2f}")


if __name__ == "__main__":
    main()
