"""The listing budget of the capture engine, measured on the pure-Python modules.

These tests patch a method of `CaptureEngine` and measure with tracemalloc the memory that
`capture.py` allocates, which only the pure build allows (a compiled class cannot be patched
and its allocations are not traced by file). `make test` runs them in its pure pass
(`KAFANA_PURE=1`); `tests/reliability/conftest.py` leaves them out of a compiled run.
"""

from __future__ import annotations

import random
import tracemalloc

import pytest
from kafana.games import tablic
from kafana.games.tablic import capture

from .test_cache_bounds import RULES, fresh_engines, held, random_calls

__all__ = ["fresh_engines"]  # the autouse fixture of the bounds tests, used here too


def test_listing_budget_holds_and_keeps_answers_right(monkeypatch: pytest.MonkeyPatch) -> None:
    limit = 400_000
    monkeypatch.setattr(capture._BUDGET, "limit", limit)
    ages = 0
    age = capture.CaptureEngine.age

    def counted(self: capture.CaptureEngine) -> None:
        nonlocal ages
        ages += 1
        age(self)

    monkeypatch.setattr(capture.CaptureEngine, "age", counted)
    random_calls(600)
    engine = capture.engine_for(RULES)
    assert ages >= 3  # filled past the bound several times
    assert capture._BUDGET.used <= limit
    assert held(engine, engine._by_vector) <= limit
    assert held(engine, engine._old) <= limit
    # Answers after many generations are those of a fresh engine.
    rng = random.Random(9)
    for _ in range(50):
        cards = rng.sample(list(tablic.CARDS), 11)
        got = tablic.captures(cards[0], cards[1:], RULES)
        fresh = capture.CaptureEngine(RULES)
        ordered = sorted(cards[1:], key=lambda c: c.index)
        masks = fresh.masks(cards[0].rank, tuple(c.rank for c in ordered))
        assert len(got) == len(masks)


def test_listing_estimate_is_near_the_measured_bytes() -> None:
    capture.engine_for(RULES)
    tracemalloc.start()
    try:
        before = tracemalloc.take_snapshot()
        random_calls(300, seed=4)
        after = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    only = [tracemalloc.Filter(True, capture.__file__)]
    measured = sum(
        stat.size_diff
        for stat in after.filter_traces(only).compare_to(before.filter_traces(only), "filename")
    )
    engine = capture.engine_for(RULES)
    positions = 120 * len(capture._POSITIONS)  # the positions memo, bounded apart
    estimated = capture._BUDGET.used
    assert 0.5 * estimated <= measured - positions <= 1.5 * estimated, (measured, estimated)
    assert engine._by_vector
