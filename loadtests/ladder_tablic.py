"""Tablić pairs with the minimax baseline, printing the running result every few deals.

`kafana arena` reports at the end; a long run on a shared machine is better read as it goes.
The bots are registry names or `minimax2` / `minimax3` (`loadtests/minimax_bot.py`); the
deals, seatings and statistics are the arena's (`kafana_bots.arena`).

    .venv/bin/python loadtests/ladder_tablic.py --bots minimax3,ismcts --hands 400 --jobs 2
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / d) for d in ("server", "bots")] + [str(HERE)]

from kafana.cli.arena import markdown_rows  # noqa: E402
from kafana_bots import registry  # noqa: E402
from kafana_bots.arena import ArenaConfig, DealResult, run, summarize  # noqa: E402
from minimax_bot import Minimax2, Minimax3  # noqa: E402


def main() -> None:
    """Run the pair, print the Markdown row every `--every` deals and at the end."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bots", required=True)
    parser.add_argument("--hands", type=int, default=400)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--budget-ms", type=float)
    parser.add_argument("--iterations", type=int)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--every", type=int, default=20)
    args = parser.parse_args()
    registry.register("minimax2", Minimax2, "independent minimax baseline, 2 plies")
    registry.register("minimax3", Minimax3, "independent minimax baseline, 3 plies")
    config = ArenaConfig(
        bots=tuple(args.bots.split(",")),
        hands=args.hands,
        players=args.players,
        seed=args.seed,
        budget_ms=args.budget_ms,
        iterations=args.iterations,
    )
    done: list[DealResult] = []

    def progress(result: DealResult) -> None:
        done.append(result)
        if len(done) % args.every == 0:
            print(markdown_rows(config, summarize(config, done)), flush=True)

    results = run(config, jobs=args.jobs, progress=progress)
    print("final:", markdown_rows(config, summarize(config, results)), flush=True)


if __name__ == "__main__":
    main()
