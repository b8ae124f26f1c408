"""One command for a load run: Redis, servers, locust headless, checks, a summary.

    .venv/bin/python loadtests/run.py --scenario fast --servers 1 --duration 30 --baseline

Starts a private redis-server on a free loopback port (never the shared one), then for each
phase (with --baseline: the baseline servicer and Kafana, `--rounds` times, each kind first
in every other round: `round_order`) starts `--servers` server processes on separate free
ports, drives them with locust headless for warm-up + `--duration` seconds, and samples the
CPU of the servers, Redis and locust. After a Kafana phase it fetches and replays every
finished match (`check.py`) and measures Redis memory per table. Prints a summary and exits
1 on any error or inconsistent match. `--json PATH` writes everything measured; `--profile
PATH` records the first server of each phase with py-spy (PATH.<kind><phase>).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil  # type: ignore[import-untyped, unused-ignore]
import redis
from kafana.service.accounts_book import AccountBook
from kafana.store.accounts_redis import RedisAccounts
from kafana.store.client import RedisClient
from kafana.store.keys import table_keys, tables_index
from kafana.store.redis_server import RedisServer, free_port
from merge import merge_results

HERE = Path(__file__).resolve().parent
BIN = Path(sys.executable).parent
LOCUSTFILE = HERE / "locustfile.py"
NAMESPACE = "kafana"


@dataclass(frozen=True)
class Scenario:
    """A named load shape; every field can be overridden on the command line."""

    user: str
    users: int
    think: float = 0.0
    pace: float = 0.0
    spawn_rate: float = 0.0  # 0: all users at once
    warmup: float = 3.0


SCENARIOS = {
    # As fast as the servers answer: a few tables per server, no think time.
    "fast": Scenario("TableUser", users=24),
    # Many slow tables: each table moves every `pace` seconds (a seat every 2 * pace).
    "slow": Scenario("TableUser", users=2000, pace=5.0, spawn_rate=250.0),
    # The stateless capture call, as fast as it answers.
    "captures": Scenario("CapturesUser", users=24),
}


# Added to the niceness of every process a run starts (--nice; negative needs root).
NICE = [0]
# The CPUs each kind of process may run on (--cpus-server, --cpus-driver, --cpus-redis).
CPUS: dict[str, set[int]] = {}


def _renice() -> None:
    """In the child before exec: the run's niceness (a shared machine is noisy)."""
    if NICE[0]:
        os.nice(NICE[0])


def _start_as(role: str) -> Any:
    """A preexec function: the run's niceness, and the CPUs of `role` if pinned (taskset)."""

    def start() -> None:
        _renice()
        if CPUS.get(role):
            os.sched_setaffinity(0, CPUS[role])

    return start


def cpu_list(text: str) -> set[int]:
    """CPUs written like taskset's list: "0", "1,3", "0-2".

    >>> sorted(cpu_list("0,2-3"))
    [0, 2, 3]
    """
    out: set[int] = set()
    for part in text.split(","):
        low, _, high = part.partition("-")
        out.update(range(int(low), int(high or low) + 1))
    return out


def wait_port(port: int, process: subprocess.Popen[bytes], timeout: float = 20.0) -> None:
    """Wait until something accepts connections on 127.0.0.1:port."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{process.args!r} exited with {process.returncode}")
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listens on port {port} after {timeout} s")


def stop(process: subprocess.Popen[bytes], timeout: float = 10.0) -> None:
    """Terminate a process this run started, then make sure it is gone."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextlib.contextmanager
def redis_server(directory: Path) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    """A private redis-server (no persistence) on a free loopback port: its process and port."""
    if shutil.which("redis-server") is None:
        raise RuntimeError("redis-server is not on the PATH (scripts/ensure-redis installs it)")
    server = RedisServer(directory, preexec=_start_as("redis")).start()
    try:
        assert server.process is not None
        yield server.process, server.port
    finally:
        server.stop()


