"""Every bot plays only legal moves, in every preset and table shape."""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from typing import Any, cast

import pytest
from bots_support import TABLES, play_hand, quick_options
from kafana.games import tablic
from kafana.games.tablic import Move, View
from kafana_bots import Bot, BotError, registry
from kafana_bots.events import Event
from kafana_bots.greedy import GreedyBot
from kafana_bots.ismcts import SearchBot
from kafana_bots.play import play


class CheckedBot(Bot):
    """Wraps a bot and checks each answer is one of the legal moves it was given."""

    def __init__(self, inner: Bot) -> None:
        super().__init__(inner.seat, inner.rules, inner.rng)
        self.inner = inner
        self.decisions = 0

    def choose(self, view: View, legal_moves: Sequence[Move]) -> Move:
        move = self.inner.choose(view, legal_moves)
        assert move in legal_moves, f"{self.inner!r} chose illegal {move}"
        assert view.seat == self.seat and view.current_seat == self.seat
        self.decisions += 1
        return move

    def observe(self, event: Event) -> None:
        """Passed on: a search bot infers from the moves it is told of."""
        self.inner.observe(event)


def test_registry_lists_the_ladder_weakest_first() -> None:
    assert registry.names()[:4] == ["random", "greedy", "heuristic", "ismcts"]


@pytest.mark.parametrize("name", ["random", "greedy", "heuristic", "ismcts"])
@pytest.mark.parametrize("preset", tablic.PRESETS)
@pytest.mark.parametrize(("players", "partnerships"), TABLES)
def test_bot_plays_a_legal_hand(name: str, preset: str, players: int, partnerships: bool) -> None:
    rules = tablic.Rules.preset(preset, players=players, partnerships=partnerships)
    bots = [
        CheckedBot(
            registry.create(name, seat=s, rules=rules, rng=random.Random(s), **quick_options(name))
        )
        for s in range(players)
    ]
    state = play(tablic.new_match(rules, seed=11), bots, hands=1)
    assert len(state.hand_results) == 1
    assert sum(state.hand_results[0].cards) == 52
    assert sum(b.decisions for b in bots) == 52 - 4


@pytest.mark.parametrize("preset", ["serbian", "wild_jack"])
@pytest.mark.parametrize(("players", "partnerships"), TABLES)
def test_heuristic_plays_whole_matches(preset: str, players: int, partnerships: bool) -> None:
    rules = tablic.Rules.preset(preset, players=players, partnerships=partnerships, target=60)
    bots = [
        registry.create("heuristic", seat=s, rules=rules, rng=random.Random(s))
        for s in range(players)
    ]
    state = play(tablic.new_match(rules, seed=5), bots)
    assert state.is_over and max(state.scores) >= 60


@pytest.mark.parametrize("switch", ["must_capture", "rank_priority", "most_cards_tie_to_last"])
def test_search_follows_extra_switches(switch: str) -> None:
    rules = tablic.Rules.preset("serbian", players=2, **{switch: True})
    state = play_hand("ismcts", rules, seed=3)
    assert len(state.hand_results) == 1


def test_unknown_bot_and_option_are_refused() -> None:
    rules = tablic.Rules()
    with pytest.raises(tablic.InvalidInputError, match="unknown bot 'nobody'"):
        registry.create("nobody", seat=0, rules=rules, rng=random.Random(0))
    with pytest.raises(tablic.InvalidInputError, match="takes no option"):
        registry.create("greedy", seat=0, rules=rules, rng=random.Random(0), budget_ms=5)


def test_an_illegal_answer_is_refused_naming_the_bot() -> None:
    class Cheat(Bot):
        name = "cheat"

        def choose(self, view: View, legal_moves: Sequence[Move]) -> Move:
            return Move(view.table[0])  # a table card is never in the hand

    rules = tablic.Rules()
    bots = [Cheat(s, rules, random.Random(s)) for s in range(2)]
    with pytest.raises(tablic.IllegalMoveError, match="Cheat"):
        play(tablic.new_match(rules, seed=1), bots)


class Answers(Bot):
    """A bot whose `choose` answers `self.answer(legal_moves)`: a newcomer's mistakes."""

    answer: Any = staticmethod(lambda legal: legal[0])

    def choose(self, view: View, legal_moves: Sequence[Move]) -> Move:
        return cast(Move, self.answer(legal_moves))


def _boom(legal: Sequence[Move]) -> Move:
    raise ValueError("my bug")


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        # a `return` forgotten: play() stopped silently (the arena: IndexError), a server
        # waited for good
        (lambda legal: None, "returned None from choose: return one of legal_moves"),
        # a move's text: "not legal here" in the arena, played on a server
        (lambda legal: str(legal[0]), "a str: choose returns one of legal_moves (a Move)"),
        (_boom, "raised ValueError in choose: my bug"),  # was "unexpected ValueError"
    ],
)
def test_a_wrong_answer_or_a_crash_is_a_bot_error_naming_the_bot(
    answer: Callable[[Sequence[Move]], Any], said: str
) -> None:
    rules = tablic.Rules()
    bots: list[Bot] = [Answers(0, rules, random.Random(0)), GreedyBot(1, rules, random.Random(1))]
    bots[0].answer = answer  # type: ignore[attr-defined]
    with pytest.raises(BotError, match=f"<Answers 'bot' seat=0> .*{re.escape(said)}"):
        play(tablic.new_match(rules, seed=1), bots)


def test_a_search_two_plies_deep_in_each_world_plays_a_legal_hand() -> None:
    # `REPLY_DEPTH` (measured and not kept, docs/bots.md "What was tried"): each world after a
    # candidate is searched by alpha-beta before its playout; the choices are still legal.
    rules = tablic.Rules.preset("serbian", players=2)
    deep = type("Deep", (SearchBot,), {"REPLY_DEPTH": 2})
    bots = [CheckedBot(deep(s, rules, random.Random(s), iterations=4)) for s in range(2)]
    state = play(tablic.new_match(rules, seed=12), bots, hands=1)
    assert sum(state.hand_results[0].cards) == 52
    assert sum(b.decisions for b in bots) == 52 - 4
    assert all(b.inner.stats["worlds"] > 0 for b in bots)  # the sampling path, not only exact
