"""The registry by game: Tablić names unchanged, Tač bots under their own names."""

from __future__ import annotations

import random

import pytest
from kafana.games import tablic, tac
from kafana_bots import registry
from kafana_bots.base import Bot
from kafana_bots.play import play
from kafana_bots.tac_bots import TAC_BOTS, TacBot


def test_each_game_has_its_own_names() -> None:
    assert registry.names() == registry.names("tablic")
    assert list(TAC_BOTS) == ["random", "loader"]
    assert registry.names("tac") == [*TAC_BOTS, "search"]
    assert "loader" not in registry.names("tablic")
    with pytest.raises(tac.InvalidInputError, match="no bots for game 'poker'"):
        registry.names("poker")


def test_the_rules_choose_the_game() -> None:
    tablic_bot = registry.create("random", seat=0, rules=tablic.Rules(), rng=random.Random(0))
    tac_bot = registry.create("random", seat=0, rules=tac.Rules(), rng=random.Random(0))
    assert isinstance(tablic_bot, Bot) and isinstance(tac_bot, TacBot)
    with pytest.raises(tac.InvalidInputError, match="unknown bot 'loader' for tablic"):
        registry.create("loader", seat=0, rules=tablic.Rules(), rng=random.Random(0))
    with pytest.raises(tac.InvalidInputError, match="unknown bot 'greedy' for tac"):
        registry.create("greedy", seat=0, rules=tac.Rules(), rng=random.Random(0))


def test_registered_tac_bots_play_a_game() -> None:
    rules = tac.Rules(players=3, tac_calls=True)
    bots = [
        registry.create(name, seat=s, rules=rules, rng=random.Random(s))
        for s, name in enumerate(["loader", "random", "loader"])
    ]
    assert play(tac.new_game(rules, seed=4), bots).is_over
