"""One result out of several locust drivers' (`run.py --drivers N`), as if one had run.

Each driver ran its share of the users with the same origin (`--origin`) and wrote its samples
(`--raw`). The merged window is where all the drivers' windows overlap: only requests that ended
inside it count, so moves per second are over one stretch of time in which every driver was
measuring, and the percentiles are those of all the drivers' samples together.
"""

from __future__ import annotations

from typing import Any

from stats import summarize

SLICE_SECONDS = 10.0


def merge_results(parts: list[dict[str, Any]], duration: float = 0.0) -> dict[str, Any]:
    """The merged results of drivers run side by side (each written with `--raw`).

    The window is the drivers' overlap, cut to its first `duration` seconds if that is given.

    >>> one = {"kind": "kafana", "targets": "t", "started": 0.0, "window": [10.0, 40.0],
    ...        "seated_at": 5.0, "failures": {}, "error_count": 0, "errors": [], "finished": [],
    ...        "peak_active": 2, "raw": {"times": {"PlayMove": [1.0, 3.0]},
    ...        "stamps": {"PlayMove": [12.0, 38.0]}, "slices": {"1": [1.0], "3": [3.0]},
    ...        "lag": {}, "collections": {}, "at_stop": {"a": 4, "b": 6}}}
    >>> two = {**one, "window": [11.0, 39.0], "raw": {**one["raw"], "at_stop": {"c": 5},
    ...        "times": {"PlayMove": [2.0, 9.0]}, "stamps": {"PlayMove": [10.5, 20.0]}}}
    >>> merged = merge_results([one, two])
    >>> merged["window"], merged["requests"]["PlayMove"]["count"], merged["active_at_end"]
    ([11.0, 39.0], 3, 3)
    >>> merge_results([one, two], duration=5.0)["requests"]["PlayMove"]["count"]
    1
    """
    first = max(float(p["window"][0]) for p in parts)
    last = min(float(p["window"][1]) for p in parts)
    if duration:
        last = min(last, first + duration)
    times: dict[str, list[float]] = {}
    for part in parts:
        raw = part["raw"]
        for name, values in raw["times"].items():
            kept = times.setdefault(name, [])
            stamps = raw["stamps"][name]
            kept += [ms for ms, t in zip(values, stamps, strict=True) if first <= t <= last]
    slices: dict[int, list[float]] = {}
    lag: dict[int, float] = {}
    collections: dict[int, list[float]] = {}
    at_stop: dict[str, int] = {}
    for part in parts:
        raw = part["raw"]
        for key, values in raw["slices"].items():
            slices.setdefault(int(key), []).extend(values)
        for key, millis in raw["lag"].items():
            lag[int(key)] = max(lag.get(int(key), 0.0), float(millis))
        for key, (count, total, longest) in raw["collections"].items():
            mine = collections.setdefault(int(key), [0, 0.0, 0.0])
            mine[0] += count
            mine[1] += total
            mine[2] = max(mine[2], longest)
        at_stop.update(raw["at_stop"])
    sample = [table for part in parts for table in part.get("active_sample", [])]
    return {
        "kind": parts[0]["kind"],
        "targets": parts[0]["targets"],
        "started": min(float(p["started"]) for p in parts),
        "window_s": max(last - first, 1e-9),
        "window": [first, last],
        "seated_at": max(float(p.get("seated_at", 0.0)) for p in parts),
        "drivers": len(parts),
        "requests": {name: summarize(values) for name, values in sorted(times.items())},
        "failures": _summed([p["failures"] for p in parts]),
        "error_count": sum(int(p["error_count"]) for p in parts),
        "errors": [e for p in parts for e in p["errors"]][:20],
        "slices": [
            {
                "t": key * SLICE_SECONDS,
                **summarize(values),
                "driver_lag_ms": lag.get(key, 0.0),
                "driver_gc": collections.get(key, [0, 0.0, 0.0]),
            }
            for key, values in sorted(slices.items())
        ],
        "finished": [f for p in parts for f in p["finished"]],
        "active_sample": sample[:200],
        "active_at_end": len(at_stop),
        "active_seq_mean": sum(at_stop.values()) / max(len(at_stop), 1),
        "peak_active": sum(int(p["peak_active"]) for p in parts),
    }


def _summed(counts: list[dict[str, int]]) -> dict[str, int]:
    out: dict[str, int] = {}
    for each in counts:
        for name, count in each.items():
            out[name] = out.get(name, 0) + count
    return out
