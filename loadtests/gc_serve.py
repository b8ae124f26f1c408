"""`kafana ...` with every full (generation 2) garbage collection logged, for load runs.

    run.py --kafana-command '.venv/bin/python loadtests/gc_serve.py /tmp/gc-{port}.log serve
        --redis {redis} --port {port} --grace 1 --rate-limit 0 --cache-tables {cache}'

Each full collection appends one line to the log: wall time, duration in ms, objects frozen
(`kafana.service.collector`; `KAFANA_GC_FREEZE=0` measures without it).
`gc_serve.py --summary LOG...` adds them up.
"""

from __future__ import annotations

import gc
import sys
import time
from typing import Any


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
            with open(path, "a") as out:
                out.write(f"{time.time():.3f} {millis:.1f} {gc.get_freeze_count()}\n")

    gc.callbacks.append(callback)


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


def main() -> int:
    """`gc_serve.py LOG kafana-args...` or `gc_serve.py --summary LOG...`."""
    if sys.argv[1] == "--summary":
        print(summary(sys.argv[2:]))
        return 0
    log_full_collections(sys.argv[1])
    from kafana.cli import main as kafana

    sys.argv = ["kafana", *sys.argv[2:]]
    return int(kafana() or 0)


if __name__ == "__main__":
    sys.exit(main())
