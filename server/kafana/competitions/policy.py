"""Fault policy: what happens to a seat that times out, disconnects or keeps moving illegally.

Every fault is recorded on its game with a reason code and the action taken, so standings and
exports show why a game ended the way it did.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Reason(StrEnum):
    """Why a seat was penalised (or a game decided off the board)."""

    TIMEOUT = "timeout"
    DISCONNECT = "disconnect"
    ILLEGAL_MOVES = "illegal_moves"
    ADJUDICATED = "adjudicated"
    EVENT_ENDED = "event_ended"


class Action(StrEnum):
    """What the policy does about a fault."""

    DEFAULT_MOVE = "default_move"  # play the seat's first legal move (a trail when it can)
    FORFEIT_HAND = "forfeit_hand"  # the seat plays default moves until the hand is over
    FORFEIT_MATCH = "forfeit_match"  # the seat's side loses the match


@dataclass(frozen=True)
class FaultPolicy:
    """One event's policy. `move_ms` 0 means no clock."""

    move_ms: int = 0
    on_timeout: Action = Action.DEFAULT_MOVE
    disconnect_grace_ms: int = 5_000
    on_disconnect: Action = Action.FORFEIT_MATCH
    illegal_limit: int = 3
    on_illegal: Action = Action.FORFEIT_MATCH

    def action(self, reason: Reason) -> Action:
        """The action this policy takes for `reason`."""
        if reason is Reason.TIMEOUT:
            return self.on_timeout
        if reason is Reason.DISCONNECT:
            return self.on_disconnect
        if reason is Reason.ILLEGAL_MOVES:
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
