"""The rules core against an older commit, side by side: alternating processes, CPU time.

    .venv/bin/python loadtests/ab_core.py 888c093 --rounds 6

Extracts `server/` and `bots/` of the commit into a temporary folder, then runs short
measurements in separate processes, alternating the older code and this checkout's, so both
meet the same moments of a noisy machine: random playout hands per second through the public
API (after a warm-up that fills the caches), `captures()` calls per second on fresh random
12-card tables (`captures`; `captures_read` also iterates each answer, making every capture's
frozenset), random playout hands per second in the search's simulator
(`kafana_bots.sim`: the bots' playouts; `bench_core.simulator_rate`), and sampled worlds per
second of the search's work (`search`: each candidate copied, played, 10 greedy moves and the
estimate, `bench_search.search_sim`) and last-deal positions solved per second (`exact`:
`kafana_bots.exact.solve`, each node a copy and a move). Each figure is
process CPU time, not wall time; the medians and the ratio are printed. Both run the pure-Python
core (`KAFANA_PURE=1`: an older commit has no compiled build); `--build compiled` runs this
checkout's compiled build (`make venv`) against the older commit's pure one, or against its
compiled one with `--checkout DIR`: a checkout of that commit built by its own `make venv`
(`git worktree add DIR COMMIT && make -C DIR venv`), whose `.venv` then runs the older side.

With `--instructions`, also the instructions a playout hand costs under valgrind's callgrind,
a figure the machine's other jobs cannot move: each source plays `--warm-up` hands, then 50 or
250 more, and the difference over 200 hands is the cost of one (start-up cancelled out). Slow:
about a minute per source and count.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

MEASURE = r"""
import random, sys, time
sys.path.insert(0, sys.argv[3])
from bench_core import playout_rate, simulator_rate
from kafana.errors import TooManyMovesError
from kafana.games import tablic
what, amount = sys.argv[1], int(sys.argv[2])
rules = tablic.Rules.preset("serbian", players=2)
if what == "playout":
    playout_rate(amount, 10**6, rules)  # fills the caches
    print(playout_rate(amount, 0, rules, timer=time.process_time))
elif what == "simulator":
    simulator_rate(amount, 10**6, rules)  # a warm-up on other deals
    print(simulator_rate(amount, 0, rules, timer=time.process_time))
elif what == "search":  # ismcts' work per sampled world (bench_search.search_sim), worlds/s
    from bench_search import positions, search_sim, worlds
    items = worlds(positions(rules, amount, 1), 10, 1)
    search_sim(items, 10)  # a warm-up on the same worlds
    start = time.process_time()
    search_sim(items, 10)
    print(len(items) / (time.process_time() - start))
elif what == "exact":  # the exact solver on last-deal positions (9 cards in hand), positions/s
    from kafana_bots.exact import solve
    from kafana_bots.worlds import sim_from_view
    rng, sims, k = random.Random(5), [], 0
    while len(sims) < amount:
        state, k = tablic.new_match(rules, seed=k), k + 1
        while state.deck_remaining or sum(len(state.hand(s)) for s in range(2)) > 9:
            state = state.apply(rng.choice(state.legal_moves()))
        seat = state.current_seat
        hands = [list(state.hand(s)) for s in range(2)]
        sims.append((sim_from_view(state.view(seat), hands, []), seat))
    start = time.process_time()
    for sim, seat in sims:
        solve(sim, sim.legal(), seat, max_nodes=10**6)
    print(amount / (time.process_time() - start))
elif what == "hands":  # under callgrind: a warm-up, then `amount` hands
    playout_rate(int(sys.argv[4]), 10**6, rules)
    playout_rate(amount, 0, rules)
else:
    rng = random.Random(1)
    calls = []
    for _ in range(amount):
        cards = rng.sample(tablic.CARDS, 13)
        calls.append((cards[0], cards[1:]))
    read = what == "captures_read"  # each answer iterated: every capture's frozenset made
    start = time.process_time()
    for card, table in calls:
        try:
            found = tablic.captures(card, table, rules)
        except TooManyMovesError:
            continue
        if read:
            for _ in found:
                pass
    print(amount / (time.process_time() - start))
