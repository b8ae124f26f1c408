"""Two against two: the search scores the side, not the seat (a partner's capture is ours)."""

from __future__ import annotations

import random

from kafana.games import tablic
from kafana.games.tablic import MatchState
from kafana_bots.arena import ArenaConfig, lineups, play_deal
from kafana_bots.oracle import OracleBot
from kafana_bots.rollout import estimate, utility
from kafana_bots.worlds import WorldSampler

RULES = tablic.Rules.preset("serbian", players=4, partnerships=True)


def _ending(seed: int, cards: int) -> MatchState:
    rng = random.Random(seed)
    state = tablic.new_match(RULES, seed=seed)
    while state.deck_remaining or sum(len(state.hand(s)) for s in range(4)) > cards:
        state = state.apply(rng.choice(state.legal_moves()))
    return state


def _value(state: MatchState, mine: set[int], hand: int) -> float:
    """Brute force on the rules' state: the seats in `mine` maximize their points minus the
    mean of the others' (seat by seat: each seat scores its side's points), the rest minimize."""
    if len(state.hand_results) > hand:
        points = state.hand_results[hand].points
        per_seat = [points[RULES.side_of(s)] for s in range(4)]
        ours = sum(per_seat[s] for s in mine) / len(mine)
        theirs = [per_seat[s] for s in range(4) if s not in mine]
        return ours - sum(theirs) / len(theirs)
    seat = state.current_seat
    assert seat is not None
    values = [_value(state.apply(m), mine, hand) for m in state.legal_moves()]
    return max(values) if seat in mine else min(values)


def test_the_search_of_a_known_deal_plays_for_the_side() -> None:
    """In 2 against 2 endings the search (the oracle: every card known) plays the best move for
    its side, the partner playing with it; in some of them that is not the best move for a
    seat that took its partner for an opponent."""
    differs = 0
    for seed in range(12):
        state = _ending(seed, 7)
        seat = state.current_seat
        assert seat is not None
        bot = OracleBot(seat, RULES, random.Random(0), iterations=5000)
        bot.see(state)
        moves = state.legal_moves()
        picked = bot.choose(state.view(seat), moves)
        assert bot.stats["exact"] == 1
        team = {s for s in range(4) if RULES.side_of(s) == RULES.side_of(seat)}
        side_best = max(_value(state.apply(m), team, state.hand_no) for m in moves)
        assert _value(state.apply(picked), team, state.hand_no) == side_best, seed
        alone = [_value(state.apply(m), {seat}, state.hand_no) for m in moves]
        differs += alone[moves.index(picked)] < max(alone)
    assert differs >= 1


def test_a_partners_capture_raises_the_sides_value() -> None:
    """`ismcts` scores a world by `utility(estimate(world), its side)`: what the partner takes
    in the playout counts for it, what an opponent takes against it."""
    state = tablic.new_match(RULES, seed=2)
    sampler = WorldSampler(state.view(0))
    side = RULES.side_of(0)
    checked = 0
    for k in range(40):
        world = sampler.sample(random.Random(k))
        before = utility(estimate(world), side)
        after = []
        for seat in (2, 1):  # the partner, then an opponent, takes something
            other = world.copy()
            other.current = seat
            captures = [m for m in other.legal() if m[1]]
            if captures:
                other.play(*captures[0])
                after.append(utility(estimate(other), side))
        if len(after) == 2:
            assert after[0] > before > after[1]
            checked += 1
    assert checked >= 5


def test_partners_sit_opposite_and_every_seat_is_played() -> None:
    config = ArenaConfig(
        bots=("heuristic", "ismcts"),
        partners=("heuristic", "heuristic"),
        players=4,
        partnerships=True,
        hands=1,
        iterations=5,
    )
    games = lineups(config)
    assert len(games) == 4
    for lineup in games:
        for seat, (team, _, _) in enumerate(lineup):
            assert lineup[(seat + 2) % 4][0] == team  # a partner sits opposite
    assert {tuple(n for _, n, _ in g) for g in games} == {
        ("heuristic", "ismcts", "heuristic", "heuristic"),
        ("ismcts", "heuristic", "heuristic", "heuristic"),
        ("heuristic", "heuristic", "heuristic", "ismcts"),
        ("heuristic", "heuristic", "ismcts", "heuristic"),
    }
    result = play_deal(config, 0)
    assert len(result.times[1]) == 4 * 12  # only the ismcts seat's decisions are timed
    assert len(result.times[0]) == 4 * 12
