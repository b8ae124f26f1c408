"""Both games through one loop that knows only `kafana.games.protocol.GameState`."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from kafana.errors import MatchOverError, NotYourTurnError
from kafana.games import tablic, tac
from kafana.games.protocol import GameState, Outcome


def play_out(state: GameState[Any, Any, Any], rng: random.Random) -> GameState[Any, Any, Any]:
    """Random moves of the seat to move until the game is over, checked on every step."""
    while not state.is_over:
        seat = state.current_seat
        assert seat is not None and 0 <= seat < state.seats
        assert state.outcome() is None
        moves = state.legal_moves_for(seat)
        assert moves and state.default_move() in moves
        state = state.apply(rng.choice(moves), seat)
    return state


STARTS: dict[str, Callable[[int], GameState[Any, Any, Any]]] = {
    "tablic": lambda seed: tablic.new_match(tablic.Rules.preset("serbian", target=21), seed=seed),
    "tablic-partners": lambda seed: tablic.new_match(
        tablic.Rules.preset("serbian", players=4, partnerships=True, target=21), seed=seed
    ),
    "tac": lambda seed: tac.new_game(tac.Rules(players=3), seed=seed),
    "tac-calls": lambda seed: tac.new_game(tac.Rules(players=4, tac_calls=True), seed=seed),
}


@pytest.mark.parametrize("name", list(STARTS))
@pytest.mark.parametrize("seed", [1, 2])
def test_one_loop_plays_every_game_to_an_outcome(name: str, seed: int) -> None:
    start: GameState[Any, Any, Any] = STARTS[name](seed)
    final = play_out(start, random.Random(seed))
    outcome = final.outcome()
    assert isinstance(outcome, Outcome)
    sides = {final.side_of(seat) for seat in range(final.seats)}
    assert outcome.winner is None or outcome.winner in sides
    assert len(outcome.places) == len(sides)
    assert outcome.scores == () or len(outcome.scores) == len(sides)
    if outcome.winner is not None:
        assert outcome.places[outcome.winner] == 1
    assert final.current_seat is None and final.public_view().is_over
    assert final.view(0).seat == 0
    with pytest.raises(MatchOverError):
        final.default_move()
    forfeit = start.outcome(forfeit=0)
    assert forfeit is not None and forfeit.reason == "forfeit"
    assert forfeit.winner != start.side_of(0)
    replayed = type(final.record()).from_text(final.record().to_text()).replay()
    assert replayed.outcome() == outcome


@pytest.mark.parametrize("name", ["tablic", "tac"])
def test_a_seat_not_to_move_is_refused(name: str) -> None:
    state: GameState[Any, Any, Any] = STARTS[name](3)
    seat = state.current_seat
    assert seat is not None
    other = (seat + 1) % state.seats
    move = state.legal_moves_for(seat)[0]
    with pytest.raises(NotYourTurnError):
        state.apply(move, other)
    after = state.apply(move, seat)
    assert after.apply(after.default_move(), after.current_seat).outcome() is None


def test_tablic_asks_only_the_seat_to_move_tac_gives_others_nothing() -> None:
    match = STARTS["tablic"](4)
    with pytest.raises(NotYourTurnError):
        match.legal_moves_for(1)
    assert STARTS["tac"](4).legal_moves_for(1) == []
