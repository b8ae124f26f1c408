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
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc  # type: ignore[import-untyped, unused-ignore]
from kafana.store.redis_server import RedisServer
from kafana.v1 import service_pb2_grpc
from kafana_client.routing import ranking

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_durability import COLUMNS, phase, play_matches, serve  # noqa: E402
from side_by_side import medians_table, rounds_of, serving  # noqa: E402

MODES = ("balanced", "routed")
Pick = Callable[[str], Any]


def picker(mode: str, stubs: dict[str, Any], rng: random.Random) -> Pick:
    """The stub for a call on a table: at random per call, or the table's first in ranking."""
    targets = list(stubs)
    if mode == "balanced":
        return lambda table_id: stubs[rng.choice(targets)]
    return lambda table_id: stubs[ranking(table_id, targets)[0]]


def client(
    targets: list[str], mode: str, seed: int, until: float, out: list[float], refused: list[int]
) -> None:
    """`bench_durability.play_matches` with a channel to every process, `mode`'s choice of one
    for each call."""
    rng = random.Random(seed)
    channels = [grpc.insecure_channel(target) for target in targets]
    try:
        stubs = {
            target: service_pb2_grpc.KafanaServiceStub(channel)
            for target, channel in zip(targets, channels, strict=True)
        }
        play_matches(picker(mode, stubs, rng), rng, until, out, refused)
    finally:
        for channel in channels:
            channel.close()


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
    cache = ("--cache-tables", str(args.cache_tables))
    commands = {f"serve{i}": serve(redis.url, *cache) for i in range(args.servers)}
    try:
        with serving(commands, work, timeout=60) as servers:
            targets = [target for target, _process in servers.values()]
            pids = [process.pid for _target, process in servers.values()]

            def measure(round_: int, mode: str) -> dict[str, float]:
                return phase(
                    pids,
                    args.clients,
                    args.duration,
                    lambda i, until, out, refused: client(
                        targets, mode, 1000 * round_ + i, until, out, refused
                    ),
                )

            figures = rounds_of(MODES, args.rounds, measure)
        print(
            f"\n{args.servers} processes, cache {args.cache_tables} tables each, {args.clients} "
            f"tables at once, {args.duration:g} s phases, medians of {args.rounds} rounds"
        )
        columns = [*COLUMNS[:3], ("servers' CPU µs/move", "cpu_us", ".0f")]
        print("\n".join(medians_table(figures, "calls", columns)))
    finally:
        redis.stop()
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
