"""Domain objects to protobuf messages (the RPCs stay thin).

Tables, seats, results and events are converted here, for every game alike; each game's own
values (moves, views, what an event changed, its figures in a result) by its `TableGame` in
`kafana.service.games`. The stored events keep their reasons as words ("timeout", "left"...);
the wire has enums (`EVENT_REASONS`, `RESULT_REASONS`).
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from itertools import pairwise
from typing import TYPE_CHECKING

from kafana.games.protocol import FORFEIT, OUT, SCORE, STALLED
from kafana.games.records import score_detail
from kafana.service.games import rules_in_force_bytes
from kafana.service.session import ABANDONED, NO_SHOW, Session
from kafana.store.base import FINISHED, OPEN, PLAYING, Entry
from kafana.v1 import events_pb2, service_pb2, state_pb2, storage_pb2

if TYPE_CHECKING:  # playing imports the clock policy, which imports this module
    from kafana.service.playing import Played

MOVE = events_pb2.EVENT_KIND_MOVE
STATUS = {
    OPEN: state_pb2.TABLE_STATUS_OPEN,
    PLAYING: state_pb2.TABLE_STATUS_PLAYING,
    FINISHED: state_pb2.TABLE_STATUS_FINISHED,
}
EVENT_REASONS: dict[str, state_pb2.EventReason.ValueType] = {
    "played": state_pb2.EVENT_REASON_PLAYED,
    "timeout": state_pb2.EVENT_REASON_TIMEOUT,
    "timeouts": state_pb2.EVENT_REASON_TIMEOUTS,
    "left": state_pb2.EVENT_REASON_LEFT,
    "disconnect": state_pb2.EVENT_REASON_DISCONNECT,
    "no_show": state_pb2.EVENT_REASON_NO_SHOW,
    "illegal_move": state_pb2.EVENT_REASON_ILLEGAL_MOVE,
    "admin": state_pb2.EVENT_REASON_ADMIN,
    "abandoned": state_pb2.EVENT_REASON_ABANDONED,
    "adjudicated": state_pb2.EVENT_REASON_ADJUDICATED,
    "declined": state_pb2.EVENT_REASON_DECLINED,
}
"""A stored event's reason (and a forfeit's `Ending.why`) on the wire; any other word (none
is logged) is UNSPECIFIED."""
RESULT_REASONS: dict[str, state_pb2.ResultReason.ValueType] = {
    SCORE: state_pb2.RESULT_REASON_SCORE,
    OUT: state_pb2.RESULT_REASON_OUT,
    STALLED: state_pb2.RESULT_REASON_STALLED,
    FORFEIT: state_pb2.RESULT_REASON_FORFEIT,
    "closed": state_pb2.RESULT_REASON_CLOSED,
    ABANDONED: state_pb2.RESULT_REASON_ABANDONED,
    NO_SHOW: state_pb2.RESULT_REASON_NO_SHOW,
}
"""A game's outcome reason or a session's `Ending.reason` on the wire."""


def wall_ms() -> int:
    """Now, in Unix milliseconds (the default `now_ms` of `table_state`)."""
    return int(time.time() * 1000)


def event_reason(word: str, kind: int = 0) -> state_pb2.EventReason.ValueType:
    """A stored reason word as an `EventReason` (a move without one was played by its seat)."""
    if not word and kind == MOVE:
        return state_pb2.EVENT_REASON_PLAYED
    return EVENT_REASONS.get(word, state_pb2.EVENT_REASON_UNSPECIFIED)


def moves(session: Session, items: Iterable[object]) -> list[state_pb2.Move]:
    """A seat's legal moves on the wire (the table's game says what each shows)."""
    game = session.game
    return [game.move_message(session.match, m) for m in items]


def move_text(session: Session, move: state_pb2.Move, seat: int) -> str:
    """The text of the wire move `seat` sends to this table (PlayMove): its text, or its
    structured branch as text; both must name the same move (InvalidInputError)."""
    return session.game.move_text(move, seat)


def info(session: Session) -> state_pb2.TableInfo:
    """The public summary: never the seed, the decks or a hand; the rules in force."""
    stored = session.stored
    match = session.match
    bots = {b.seat: b.bot for b in stored.bots}
    seats = [
        state_pb2.Seat(
            seat=seat,
            side=match.side_of(seat),
            taken=seat in session.names,
            name=session.names.get(seat, ""),
            bot=bots.get(seat, ""),
        )
        for seat in range(session.players)
    ]
    out = state_pb2.TableInfo(
        table_id=session.table_id,
        name=stored.name,
        clock=stored.clock,
        status=STATUS[session.status],
        seats=seats,
        seq=session.seq,
        created_ms=stored.created_ms,
        deal_chosen_by_creator=stored.deal_chosen_by_creator,
        hints=stored.hints,
    )
    out.rules.MergeFromString(rules_in_force_bytes(stored.spec, stored.rules_json))
    return out


def result(session: Session) -> state_pb2.Result:
    """How the match ended (empty while it runs)."""
    if session.status != FINISHED:
        return state_pb2.Result()
    out = state_pb2.Result()
    session.game.fill_result(out, session.match)
    winner = session.winner_side()
    if winner is not None:
        out.winner_side = winner
    ending = session.ending
    if ending is None:
        outcome = session.match.outcome()
        reason = "" if outcome is None else outcome.reason
        out.reason = RESULT_REASONS.get(reason, state_pb2.RESULT_REASON_UNSPECIFIED)
        if reason == SCORE:
            out.detail = score_detail(winner, out.scores)
        elif reason == STALLED:
            out.detail = "drawn: no card reached the central pile for too long"
        else:
            out.detail = f"seat {winner} went out first"
    else:
        out.reason = RESULT_REASONS.get(ending.reason, state_pb2.RESULT_REASON_UNSPECIFIED)
        if ending.seat is not None:
            out.forfeit_seat = ending.seat
            out.forfeit_reason = event_reason(ending.why)
            out.detail = f"seat {ending.seat} forfeited ({ending.why})"
        elif ending.reason == ABANDONED:
            out.detail = "abandoned: every seat ran out of time turn after turn"
        elif ending.reason == NO_SHOW:
            out.detail = "no result: no seat showed up"
        else:
            out.detail = "the admin closed the table"
    return out


def current_seat(session: Session) -> int | None:
    """The seat to move: None before the match starts and once it is over."""
    return session.match.current_seat if session.status == PLAYING else None


def remaining_millis(session: Session, now_ms: int) -> list[int]:
    """Per seat, with a clock and while the match runs: the seat to move's time left (never
    below 0), the full move time for the others; empty otherwise."""
    millis = int(session.stored.clock.move_millis)
    seat = current_seat(session)
    if not millis or seat is None:
        return []
    out = [millis] * session.players
    if session.deadline_ms:
        out[seat] = max(0, min(millis, session.deadline_ms - now_ms))
    return out


def table_state(
    session: Session, seat: int | None, *, now_ms: int | None = None
) -> state_pb2.TableState:
    """The table as `seat` (None: a spectator) may see it; `now_ms` (default: the wall clock)
    counts the seat to move's remaining time. No cards before every seat is taken: the deal
    is shown once the match starts, so no creator can look at it and abandon a bad one."""
    out = state_pb2.TableState(
        info=info(session),
        seq=session.seq,
        result=result(session),
        remaining_millis=remaining_millis(session, wall_ms() if now_ms is None else now_ms),
    )
    to_move = current_seat(session)
    if to_move is not None:
        out.current_seat = to_move
    if session.status != OPEN:
        session.game.fill_view(out, session.match, seat)
    else:  # no card before the table fills: nobody sees a deal they could still walk away from
        waiting = getattr(out, session.game.name)  # the game's view, empty but for the seat
        waiting.SetInParent()
        if seat is not None:
            waiting.seat = seat
    return out


def event(
    before: Session,
    after: Session,
    seat: int | None,
    *,
    with_state: bool = False,
    entry: Entry | None = None,
    stored: storage_pb2.StoredEvent | None = None,
    out: events_pb2.Event | None = None,
    now_ms: int | None = None,
) -> events_pb2.Event:
    """The public event that took `before` to `after`, as `seat` (None: a spectator) may see
    it: what changed (the seat to move, the cards dealt, a hand's score, a Tač step, the
    result once over), never another seat's cards nor the deck.

    `with_state` adds the whole table as `seat` sees it (a feed opened `with_state`; GetRecord
    and PlayMove leave it out); `now_ms`, the time its clock counts from (default: now);
    `entry` is the event's log entry when the caller has it (else it is read from the log);
    `stored`, the event itself when the caller has it (it is `after`'s last, at `after.seq`);
    `out`, an empty Event to fill (the answer's own field: no copy) instead of a new one.
    """
    if stored is None:
        entry = after.log[-1] if entry is None else entry
        stored = storage_pb2.StoredEvent.FromString(entry.data)
        seq = entry.seq
    else:
        seq = after.seq
    if out is None:
        out = events_pb2.Event()
    started = not before.started and after.started
    over = before.status != FINISHED and after.status == FINISHED
    moved = stored.kind == MOVE
    out.seq = seq
    out.time_ms = stored.time_ms
    out.kind = stored.kind
    # `out` is empty: a field left at its default is what setting the default makes (no
    # field below has presence), and each set costs a lookup by name.
    if stored.seat:
        out.seat = stored.seat
    if stored.name:
        out.name = stored.name
    out.reason = event_reason(stored.reason, stored.kind)
    if started:
        out.match_started = True
    if over:
        out.match_over = True
    to_move = current_seat(after)
    if to_move is not None:
        out.current_seat = to_move
    if moved:
        out.move.MergeFromString(after.game.played_bytes(after.match, stored.move))
    if started or moved:
        after.game.fill_event(out, before.match, after.match, seat, started=started, moved=moved)
    if over:
        out.result.CopyFrom(result(after))
    if with_state:
        out.state.CopyFrom(table_state(after, seat, now_ms=now_ms))
    return out


def record(session: Session) -> service_pb2.GetRecordResponse:
    """A finished match's result, record and every event, as a spectator sees them."""
    replays = [Session.start(session.table_id, session.stored), *session.replays()]
    events = [event(before, after, None) for before, after in pairwise(replays)]
    return service_pb2.GetRecordResponse(
        result=result(session), record=session.record_text(), events=events
    )


def move_answer(played: Played, *, with_state: bool = False) -> service_pb2.PlayMoveResponse:
    """PlayMove's answer: the move's event as its seat sees it, the scores, the result once
    over and, `with_state`, the table. A freshly applied move carries the table just before
    it (`played.before`) and the move (`played.event`); a retry (no `before`) answers with
    the tables around the move it already applied at `played.seq`."""
    session, seq, seat, stored = played.session, played.seq, played.seat, played.event
    before = played.before
    if before is not None:
        after = session
    else:
        replays = session.replays()
        before = replays[seq - 2] if seq > 1 else Session.start(session.table_id, session.stored)
        after = replays[seq - 1]
        stored = None
    answer = service_pb2.PlayMoveResponse(scores=after.game.scores(after.match))
    if played.duplicate:  # (a keyword set to its default costs a lookup by name too)
        answer.duplicate = True
    event(before, after, seat, stored=stored, out=answer.event)
    if after.status == FINISHED:
        answer.result.CopyFrom(result(after))
    if with_state:
        answer.state.CopyFrom(table_state(session, seat))
    return answer


def stored_event(
    kind: events_pb2.EventKind.ValueType,
    seat: int,
    time_ms: int,
    *,
    move_text: str = "",
    reason: str = "",
    name: str = "",
) -> bytes:
    """One log entry, encoded."""
    return storage_pb2.StoredEvent(
        kind=kind, seat=seat, move=move_text, reason=reason, time_ms=time_ms, name=name
    ).SerializeToString()


__all__ = [
    "EVENT_REASONS",
    "RESULT_REASONS",
    "STATUS",
    "current_seat",
    "event",
    "event_reason",
    "info",
    "move_answer",
    "move_text",
    "moves",
    "record",
    "remaining_millis",
    "result",
    "stored_event",
    "table_state",
]