# One load driver is one network address: the per-client rate limit is off. Each process caches
# every table it serves (--cache-tables; past it every move reloads and replays the table).
KAFANA_COMMAND = (
    f"{BIN / 'kafana'} serve --redis {{redis}} --port {{port}} --grace 1 --rate-limit 0"
    " --auth open --cache-tables {cache}"
)
BASELINE_COMMAND = (
    f"{sys.executable} {HERE / 'baseline_server.py'} --redis {{redis}} --port {{port}}"
)


def server_command(template: str, redis_url: str, port: int, cache: int = 1024) -> list[str]:
    """One server's command line: `template` with {redis}, {port} and {cache} filled in.

    >>> server_command("kafana serve --redis {redis} --port {port}", "redis://h:1/0", 5)
    ['kafana', 'serve', '--redis', 'redis://h:1/0', '--port', '5']
    """
    return shlex.split(template.format(redis=redis_url, port=port, cache=cache))


@contextlib.contextmanager
def servers(
    template: str, count: int, redis_url: str, log: Path, cache: int = 1024
) -> Iterator[list[tuple[subprocess.Popen[bytes], int]]]:
    """`count` server processes, each on its own free loopback port."""
    started: list[tuple[subprocess.Popen[bytes], int]] = []
    try:
        with open(log, "ab") as out:
            for _ in range(count):
                port = free_port()
                command = server_command(template, redis_url, port, cache)
                process = subprocess.Popen(
                    command, stdout=out, stderr=out, preexec_fn=_start_as("server")
                )
                started.append((process, port))
        for process, port in started:
            wait_port(port, process)
        yield started
    finally:
        for process, _port in started:
            stop(process)


class CpuSampler:
    """Samples the CPU seconds of named processes twice a second, in a thread."""

    def __init__(self, groups: dict[str, list[int]]) -> None:
        self._groups = {
            name: [psutil.Process(pid) for pid in pids] for name, pids in groups.items()
        }
        self.samples: list[tuple[float, dict[str, float]]] = []
        self.load: list[tuple[float, float]] = []  # (time, 1-minute load average)
        self._last: dict[int, float] = {}  # a process that has exited keeps its last reading
        self._stop = threading.Event()
        self._lock = threading.Lock()  # `add` runs beside the sampling thread
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _read(self) -> dict[str, float]:
        out = {}
        with self._lock:
            groups = [(name, list(processes)) for name, processes in self._groups.items()]
        for name, processes in groups:
            total = 0.0
            for process in processes:
                with contextlib.suppress(psutil.Error):
                    times = process.cpu_times()
                    self._last[process.pid] = times.user + times.system
                total += self._last.get(process.pid, 0.0)
            out[name] = total
        return out

    def _run(self) -> None:
        while not self._stop.is_set():
            now = time.time()
            self.samples.append((now, self._read()))
            if not self.load or now - self.load[-1][0] >= 5.0:
                self.load.append((now, os.getloadavg()[0]))
            self._stop.wait(0.5)

    def add(self, name: str, pid: int) -> None:
        """Also follow `pid` under `name` from now on."""
        process = psutil.Process(pid)
        with self._lock:
            self._groups.setdefault(name, []).append(process)

    def start(self) -> None:
        """Start sampling."""
        self._thread.start()

    def finish(self) -> None:
        """Take a last sample and stop."""
        self._stop.set()
        self._thread.join()
        self.samples.append((time.time(), self._read()))

    def per_slice(self, origin: float, seconds: float = 10.0) -> list[dict[str, float]]:
        """Each group's share of a core (1.0 = one core) per `seconds` from `origin`, and the
        highest 1-minute load average seen in each slice."""
        out: list[dict[str, float]] = []
        if len(self.samples) < 2:
            return out
        end = self.samples[-1][0]
        start = origin
        while start < end:
            used = self.used(start, min(start + seconds, end))
            span = min(seconds, end - start)
            row = {name: value / span for name, value in used.items()} if span > 0 else {}
            loads = [v for t, v in self.load if start <= t < start + seconds]
            row["load"] = max(loads, default=0.0)
            out.append(row)
            start += seconds
        return out

    def used(self, start: float, end: float) -> dict[str, float]:
        """CPU seconds per name between the samples nearest to `start` and `end`."""
        if not self.samples:
            return {}
        first = min(self.samples, key=lambda s: abs(s[0] - start))
        last = min(self.samples, key=lambda s: abs(s[0] - end))
        return {name: last[1].get(name, 0.0) - first[1].get(name, 0.0) for name in last[1]}


