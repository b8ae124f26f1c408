"""Domain objects to protobuf messages, all in one module (the RPCs stay thin)."""

from __future__ import annotations

from collections.abc import Iterable

from kafana.games import tablic
from kafana.service.session import Session
from kafana.store.base import FINISHED, OPEN, PLAYING
from kafana.v1 import events_pb2, state_pb2, storage_pb2

STATUS = {
    OPEN: state_pb2.TABLE_STATUS_OPEN,
    PLAYING: state_pb2.TABLE_STATUS_PLAYING,
    FINISHED: state_pb2.TABLE_STATUS_FINISHED,
}


def cards(items: Iterable[tablic.Card]) -> list[str]:
    """Canonical card texts in canonical order."""
    return [c.text for c in sorted(items)]


def move(value: tablic.Move) -> state_pb2.Move:
    """A move as text and cards."""
    return state_pb2.Move(text=str(value), card=value.card.text, captured=cards(value.captured))


def info(session: Session) -> state_pb2.TableInfo:
    """The public summary: never the seed, the decks or a hand."""
    stored = session.stored
    rules = session.match.rules
    seats = [
        state_pb2.Seat(
            seat=seat,
            side=rules.side_of(seat),
            taken=seat in session.names,
            name=session.names.get(seat, ""),
        )
        for seat in range(rules.players)
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
    )


def _hand_score(result: tablic.HandResult) -> state_pb2.HandScore:
    score = state_pb2.HandScore(
        hand=result.hand,
        cards=result.cards,
        card_points=result.card_points,
        most_cards=result.most_cards,
        tablas=result.tablas,
        points=result.points,
    )
    if result.last_capturer is not None:
        score.last_capturer = result.last_capturer
    return score


def tablic_view(view: tablic.View) -> state_pb2.TablicView:
    """A seat's (or a spectator's) view: own hand only, other hands as sizes, deck as a count."""
    out = state_pb2.TablicView(
        hand=cards(view.hand or ()),
        table=cards(view.table),
        hand_no=view.hand_no,
        dealer=view.dealer,
        move_count=view.move_count,
        hand_sizes=view.hand_sizes,
        deck_remaining=view.deck_remaining,
        captured=[state_pb2.Cards(cards=cards(pile)) for pile in view.captured],
        tablas=view.tablas,
        scores=view.scores,
        hand_results=[_hand_score(r) for r in view.hand_results],
        is_over=view.is_over,
    )
    if view.seat is not None:
        out.seat = view.seat
    if view.current_seat is not None:
        out.current_seat = view.current_seat
    if view.last_capturer is not None:
        out.last_capturer = view.last_capturer
    return out


def result(session: Session) -> state_pb2.Result:
    """How the match ended (empty while it runs)."""
    if session.status != FINISHED:
        return state_pb2.Result()
    out = state_pb2.Result(scores=session.match.scores)
    winner = session.winner_side()
    if winner is not None:
        out.winner_side = winner
    ending = session.ending
    if ending is None:
        out.reason = "score"
        out.detail = f"side {winner} won " + "-".join(map(str, session.match.scores))
    else:
        out.reason = ending.reason
        if ending.seat is not None:
            out.forfeit_seat = ending.seat
            out.detail = f"seat {ending.seat} forfeited ({ending.why})"
        else:
            out.detail = "the admin closed the table"
    return out


def table_state(session: Session, seat: int | None) -> state_pb2.TableState:
    """The table as `seat` (None: a spectator) may see it."""
    view = session.match.public_view() if seat is None else session.match.view(seat)
    return state_pb2.TableState(
        info=info(session),
        seq=session.seq,
        deadline_ms=session.deadline_ms if session.status == PLAYING else 0,
        tablic=tablic_view(view),
        result=result(session),
    )


def event(before: Session, after: Session, seat: int | None) -> events_pb2.Event:
    """The public event that took `before` to `after`, with the table as `seat` sees it."""
    entry = after.log[-1]
    stored = storage_pb2.StoredEvent.FromString(entry.data)
    out = events_pb2.Event(
        seq=entry.seq,
        time_ms=stored.time_ms,
        kind=stored.kind,
        seat=stored.seat,
        name=stored.name,
        reason=stored.reason or ("played" if stored.kind == events_pb2.EVENT_KIND_MOVE else ""),
        match_started=not before.started and after.started,
        match_over=before.status != FINISHED and after.status == FINISHED,
        state=table_state(after, seat),
    )
    if stored.kind == events_pb2.EVENT_KIND_MOVE:
        out.move.CopyFrom(move(tablic.Move.parse(stored.move)))
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
