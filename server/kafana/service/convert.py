"""Domain objects to protobuf messages (the RPCs stay thin).

Tables, seats, results and events are converted here, for every game alike; each game's own
values (moves, views, its figures in a result) by its `TableGame` in `kafana.service.games`.
"""

from __future__ import annotations

from collections.abc import Iterable

from kafana.games.protocol import SCORE, STALLED
from kafana.games.records import score_detail
from kafana.service.session import ABANDONED, NO_SHOW, Session
from kafana.store.base import FINISHED, OPEN, PLAYING, Entry
from kafana.v1 import events_pb2, state_pb2, storage_pb2

MOVE = events_pb2.EVENT_KIND_MOVE
STATUS = {
    OPEN: state_pb2.TABLE_STATUS_OPEN,
    PLAYING: state_pb2.TABLE_STATUS_PLAYING,
    FINISHED: state_pb2.TABLE_STATUS_FINISHED,
}


def moves(session: Session, items: Iterable[object]) -> list[state_pb2.Move]:
    """A seat's legal moves on the wire (the table's game says what each shows)."""
    game = session.game
    return [game.move_message(session.match, m) for m in items]


def info(session: Session) -> state_pb2.TableInfo:
    """The public summary: never the seed, the decks or a hand."""
    stored = session.stored
    match = session.match
    seats = [
        state_pb2.Seat(
            seat=seat,
            side=match.side_of(seat),
            taken=seat in session.names,
            name=session.names.get(seat, ""),
        )
        for seat in range(session.players)
    ]
    return state_pb2.TableInfo(
        table_id=session.table_id,
        name=stored.name,
        rules=stored.spec,
        rules_json=stored.rules_json,
        clock=stored.clock,
        status=STATUS[session.status],
        seats=seats,
        seq=session.seq,
        created_ms=stored.created_ms,
        deal_chosen_by_creator=stored.deal_chosen_by_creator,
    )


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
        out.reason = reason
        if reason == SCORE:
            out.detail = score_detail(winner, out.scores)
        elif reason == STALLED:
            out.detail = "drawn: no card reached the central pile for too long"
        else:
            out.detail = f"seat {winner} went out first"
    else:
        out.reason = ending.reason
        if ending.seat is not None:
            out.forfeit_seat = ending.seat
            out.detail = f"seat {ending.seat} forfeited ({ending.why})"
        elif ending.reason == ABANDONED:
            out.detail = "abandoned: every seat ran out of time turn after turn"
        elif ending.reason == NO_SHOW:
            out.detail = "no result: no seat showed up"
        else:
            out.detail = "the admin closed the table"
    return out


def table_state(session: Session, seat: int | None) -> state_pb2.TableState:
    """The table as `seat` (None: a spectator) may see it."""
    out = state_pb2.TableState(
        info=info(session),
        seq=session.seq,
        deadline_ms=session.deadline_ms if session.status == PLAYING else 0,
        result=result(session),
    )
    session.game.fill_view(out, session.match, seat)
    return out


def event(
    before: Session,
    after: Session,
    seat: int | None,
    *,
    with_state: bool = True,
    entry: Entry | None = None,
    stored: storage_pb2.StoredEvent | None = None,
    out: events_pb2.Event | None = None,
) -> events_pb2.Event:
    """The public event that took `before` to `after`, with the table as `seat` sees it.

    `with_state=False` leaves the table out (a PlayMove answer: its `state` is opt-in);
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
    out.seq = seq
    out.time_ms = stored.time_ms
    out.kind = stored.kind
    out.seat = stored.seat
    out.name = stored.name
    out.reason = stored.reason or ("played" if stored.kind == MOVE else "")
    out.match_started = not before.started and after.started
    out.match_over = before.status != FINISHED and after.status == FINISHED
    if with_state:
        out.state.CopyFrom(table_state(after, seat))
    if stored.kind == MOVE:
        out.move.MergeFromString(after.game.played_bytes(after.match, stored.move))
    return out


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


__all__ = ["STATUS", "event", "info", "moves", "result", "stored_event", "table_state"]
