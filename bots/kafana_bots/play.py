"""The in-process match runner: each seat's bot gets its view and legal moves, and every event.

Every in-process match (the arena, local tournaments, `kafana demo`) is played by `play`. A
referee that enforces more than legality (time limits, faults, forfeits) passes `decide`,
which obtains the seat's move in its own way or stops the match.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from kafana.errors import IllegalMoveError
from kafana.games.tablic import MatchState, Move, View

from kafana_bots.base import Bot
from kafana_bots.events import Event, HandEnded, HandStarted, MatchEnded, MovePlayed

DecisionHook = Callable[[int, float], None]
"""Called after each decision with (seat, seconds the decision took)."""

Decide = Callable[[int, View, list[Move]], Move | None]
"""(seat, its view, its legal moves) -> the move that seat plays, or None to stop the match."""


def _tell(bots: Sequence[Bot], event: Event) -> None:
    for bot in bots:
        bot.observe(event)


def play(
    state: MatchState,
    bots: Sequence[Bot],
    *,
    hands: int | None = None,
    on_decision: DecisionHook | None = None,
    decide: Decide | None = None,
) -> MatchState:
    """Play from `state` until the match ends (or `hands` more hands are scored).

    Bots are indexed by seat. By default each seat's bot chooses; `decide` replaces that step
    (returning None ends play there, the match unfinished). A move outside the legal moves
    raises IllegalMoveError naming the seat's bot.
    """
    if len(bots) != state.rules.players:
        raise ValueError(f"{len(bots)} bots for a {state.rules.players}-player table")

    def ask(seat: int, view: View, legal: list[Move]) -> Move:
        return bots[seat].choose(view, legal)

    choose: Decide = ask if decide is None else decide
    done = 0
    started = len(state.hand_results)
    if state.move_count == 0 or _hand_fresh(state):
        _tell(bots, HandStarted(state.hand_no, state.table))
    while not state.is_over and (hands is None or done < hands):
        seat = state.current_seat
        assert seat is not None
        legal = state.legal_moves()
        view = state.view(seat)
        start = time.perf_counter()
        move = choose(seat, view, legal)
        elapsed = time.perf_counter() - start
        if on_decision is not None:
            on_decision(seat, elapsed)
        if move is None:
            break
        if move not in legal:
            raise IllegalMoveError(f"{bots[seat]!r} chose {move!r}, which is not legal here")
        state = state.apply(move)
        _tell(bots, MovePlayed(seat, move))
        if len(state.hand_results) > started + done:
            done += 1
            _tell(bots, HandEnded(state.hand_results[-1]))
            if not state.is_over and (hands is None or done < hands):
                _tell(bots, HandStarted(state.hand_no, state.table))
    if state.is_over:
        _tell(bots, MatchEnded(state.scores))
    return state


def _hand_fresh(state: MatchState) -> bool:
    """True when no card of the current hand has been played yet."""
    rules = state.rules
    return (
        state.deck_remaining
        + len(state.table)
        + sum(len(state.hand(s)) for s in range(rules.players))
        == 52
        and len(state.table) == 4
    )
