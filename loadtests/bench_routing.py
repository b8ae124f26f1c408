"""Routing tables to the process that holds them, against per-call balancing, on 3 processes.

    .venv/bin/python loadtests/bench_routing.py --duration 20 --rounds 3 --clients 12

One private redis-server (never the shared Redis) and `--servers` `kafana serve` processes on
it, each with a session cache of `--cache-tables` tables. Client threads play whole matches
(as bench_durability.py's clients: created, both seats joined, random legal moves followed with
the local engine), `--clients` tables at once. Each call goes either to one process chosen per
call at random (`balanced`: what a per-call load balancer does) or to the table's process by
the SDK's rendezvous hashing (`routed`: `kafana_client.routing`, what `Client.connect(...,
routes=...)` does). Measured per mode, alternating the order every round: moves/s, PlayMove
p50/p99, and the servers' CPU per move (user + system of all processes, psutil); the medians of
the rounds as a Markdown table. A smaller cache than the tables in play shows what balancing
costs when every process must hold every table.
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc  # type: ignore[import-untyped, unused-ignore]
import psutil
from kafana.store.redis_server import RedisServer, free_port
from kafana.v1 import service_pb2_grpc
from kafana_client.routing import ranking

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_durability import SERVE, play_matches  # noqa: E402
from instructions import wait_serving  # noqa: E402
from run import stop  # noqa: E402

MODES = ("balanced", "routed")
Pick = Callable[[str], Any]


def picker(mode: str, stubs: dict[str, Any], rng: random.Random) -> Pick:
    """The stub for a call on a table: at random per call, or the table's first in ranking."""
    targets = list(stubs)
    if mode == "balanced":
        return lambda table_id: stubs[rng.choice(targets)]
    return lambda table_id: stubs[ranking(table_id, targets)[0]]


def client(targets: list[str], mode: str, seed: int, until: float, out: list[float]) -> None:
    """`bench_durability.play_matches` with a channel to every process, `mode`'s choice of one
    for each call."""
    rng = random.Random(seed)
    channels = [grpc.insecure_channel(target) for target in targets]
    try:
        stubs = {
            target: service_pb2_grpc.KafanaServiceStub(channel)
            for target, channel in zip(targets, channels, strict=True)
        }
        play_matches(picker(mode, stubs, rng), rng, until, out, [])
    finally:
        for channel in channels:
            channel.close()


def phase(
    targets: list[str], pids: list[int], mode: str, clients: int, seconds: float, seed: int
) -> dict[str, float]:
    """`clients` threads for `seconds`: moves/s, p50 and p99 in ms, servers' CPU µs per move."""
    processes = [psutil.Process(pid) for pid in pids]
    before = [p.cpu_times() for p in processes]
    until = time.monotonic() + seconds
    results: list[list[float]] = [[] for _ in range(clients)]
    failures: list[BaseException] = []

    def run(i: int) -> None:
        try:
            client(targets, mode, seed + i, until, results[i])
        except BaseException as error:  # reported after the phase
            failures.append(error)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(clients)]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - started
    if failures:
        raise RuntimeError(f"{len(failures)} of {clients} clients failed") from failures[0]
    used = sum(
        (a.user - b.user) + (a.system - b.system)
        for a, b in zip((p.cpu_times() for p in processes), before, strict=True)
    )
    times = sorted(t for result in results for t in result)
    moves = len(times)
    return {
        "moves_s": moves / elapsed,
        "p50_ms": 1000 * statistics.median(times),
        "p99_ms": 1000 * times[min(moves - 1, int(0.99 * moves))],
        "cpu_us": 1e6 * used / moves,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=20.0, help="seconds per phase")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--clients", type=int, default=12, help="client threads (tables at once)")
    parser.add_argument("--servers", type=int, default=3)
    parser.add_argument("--cache-tables", type=int, default=8, help="each process's cache")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="kafana-routing-"))
    redis = RedisServer(work / "redis").start()
    processes: list[tuple[subprocess.Popen[bytes], int]] = []
    try:
        for i in range(args.servers):
            port = free_port()
            command = [*SERVE, "--redis", redis.url, "--port", str(port)]
            command += ["--cache-tables", str(args.cache_tables)]
            log = open(work / f"serve{i}.log", "wb")  # noqa: SIM115 (closed with the process)
            processes.append((subprocess.Popen(command, stdout=log, stderr=log), port))
            wait_serving(port, processes[-1][0], timeout=60)
        targets = [f"127.0.0.1:{port}" for _process, port in processes]
        pids = [process.pid for process, _port in processes]
        figures: dict[str, list[dict[str, float]]] = {mode: [] for mode in MODES}
        for round_ in range(args.rounds):
            for mode in MODES if round_ % 2 == 0 else MODES[::-1]:
                got = phase(targets, pids, mode, args.clients, args.duration, 1000 * round_)
                figures[mode].append(got)
                print(
                    f"round {round_ + 1} {mode}: "
                    + ", ".join(f"{k} {v:.1f}" for k, v in got.items())
                )
        print(
            f"\n{args.servers} processes, cache {args.cache_tables} tables each, {args.clients} "
            f"tables at once, {args.duration:g} s phases, medians of {args.rounds} rounds"
        )
        print("| calls | moves/s | PlayMove p50 ms | p99 ms | servers' CPU µs/move |")
        print("|---|---|---|---|---|")
        for mode in MODES:
            med = {k: statistics.median(f[k] for f in figures[mode]) for k in figures[mode][0]}
            print(
                f"| {mode} | {med['moves_s']:.0f} | {med['p50_ms']:.2f} | {med['p99_ms']:.2f} "
                f"| {med['cpu_us']:.0f} |"
            )
    finally:
        for process, _port in processes:
            stop(process)
        redis.stop()
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
