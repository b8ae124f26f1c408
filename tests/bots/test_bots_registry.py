"""The registry by game: Tablić names unchanged, Tač bots under their own names."""

from __future__ import annotations

import random
from typing import Any

import pytest
from kafana.errors import InvalidInputError
from kafana.games import tablic, tac
from kafana_bots import registry
from kafana_bots.base import Bot
from kafana_bots.play import play
from kafana_bots.random_bot import RandomBot
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


@pytest.fixture
def scratch_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """A copy of the registry, so bots registered here are gone after the test."""
    copy = {game: dict(bots) for game, bots in registry._REGISTRY.items()}
    monkeypatch.setattr(registry, "_REGISTRY", copy)


class Deep(RandomBot):
    """A bot with one option."""

    def __init__(self, seat: int, rules: tablic.Rules, rng: random.Random, depth: int = 2) -> None:
        super().__init__(seat, rules, rng)
        self.depth = depth


@pytest.mark.usefixtures("scratch_registry")
@pytest.mark.parametrize("options", [{"depth": 2}, ["depth"], {"depth"}, ("depth",)])
def test_register_takes_any_collection_of_option_names(options: Any) -> None:
    # Before: registered, then every create raised a bare TypeError (set - dict, set - list).
    registry.register("deep", Deep, "one option", options)
    assert registry.entry("deep").options == frozenset({"depth"})
    bot = registry.create("deep", seat=0, rules=tablic.Rules(), rng=random.Random(0), depth=3)
    assert isinstance(bot, Deep) and bot.depth == 3
    with pytest.raises(InvalidInputError, match="takes no option"):
        registry.create("deep", seat=0, rules=tablic.Rules(), rng=random.Random(0), width=3)


@pytest.mark.usefixtures("scratch_registry")
@pytest.mark.parametrize(
    ("options", "says"),
    [
        ("depth", "options is a collection of option names, not one string: ['depth']"),
        (3, "options is a collection of option names, not int"),
        (["depth", 3], "options holds 3, not a name of a keyword argument"),
        (["depth", ["x"]], "options holds ['x'], not a name of a keyword argument"),
        (["two words"], "options holds 'two words', not a name of a keyword argument"),
    ],
)
def test_register_refuses_options_that_are_no_names(options: Any, says: str) -> None:
    with pytest.raises(InvalidInputError) as refused:
        registry.register("deep", Deep, "one option", options)
    assert str(refused.value) == says
    assert "deep" not in registry.names()  # nothing registered