def key_memory(client: redis.Redis, table_id: str, parts: dict[str, int] | None = None) -> int:
    """MEMORY USAGE (exact: SAMPLES 0) of every key of one table, added up (and by key)."""
    total = 0
    keys = table_keys(table_id)
    for field_name, key in zip(keys._fields, keys, strict=True):
        used = int(client.memory_usage(key, samples=0) or 0)
        total += used
        if parts is not None:
            parts[field_name] = parts.get(field_name, 0) + used
    return total


def memory_report(client: redis.Redis, results: dict[str, Any]) -> dict[str, Any]:
    """Redis memory per finished and per active table, and the index's share per table."""
    index = tables_index(NAMESPACE)
    tables = int(client.zcard(index))
    index_bytes = int(client.memory_usage(index, samples=0) or 0)
    per_index = index_bytes / tables if tables else 0.0
    finished_parts: dict[str, int] = {}
    finished = [key_memory(client, f["table_id"], finished_parts) for f in results["finished"][:50]]
    active_parts: dict[str, int] = {}
    active = [key_memory(client, t, active_parts) for t in results["active_sample"]]
    active = [a for a in active if a]
    info = client.info("memory")
    return {
        "tables_in_index": tables,
        "index_bytes_per_table": per_index,
        "finished_mean_bytes": sum(finished) / len(finished) if finished else 0.0,
        "finished_max_bytes": max(finished, default=0),
        "active_mean_bytes": sum(active) / len(active) if active else 0.0,
        "active_max_bytes": max(active, default=0),
        "active_sampled": len(active),
        "active_by_key": {k: v / max(len(active), 1) for k, v in active_parts.items()},
        "finished_by_key": {k: v / max(len(finished), 1) for k, v in finished_parts.items()},
        "used_memory": int(info["used_memory"]),
        "used_memory_per_table": int(info["used_memory"]) / tables if tables else 0.0,
    }


@dataclass
class Phase:
    """One measured phase: a kind of server, its results, CPU and checks."""

    kind: str
    servers: int
    offered: float = 0.0  # moves/s offered (0: as fast as the servers answer)
    results: dict[str, Any] = field(default_factory=dict)
    cpu: dict[str, float] = field(default_factory=dict)
    cpu_slices: list[dict[str, float]] = field(default_factory=list)  # per 10-s slice
    memory: dict[str, Any] = field(default_factory=dict)
    checked: int = 0
    problems: list[str] = field(default_factory=list)
    locust_rc: int = 0

    def rate(self, name: str) -> float:
        """Requests per second of `name` in the measured window."""
        count = self.results.get("requests", {}).get(name, {}).get("count", 0)
        return float(count) / float(self.results.get("window_s", 1.0) or 1.0)

    def errors(self) -> int:
        """gRPC errors, failed driver checks and inconsistent matches."""
        return int(self.results.get("error_count", 0)) + len(self.problems)

    def as_json(self) -> dict[str, Any]:
        """The phase without the bulky lists."""
        results = {k: v for k, v in self.results.items() if k not in ("finished", "active_sample")}
        results["finished_count"] = len(self.results.get("finished", []))
        return {
            "kind": self.kind,
            "servers": self.servers,
            "offered": self.offered,
            "results": results,
            "cpu_s": self.cpu,
            "cpu_slices": self.cpu_slices,
            "memory": self.memory,
            "checked": self.checked,
            "problems": self.problems[:50],
            "locust_rc": self.locust_rc,
        }


def driver_keys(redis_url: str, count: int, prefix: str) -> list[str]:
    """API keys of `count` new player accounts, made straight in the store.

    Each locust user calls with its own account's key (`--keys`), so the server's per-caller
    quotas (600 tables an hour, 200 open: the defaults, unchanged) count each user as they
    count each player, not the whole driver as one caller (its one address). New accounts for
    each phase: a long run's users each stay far under an hour's quota.
    """

    async def make() -> list[str]:
        client = RedisClient.from_url(redis_url)
        try:
            book = AccountBook(RedisAccounts(client))
            return [(await book.create(f"{prefix}-{i}", "player"))[1] for i in range(count)]
        finally:
            await client.close()

    return asyncio.run(make())


