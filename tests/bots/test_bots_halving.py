"""`ismcts`'s successive halving: phases of equal budget, not cuts after 8, 16 and 32 worlds."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from kafana.games import tablic
from kafana_bots.clock import Deadline
from kafana_bots.ismcts import SearchBot, phases


def test_phases_share_the_budget_equally() -> None:
    assert phases(12, by_worlds=False) == pytest.approx([0.25, 0.5, 0.75])  # 12, 6, 3, 2
    assert phases(2, by_worlds=False) == []  # two candidates: no cut
    # In worlds, a world of k candidates costs k playouts: 1/12, 1/6, 1/3, 1/2 of the time.
    assert phases(12, by_worlds=True) == pytest.approx([1 / 13, 3 / 13, 7 / 13])


def _worlds_seen(bot: SearchBot, count: int) -> list[int]:
    """How many worlds each of `count` candidates was valued in; candidate i is worth i
    plus noise, so the halving keeps the high ones."""
    seen = [0] * count
    noise = random.Random(5)

    def next_world() -> Callable[[int], float]:
        def value(i: int) -> float:
            seen[i] += 1
            return i + noise.gauss(0, 20)

        return value

    deadline = None if bot.iterations is not None else Deadline(bot.budget_ms / 1000)
    bot._halving(count, next_world, deadline)
    return seen


def test_halving_spends_the_worlds_in_equal_phases() -> None:
    rules = tablic.Rules.preset("serbian")
    bot = SearchBot(0, rules, random.Random(1), iterations=300)
    seen = sorted(_worlds_seen(bot, 12))
    # Cuts after 300/13, 3*300/13 and 7*300/13 worlds (rounded up): 24, 70, 162.
    assert seen[:6] == [24] * 6 and seen[6:9] == [70] * 3 and seen[9] == 162
    assert seen[10:] == [300, 300]


def test_the_former_cuts_remain_available() -> None:
    class Fixed(SearchBot):
        EQUAL_PHASES = False

    bot = Fixed(0, tablic.Rules.preset("serbian"), random.Random(1), iterations=300)
    assert sorted(_worlds_seen(bot, 12)) == [8] * 6 + [16] * 3 + [32] + [300] * 2


def test_a_time_budget_cuts_at_shares_of_the_time() -> None:
    bot = SearchBot(0, tablic.Rules.preset("serbian"), random.Random(1), budget_ms=60)
    seen = sorted(_worlds_seen(bot, 12))
    # A quarter of the time each (15 ms of CPU: hundreds of these instant worlds), not the
    # 8, 16 and 32 worlds of the former cuts.
    assert 32 < seen[0] < seen[6] < seen[9] < seen[10]
    assert seen[:6] == [seen[0]] * 6 and seen[6:9] == [seen[6]] * 3