"""


def extract(commit: str, into: Path) -> Path:
    """`server/` and `bots/` of `commit` under `into` (the folder returned)."""
    archive = subprocess.run(
        ["git", "archive", commit, "server", "bots"], cwd=ROOT, capture_output=True, check=True
    ).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into


PURE = {"KAFANA_PURE": "1"}
"""The environment of a run of the pure core (`--build compiled` empties it)."""


def side(source: Path) -> tuple[str, dict[str, str]]:
    """The interpreter and environment that run `source`: a checkout's own venv (its build as
    `make venv` made it), else this interpreter with `source` first on the import path."""
    venv = source / ".venv" / "bin" / "python"
    if venv.exists():
        return str(venv), {**os.environ, **PURE}
    path = os.pathsep.join(str(source / part) for part in ("server", "bots"))
    return sys.executable, {**os.environ, "PYTHONPATH": path, **PURE}


def rate(source: Path, what: str, amount: int) -> float:
    """One measurement in a fresh process running `source` (see `side`)."""
    python, env = side(source)
    done = subprocess.run(
        [python, "-c", MEASURE, what, str(amount), str(HERE)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return float(done.stdout)


def instructions(source: Path, hands: int, warm_up: int) -> int:
    """Instructions callgrind counts for `warm_up` + `hands` playout hands from `source`."""
    python, env = side(source)
    command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]
    command += [python, "-c", MEASURE, "hands", str(hands), str(HERE), str(warm_up)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise RuntimeError(f"no instruction count from callgrind: {done.stderr[-500:]}")
    return int(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("commit", help="the older code (any git revision)")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--hands", type=int, default=2_000)
    parser.add_argument("--calls", type=int, default=5_000)
    parser.add_argument("--simulated", type=int, default=5_000, help="simulator hands a process")
    parser.add_argument("--positions", type=int, default=40, help="search positions a process")
    parser.add_argument("--solved", type=int, default=30, help="exact.solve positions a process")
    parser.add_argument("--instructions", action="store_true", help="also count instructions")
    parser.add_argument("--warm-up", type=int, default=1_000)
    parser.add_argument("--build", choices=["pure", "compiled"], default="pure")
    parser.add_argument("--checkout", type=Path, help="a built checkout of the older commit")
    parser.add_argument("--only", help="these figures, comma-separated (e.g. captures,simulator)")
    args = parser.parse_args()
    if args.build == "compiled":
        PURE.clear()
        os.environ.pop("KAFANA_PURE", None)
    if args.checkout is not None:
        head = subprocess.run(
            ["git", "-C", str(args.checkout), "rev-parse", "HEAD"], capture_output=True, text=True
        ).stdout.strip()
        wanted = subprocess.run(
            ["git", "rev-parse", args.commit], cwd=ROOT, capture_output=True, text=True
        ).stdout.strip()
        if not head or head != wanted:
            raise SystemExit(
                f"--checkout {args.checkout} is at {head or 'no commit'}, not {wanted}"
            )
        if not (args.checkout / ".venv" / "bin" / "python").exists():
            raise SystemExit(
                f"--checkout {args.checkout} has no .venv: run `make -C {args.checkout} venv`"
            )
    with tempfile.TemporaryDirectory(prefix="kafana-ab-") as folder:
        older = args.checkout or extract(args.commit, Path(folder))
        sources = {args.commit: older, "this": ROOT}
        for what, amount, unit in (
            ("playout", args.hands, "hands/s"),
            ("captures", args.calls, "12-card captures() calls/s"),
            ("captures_read", args.calls, "12-card captures() calls/s, every capture read"),
            ("simulator", args.simulated, "simulator hands/s"),
            ("search", args.positions, "search worlds/s (bench_search.search_sim)"),
            ("exact", args.solved, "last-deal positions solved/s (exact.solve)"),
        ):
            if args.only and what not in args.only.split(","):
                continue
            rates: dict[str, list[float]] = {name: [] for name in sources}
            for _ in range(args.rounds):
                for name, source in sources.items():
                    rates[name].append(rate(source, what, amount))
            old, new = (statistics.median(rates[name]) for name in sources)
            for name in sources:
                middle = statistics.median(rates[name])
                shown = ", ".join(f"{r:,.0f}" for r in sorted(rates[name]))
                print(f"{what} {name}: median {middle:,.0f} {unit} ({shown})")
            print(f"{what}: this checkout / {args.commit} = {new / old:.2f}")
        if args.instructions:
            per_hand = {
                name: (
                    instructions(source, 250, args.warm_up) - instructions(source, 50, args.warm_up)
                )
                / 200
                for name, source in sources.items()
            }
            for name, count in per_hand.items():
                print(f"instructions {name}: {count / 1e6:.3f} M a playout hand")
            old, new = per_hand.values()
            print(f"instructions: this checkout / {args.commit} = {new / old:.2f}")


if __name__ == "__main__":
    main()
