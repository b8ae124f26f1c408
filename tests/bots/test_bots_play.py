"""The one in-process match runner: bots by default, a referee's `decide` hook, the events."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest
from kafana.errors import IllegalMoveError
from kafana.games import tablic
from kafana.games.tablic import Move, View
from kafana_bots import Bot, Event, HandEnded, HandStarted, MatchEnded, MovePlayed
from kafana_bots.play import play
from kafana_bots.random_bot import RandomBot

RULES = tablic.Rules.preset("serbian", players=2)


class Listener(RandomBot):
    """A random bot that keeps every event it is told of."""

    def __init__(self, seat: int) -> None:
        super().__init__(seat, RULES, random.Random(seat))
        self.events: list[Event] = []

    def observe(self, event: Event) -> None:
        self.events.append(event)


class Refusing(Bot):
    """Fails the test if asked: a `decide` hook answers for it."""

    def choose(self, view: View, legal_moves: Sequence[Move]) -> Move:
        raise AssertionError("the bot was asked although decide answers")


def test_a_whole_match_tells_every_event_in_order() -> None:
    bots = [Listener(0), Listener(1)]
    state = play(tablic.new_match(RULES, seed=3), bots)
    assert state.is_over
    events = bots[0].events
    assert events == bots[1].events
    assert events[0] == HandStarted(0, tablic.new_match(RULES, seed=3).table)
    assert events[-1] == MatchEnded(state.scores)
    assert [e for e in events if isinstance(e, MovePlayed)] == [
        MovePlayed(seat, move) for seat, move in state.moves()
    ]
    ended = [e.result for e in events if isinstance(e, HandEnded)]
    assert ended == list(state.hand_results)
    assert sum(isinstance(e, HandStarted) for e in events) == len(ended)


def test_decide_replaces_the_bots_and_none_stops_the_match() -> None:
    asked: list[tuple[int, int]] = []

    def decide(seat: int, view: View, legal: list[Move]) -> Move | None:
        assert view.seat == seat == view.current_seat
        asked.append((seat, view.move_count))
        return None if view.move_count == 7 else legal[0]

    bots = [Refusing(0, RULES, random.Random(0)), Refusing(1, RULES, random.Random(1))]
    state = play(tablic.new_match(RULES, seed=5), bots, decide=decide)
    assert not state.is_over and state.move_count == 7
    assert [count for _, count in asked] == list(range(8))
    assert [seat for seat, _ in asked] == [0, 1] * 4


def test_a_move_outside_the_legal_ones_is_refused_naming_the_bot() -> None:
    def decide(seat: int, view: View, legal: list[Move]) -> Move | None:
        return Move(tablic.Card.parse("KS"))  # a trail of a card not in this seat's hand

    state = tablic.new_match(RULES, seed=1)
    assert tablic.Card.parse("KS") not in state.hand(0)
    bots = [RandomBot(s, RULES, random.Random(s)) for s in range(2)]
    with pytest.raises(IllegalMoveError, match="RandomBot"):
        play(state, bots, decide=decide)


def test_on_decision_hears_every_decision_with_its_seat() -> None:
    seats: list[int] = []
    bots = [RandomBot(s, RULES, random.Random(s)) for s in range(2)]
    state = play(
        tablic.new_match(RULES, seed=2), bots, hands=1, on_decision=lambda s, _: seats.append(s)
    )
    assert len(state.hand_results) == 1
    assert seats == [seat for seat, _ in state.moves()]


def test_demo_plays_the_matches_of_one_random_generator() -> None:
    from kafana.cli.demo import play_random_match

    for players in (2, 3, 4):
        rules = tablic.Rules.preset("serbian", players=players)
        rng = random.Random(11)
        state = tablic.new_match(rules, seed=11)
        while not state.is_over:
            state = state.apply(rng.choice(state.legal_moves()))
        assert play_random_match(rules, 11).record() == state.record()
