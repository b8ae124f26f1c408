"""Syscalls, Redis commands and bytes a move of each server: counts the machine's load cannot move.

    .venv/bin/python loadtests/per_move.py --moves 2000 --parallel 24
    .venv/bin/python loadtests/per_move.py --moves 2000 --parallel 24 --strace

Starts a private redis-server, then each server (the baseline servicer, then `kafana serve` as
`run.py` starts them: every timer on) and plays `--moves` PlayMove calls against it from one
client process: `--parallel` tables at once, whole matches followed with the local engine as
the load test's `TableUser` plays them, Kafana called with a player account's API key (its
YOUR_TURN notices told) and the baseline without one, as in `run.py`. Before the moves it
plays a warm-up and reads the counters; after them it reads them again; the difference over
the moves is the cost of one move:

- the server's read-like and write-like syscalls and bytes (`/proc/PID/io`: syscr, syscw,
  rchar, wchar: gRPC and Redis sockets both), its context switches (every thread's
  `voluntary_ctxt_switches` and `nonvoluntary_ctxt_switches`) and its CPU time;
- Redis: `INFO commandstats` (calls and microseconds, each command), commands processed,
  bytes in and out on the wire (`total_net_input_bytes`, `total_net_output_bytes`) and its CPU;
- with `--strace`: every syscall by name (`strace -f -c` attached for the moves; strace slows
  the server, so its CPU figures are not comparable then, its counts are);
- `--idle S`: the same counters over S seconds with no calls, per second (the timers' cost).

Counts (syscalls, commands, bytes) barely move with the machine's load; times do.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import grpc  # type: ignore[import-untyped, unused-ignore]
import redis
from kafana.games import tablic
from kafana.v1 import rules_pb2, service_pb2, service_pb2_grpc

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from instructions import RULES, RULES_SPEC, check_answer, next_move  # noqa: E402
from kafana.store.redis_server import free_port  # noqa: E402
from run import (  # noqa: E402
    BASELINE_COMMAND,
    KAFANA_COMMAND,
    driver_keys,
    redis_server,
    server_command,
    stop,
    wait_port,
)

TICKS = os.sysconf("SC_CLK_TCK")
STRACE_ROW = re.compile(r"^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:(\d+)\s+)?(\w+)\s*$")

Metadata = tuple[tuple[str, str], ...]


async def play_table(
    stub: Any,  # service_pb2_grpc.KafanaServiceStub on a grpc.aio channel
    rng: random.Random,
    budget: list[int],
    metadata: Metadata,
) -> None:
    """Whole matches on one table after another while the shared budget of moves lasts."""
    while budget[0] > 0:
        match_seed = rng.getrandbits(63)
        config = rules_pb2.TableConfig(rules=RULES_SPEC, seed=match_seed)
        created = await stub.CreateTable(
            service_pb2.CreateTableRequest(config=config), metadata=metadata
        )
        joined = [
            await stub.JoinTable(
                service_pb2.JoinTableRequest(table_id=created.table_id, seat=s),
                metadata=metadata,
            )
            for s in range(2)
        ]
        seq = max(j.state.seq for j in joined)
        state = tablic.new_match(RULES, seed=match_seed)
        tokens = [j.seat_token for j in joined]
        while not state.is_over and budget[0] > 0:
            budget[0] -= 1
            move, request, call = next_move(state, rng, created.table_id, seq, tokens, metadata)
            check_answer(await stub.PlayMove(request, timeout=60, metadata=call), seq)
            seq += 1
            state = state.apply(move)


async def play(target: str, moves: int, parallel: int, seed: int, metadata: Metadata) -> int:
    """`moves` PlayMove calls on `parallel` tables at once; the CreateTable + JoinTable calls
    made on the way (they are counted with the moves: a match's share of each move)."""
    budget = [moves]
    async with grpc.aio.insecure_channel(target) as channel:
        stub = service_pb2_grpc.KafanaServiceStub(channel)
        await asyncio.gather(
            *(
                play_table(stub, random.Random(seed * 1000 + k), budget, metadata)
                for k in range(parallel)
            )
        )
    return moves


def process_counters(pid: int) -> dict[str, float]:
    """The process's syscalls and bytes (/proc/PID/io), context switches (all its threads), CPU
    seconds and page faults."""
    out: dict[str, float] = {}
    for line in Path(f"/proc/{pid}/io").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("syscr", "syscw", "rchar", "wchar"):
            out[name] = float(value)
    out["voluntary"] = out["involuntary"] = 0.0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            text = (task / "status").read_text()
        except FileNotFoundError:
            continue
        for line in text.splitlines():
            if line.startswith("voluntary_ctxt_switches"):
                out["voluntary"] += float(line.split()[1])
            elif line.startswith("nonvoluntary_ctxt_switches"):
                out["involuntary"] += float(line.split()[1])
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    out["cpu_s"] = (int(fields[11]) + int(fields[12])) / TICKS
    out["page faults"] = float(fields[7]) + float(fields[9])
    out["threads"] = float(fields[17])
    return out


def redis_counters(client: redis.Redis) -> dict[str, float]:
    """Commands (calls, usec) by name, commands processed, bytes on the wire, CPU seconds."""
    out: dict[str, float] = {}
    for name, stats in client.info("commandstats").items():
        command = name.removeprefix("cmdstat_")
        out[f"calls {command}"] = float(stats["calls"])
        out[f"usec {command}"] = float(stats["usec"])
    stats = client.info("stats")
    out["commands"] = float(stats["total_commands_processed"])
    out["net in"] = float(stats["total_net_input_bytes"])
    out["net out"] = float(stats["total_net_output_bytes"])
    cpu = client.info("cpu")
    out["cpu_s"] = float(cpu["used_cpu_sys"]) + float(cpu["used_cpu_user"])
    return out


def diff(after: dict[str, float], before: dict[str, float], per: float) -> dict[str, float]:
    return {k: (v - before.get(k, 0.0)) / per for k, v in after.items()}


def strace_start(pid: int, out: Path) -> subprocess.Popen[bytes]:
    """strace -f -c attached to every thread of `pid`, summary to `out` on SIGINT."""
    process = subprocess.Popen(
        ["strace", "-f", "-c", "-o", str(out), "-p", str(pid)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    time.sleep(1.0)  # attached to every thread
    return process


def strace_stop(process: subprocess.Popen[bytes], out: Path) -> dict[str, tuple[int, int]]:
    """The summary: syscall -> (calls, errors)."""
    process.send_signal(signal.SIGINT)
    process.wait(timeout=30)
    found: dict[str, tuple[int, int]] = {}
    for line in out.read_text().splitlines():
        row = STRACE_ROW.match(line)
        if row and row.group(3) != "total":
            found[row.group(3)] = (int(row.group(1)), int(row.group(2) or 0))
    return found


def measure(
    kind: str,
    template: str,
    redis_url: str,
    redis_pid: int,
    args: argparse.Namespace,
    work: Path,
) -> dict[str, dict[str, float]]:
    """One server: warm-up, counters, the moves, counters (and the idle stretch)."""
    port = free_port()
    metadata: Metadata = ()
    if kind == "kafana" or args.baseline_keys:
        (key,) = driver_keys(redis_url, 1, f"per-move-{port}")
        metadata = (("authorization", f"Bearer {key}"),)
    command = server_command(template, redis_url, port, cache=max(1024, args.parallel * 2))
    client = redis.Redis.from_url(redis_url)
    target = f"127.0.0.1:{port}"
    with open(work / f"{kind}.log", "wb") as log:
        process = subprocess.Popen(command, stdout=log, stderr=log)
    result: dict[str, dict[str, float]] = {}
    try:
        wait_port(port, process, timeout=60)
        asyncio.run(play(target, args.warmup, args.parallel, args.seed + 7, metadata))
        if args.idle:
            server_0, redis_0 = process_counters(process.pid), redis_counters(client)
            time.sleep(args.idle)
            result["idle server"] = diff(process_counters(process.pid), server_0, args.idle)
            result["idle redis"] = diff(redis_counters(client), redis_0, args.idle)
        trace = strace_start(process.pid, work / f"{kind}.strace") if args.strace else None
        redis_trace = None
        if args.strace_redis:
            redis_trace = strace_start(redis_pid, work / f"{kind}.redis.strace")
        perf = None
        perf_out = f"{args.perf_redis}.{kind}"
        if args.perf_redis:
            perf = subprocess.Popen(
                ["perf", "record", "-F", "4000", "-g", "-p", str(redis_pid), "-o", perf_out],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            time.sleep(1.0)
        server_0, redis_0, wall = process_counters(process.pid), redis_counters(client), time.time()
        asyncio.run(play(target, args.moves, args.parallel, args.seed, metadata))
        seconds = time.time() - wall
        server_1, redis_1 = process_counters(process.pid), redis_counters(client)
        if perf is not None:
            perf.send_signal(signal.SIGINT)
            perf.wait(timeout=60)
        if redis_trace is not None:
            calls = strace_stop(redis_trace, work / f"{kind}.redis.strace")
            result["strace redis"] = {name: n / args.moves for name, (n, _e) in calls.items()}
        if trace is not None:
            calls = strace_stop(trace, work / f"{kind}.strace")
            result["strace"] = {name: n / args.moves for name, (n, _e) in calls.items()}
            result["strace errors"] = {name: e / args.moves for name, (_n, e) in calls.items() if e}
        result["server"] = diff(server_1, server_0, args.moves)
        result["redis"] = diff(redis_1, redis_0, args.moves)
        result["run"] = {"moves/s": args.moves / seconds}
    finally:
        stop(process)
        client.close()
    return result


def report(results: dict[str, dict[str, dict[str, float]]]) -> None:
    """Side by side: every counter of each kind, per move (idle: per second)."""
    kinds = list(results)
    sections: list[str] = []
    for found in results.values():
        sections += [s for s in found if s not in sections]
    for section in sections:
        unit = "a second" if section.startswith("idle") else "" if section == "run" else "a move"
        print(f"\n{section} ({unit}):" if unit else f"\n{section}:")
        names: list[str] = []
        for found in results.values():
            names += [n for n in found.get(section, {}) if n not in names]
        print(f"  {'':28}" + "".join(f"{k:>14}" for k in kinds))
        for name in sorted(names):
            scale = 1e6 if name == "cpu_s" else 1.0
            values = [results[k].get(section, {}).get(name, 0.0) * scale for k in kinds]
            if all(abs(v) < 1e-3 for v in values):
                continue
            label = "cpu µs" if name == "cpu_s" else name
            print(f"  {label:28}" + "".join(f"{v:14.3f}" for v in values))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=2000)
    parser.add_argument("--warmup", type=int, default=300)
    parser.add_argument("--parallel", type=int, default=24, help="tables played at once")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--idle", type=float, default=0.0, help="seconds measured idle too")
    parser.add_argument("--strace", action="store_true", help="syscalls by name (strace -f -c)")
    parser.add_argument(
        "--strace-redis", action="store_true", help="Redis's syscalls by name (strace -c)"
    )
    parser.add_argument(
        "--perf-redis", metavar="PATH", help="perf record -g Redis during the moves: PATH.<kind>"
    )
    parser.add_argument("--only", choices=("baseline", "kafana"))
    parser.add_argument("--kafana-command", default=KAFANA_COMMAND)
    parser.add_argument(
        "--baseline-command",
        default=BASELINE_COMMAND,
        help="another server in the baseline's place (e.g. an older Kafana: with --baseline-keys)",
    )
    parser.add_argument(
        "--baseline-keys", action="store_true", help="call the baseline with an API key too"
    )
    args = parser.parse_args()
    results: dict[str, dict[str, dict[str, float]]] = {}
    with tempfile.TemporaryDirectory(prefix="kafana-per-move-") as tmp:
        work = Path(tmp)
        with redis_server(work) as (redis_process, redis_port):
            redis_url = f"redis://127.0.0.1:{redis_port}/0"
            for kind, template in (
                ("baseline", args.baseline_command),
                ("kafana", args.kafana_command),
            ):
                if args.only in (None, kind):
                    results[kind] = measure(
                        kind, template, redis_url, redis_process.pid, args, work
                    )
    report(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