def run_locust(
    scenario: Scenario,
    args: argparse.Namespace,
    targets: list[str],
    kind: str,
    out: Path,
    rate: float = 0.0,
    driver: int = 0,
    origin: float = 0.0,
    keys: Path | None = None,
) -> subprocess.Popen[bytes]:
    """Start locust headless (it stops by itself after warm-up + duration); `keys`: a file of
    API keys, one a line, each user calling with its own (`driver_keys`).

    `rate` (moves/s of all tables together, else `--rate`) paces the tables. With `--drivers
    N`, this is driver number `driver` of N: its share of the users and of the spawn rate, its
    own seed, the run's common `origin` and every sample written for the merge.
    """
    drivers = args.drivers
    all_users = args.users or scenario.users
    users = all_users // drivers + (1 if driver < all_users % drivers else 0)
    spawn = (args.spawn_rate or scenario.spawn_rate or all_users) / drivers
    warmup = args.warmup if args.warmup is not None else scenario.warmup
    if scenario.spawn_rate and args.warmup is None:
        warmup += users / spawn + (args.pace or scenario.pace)
    pace = args.pace if args.pace is not None else scenario.pace
    if rate or args.rate:
        pace = all_users / (rate or args.rate)
    think = args.think if args.think is not None else scenario.think
    # Several drivers start seconds apart on a busy machine: each measures longer, and the
    # merge takes `duration` seconds where all of them were measuring.
    measured = args.duration + (args.driver_slack if drivers > 1 else 0.0)
    run_time = warmup + measured
    waiting: list[str] = []
    if pace and scenario.user == "TableUser":
        # Paced tables: measure `duration` seconds from when every table is in play and has
        # moved once, however long the ramp took (a loaded machine stretches it); the run
        # stops then, or at the cap of one more ramp and a minute.
        waiting = ["--seated", str(users), "--measure", str(measured)]
        run_time += users / spawn + 60
    else:
        # The driver closes its window itself `measured` seconds after its warm-up: locust's
        # own -t counts from before the users start, which a starved machine stretches by
        # seconds (25 s measured of 30 at load average 30). -t is only the cap then.
        waiting = ["--measure", str(measured)]
        run_time += 30
    command = [
        str(BIN / "locust"),
        *("-f", str(LOCUSTFILE), "--headless", "--only-summary", "--loglevel", "WARNING"),
        *("-u", str(users), "-r", str(spawn), "-t", f"{int(run_time)}s", *waiting),
        *("--stop-timeout", "0", "--targets", ",".join(targets), "--channels", str(args.channels)),
        *("--think", str(think), "--pace", str(pace), "--warmup", str(warmup)),
        *("--results", str(out), "--kind", kind, "--seed", str(args.seed + 7919 * driver)),
        *(("--origin", repr(origin), "--raw") if drivers > 1 else ()),
        *(("--keys", str(keys), "--first-key", str(driver)) if keys is not None else ()),
        scenario.user,
    ]
    log = open(out.with_suffix(".log"), "wb")  # noqa: SIM115 (closed when the process ends)
    return subprocess.Popen(
        command, stdout=log, stderr=subprocess.STDOUT, cwd=HERE, preexec_fn=_start_as("driver")
    )


