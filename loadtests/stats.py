"""Latency statistics shared by the locust driver and the run's merge of several drivers."""

from __future__ import annotations

import math


def percentile(ordered: list[float], fraction: float) -> float:
    """The nearest-rank percentile of sorted values: the ceil(fraction * n)-th (0.0 for none).

    >>> percentile([1.0, 2.0, 3.0, 4.0], 0.5), percentile([float(i) for i in range(1, 101)], 0.99)
    (2.0, 99.0)
    """
    if not ordered:
        return 0.0
    rank = max(1, math.ceil(fraction * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


def summarize(times: list[float]) -> dict[str, float]:
    """Count, mean, p50, p90, p99 and max of response times in ms.

    >>> summarize([4.0, 1.0, 2.0, 3.0])["p50_ms"], summarize([])["count"]
    (2.0, 0)
    """
    ordered = sorted(times)
    return {
        "count": len(ordered),
        "mean_ms": sum(ordered) / len(ordered) if ordered else 0.0,
        "p50_ms": percentile(ordered, 0.50),
        "p90_ms": percentile(ordered, 0.90),
        "p99_ms": percentile(ordered, 0.99),
        "max_ms": ordered[-1] if ordered else 0.0,
    }
