"""The engine's advice with `building`: worlds of the engine itself, where a build is a build.

In a two-seat last deal nothing is hidden, so every sampled world is the true position: each
move's value must be its greedy playout in the true state (the simulator, which knows no builds,
valued a build as a trail of its card).
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from kafana.games import tablic
from kafana_bots.analysis import analyze
from kafana_bots.events import HandStarted, MovePlayed
from kafana_bots.knowledge import PlayLog
from kafana_bots.rollout import utility
from kafana_bots.state_worlds import state_playout


def _last_deals_with_builds(count: int) -> Iterator[tuple[tablic.MatchState, PlayLog]]:
    """Two-seat building positions of a last deal where a build is among the legal moves, with
    the log of the hand's moves as a seat is told them."""
    rules = tablic.Rules.preset("serbian", players=2, building=True)
    seed = found = 0
    while found < count:
        state = tablic.new_match(rules, seed=seed)
        rng = random.Random(seed)
        seed += 1
        log = PlayLog()
        log.observe(HandStarted(0, tuple(state.table)))
        while not state.is_over and state.hand_no == 0:
            seat = state.current_seat
            assert seat is not None
            moves = list(state.legal_moves())
            view = state.view(seat)
            if view.deck_remaining == 0 and len(moves) > 1 and any(m.is_build for m in moves):
                found += 1
                yield state, log
                break
            move = rng.choice(moves)
            log.observe(MovePlayed(seat, move))
            state = state.apply(move)


@pytest.mark.parametrize("position", range(6))
def test_values_are_the_true_positions_playouts(position: int) -> None:
    state, log = list(_last_deals_with_builds(position + 1))[position]
    seat = state.current_seat
    assert seat is not None
    side = state.rules.side_of(seat)
    moves = list(state.legal_moves())
    found = analyze(state.view(seat), moves, worlds=2, log=log, rng=random.Random(1))
    assert found.method == "sampled" and found.worlds == 2
    truth = {m: utility(state_playout(state.apply(m), 52), side) for m in moves}
    for valued in found.moves:
        assert valued.value == pytest.approx(truth[valued.move]), str(valued.move)


def test_a_position_with_builds_needs_the_hands_moves() -> None:
    state, _log = next(_last_deals_with_builds(1))
    seat = state.current_seat
    assert seat is not None
    with pytest.raises(ValueError, match="every move of its hand"):
        analyze(state.view(seat), list(state.legal_moves()), worlds=2, log=PlayLog())
