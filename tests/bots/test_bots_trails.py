"""`greedy` and `heuristic` trail deterministically: the cheapest card, lowest rank first."""

from __future__ import annotations

import random

import pytest
from bots_support import TABLES
from kafana.games import tablic
from kafana.games.tablic import Card, MatchState, Move, Rules
from kafana_bots import registry
from kafana_bots.greedy import trail_order


def deal(table: str, hand: str, rules: Rules) -> MatchState:
    """A match whose first deal puts `table` face up and `hand` in seat 0's hand."""
    fixed = [Card.parse(t) for t in f"{table} {hand}".split()]
    rest = [card for card in tablic.CANONICAL_DECK if card not in fixed]
    return tablic.new_match(rules, decks=[fixed + rest])


def choices(name: str, state: MatchState, seeds: int = 30) -> set[str]:
    """The moves `name` makes for seat 0 with `seeds` different generators."""
    seat = state.current_seat
    assert seat == 0
    view, legal = state.view(seat), state.legal_moves()
    assert all(move.is_trail for move in legal), "the position must offer trails only"
    out = set()
    for seed in range(seeds):
        bot = registry.create(name, seat=seat, rules=state.rules, rng=random.Random(seed))
        out.add(str(bot.choose(view, legal)))
    return out


@pytest.mark.parametrize("name", ["greedy", "heuristic"])
def test_equally_cheap_trails_go_lowest_rank_first(name: str) -> None:
    # Four kings on the table: no card of this hand captures, and none of them scores.
    rules = Rules.preset("serbian")
    assert choices(name, deal("KS KH KD KC", "9S 5D 7H 3H 4C 6D", rules)) == {"3H"}


@pytest.mark.parametrize("name", ["greedy", "heuristic"])
def test_of_one_rank_the_suit_decides_clubs_first(name: str) -> None:
    rules = Rules.preset("serbian")
    assert choices(name, deal("KS KH KD KC", "9S 3S 7H 3H 3D 8D", rules)) == {"3D"}


def test_greedy_trails_a_card_that_scores_last() -> None:
    # The 2C is the lowest rank but costs its point: the cheapest trail comes first.
    rules = Rules.preset("serbian")
    assert choices("greedy", deal("KS KH KD KC", "9S 5D 7H 2C 8C 6D", rules)) == {"5D"}


def test_trail_order_is_cost_then_rank_then_suit() -> None:
    rules = Rules.preset("serbian")
    cards = [Card.parse(t) for t in ["KD", "10D", "2C", "AS", "9H", "3C", "3S", "4D"]]
    ordered = sorted((Move(card) for card in cards), key=lambda m: trail_order(rules, m))
    assert [str(m) for m in ordered] == ["3C", "3S", "4D", "9H", "2C", "KD", "AS", "10D"]


@pytest.mark.parametrize(("players", "partnerships"), TABLES)
def test_greedy_hands_replay_without_its_generator_when_it_only_trails(
    players: int, partnerships: bool
) -> None:
    # Every trail-only decision is the same whatever the generator: two greedy hands from one
    # deal with different generators trail the same cards at the same positions.
    rules = Rules.preset("wild_jack", players=players, partnerships=partnerships)
    for seed in range(3):
        state = tablic.new_match(rules, seed=seed)
        rngs = (random.Random(1), random.Random(2))
        while state.hand_no == 0 and not state.is_over:
            seat = state.current_seat
            assert seat is not None
            legal = state.legal_moves()
            picks = [
                registry.create("greedy", seat=seat, rules=rules, rng=rng).choose(
                    state.view(seat), legal
                )
                for rng in rngs
            ]
            if picks[0].is_trail and picks[1].is_trail:
                assert picks[0] == picks[1]
            state = state.apply(picks[0])
