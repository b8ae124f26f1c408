"""Fault policy: what happens to a seat that times out, disconnects or keeps moving illegally.

Every fault is recorded on its game with a reason code and the action taken, so standings and
exports show why a game ended the way it did.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


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
