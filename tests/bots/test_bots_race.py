"""The most-cards race at a playout's end: each side's chance of 27 cards (`race_estimate`)."""

from __future__ import annotations

import random

import pytest
from kafana.games import tablic
from kafana_bots.ismcts import SearchBot
from kafana_bots.rollout import estimate, race_chances, race_estimate, truncated_rollout, utility
from kafana_bots.worlds import sample_hidden, sim_from_view


def test_the_chances_follow_the_cards_taken() -> None:
    assert race_chances(27, 0) == (1.0, 0.0)
    assert race_chances(26, 26) == (0.0, 0.0)  # a tie at the end: nobody's
    even = race_chances(10, 10)
    assert even[0] == even[1] and 0.3 < even[0] < 0.5  # a tie at 26 is possible
    ahead, behind = race_chances(25, 20)
    assert ahead > 0.8 and behind < 0.1  # 2 of the last 7 cards: nearly there
    for mine in range(0, 40, 3):
        for theirs in range(0, 52 - mine, 4):
            first, second = race_chances(mine, theirs)
            assert 0.0 <= first <= 1.0 and 0.0 <= second <= 1.0
            assert first + second <= 1.0 + 1e-9  # one side at most gets the points
            if mine + 1 + theirs <= 52:
                assert race_chances(mine + 1, theirs)[0] >= first


@pytest.mark.parametrize("players", [2, 3])
def test_the_race_estimate_is_the_estimate_but_for_the_race(players: int) -> None:
    rules = tablic.Rules.preset("serbian", players=players)
    rng = random.Random(players)
    state = tablic.new_match(rules, seed=4)
    assert state.current_seat is not None
    view = state.view(state.current_seat)
    hands, deck = sample_hidden(view, rng)
    sim = sim_from_view(view, hands, deck)
    truncated_rollout(sim, 14)
    plain, race = estimate(sim), race_estimate(sim)
    if players != 2:
        assert race == plain  # more than two sides: 0.15 a card, as before
        return
    first, second = race_chances(*sim.cards)
    points = [p + t * rules.tabla_points for p, t in zip(sim.points, sim.tablas, strict=True)]
    assert race == [points[0] + 3 * first, points[1] + 3 * second]
    truncated_rollout(sim, 100)  # the hand's end: the final points
    assert race_estimate(sim) == estimate(sim) == [float(p) for p in sim.final_points()]


@pytest.mark.parametrize(("players", "partnerships"), [(2, False), (4, True), (3, False)])
def test_ismcts_values_a_world_as_the_estimate_does(players: int, partnerships: bool) -> None:
    """`SearchBot._value`'s two-side shortcut gives the very floats of `utility(estimate)`."""
    rules = tablic.Rules.preset("serbian", players=players, partnerships=partnerships)
    rng = random.Random(players)
    bot = SearchBot(0, rules, rng, iterations=1)
    seen = 0
    for seed in range(12):
        state = tablic.new_match(rules, seed=seed)
        for _ in range(rng.randrange(0, 40)):
            state = state.apply(rng.choice(state.legal_moves()))
            if state.hand_results:
                break
        if state.hand_results or state.current_seat is None:
            continue
        view = state.view(state.current_seat)
        hands, deck = sample_hidden(view, rng)
        for horizon in (0, 6, 10, 60):
            for side in range(rules.sides):
                bot.horizon = horizon
                sim = sim_from_view(view, hands, deck)
                plain = sim.copy()
                truncated_rollout(plain, horizon or 52)
                assert bot._value(sim, side) == utility(estimate(plain), side)
                seen += 1
    assert seen > 50
