"""How far `ismcts`'s choice falls short of the best move by a much larger evaluation.

Positions come from `ismcts` (100 worlds) against `heuristic` over the arena's deals (deal k
is `shuffled_deck(seed, k)`): every decision with more than two legal moves before the last
deal. Each position is evaluated once as the reference: every candidate on the same
`--reference` worlds, no halving. Then `ismcts` decides it `--repeats` times (other random
worlds) with `--iterations` worlds, once with successive halving in phases of equal budget
(`EQUAL_PHASES`, the default) and once with the former cuts after 8, 16 and 32 worlds; the
regret of a choice is the reference's best value minus the value of the move chosen (points
a hand, our side's minus the others'). Printed: mean regret of each, their paired difference
with a 95% interval, and the CPU time each spent.

    .venv/bin/python loadtests/halving_regret.py --players 2 --iterations 300 --deals 6
"""

from __future__ import annotations

import argparse
import copy
import random
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parents[1] / d) for d in ("server", "bots")]

from kafana.games.tablic import Move, Rules, View, new_match, shuffled_deck  # noqa: E402
from kafana_bots import registry  # noqa: E402
from kafana_bots.base import Bot  # noqa: E402
from kafana_bots.clock import Deadline  # noqa: E402
from kafana_bots.ismcts import NextWorld, SearchBot, candidates  # noqa: E402
from kafana_bots.knowledge import PlayLog  # noqa: E402
from kafana_bots.play import play  # noqa: E402

Position = tuple[View, list[Move], PlayLog, int]
"""A decision: the view, the legal moves, the bot's log of the hand then, its seat."""


class Recorder(SearchBot):
    """`ismcts` that keeps every position it decides with more than two moves, deck not empty."""

    def __init__(self, seat: int, rules: Rules, rng: random.Random, out: list[Position]) -> None:
        super().__init__(seat, rules, rng, iterations=100)
        self.out = out

    def choose(self, view: View, legal_moves: Sequence[Move]) -> Move:
        """Keep the position, then decide it."""
        if len(legal_moves) > 2 and view.deck_remaining > 0:
            self.out.append((view, list(legal_moves), copy.deepcopy(self.log), self.seat))
        return super().choose(view, legal_moves)


class Reference(SearchBot):
    """Every candidate on every world: the mean values, kept in `means`."""

    means: list[float]

    def _halving(self, count: int, next_world: NextWorld, deadline: Deadline | None) -> int:
        totals = [0.0] * count
        worlds = self.iterations or 1
        for _ in range(worlds):
            value = next_world()
            for i in range(count):
                totals[i] += value(i)
        self.means = [t / worlds for t in totals]
        return max(range(count), key=totals.__getitem__)


class FixedCuts(SearchBot):
    """`ismcts` with the former cuts: after 8, 16 and 32 worlds."""

    EQUAL_PHASES = False


def positions(players: int, deals: int, seed: int) -> list[Position]:
    """The positions of `ismcts` (even seats) against `heuristic` over `deals` deals."""
    rules = Rules.preset("serbian", players=players)
    out: list[Position] = []
    for deal in range(deals):
        state = new_match(rules, decks=[shuffled_deck(seed, deal)])
        bots: list[Bot] = [
            Recorder(s, rules, random.Random(s), out)
            if s % 2 == 0
            else registry.create("heuristic", seat=s, rules=rules, rng=random.Random(s))
            for s in range(players)
        ]
        play(state, bots, hands=1)
    return out


def main() -> None:
    """Print the mean regret of both halvings and their paired difference."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--deals", type=int, default=6)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--iterations", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--reference", type=int, default=5000)
    args = parser.parse_args()
    rules = Rules.preset("serbian", players=args.players)
    found = positions(args.players, args.deals, args.seed)
    kinds: dict[str, type[SearchBot]] = {"equal phases": SearchBot, "cuts at 8/16/32": FixedCuts}
    regret: dict[str, list[float]] = {k: [] for k in kinds}
    cpu = dict.fromkeys(kinds, 0.0)
    for view, legal, log, seat in found:
        reference = Reference(seat, rules, random.Random(12345), iterations=args.reference)
        reference.log = log
        reference.choose(view, legal)
        value = dict(zip(candidates(view, legal), reference.means, strict=True))
        best = max(reference.means)
        for repeat in range(args.repeats):
            for kind, bot_type in kinds.items():
                bot = bot_type(
                    seat, rules, random.Random(1000 + repeat), iterations=args.iterations
                )
                bot.log = copy.deepcopy(log)
                start = time.process_time()
                move = bot.choose(view, legal)
                cpu[kind] += time.process_time() - start
                regret[kind].append(best - value[move])
    print(
        f"{len(found)} positions x {args.repeats}, {args.players} players, "
        f"{args.iterations} worlds, reference {args.reference} worlds"
    )
    for kind in kinds:
        print(f"{kind}: mean regret {statistics.mean(regret[kind]):.3f}, CPU {cpu[kind]:.1f} s")
    diff = [a - b for a, b in zip(regret["cuts at 8/16/32"], regret["equal phases"], strict=True)]
    half = 1.96 * statistics.stdev(diff) / len(diff) ** 0.5
    print(f"difference (8/16/32 minus equal): {statistics.mean(diff):+.3f} +- {half:.3f}")


if __name__ == "__main__":
    main()
