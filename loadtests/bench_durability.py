"""The cost of `--durability replicated`: moves/s and PlayMove latency, side by side with the
default (`primary`), on a Redis primary and a replica started here.

    .venv/bin/python loadtests/bench_durability.py --duration 15 --rounds 3 --clients 8

A private primary and a replica of it (both with deploy/redis.conf: AOF, `appendfsync always`;
free loopback ports, never the shared Redis), and two `kafana serve` processes on the primary:
one `--durability primary`, one `--durability replicated` (each write waits for `WAIT 1`). Each
round drives each server in turn, in alternating order, for `--duration` seconds from
`--clients` threads, each with its own channel playing whole matches (created, both seats
joined, moves followed with the local engine as the load test's `TableUser`). Measured: moves
acknowledged per second, PlayMove latency p50 and p99 (client wall time until acknowledged: a
move answered UNAVAILABLE, no replica's word within 1 s, is resent with its id and counted),
the server's CPU time per move (user + system, psutil); the medians of the rounds are printed,
as a Markdown table.
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
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import grpc  # type: ignore[import-untyped, unused-ignore]
import psutil
from kafana.games import tablic
from kafana.store.redis_server import RedisServer
from kafana.v1 import rules_pb2, service_pb2, service_pb2_grpc

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from instructions import RULES, RULES_SPEC, check_answer, next_move  # noqa: E402
from side_by_side import medians_table, rounds_of, serving  # noqa: E402

REDIS_CONF = HERE.parent / "deploy" / "redis.conf"
SERVE = [str(Path(sys.executable).parent / "kafana"), "serve", "--grace", "1", "--auth", "open"]
SERVE += ["--rate-limit", "0", "--tables-per-hour", "0", "--open-tables", "0"]
MODES = ("primary", "replicated")


def replica_of(primary: RedisServer, directory: Path) -> RedisServer:
    """A replica of `primary` with the project's settings, once it is in sync."""
    replica = RedisServer(
        directory, "--replicaof", "127.0.0.1", str(primary.port), config=REDIS_CONF
    ).start()
    deadline = time.monotonic() + 30
    while True:
        info = subprocess.run(
            ["redis-cli", "-p", str(replica.port), "info", "replication"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        if "master_link_status:up" in info:
            return replica
        if time.monotonic() > deadline:
            raise RuntimeError("the replica did not sync")
        time.sleep(0.1)


def play_matches(
    pick: Callable[[str], Any],
    rng: random.Random,
    until: float,
    latencies: list[float],
    refused: list[int],
) -> None:
    """Whole matches until `until` (monotonic), each call on the stub `pick(table_id)` gives
    ("" for CreateTable); each acknowledged PlayMove's seconds, and a 1 in `refused` for each
    answer UNAVAILABLE (resent with the same id)."""
    while time.monotonic() < until:
        match_seed = rng.getrandbits(63)
        config = rules_pb2.TableConfig(rules=RULES_SPEC, seed=match_seed)
        table_id = pick("").CreateTable(service_pb2.CreateTableRequest(config=config)).table_id
        joined = [
            pick(table_id).JoinTable(service_pb2.JoinTableRequest(table_id=table_id, seat=s))
            for s in range(2)
        ]
        seq = max(j.state.seq for j in joined)
        state = tablic.new_match(RULES, seed=match_seed)
        tokens = [j.seat_token for j in joined]
        while not state.is_over and time.monotonic() < until:
            move, request, token = next_move(state, rng, table_id, seq, tokens, ())
            began = time.perf_counter()
            while True:  # UNAVAILABLE (no replica's word in time): resent, as the SDK does
                try:
                    answer = pick(table_id).PlayMove(request, timeout=60, metadata=token)
                    break
                except grpc.RpcError as error:
                    if error.code() != grpc.StatusCode.UNAVAILABLE:
                        raise
                    refused.append(1)
            latencies.append(time.perf_counter() - began)  # until acknowledged
            check_answer(answer, seq)
            seq += 1
            state = state.apply(move)


def client(
    target: str, seed: int, until: float, latencies: list[float], refused: list[int]
) -> None:
    """`play_matches` on one channel to `target`."""
    with grpc.insecure_channel(target) as channel:
        stub = service_pb2_grpc.KafanaServiceStub(channel)
        play_matches(lambda _table_id: stub, random.Random(seed), until, latencies, refused)


def serve(redis_url: str, *options: str) -> Callable[[int], list[str]]:
    """The command line of a `kafana serve` on `redis_url` with `options`, for a port."""
    return lambda port: [*SERVE, "--redis", redis_url, "--port", str(port), *options]


def phase(
    pids: Sequence[int],
    clients: int,
    seconds: float,
    play: Callable[[int, float, list[float], list[int]], None],
) -> dict[str, float]:
    """`clients` threads, thread i calling `play(i, until, its latencies, refused)`, for
    `seconds`: moves/s, p50 and p99 in ms, the servers' CPU µs per move (user + system of the
    processes `pids`), calls answered UNAVAILABLE."""
    processes = [psutil.Process(pid) for pid in pids]
    before = [p.cpu_times() for p in processes]
    until = time.monotonic() + seconds
    results: list[list[float]] = [[] for _ in range(clients)]
    refused: list[int] = []
    failures: list[BaseException] = []

    def run(i: int) -> None:
        try:
            play(i, until, results[i], refused)
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
        "refused": float(len(refused)),
    }


COLUMNS = [
    ("moves/s", "moves_s", ".0f"),
    ("PlayMove p50 ms", "p50_ms", ".2f"),
    ("p99 ms", "p99_ms", ".2f"),
    ("server CPU µs/move", "cpu_us", ".0f"),
]
"""The table's columns (`side_by_side.medians_table`); this benchmark adds the resent calls."""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=15.0, help="seconds per phase")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--clients", type=int, default=8, help="client threads (tables at once)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="kafana-durability-"))
    primary = RedisServer(work / "primary", config=REDIS_CONF).start()
    replica = replica_of(primary, work / "replica")
    commands = {mode: serve(primary.url, "--durability", mode) for mode in MODES}
    try:
        with serving(commands, work, timeout=60) as servers:

            def measure(round_: int, mode: str) -> dict[str, float]:
                target, process = servers[mode]
                return phase(
                    [process.pid],
                    args.clients,
                    args.duration,
                    lambda i, until, out, refused: client(target, round_ + i, until, out, refused),
                )

            figures = rounds_of(MODES, args.rounds, measure)
        print(
            f"\n{args.clients} clients, {args.duration:g} s phases, medians of {args.rounds} rounds"
        )
        resent = ("answered UNAVAILABLE, resent", "refused", ".0f")
        print("\n".join(medians_table(figures, "durability", [*COLUMNS, resent])))
    finally:
        replica.stop()
        primary.stop()
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
