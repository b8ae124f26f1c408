"""`kafana ...` with every full (generation 2) garbage collection logged, for load runs.

    run.py --kafana-command '.venv/bin/python loadtests/gc_serve.py /tmp/gc-{port}.log serve
        --redis {redis} --port {port} --grace 1 --rate-limit 0 --cache-tables {cache}'

Each full collection appends one line to the log: wall time, duration in ms, objects frozen
(`kafana.service.collector`; `KAFANA_GC_FREEZE=0` measures without it).
`gc_serve.py --summary LOG...` adds them up.

Once a second the server also appends one JSON line to `LOG.stats`: the handlers' own time
per RPC (count, total and longest ms, from the servicer method's start to its answer: what
the server spends, against what the client observes), the event loop's longest lag (a timer
due every 50 ms, how late it ran), collections and their time per generation, the process's
CPU seconds, the tables cached and the live channels subscribed.
`gc_serve.py --stats LOG.stats...` prints them per 10 s.
"""

from __future__ import annotations

import asyncio
import gc
import json
import queue
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

RPCS = ("PlayMove", "CreateTable", "JoinTable")
MODES = ("--summary", "--stats")
USAGE = "usage: gc_serve.py LOG kafana-args... | --summary LOG... | --stats LOG.stats..."
TICK_S = 0.05
# Lines to append, written by a thread: a file write inside a collection or on the event loop
# took up to 60 ms on a loaded machine and showed up as the server's own pauses.
_lines: queue.Queue[tuple[str, str]] = queue.Queue()


def _write_lines() -> None:
    while True:
        path, text = _lines.get()
        with open(path, "a") as out:
            out.write(text)


def append_line(path: str, text: str) -> None:
    """Append `text` to `path` from the writer thread (started on first use)."""
    if not _writer:
        _writer.append(threading.Thread(target=_write_lines, daemon=True))
        _writer[0].start()
    _lines.put((path, text))


_writer: list[threading.Thread] = []


def log_full_collections(path: str) -> None:
    """Append a line to `path` after each generation-2 collection."""
    started: list[float] = []

    def callback(phase: str, info: dict[str, Any]) -> None:
        if info.get("generation") != 2:
            return
        if phase == "start":
            started[:] = [time.perf_counter()]
        elif started:
            millis = (time.perf_counter() - started[0]) * 1000
            append_line(path, f"{time.time():.3f} {millis:.1f} {gc.get_freeze_count()}\n")

    gc.callbacks.append(callback)


class Stats:
    """Per-second counters of one server process, written as JSON lines."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.calls: dict[str, list[float]] = {}  # name -> [count, total ms, max ms]
        self.gc: dict[int, list[float]] = {}  # generation -> [count, total ms, max ms]
        self.lag_ms = 0.0
        self._gc_started = 0.0
        gc.callbacks.append(self._collection)

    def _collection(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._gc_started = time.perf_counter()
            return
        millis = (time.perf_counter() - self._gc_started) * 1000
        self._add(self.gc.setdefault(int(info.get("generation", 0)), [0, 0.0, 0.0]), millis)

    @staticmethod
    def _add(counter: list[float], millis: float) -> None:
        counter[0] += 1
        counter[1] += millis
        counter[2] = max(counter[2], millis)

    def timed(self, name: str, handler: Callable[..., Any]) -> Callable[..., Any]:
        """`handler` (an async servicer method) with its own time counted under `name`."""

        async def run(servicer: Any, request: Any, context: Any) -> Any:
            start = time.perf_counter()
            try:
                return await handler(servicer, request, context)
            finally:
                millis = (time.perf_counter() - start) * 1000
                self._add(self.calls.setdefault(name, [0, 0.0, 0.0]), millis)

        run.__name__ = name
        return run

    async def sample(self, server: Any) -> None:
        """Measure the loop's lag every `TICK_S`; write a line every second."""
        last_write = time.time()
        cpu = time.process_time()
        while True:
            due = time.perf_counter() + TICK_S
            await asyncio.sleep(TICK_S)
            self.lag_ms = max(self.lag_ms, (time.perf_counter() - due) * 1000)
            now = time.time()
            if now - last_write < 1.0:
                continue
            spent = time.process_time()
            notifier = getattr(server.tables.store, "_notifier", None)
            line = {
                "t": round(now, 3),
                "cpu_s": round(spent - cpu, 4),
                "lag_ms": round(self.lag_ms, 1),
                "calls": {k: [v[0], round(v[1], 2), round(v[2], 2)] for k, v in self.calls.items()},
                "gc": {k: [v[0], round(v[1], 2), round(v[2], 2)] for k, v in self.gc.items()},
                "cached": len(server.tables._cache),
                "subscribed": len(getattr(notifier, "_subscribed", ())),
            }
            append_line(self.path, json.dumps(line) + "\n")
            self.calls.clear()
            self.gc.clear()
            self.lag_ms = 0.0
            last_write, cpu = now, spent


