"""The search bots' budget and horizon options: checked alike, refused with the option named."""

from __future__ import annotations

import random

import pytest
from kafana.games import tablic
from kafana_bots.ismcts import DEFAULT_BUDGET_MS, SearchBot
from kafana_bots.oracle import OracleBot


@pytest.mark.parametrize("bot_type", [SearchBot, OracleBot])
def test_a_search_bot_keeps_its_budget(bot_type: type[SearchBot] | type[OracleBot]) -> None:
    rules = tablic.Rules.preset("serbian")
    plain = bot_type(0, rules, random.Random(0))
    assert (plain.budget_ms, plain.iterations, plain.deadline() is not None) == (
        DEFAULT_BUDGET_MS,
        None,
        True,
    )
    counted = bot_type(0, rules, random.Random(0), budget_ms=50, iterations=300)
    assert (counted.budget_ms, counted.iterations, counted.deadline()) == (50.0, 300, None)
    assert counted.exact_nodes() == 6_000  # 4 a world, at least 6,000
    assert bot_type(0, rules, random.Random(0), iterations=2_000).exact_nodes() == 8_000
    with pytest.raises(ValueError, match="iterations must be at least 1"):
        bot_type(0, rules, random.Random(0), iterations=0)
    assert plain.stats["decisions"] == 0 and plain.stats["exact"] == 0


def test_the_horizon_is_refused_below_zero() -> None:
    rules = tablic.Rules.preset("serbian")
    assert SearchBot(0, rules, random.Random(0), horizon=0).horizon == 0  # to the end
    with pytest.raises(ValueError, match=r"horizon must be 0 \(to the end of the hand\)"):
        SearchBot(0, rules, random.Random(0), horizon=-1)
