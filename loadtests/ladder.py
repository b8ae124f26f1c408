"""Tač ladder: one bot against `loader` at every other seat, duplicate over the seats.

Deal k is `tac.new_game(rules, seed=k)`; it is played once per seat of the tested bot (the
others are `loader`), so the luck of the deal cancels out. A seat's score is its place as
1 for first and 0 for last; per deal, the difference is the bot's mean score minus the mean
score of the loaders in the same games, with a 95% interval over the deals (mean ± 1.96 sd/√n).
Tablić pairs go through `kafana arena` (the minimax baseline: `loadtests/minimax_bot.py`).
`--bot oracle` plays the all-seeing bound (shown the game before each of its decisions: the
registry lends it to this ladder only); `--decks 2` plays two decks (2, 4 or 8 players).

    .venv/bin/python loadtests/ladder.py --players 2 --deals 100 --iterations 8 --jobs 2
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from math import sqrt
from pathlib import Path
from typing import Any, TextIO

sys.path[:0] = [str(Path(__file__).resolve().parents[1] / d) for d in ("server", "bots")]

from kafana.games import tac  # noqa: E402
from kafana_bots import registry  # noqa: E402
from kafana_bots.arena import share_text  # noqa: E402
from kafana_bots.play import play  # noqa: E402
from kafana_bots.tac_oracle import TacOracleBot  # noqa: E402

Deal = tuple[float, float, int, list[float], list[float]]
"""(bot's mean score, loaders' mean score, games the bot won, the bot's decision times on the
wall clock, and in CPU time of its thread where its wall time passed 1 ms)."""


def play_game(
    state: tac.GameState, bots: list[Any], on_decision: Callable[[int, float], None]
) -> tac.GameState:
    """Play to the end; an oracle is shown the game before each move (one move a call)."""
    oracles = [bot for bot in bots if isinstance(bot, TacOracleBot)]
    if not oracles:
        return play(state, bots, on_decision=on_decision)
    while not state.is_over:
        for oracle in oracles:
            oracle.see(state)
        state = play(state, bots, max_moves=state.move_count + 1, on_decision=on_decision)
    return state


def play_deal(bot: str, players: int, decks: int, deal: int, options: dict[str, float]) -> Deal:
    """Deal `deal` once per seat of `bot`, `loader` at the other seats."""
    rules = tac.Rules(players=players, decks=decks)
    mine: list[float] = []
    theirs: list[float] = []
    wins = 0
    times: list[float] = []
    cpu: list[float] = []
    for at in range(players):
        bots = [
            registry.create(
                bot if seat == at else "loader",
                seat=seat,
                rules=rules,
                rng=random.Random(f"{deal}:{at}:{seat}"),
                arena=True,
                **(options if seat == at else {}),
            )
            for seat in range(players)
        ]
        inner = bots[at].choose

        def choose(view: tac.View, legal: Any, inner: Any = inner) -> tac.Move:
            wall, used = time.perf_counter(), time.thread_time()
            move: tac.Move = inner(view, legal)
            if time.perf_counter() - wall > 0.001:
                cpu.append(time.thread_time() - used)
            return move

        setattr(bots[at], "choose", choose)  # noqa: B010 (times the bot in CPU time too)

        def timed(seat: int, seconds: float, at: int = at) -> None:
            if seat == at:
                times.append(seconds)

        state = play_game(tac.new_game(rules, seed=deal), bots, timed)
        places = state.places()
        assert places is not None
        scores = [(players - p) / (players - 1) for p in places]
        mine.append(scores[at])
        theirs.append(statistics.fmean(s for seat, s in enumerate(scores) if seat != at))
        wins += places[at] == 1 and state.winner == at
    return statistics.fmean(mine), statistics.fmean(theirs), wins, times, cpu


def run(bot: str, args: argparse.Namespace, options: dict[str, float]) -> list[Deal]:
    """Every deal for `bot`, in `--jobs` processes (with `--every k`, the running row on
    stderr every k deals)."""
    n = args.deals
    results: list[Deal] = []
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        deals = pool.map(
            play_deal, [bot] * n, [args.players] * n, [args.decks] * n, range(n), [options] * n
        )
        for deal in deals:
            results.append(deal)
            if args.every and len(results) % args.every == 0 and len(results) < n:
                report(bot, args, results, sys.stderr)
    return results


def report(
    bot: str, args: argparse.Namespace, results: list[Deal], out: TextIO = sys.stdout
) -> None:
    """Print the Markdown row of `bot` over `results` (and, on stderr, its searched
    decisions' times)."""
    diffs = [m - t for m, t, *_ in results]
    mean = statistics.fmean(diffs)
    half = 1.96 * statistics.stdev(diffs) / sqrt(len(diffs)) if len(diffs) > 1 else 0.0
    wins = sum(w for _, _, w, *_ in results)
    deals = len(results)
    games = deals * args.players
    times = sorted(t for *_, ts, _ in results for t in ts)
    cpu = sorted(t for *_, ts in results for t in ts)
    median = 1000 * times[len(times) // 2] if times else 0.0
    p99 = 1000 * times[min(len(times) - 1, int(0.99 * len(times)))] if times else 0.0
    budget = f"{args.iterations} worlds" if args.iterations else f"{args.budget_ms or 200:g} ms"
    if args.horizon is not None and bot != "oracle":
        budget += f", horizon {args.horizon}"
    decks = "" if args.decks == 1 else f", {args.decks} decks"
    print(
        f"| {args.players} players{decks} | {bot} ({budget}) vs loader | {deals} "
        f"| {statistics.fmean(m for m, *_ in results):.3f} / "
        f"{statistics.fmean(t for _, t, *_ in results):.3f} "
        f"| {mean:+.3f} [{mean - half:+.3f}, {mean + half:+.3f}] "
        f"| {wins}/{games} ({100 * wins / games:.1f}%, fair share {100 / args.players:.1f}%) "
        f"| {median:.3g} / {p99:.3g} |",
        file=out,
        flush=True,
    )
    searched = [t for t in times if t > 0.001]
    if searched:
        print(
            f"{bot}: decisions over 1 ms: {len(searched)} of {len(times)}, median "
            f"{1000 * searched[len(searched) // 2]:.3g} ms, p99 "
            f"{1000 * searched[min(len(searched) - 1, int(0.99 * len(searched)))]:.3g} ms, "
            f"max {1000 * searched[-1]:.3g} ms; their CPU time median "
            f"{1000 * cpu[len(cpu) // 2]:.3g} ms, p99 "
            f"{1000 * cpu[min(len(cpu) - 1, int(0.99 * len(cpu)))]:.3g} ms, max "
            f"{1000 * cpu[-1]:.3g} ms",
            file=sys.stderr,
        )


def main() -> None:
    """Play the deals and print a Markdown row (with `--oracle`, the oracle's row on the same
    deals and the bot's margin as a share of the oracle's)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bot", default="search")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--decks", type=int, default=1)
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--iterations", type=int)
    parser.add_argument("--budget-ms", type=float)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--horizon", type=int)
    parser.add_argument("--oracle", action="store_true", help="the oracle too, same deals")
    parser.add_argument("--every", type=int, default=0, help="running row every k deals")
    args = parser.parse_args()
    options: dict[str, float] = {}
    if args.iterations is not None:
        options["iterations"] = args.iterations
    if args.budget_ms is not None:
        options["budget_ms"] = args.budget_ms
    start = time.perf_counter()
    mine = run(
        args.bot, args, options | ({} if args.horizon is None else {"horizon": args.horizon})
    )
    report(args.bot, args, mine)
    if args.oracle:
        bound = run("oracle", args, options)
        report("oracle", args, bound)
        margins = [m - t for m, t, *_ in mine], [m - t for m, t, *_ in bound]
        print(share_text(args.bot, *margins))
    print(f"({time.perf_counter() - start:.0f} s)", file=sys.stderr)


if __name__ == "__main__":
    main()