def instrument(path: str) -> None:
    """Time the servicer's handlers and start the sampler when the server starts."""
    from kafana.service.server import KafanaServer
    from kafana.service.servicer import KafanaServiceServicer

    stats = Stats(path)
    for name in RPCS:
        timed = stats.timed(name, getattr(KafanaServiceServicer, name))
        setattr(KafanaServiceServicer, name, timed)
    start = KafanaServer.start
    tasks: list[asyncio.Task[None]] = []

    async def start_and_sample(self: KafanaServer) -> None:
        await start(self)
        tasks.append(asyncio.create_task(stats.sample(self)))

    KafanaServer.start = start_and_sample  # type: ignore[method-assign]


def summary(paths: list[str]) -> str:
    """Count, total, median and longest full collection over the logs."""
    times = []
    for path in paths:
        with open(path) as lines:
            times += [float(line.split()[1]) for line in lines if line.strip()]
    if not times:
        return "no full collections"
    times.sort()
    return (
        f"{len(times)} full collections, {sum(times) / 1000:.2f} s in all, median "
        f"{times[len(times) // 2]:.0f} ms, longest {times[-1]:.0f} ms"
    )


def stats_table(paths: list[str], since: float = 0.0) -> str:
    """The servers' stats lines added up per 10 s (from the earliest line, or `since`)."""
    rows: dict[int, dict[str, float]] = {}
    lines = []
    for path in paths:
        with open(path) as text:
            lines += [json.loads(line) for line in text if line.strip()]
    if not lines:
        return "no stats"
    origin = since or min(line["t"] for line in lines)
    for line in lines:
        row = rows.setdefault(int((line["t"] - origin) // 10), {})
        row["cpu"] = row.get("cpu", 0.0) + line["cpu_s"]
        row["lag"] = max(row.get("lag", 0.0), line["lag_ms"])
        moves = line["calls"].get("PlayMove", [0, 0.0, 0.0])
        row["moves"] = row.get("moves", 0.0) + moves[0]
        row["move_ms"] = row.get("move_ms", 0.0) + moves[1]
        row["move_max"] = max(row.get("move_max", 0.0), moves[2])
        joins = [line["calls"].get(n, [0, 0.0, 0.0]) for n in ("CreateTable", "JoinTable")]
        row["joins"] = row.get("joins", 0.0) + sum(j[0] for j in joins)
        for gen, (count, total, longest) in line["gc"].items():
            row[f"gc{gen}"] = row.get(f"gc{gen}", 0.0) + count
            row[f"gc{gen}_ms"] = row.get(f"gc{gen}_ms", 0.0) + total
            row[f"gc{gen}_max"] = max(row.get(f"gc{gen}_max", 0.0), longest)
        row["cached"] = row.get("cached", 0.0) + line["cached"] / 10
    out = ["t_s  cpu%  moves joins move_ms(mean/max) lag_max  gc0 ms  gc1 ms  gc2 ms(max)  cached"]
    for key in sorted(rows):
        r = rows[key]
        moves = r.get("moves", 0.0)
        out.append(
            f"{key * 10:4d} {r['cpu'] * 10:5.0f} {moves:6.0f} {r.get('joins', 0):5.0f} "
            f"{r.get('move_ms', 0) / max(moves, 1):6.2f}/{r.get('move_max', 0):7.1f} "
            f"{r['lag']:7.0f} {r.get('gc0_ms', 0):7.0f} {r.get('gc1_ms', 0):7.0f} "
            f"{r.get('gc2_ms', 0):7.0f}({r.get('gc2_max', 0):4.0f}) {r['cached']:7.0f}"
        )
    return "\n".join(out)


def main() -> int:
    """`gc_serve.py LOG kafana-args...`, `gc_serve.py --summary LOG...`, `--stats LOG...`."""
    if len(sys.argv) < 2 or (sys.argv[1].startswith("-") and sys.argv[1] not in MODES):
        print(__doc__.strip() if sys.argv[1:2] in (["-h"], ["--help"]) else USAGE)
        return 0 if sys.argv[1:2] in (["-h"], ["--help"]) else 2
    if sys.argv[1] == "--summary":
        print(summary(sys.argv[2:]))
        return 0
    if sys.argv[1] == "--stats":
        print(stats_table(sys.argv[2:]))
        return 0
    log_full_collections(sys.argv[1])
    instrument(sys.argv[1] + ".stats")
    from kafana.cli import main as kafana

    sys.argv = ["kafana", *sys.argv[2:]]
    return int(kafana() or 0)


if __name__ == "__main__":
    sys.exit(main())
