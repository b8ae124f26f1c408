"""The table's fault policy as decisions: what the clock sweeper does about absent seats.

Pure functions of a session, the seats seen (`kafana.service.presence`) and the time: a
`Fault` to append (its event kind, seat and reason), or the time of the next check. The
reasons are the table events' reason codes (docs/competitions.md, "Fault policy").
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from kafana.service.presence import Seen
from kafana.service.session import DEFAULTED, SEAT_TAKEN, Session
from kafana.store.base import PLAYING
from kafana.v1 import events_pb2, rules_pb2

NO_SHOW = "no_show"
DISCONNECT = "disconnect"
TIMEOUTS = "timeouts"
ILLEGAL_MOVE = "illegal_move"
TIMEOUT = "timeout"
MIN_CHECK_MS = 250
"""The shortest wait between two presence checks of one table."""

FORFEIT = events_pb2.EVENT_KIND_FORFEIT
CLOSED = events_pb2.EVENT_KIND_CLOSED
MOVE = events_pb2.EVENT_KIND_MOVE


@dataclass(frozen=True)
class Fault:
    """An event the policy appends: a forfeit, a close (nobody came) or a default move."""

    kind: events_pb2.EventKind.ValueType
    seat: int
    reason: str


def started_ms(session: Session) -> int:
    """When the match started: the time of the seat-taking that filled the table."""
    started = session.stored.created_ms
    for _seq, _record, event in session.log.events():
        if event.kind == SEAT_TAKEN:
            started = event.time_ms
    return started


def timeouts_of(session: Session, seat: int) -> int:
    """How many times the clock played a move for `seat` in this match."""
    return sum(
        1
        for _seq, _record, event in session.log.events()
        if event.kind == MOVE and event.seat == seat and event.reason == TIMEOUT
    )


def abandoned(session: Session, seat: int, after: int) -> bool:
    """Whether the clock playing for `seat` now abandons the match: since the last move a seat
    played itself, the clock will have played `after` moves of every seat.

    Counted per seat: one away seat whose turn runs to several server-played steps (Tač) is
    played for to the end while another seat plays; only when every seat is away does it end.
    """
    if session.timeouts + 1 < after * session.players:  # too short a run for every seat
        return False
    played: Counter[int] = Counter({seat: 1})
    for _seq, _record, event in session.log.events():
        if event.kind != MOVE:
            continue
        if event.reason in DEFAULTED:
            played[event.seat] += 1
        else:
            played = Counter({seat: 1})
    return all(played[s] >= after for s in range(session.players))


def presence_fault(session: Session, seen: Seen, now_ms: int) -> Fault | int:
    """The fault absent seats commit now, else when to check again (0: never)."""
    clock = session.stored.clock
    checks: list[int] = []
    no_show, grace = clock.no_show_millis, clock.disconnect_grace_millis
    if no_show:
        missing = [s for s in range(session.players) if s not in seen.ever]
        due = session.stored.created_ms + no_show
        if missing and now_ms >= due:
            if len(missing) == session.players:
                return Fault(CLOSED, 0, NO_SHOW)
            return Fault(FORFEIT, missing[0], NO_SHOW)
        if missing:
            checks.append(due)
    if grace and session.status == PLAYING:
        seat = session.match.current_seat
        step = max(MIN_CHECK_MS, grace)  # a present seat: checked again once a grace
        if seat is None or seat in seen.recent:
            checks.append(now_ms + step)
        elif no_show and seat not in seen.ever:
            pass  # never came: the no-show check answers for it
        else:
            since = started_ms(session) + grace
            if now_ms < since:
                checks.append(since)
            elif clock.on_disconnect == rules_pb2.TIMEOUT_POLICY_FORFEIT:
                return Fault(FORFEIT, seat, DISCONNECT)
            else:
                return Fault(MOVE, seat, DISCONNECT)
    return min(checks) if checks else 0