def profile(pid: int, seconds: float, path: Path) -> subprocess.Popen[bytes] | None:
    """py-spy recording `pid` for `seconds` into `path` (collapsed stacks), if installed."""
    spy = shutil.which("py-spy") or str(BIN / "py-spy")
    if not Path(spy).exists():
        print("py-spy is not installed (.venv/bin/pip install py-spy): no profile", flush=True)
        return None
    command = [spy, "record", "--pid", str(pid), "--duration", str(int(seconds))]
    command += ["--rate", "200", "--format", "raw", "--output", str(path), "--nonblocking"]
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def run_phase(
    kind: str,
    scenario: Scenario,
    args: argparse.Namespace,
    redis_process: subprocess.Popen[bytes],
    redis_port: int,
    work: Path,
    number: int,
    rate: float = 0.0,
) -> Phase:
    """Servers of `kind`, one locust run against them, CPU, checks and memory.

    `rate`: the moves/s offered (0: `--rate`, or as fast as the servers answer).
    """
    phase = Phase(kind, args.servers, offered=rate or args.rate)
    redis_url = f"redis://127.0.0.1:{redis_port}/0"
    out = work / f"phase{number}-{kind}.json"
    template = args.baseline_command if kind == "baseline" else args.kafana_command
    log = work / f"phase{number}-{kind}-server.log"
    users = args.users or scenario.users
    cache = args.cache_tables or max(1024, users // args.servers + users // 10 + 64)
    keys = None
    if scenario.user == "TableUser" and (kind == "kafana" or args.baseline_keys):
        keys = work / f"phase{number}-keys.txt"
        keys.write_text("\n".join(driver_keys(redis_url, users, f"load{number}")) + "\n")
    with servers(template, args.servers, redis_url, log, cache) as up:
        targets = [f"127.0.0.1:{port}" for _process, port in up]
        sampler = CpuSampler({"servers": [p.pid for p, _port in up], "redis": [redis_process.pid]})
        sampler.start()
        origin = time.time()
        parts = (
            [out]
            if args.drivers == 1
            else [out.with_name(f"{out.stem}-d{k}.json") for k in range(args.drivers)]
        )
        drivers = [
            run_locust(scenario, args, targets, kind, part, rate, k, origin, keys)
            for k, part in enumerate(parts)
        ]
        for locust in drivers:
            sampler.add("locust", locust.pid)
        spy = None
        if args.profile:
            time.sleep(args.warmup if args.warmup is not None else scenario.warmup)
            path = Path(f"{args.profile}.{kind}{number}")
            spy = profile(up[0][0].pid, args.duration * 0.8, path)
        limit = time.monotonic() + (args.warmup or 0) + args.duration + 600
        try:
            codes = [d.wait(timeout=max(limit - time.monotonic(), 1)) for d in drivers]
            phase.locust_rc = max(codes)  # 1: locust saw failures (counted by the checks)
        except subprocess.TimeoutExpired:
            phase.locust_rc = -1
        finally:
            for locust in drivers:
                stop(locust)
            sampler.finish()
            if spy is not None:
                stop(spy, timeout=60)
        for part in parts:
            if not part.exists():
                raise RuntimeError(f"locust wrote no results; see {part.with_suffix('.log')}")
        if args.drivers == 1:
            phase.results = json.loads(out.read_text())
        else:
            loaded = [json.loads(part.read_text()) for part in parts]
            phase.results = merge_results(loaded, args.duration)
        measured = float(phase.results.get("window_s", 0.0))
        if measured < 0.9 * args.duration:
            # E.g. the ramp never got every table into play: no figure of a full window.
            phase.problems.append(f"measured {measured:.0f} s, not {args.duration:.0f} s")
        start, end = phase.results["window"]
        phase.cpu = sampler.used(start, end)
        origin = float(phase.results.get("started", 0.0))
        if origin:
            phase.cpu_slices = sampler.per_slice(origin)
        if kind == "kafana":
            report = check_finished(targets[0], phase.results["finished"])
            phase.checked, phase.problems = report
            phase.memory = memory_report(redis.Redis(port=redis_port), phase.results)
    return phase


def check_finished(target: str, finished: list[dict[str, Any]]) -> tuple[int, list[str]]:
    """Replay every finished match through GetRecord."""
    from check import check_matches

    report = check_matches(target, finished)
    return report.checked, report.problems


def fmt_phase(phase: Phase) -> list[str]:
    """Summary lines of one phase."""
    res = phase.results
    window = float(res.get("window_s", 0.0))
    name = "Captures" if "Captures" in res.get("requests", {}) else "PlayMove"
    stats = res.get("requests", {}).get(name, {})
    rate = phase.rate(name)
    server_cpu = phase.cpu.get("servers", 0.0)
    per_call = server_cpu / (rate * window) * 1e6 if rate else 0.0
    offered = f", {phase.offered:,.0f}/s offered" if phase.offered else ""
    lines = [
        f"{phase.kind} x{phase.servers}: {rate:,.1f} {name}/s "
        f"({rate / phase.servers:,.1f} per server process{offered}) over {window:.1f} s",
        f"  {name} latency ms: p50 {stats.get('p50_ms', 0):.2f}  p90 {stats.get('p90_ms', 0):.2f}"
        f"  p99 {stats.get('p99_ms', 0):.2f}  max {stats.get('max_ms', 0):.1f}",
        f"  errors: {phase.errors()} (gRPC/driver {res.get('error_count', 0)}, "
        f"inconsistent matches {len(phase.problems)})",
        f"  tables: concurrent peak {res.get('peak_active', 0)}, at end "
        f"{res.get('active_at_end', 0)}, finished {len(res.get('finished', []))}"
        + (f" (all {phase.checked} replayed and checked)" if phase.kind == "kafana" else ""),
        f"  CPU s in window: servers {server_cpu:.1f} ({server_cpu / max(window, 1e-9):.0%} of a "
        f"core), redis {phase.cpu.get('redis', 0):.1f}, locust {phase.cpu.get('locust', 0):.1f}"
        f"; server CPU per {name}: {per_call:.0f} µs",
    ]
    for problem in phase.problems[:5] + res.get("errors", [])[:5]:
        lines.append(f"  ! {problem}")
    mem = phase.memory
    if mem and mem["tables_in_index"]:
        lines.append(
            f"  Redis per table: active {mem['active_mean_bytes']:,.0f} B mean "
            f"({mem['active_max_bytes']:,} max, {mem['active_sampled']} sampled at mean seq "
            f"{res.get('active_seq_mean', 0):.0f}), finished "
            f"{mem['finished_mean_bytes']:,.0f} B mean, +{mem['index_bytes_per_table']:.0f} B "
            f"index; used_memory/table {mem['used_memory_per_table']:,.0f} B "
            f"({mem['tables_in_index']} tables)"
        )
        for which in ("active", "finished"):
            parts = mem[f"{which}_by_key"]
            if parts:
                text = ", ".join(f"{k} {v:,.0f}" for k, v in parts.items())
                lines.append(f"  {which} table bytes by key: {text}")
    slices = res.get("slices", [])
    if len(slices) > 1:
        text = ", ".join(f"{s['p50_ms']:.1f}/{s['p99_ms']:.1f}" for s in slices)
        lines.append(f"  {name} p50/p99 ms per 10 s: {text}")
        lines.extend(slice_table(phase))
    return lines


def slice_table(phase: Phase) -> list[str]:
    """One line per 10-s slice: calls, p50/p99/max, each group's CPU, the load average.

    A slice starting before the measured window is marked `ramp`.
    """
    res = phase.results
    origin = float(res.get("started", 0.0))
    first = float(res.get("window", [0.0, 0.0])[0])
    lines = [
        "  t_s    calls    p50 ms    p99 ms    max ms  servers% redis% locust%  load"
        "  driver: lag ms, GCs, longest GC ms"
    ]
    for row in res.get("slices", []):
        index = int(row["t"] // 10)
        cpu = phase.cpu_slices[index] if index < len(phase.cpu_slices) else {}
        mark = " ramp" if origin and origin + row["t"] + 10 <= first else ""
        gcs = row.get("driver_gc", [0, 0.0, 0.0])
        lines.append(
            f"  {row['t']:4.0f} {row['count']:8d} {row['p50_ms']:9.1f} {row['p99_ms']:9.1f}"
            f" {row['max_ms']:9.1f} {cpu.get('servers', 0) * 100:8.0f} "
            f"{cpu.get('redis', 0) * 100:6.0f} {cpu.get('locust', 0) * 100:7.0f}"
            f" {cpu.get('load', 0):5.1f}"
            f"  {row.get('driver_lag_ms', 0):6.0f} {gcs[0]:4.0f} {gcs[2]:6.0f}{mark}"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    """Parse, run every phase, print the summary; 0 when all is well."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenario", choices=sorted(SCENARIOS), default="fast")
    parser.add_argument("--servers", type=int, default=1, help="server processes")
    parser.add_argument("--duration", type=float, default=30.0, help="measured seconds")
    parser.add_argument("--baseline", action="store_true", help="also measure the baseline")
    parser.add_argument("--rounds", type=int, default=1, help="baseline/kafana alternations")
    parser.add_argument("--users", type=int, default=0, help="locust users (tables)")
    parser.add_argument("--think", type=float, default=None, help="seconds after each move")
    parser.add_argument("--pace", type=float, default=None, help="seconds between table moves")
    parser.add_argument("--rate", type=float, default=0.0, help="target total moves/s")
    parser.add_argument(
        "--load",
        type=float,
        default=0.0,
        help="each round, measure each kind's maximum first, then offer it this fraction of "
        "its own maximum (e.g. 0.7) and report that phase's latency",
    )
    for role in ("server", "driver", "redis"):
        parser.add_argument(
            f"--cpus-{role}",
            type=cpu_list,
            default=None,
            help=f"pin the {role} processes to these CPUs (taskset list, e.g. 0 or 1,2)",
        )
    parser.add_argument("--spawn-rate", type=float, default=0.0, help="users started per second")
    parser.add_argument("--warmup", type=float, default=None, help="seconds before measuring")
    parser.add_argument("--channels", type=int, default=2, help="connections per server")
    parser.add_argument(
        "--drivers", type=int, default=1, help="locust processes sharing the users (merged)"
    )
    parser.add_argument(
        "--driver-slack",
        type=float,
        default=30.0,
        help="seconds more each of several drivers measures (they start apart)",
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", default="", help="write the measurements here")
    parser.add_argument(
        "--profile", default="", help="py-spy of each phase's server 0 into PATH.<kind><phase>"
    )
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    parser.add_argument(
        "--nice", type=int, default=0, help="niceness of Redis, servers and locust (-5: favoured)"
    )
    parser.add_argument(
        "--kafana-command",
        default=KAFANA_COMMAND,
        help="how to start one Kafana server ({redis}, {port}, {cache} are filled in), "
        "e.g. to measure another checkout",
    )
    parser.add_argument(
        "--cache-tables",
        type=int,
        default=0,
        help="kafana serve --cache-tables (default: the tables each process serves, + 10%%)",
    )
    parser.add_argument("--baseline-command", default=BASELINE_COMMAND, help=argparse.SUPPRESS)
    parser.add_argument(
        "--baseline-keys",
        action="store_true",
        help="the baseline phases' users call with API keys too: with --baseline-command "
        "another Kafana build (an A/B of two builds, accounts and notices in both)",
    )
    args = parser.parse_args(argv)
    scenario = SCENARIOS[args.scenario]
    NICE[0] = args.nice
    for role in ("server", "driver", "redis"):
        chosen = getattr(args, f"cpus_{role}")
        if chosen:
            CPUS[role] = chosen
    kinds = (["baseline"] if args.baseline else []) + ["kafana"]
    work = Path(tempfile.mkdtemp(prefix="kafana-load-"))
    phases: list[Phase] = []
    try:
        with redis_server(work) as (redis_process, redis_port):
            number = 0
            for index in range(args.rounds):
                for kind in round_order(kinds, index):
                    number += 1
                    phase = run_phase(kind, scenario, args, redis_process, redis_port, work, number)
                    phases.append(phase)
                    print("\n".join(fmt_phase(phase)), flush=True)
                    if args.load:  # that was the maximum; now the fraction of it
                        number += 1
                        rate = args.load * phase.rate(name_of(args))
                        phase = run_phase(
                            kind, scenario, args, redis_process, redis_port, work, number, rate
                        )
                        phases.append(phase)
                        print("\n".join(fmt_phase(phase)), flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"work directory kept: {work}")
    summary = summarize(phases, args)
    print("\n".join(summary["lines"]))
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=1))
    return 0 if summary["ok"] else 1


def round_order(kinds: list[str], index: int) -> list[str]:
    """The kinds in the order round `index` (from 0) runs them: turn about, so neither kind is
    always second. In two A/B runs of one pair of builds, each build first in one of them (6 Dec
    2026), a round's second phase cost 1–12% more server CPU per move than its first in each of
    the six rounds, 7% on average, whichever build it was (why is not known: the Redis the
    first phase filled, the machine's other jobs).

    >>> [round_order(["baseline", "kafana"], i) for i in range(3)]
    [['baseline', 'kafana'], ['kafana', 'baseline'], ['baseline', 'kafana']]
    """
    return list(kinds) if index % 2 == 0 else list(reversed(kinds))


def name_of(args: argparse.Namespace) -> str:
    """The call a scenario measures."""
    return "Captures" if args.scenario == "captures" else "PlayMove"


def source_version() -> str:
    """The commit measured, with "+dirty" when the server's sources differ from it."""

    def git(*words: str) -> str:
        done = subprocess.run(["git", *words], capture_output=True, text=True, cwd=HERE)
        return done.stdout.strip()

    dirty = git("status", "--porcelain", "--", "server")
    return git("rev-parse", "--short", "HEAD") + ("+dirty" if dirty else "")


def summarize(phases: list[Phase], args: argparse.Namespace) -> dict[str, Any]:
    """The ratio to the baseline and the verdict."""
    lines = [
        f"== {args.scenario}, {args.servers} server process(es), {args.duration:.0f} s, "
        f"server sources at {source_version()} =="
    ]
    ok = True
    for phase in phases:
        if phase.errors() or phase.locust_rc not in (0, 1):
            ok = False
        checkable = args.scenario == "fast" and phase.kind == "kafana"
        if checkable and not phase.results.get("finished"):
            lines.append("! no match finished: nothing was checked")
            ok = False
    name = name_of(args)
    for phase in phases:
        if phase.offered:
            stats = phase.results.get("requests", {}).get(name, {})
            p50, p99 = stats.get("p50_ms", 0.0), stats.get("p99_ms", 0.0)
            lines.append(
                f"{phase.kind} at {phase.offered:,.0f} {name}/s offered: "
                f"{phase.rate(name):,.0f}/s achieved, p50 {p50:.1f} ms, p99 {p99:.1f} ms"
            )
    flat_out = [p for p in phases if not p.offered]  # the maxima, when --load paces the rest
    base = [p for p in flat_out if p.kind == "baseline"]
    ours = [p for p in flat_out if p.kind == "kafana"]
    ratio = None
    cpu_ratio = None
    if base and ours:
        # Other work on the machine only ever slows a phase down and adds CPU to it, so the
        # best round of each kind is the least disturbed: the highest rate, the least CPU.
        base_rate = max(p.rate(name) for p in base)
        our_rate = max(p.rate(name) for p in ours)
        ratio = our_rate / base_rate if base_rate else None

        def cpu_per(p: Phase) -> float:
            calls = p.rate(name) * float(p.results.get("window_s", 1.0))
            return p.cpu.get("servers", 0.0) / calls if calls else 0.0

        base_cpu = min(cpu_per(p) for p in base)
        our_cpu = min(cpu_per(p) for p in ours)
        cpu_ratio = base_cpu / our_cpu if our_cpu else None
        lines.append(
            f"{name}/s per server process: kafana {our_rate / args.servers:,.1f}, baseline "
            f"{base_rate / args.servers:,.1f}: ratio {ratio or 0:.2f} (target >= 0.7)"
        )
        lines.append(
            f"server CPU per {name}: kafana {our_cpu * 1e6:.0f} µs, baseline "
            f"{base_cpu * 1e6:.0f} µs: baseline/kafana {cpu_ratio or 0:.2f}"
        )
    lines.append("OK: no errors, every finished match consistent" if ok else "FAILED")
    return {
        "ok": ok,
        "commit": source_version(),
        "scenario": args.scenario,
        "servers": args.servers,
        "duration": args.duration,
        "ratio": ratio,
        "cpu_ratio": cpu_ratio,
        "phases": [p.as_json() for p in phases],
        "lines": lines,
    }


def _terminate(signum: int, _frame: object) -> None:
    """SIGTERM unwinds like Ctrl-C, so every process this run started is stopped."""
    raise KeyboardInterrupt(f"signal {signum}")


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, _terminate)
    sys.path.insert(0, str(HERE))
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
