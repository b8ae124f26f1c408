"""Fault policy: what happens to a seat that times out, disconnects or keeps moving illegally.

Every fault is recorded on its game with a reason code and the action taken, so standings and
exports show why a game ended the way it did. Where it is applied: a game on a server table by
the table itself (`table_results.clock_spec` turns the policy into the table's clock: every
runner on a server, the hosted director and `kafana tournament run --server`, leaves its seats
to it); a game played in-process by `Referee` here, the `decide` step of the one match runner
(`kafana_bots.play.play`).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from kafana_bots.base import Player


class Reason(StrEnum):
    """Why a seat was penalised (or a game decided off the board): the reason codes of
    docs/competitions.md ("Fault policy"); the table events' reasons where a table says it."""

    TIMEOUT = "timeout"  # out of time for one move
    TIMEOUTS = "timeouts"  # out of time `timeouts_to_forfeit` times in the match
    DISCONNECT = "disconnect"  # the seat to move not seen for the grace (its bot gone)
    ILLEGAL_MOVE = "illegal_move"  # `illegal_limit` illegal moves refused
    ILLEGAL_MOVES = "illegal_move"  # the old name (an alias: the same code)
    NO_SHOW = "no_show"  # not seen within `no_show_ms` of the table's creation
    ADJUDICATED = "adjudicated"
    EVENT_ENDED = "event_ended"


class Action(StrEnum):
    """What the policy does about a fault."""

    DEFAULT_MOVE = "default_move"  # play the seat's first legal move (a trail when it can)
    FORFEIT_HAND = "forfeit_hand"  # the seat plays default moves until the hand is over
    FORFEIT_MATCH = "forfeit_match"  # the seat's side loses the match


@dataclass(frozen=True)
class FaultPolicy:
    """One event's policy. `move_ms` 0 means no clock; `timeouts_to_forfeit` and `no_show_ms`
    0 turn those checks off (a table enforces them: `table_results.game_table_config`)."""

    move_ms: int = 0
    on_timeout: Action = Action.DEFAULT_MOVE
    disconnect_grace_ms: int = 5_000
    on_disconnect: Action = Action.FORFEIT_MATCH
    illegal_limit: int = 3
    on_illegal: Action = Action.FORFEIT_MATCH
    timeouts_to_forfeit: int = 0
    no_show_ms: int = 0

    def action(self, reason: Reason) -> Action:
        """The action this policy takes for `reason`."""
        if reason is Reason.TIMEOUT:
            return self.on_timeout
        if reason is Reason.DISCONNECT:
            return self.on_disconnect
        if reason is Reason.ILLEGAL_MOVE:
            return self.on_illegal
        return Action.FORFEIT_MATCH


@dataclass(frozen=True)
class Fault:
    """One fault of one seat: at which move, why, and what was done."""

    seat: int
    reason: Reason
    action: Action
    move_no: int  # moves played in the match before the fault
    detail: str = ""

    def code(self) -> str:
        """A compact code for exports: ``seat1:timeout->default_move@12``."""
        return f"seat{self.seat}:{self.reason.value}->{self.action.value}@{self.move_no}"


@dataclass
class Referee:
    """The policy applied in-process: each seat's decision through `decide`, the match
    runner's hook (`kafana_bots.play.play(state, bots, decide=referee.decide)`).

    A decision is timed (past `move_ms` its move is discarded: a timeout); a bot that raises
    is a disconnect; a move that is not legal is asked for again, `illegal_limit` times in all.
    The fault's action then applies: the default move (the first legal one, a trail when there
    is one), default moves to the end of the hand (Tač: of the game), or a forfeit (`decide`
    answers None, which stops the match; `forfeit` says whose). Every fault is in `faults`.
    """

    policy: FaultPolicy
    bots: Sequence[Player[Any, Any, Any]]
    faults: list[Fault] = field(default_factory=list, init=False)
    forfeit: int | None = field(default=None, init=False)
    """The seat whose side forfeited the match (None: none)."""
    _autopilot: dict[int, int] = field(default_factory=dict, init=False, repr=False)
    """Seat -> the hand it plays by default moves (Tač, whose views have no hand: the game)."""

    def decide(self, seat: int, view: Any, legal: Sequence[Any]) -> Any:
        """The move `seat` plays at `view` under the policy; None: its side forfeits."""
        hand = getattr(view, "hand_no", 0)
        if self._autopilot.get(seat) == hand:
            return legal[0]
        move, reason, detail = self._ask(seat, view, legal)
        if reason is None:
            return move
        action = self.policy.action(reason)
        self.faults.append(Fault(seat, reason, action, view.move_count, detail))
        if action is Action.FORFEIT_MATCH:
            self.forfeit = seat
            return None
        if action is Action.FORFEIT_HAND:
            self._autopilot[seat] = hand
        return legal[0]

    def _ask(self, seat: int, view: Any, legal: Sequence[Any]) -> tuple[Any, Reason | None, str]:
        """The bot's move, or the fault it committed and its detail."""
        limit = self.policy.illegal_limit
        for _attempt in range(max(1, limit)):
            start = time.perf_counter()
            try:
                move = self.bots[seat].choose(view, legal)
            except Exception as exc:  # a crashing bot is a disconnected seat
                return None, Reason.DISCONNECT, f"{type(exc).__name__}: {exc}"
            elapsed_ms = (time.perf_counter() - start) * 1000
            if self.policy.move_ms and elapsed_ms > self.policy.move_ms:
                return None, Reason.TIMEOUT, f"{elapsed_ms:.0f} ms > {self.policy.move_ms} ms"
            if move in legal:
                return move, None, ""
        return None, Reason.ILLEGAL_MOVE, f"{limit} illegal moves"
