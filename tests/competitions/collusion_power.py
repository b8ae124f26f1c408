"""How often the collusion report flags an honest season and misses two colluders, over
simulated seasons (`test_collusion.league`: 24 players, 900 matches between neighbours in
skill). Run from the repository:

    PYTHONPATH=tests .venv/bin/python -m competitions.collusion_power --seasons 30
"""

from __future__ import annotations

import argparse

from kafana.competitions.league import collusion

from . import test_collusion as sim


def main() -> None:
    """Print one line per (alpha, meetings): honest seasons flagged, colluders missed."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seasons", type=int, default=30)
    args = parser.parse_args()
    for alpha in (0.01, 0.05):
        for meetings in (16, 20, 24):
            sim.MEETINGS = meetings
            flagged = missed = others = 0
            for seed in range(1, args.seasons + 1):
                flagged += bool(collusion.report(sim.league(seed, False), alpha=alpha))
                found = collusion.report(sim.league(seed, True), alpha=alpha)
                pairs = [(s.winner, s.loser) for s in found]
                missed += ("feeder", "dumper") not in pairs
                others += sum(1 for p in pairs if p != ("feeder", "dumper"))
            print(
                f"alpha {alpha}, {meetings} dumped games: honest seasons flagged"
                f" {flagged}/{args.seasons}, colluders missed {missed}/{args.seasons},"
                f" other pairs flagged beside them {others}",
                flush=True,
            )


if __name__ == "__main__":
    main()
