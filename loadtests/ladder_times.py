"""Decision times of one Tablić bot at its default budget, on the wall clock and in CPU time.

The bot sits at the even seats, `heuristic` at the others, over the arena's deals (deal k is
`shuffled_deck(seed, k)`, one hand); each of the bot's `choose` calls is timed with
`time.perf_counter` and `time.thread_time`. On a quiet machine the two agree; on a loaded one
the wall time grows while the CPU time (what the budget counts) stays.

    .venv/bin/python loadtests/ladder_times.py --bot ismcts --players 2 --deals 3
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parents[1] / d) for d in ("server", "bots")]

from kafana.games.tablic import Move, Rules, View, new_match, shuffled_deck  # noqa: E402
from kafana_bots import registry  # noqa: E402
from kafana_bots.base import Bot  # noqa: E402
from kafana_bots.events import Event  # noqa: E402
from kafana_bots.oracle import OracleBot  # noqa: E402
from kafana_bots.play import play  # noqa: E402


class Timed(Bot):
    """A bot whose every decision is timed on both clocks."""

    def __init__(self, inner: Bot, wall: list[float], cpu: list[float]) -> None:
        super().__init__(inner.seat, inner.rules, inner.rng)
        self.inner, self.wall, self.cpu = inner, wall, cpu

    def choose(self, view: View, legal_moves: Sequence[Move]) -> Move:
        """The inner bot's move, timed."""
        wall, cpu = time.perf_counter(), time.thread_time()
        move = self.inner.choose(view, legal_moves)
        self.wall.append(time.perf_counter() - wall)
        self.cpu.append(time.thread_time() - cpu)
        return move

    def observe(self, event: Event) -> None:
        """Passed on."""
        self.inner.observe(event)


def _ms(values: list[float], q: float) -> str:
    """The `q` quantile in milliseconds: whole above 100, else 3 significant digits."""
    ordered = sorted(values)
    ms = 1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))]
    return f"{ms:.0f}" if ms >= 100 else f"{ms:.3g}"


def main() -> None:
    """Play the deals and print a Markdown row per bot."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bot", default="ismcts", help="a bot, or several as X,Y: a row each")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--deals", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    for name in args.bot.split(","):
        print(timed_row(name, args.players, args.deals, args.seed), flush=True)


def timed_row(name: str, players: int, deals: int, seed: int) -> str:
    """The Markdown row of `name`'s decision times over `deals` deals."""
    rules = Rules.preset("serbian", players=players)
    wall: list[float] = []
    cpu: list[float] = []
    for deal in range(deals):
        state = new_match(rules, decks=[shuffled_deck(seed, deal)])
        bots: list[Bot] = []
        for seat in range(players):
            bot_name = name if seat % 2 == 0 else "heuristic"
            bot = registry.create(
                bot_name, seat=seat, rules=rules, rng=random.Random(seat), arena=True
            )
            if isinstance(bot, OracleBot):
                bot.see(state)
            bots.append(Timed(bot, wall, cpu) if seat % 2 == 0 else bot)
        play(state, bots, hands=1)
    return (
        f"| {name} | {len(wall)} ({deals} deals, {players} players) "
        f"| {os.getloadavg()[0]:.0f} | {_ms(wall, 0.5)} / {_ms(wall, 0.99)} "
        f"| {_ms(cpu, 0.5)} / {_ms(cpu, 0.99)} |"
    )


if __name__ == "__main__":
    main()
