"""The load run's per-slice report: each group's CPU per 10 s, ramp slices marked, server stats.

Pure functions of recorded samples, so they are checked on made-up numbers.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "loadtests"))

import gc_serve  # noqa: E402  (loadtests/ is a folder of scripts)
import run  # noqa: E402


def sampler_with(samples: list[tuple[float, dict[str, float]]]) -> run.CpuSampler:
    """A sampler holding `samples` (CPU seconds so far per group), never started."""
    sampler = run.CpuSampler({})
    sampler.samples = samples
    sampler.load = [(t, 3.0 + t / 100) for t, _ in samples]
    return sampler


def test_per_slice_gives_each_groups_share_of_a_core() -> None:
    """Servers using 0.5 s a second, then 1.5: 50% of a core, then 150%."""
    samples = [(float(t), {"servers": 0.5 * t, "locust": 0.25 * t}) for t in range(0, 11)]
    samples += [(float(t), {"servers": 5 + 1.5 * (t - 10), "locust": 2.5}) for t in range(11, 21)]
    rows = sampler_with(samples).per_slice(0.0, seconds=10.0)
    assert len(rows) == 2
    assert abs(rows[0]["servers"] - 0.5) < 1e-9 and abs(rows[0]["locust"] - 0.25) < 1e-9
    assert abs(rows[1]["servers"] - 1.5) < 1e-9 and rows[1]["locust"] == 0.0
    assert rows[1]["load"] > rows[0]["load"]


def test_slice_table_marks_the_ramp_and_shows_the_driver() -> None:
    """Slices ending before the measured window are the ramp; the driver's lag and GC shown."""
    phase = run.Phase("kafana", 3)
    phase.results = {
        "started": 1000.0,
        "window": [1025.0, 1045.0],
        "slices": [
            {
                "t": t,
                "count": 10,
                "p50_ms": 5.0,
                "p99_ms": 9.0,
                "max_ms": 12.0,
                "driver_lag_ms": 7.0 * (t // 10),
                "driver_gc": [3, 6.0, 4.0],
            }
            for t in (0.0, 10.0, 20.0, 30.0)
        ],
    }
    phase.cpu_slices = [{"servers": 0.8, "redis": 0.1, "locust": 0.4, "load": 2.0}] * 4
    lines = run.slice_table(phase)
    assert len(lines) == 5
    assert lines[1].endswith("ramp") and lines[2].endswith("ramp")
    assert not lines[3].endswith("ramp") and not lines[4].endswith("ramp")
    assert "80" in lines[1].split() and "21" in lines[4].split()


def test_stats_table_adds_up_the_servers_per_ten_seconds(tmp_path: Path) -> None:
    """Two servers' lines: moves and CPU add up, lag and longest collection take the maximum."""
    paths = []
    for server, lag in ((0, 30.0), (1, 90.0)):
        path = tmp_path / f"s{server}.stats"
        lines = [
            {
                "t": 100.0 + t,
                "cpu_s": 0.25,
                "lag_ms": lag if t == 3 else 1.0,
                "calls": {"PlayMove": [10, 20.0, 4.0], "JoinTable": [2, 8.0, 5.0]},
                "gc": {"2": [1, 3.0, 3.0 + server]},
                "cached": 100,
                "subscribed": 0,
            }
            for t in range(10)
        ]
        path.write_text("".join(json.dumps(line) + "\n" for line in lines))
        paths.append(str(path))
    table = gc_serve.stats_table(paths).splitlines()
    assert len(table) == 2
    fields = table[1].split()
    assert fields[0] == "0" and fields[1] == "50"  # 2 servers x 10 x 0.25 s over 10 s: 50%
    assert fields[2] == "200" and fields[3] == "40"  # moves, joins
    assert "90" in fields and "(" in table[1] and "4)" in table[1]


def test_the_sampler_keeps_sampling_while_processes_are_added() -> None:
    """`add` from the driver's thread beside the sampling thread (a race that killed it)."""
    sampler = run.CpuSampler({"servers": [os.getpid()]})
    sampler.start()
    try:
        deadline = time.monotonic() + 2.0
        added = 0
        while time.monotonic() < deadline:
            sampler.add(f"group{added % 200}", os.getpid())
            added += 1
            time.sleep(0.004)
        assert sampler._thread.is_alive()
        assert len(sampler.samples) >= 3  # one every 0.5 s
        assert {f"group{k}" for k in range(200)} <= set(sampler.samples[-1][1])
    finally:
        sampler.finish()


def test_gc_serve_help_writes_no_log(tmp_path: Path) -> None:
    # `gc_serve.py --help` took "--help" for the log's path and created a file of that name
    import subprocess

    script = str(ROOT / "loadtests" / "gc_serve.py")
    helped = subprocess.run(
        [sys.executable, script, "--help"], cwd=tmp_path, capture_output=True, text=True
    )
    assert helped.returncode == 0 and "garbage collection" in helped.stdout
    wrong = subprocess.run([sys.executable, script, "--frob"], cwd=tmp_path, capture_output=True)
    assert wrong.returncode == 2
    assert list(tmp_path.iterdir()) == []
