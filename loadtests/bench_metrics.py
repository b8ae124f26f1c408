"""The cost of metrics on the move path: `kafana serve` without `--metrics` against `--metrics
PORT`, side by side in one run.

    .venv/bin/python loadtests/bench_metrics.py --moves 3000 --rounds 5

One private redis-server (never the shared one) and two `kafana serve` processes on it, one
without metrics and one with `--metrics` (every call counted and timed by the interceptor,
every move counted, Redis round trips counted). Each round drives each server in turn, in
alternating order, from one sequential client: whole matches of PlayMove calls
(`instructions.play`, CreateTable and JoinTable included, as bench_auth.py plays them); the
metered server is scraped once a round, as Prometheus would (its cost is in the figure).
Measured: the server's CPU time per move (user + system, psutil) and the client's wall time
per move; the medians of the rounds and their ratio (on / off) are printed. Then the metric
updates alone, in this process: what a PlayMove's counting costs (the interceptor's counter and
histogram, one move counted, one Redis round trip counted).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import urllib.request
from functools import partial
from pathlib import Path

from kafana import metrics
from kafana.store.redis_server import free_port

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_auth import measure  # noqa: E402
from instructions import play  # noqa: E402
from run import redis_server, server_command  # noqa: E402
from side_by_side import alternating, serving  # noqa: E402

SERVE = f"{Path(sys.executable).parent / 'kafana'} serve --redis {{redis}} --port {{port}}"
SERVE += " --grace 1 --rate-limit 0 --auth open"
MODES = ("off", "on")


def scrape(port: int) -> int:
    """Bytes of one /metrics scrape."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as answer:
        return len(answer.read())


def update_cost(calls: int) -> float:
    """µs of the metric updates one PlayMove makes, in this process."""
    duration = metrics.RPC_DURATION.labels("KafanaService", "PlayMove")
    answered = metrics.RPC_CALLS.labels("KafanaService", "PlayMove", "OK")  # kept, as Metered
    start = time.perf_counter()
    for _ in range(calls):
        began = time.perf_counter()
        metrics.move_applied("tablic")
        metrics.REDIS_CALLS.inc()
        duration.observe(time.perf_counter() - began)
        answered.inc()
    return (time.perf_counter() - start) / calls * 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=1000, help="PlayMove calls per round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    results: dict[str, list[tuple[float, float]]] = {mode: [] for mode in MODES}
    scraped = 0
    with (
        tempfile.TemporaryDirectory(prefix="bench-metrics-") as work,
        redis_server(Path(work)) as (_redis, redis_port),
    ):
        url = f"redis://127.0.0.1:{redis_port}/0"
        metrics_port = free_port()
        extra = {"off": "", "on": f" --metrics {metrics_port}"}
        commands = {mode: partial(server_command, SERVE + extra[mode], url) for mode in MODES}
        with serving(commands, Path(work)) as servers:
            for round_, mode in alternating(MODES, args.rounds):
                target, process = servers[mode]
                job = partial(play, target, args.moves, args.seed + round_)
                if mode == "on":
                    job = partial(_then, job, partial(scrape, metrics_port))
                results[mode].append(measure(process.pid, job, args.moves))
            scraped = scrape(metrics_port)
    print(f"medians of {args.rounds} rounds; {args.moves} moves a round")
    print(f"{'metrics':<8} {'server CPU µs/move':>19} {'client wall µs/move':>20}")
    medians = {}
    for mode in MODES:
        cpu = statistics.median(c for c, _ in results[mode])
        wall = statistics.median(w for _, w in results[mode])
        medians[mode] = (cpu, wall)
        print(f"{mode:<8} {cpu:>19.0f} {wall:>20.0f}")
    (cpu_off, wall_off), (cpu_on, wall_on) = medians["off"], medians["on"]
    print(f"{'on / off':<8} {cpu_on / cpu_off:>19.3f} {wall_on / wall_off:>20.3f}")
    rounds = [on[0] / off[0] for off, on in zip(results["off"], results["on"], strict=True)]
    print("server CPU on / off, each round: " + " ".join(f"{r:.3f}" for r in rounds))
    print(f"one scrape: {scraped:,} bytes")
    print(f"the metric updates of one PlayMove alone, in-process: {update_cost(100_000):.1f} µs")
    return 0


def _then(first: partial[None], second: partial[int]) -> None:
    first()
    second()


if __name__ == "__main__":
    sys.exit(main())
