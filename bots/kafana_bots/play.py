"""The in-process match runner of every game: each seat's bot gets its view and legal moves.

Every in-process match (the arena, local tournaments, `kafana demo`, Tač bot games) is played
by `play`, over the game protocol (`kafana.games.protocol`). What one game adds to the loop is
a `Table`: Tablić tells its bots every public event; Tač offers the other seats a call on an
open offence before the seat to move plays. A referee that enforces more than legality (time
limits, faults, forfeits) passes `decide`, which obtains the seat's move in its own way or
stops the match.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from kafana.errors import IllegalMoveError
from kafana.games import tablic, tac
from kafana.games.protocol import GameState

from kafana_bots.base import Bot, Player
from kafana_bots.events import Event, HandEnded, HandStarted, MatchEnded, MovePlayed
from kafana_bots.tac_bots import TacBot

S = TypeVar("S", bound=GameState[Any, Any, Any])

DecisionHook = Callable[[int, float], None]
"""Called after each decision with (seat, seconds the decision took)."""

Decide = Callable[[int, Any, Sequence[Any]], Any]
"""(seat, its view, its legal moves) -> the move that seat plays, or None to stop the match."""


class Table:
    """What a game adds to the runner's loop; the base adds nothing."""

    def scored(self, state: Any) -> int:
        """Rounds scored so far (what `hands` counts): none by default."""
        return 0

    def before(self, state: Any) -> None:
        """Called before each decision of the seat to move."""

    def out_of_turn(self, state: Any) -> tuple[int, Any] | None:
        """A (seat, move) another seat makes before the seat to move decides, or None."""
        return None

    def played(self, before: Any, seat: int, move: Any, after: Any) -> None:
        """Called after each move."""

    def ended(self, state: Any) -> None:
        """Called once when the game is over."""


class TablicTable(Table):
    """Tablić: every bot is told of each hand dealt, move played, hand scored and the end."""

    def __init__(self, bots: Sequence[Bot], state: tablic.MatchState) -> None:
        self.bots = bots
        self.told_hand = state.hand_no if state.move_count and not _hand_fresh(state) else None

    def _tell(self, event: Event) -> None:
        for bot in self.bots:
            bot.observe(event)

    def scored(self, state: tablic.MatchState) -> int:
        return len(state.hand_results)

    def before(self, state: tablic.MatchState) -> None:
        if state.hand_no != self.told_hand:
            self.told_hand = state.hand_no
            self._tell(HandStarted(state.hand_no, state.table))

    def played(
        self, before: tablic.MatchState, seat: int, move: tablic.Move, after: tablic.MatchState
    ) -> None:
        self._tell(MovePlayed(seat, move))
        if len(after.hand_results) > len(before.hand_results):
            self._tell(HandEnded(after.hand_results[-1]))

    def ended(self, state: tablic.MatchState) -> None:
        self._tell(MatchEnded(state.scores))


class TacTable(Table):
    """Tač: on an open offence the other seats, in seat order after the offender, may call."""

    def __init__(self, bots: Sequence[TacBot]) -> None:
        self.bots = bots

    def out_of_turn(self, state: tac.GameState) -> tuple[int, tac.Move] | None:
        offender = state.pending_offender
        if offender is None:
            return None
        n = len(self.bots)
        for seat in ((offender + k) % n for k in range(1, n)):
            if seat != state.current_seat and self.bots[seat].wants_call(state.view(seat)):
                return seat, tac.Move.call(seat)
        return None


def table_for(state: Any, bots: Sequence[Any]) -> Table:
    """The game's part of the loop for `state`."""
    if isinstance(state, tablic.MatchState):
        return TablicTable(bots, state)
    if isinstance(state, tac.GameState):
        return TacTable(bots)
    return Table()


def play(
    state: S,
    bots: Sequence[Player[Any, Any, Any]],
    *,
    hands: int | None = None,
    max_moves: int | None = None,
    on_decision: DecisionHook | None = None,
    decide: Decide | None = None,
) -> S:
    """Play from `state` until the game ends, `hands` more hands are scored (Tablić) or the
    game has `max_moves` moves.

    Bots are indexed by seat. By default each seat's bot chooses; `decide` replaces that step
    (returning None ends play there, the game unfinished). A move outside the legal moves
    raises IllegalMoveError naming the seat's bot.
    """
    if len(bots) != state.seats:
        raise ValueError(f"{len(bots)} bots for a {state.seats}-player table")

    def ask(seat: int, view: Any, legal: Sequence[Any]) -> Any:
        return bots[seat].decided(view, legal)

    choose: Decide = ask if decide is None else decide
    table = table_for(state, bots)
    goal = None if hands is None else table.scored(state) + hands

    def going(state: S) -> bool:
        return not (
            state.is_over
            or (goal is not None and table.scored(state) >= goal)
            or (max_moves is not None and _moves(state) >= max_moves)
        )

    while going(state):
        other = table.out_of_turn(state)
        if other is not None:
            seat, move = other
        else:
            to_move = state.current_seat
            assert to_move is not None
            seat = to_move
            table.before(state)
            legal = state.legal_moves_for(seat)
            start = time.perf_counter()
            move = choose(seat, state.view(seat), legal)
            if on_decision is not None:
                on_decision(seat, time.perf_counter() - start)
            if move is None:
                break
            if move not in legal:
                raise IllegalMoveError(f"{bots[seat]!r} chose {move!r}, which is not legal here")
        before, state = state, state.apply(move, seat)
        table.played(before, seat, move, state)
    if state.is_over:
        table.ended(state)
    return state


def _moves(state: Any) -> int:
    count: int = state.move_count
    return count


def _hand_fresh(state: tablic.MatchState) -> bool:
    """True when no card of the current hand has been played yet."""
    rules = state.rules
    return (
        state.deck_remaining
        + len(state.table)
        + sum(len(state.hand(s)) for s in range(rules.players))
        == 52
        and len(state.table) == 4
    )
