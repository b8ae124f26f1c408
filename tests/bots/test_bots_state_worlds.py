"""With `building`, `ismcts` searches worlds of the engine itself, made by replaying the hand
(`kafana_bots.state_worlds`): a replay with the true hidden cards is the real position."""

from __future__ import annotations

import random

import pytest
from bots_support import TABLES
from kafana.games import tablic
from kafana.games.tablic import MatchState, View
from kafana_bots import registry
from kafana_bots.events import HandStarted, MovePlayed
from kafana_bots.knowledge import PlayLog, unseen
from kafana_bots.play import play
from kafana_bots.state_worlds import Replayed, build_needs, state_playout


def _same_position(view: View, replayed: Replayed, world: MatchState) -> None:
    """The replayed world seen from the seat is the real view, seats turned."""
    mine = world.view(replayed.seat)
    n = view.rules.players
    turn = [(v + replayed.first) % n for v in range(n)]  # real seat of each replayed one
    assert sorted(mine.table) == sorted(view.table)
    assert mine.hand == view.hand
    assert mine.deck_remaining == view.deck_remaining
    assert [mine.hand_sizes[v] for v in range(n)] == [view.hand_sizes[turn[v]] for v in range(n)]
    assert mine.current_seat is not None and turn[mine.current_seat] == view.current_seat
    real_builds = sorted((b.cards, b.value, b.owner) for b in view.builds)
    assert sorted((b.cards, b.value, turn[b.owner]) for b in mine.builds) == real_builds
    side = {view.rules.side_of(v): view.rules.side_of(turn[v]) for v in range(n)}  # to real
    for s in range(view.rules.sides):
        assert mine.captured[s] == view.captured[side[s]]
        assert mine.tablas[s] == view.tablas[side[s]]


@pytest.mark.parametrize(("players", "partnerships"), TABLES)
def test_a_replay_with_the_true_cards_is_the_real_position(
    players: int, partnerships: bool
) -> None:
    rules = tablic.Rules.preset(
        "serbian", players=players, partnerships=partnerships, building=True
    )
    bots = [
        registry.create("heuristic", seat=s, rules=rules, rng=random.Random(s))
        for s in range(players)
    ]
    state = play(tablic.new_match(rules, seed=4), bots, hands=1)  # hand 1: seats turned
    assert state.hand_no == 1 and state.current_seat == 1
    log = PlayLog()
    log.observe(HandStarted(state.hand_no, state.table))
    checked = builds = 0
    while state.hand_no == 1 and state.current_seat is not None:
        seat = state.current_seat
        view = state.view(seat)
        deal = log.deal_moves(view)
        assert deal is not None
        hands = [list(state.hand(s)) for s in range(players)]
        held = {c for hand in hands for c in hand}
        deck = [c for c in unseen(view) if c not in held]
        replayed = Replayed(view, log.opening, log.moves, hands, deck)
        world = replayed.world(hands, deck)
        _same_position(view, replayed, world)
        for other, ranks in build_needs(view, deal):  # what a build says its maker holds
            assert any(c.rank in ranks for c in state.hand(other))
        checked += 1
        builds += len(view.builds)
        move = bots[seat].choose(view, state.legal_moves())
        state = state.apply(move)
        log.observe(MovePlayed(seat, move))
    assert checked == 48 and builds > 0


def test_a_playout_in_the_engine_scores_a_whole_hand() -> None:
    rules = tablic.Rules(building=True)
    state = tablic.new_match(rules, seed=2)
    points = state_playout(state, 100)  # greedy to the end of the hand
    assert sum(points) >= 22 and all(p >= 0 for p in points)
    short = state_playout(state, 4)  # cut short: points and a share of the cards taken
    assert sum(short) < sum(points)
