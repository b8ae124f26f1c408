"""Moves: one move decided at `last_seq`, applied once however often it is sent.

A retry of an applied move (the same `client_move_id`, seq and move) answers the same; the
same id with another move is MoveIdReused, a `last_seq` ahead of the table SeqAhead, one
behind it (not a retry) StaleSequenceError.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from kafana import metrics
from kafana.errors import (
    IllegalMoveError,
    InvalidInputError,
    KafanaError,
    LastSeqMissing,
    MatchNotStartedError,
    MatchOverError,
    MoveIdMissing,
    MoveIdReused,
    NotYourTurnError,
    SeqAhead,
    StaleSequenceError,
)
from kafana.service import tokens
from kafana.service.clock_policy import ClockPolicy
from kafana.service.limits import MAX_CLIENT_MOVE_ID
from kafana.service.records import encode_fields
from kafana.service.seating import seat_of
from kafana.service.session import Session
from kafana.service.table_repository import TableRepository
from kafana.store.base import FINISHED, OPEN, PLAYING, Append, Outcome
from kafana.v1 import events_pb2, state_pb2, storage_pb2

MOVE = events_pb2.EVENT_KIND_MOVE
log = logging.getLogger(__name__)


@dataclass(slots=True)
class Played:
    """The answer to a move: the session afterwards and the event's sequence number.

    Slotted, not frozen (one a move: a frozen dataclass sets each field through
    `object.__setattr__`). Do not change one once made."""

    session: Session
    seq: int
    seat: int
    duplicate: bool = False
    before: Session | None = None  # the session just before a freshly applied move
    event: storage_pb2.StoredEvent | None = None  # and that move (the log need not be read)


def check_move_request(client_move_id: str, last_seq: int) -> None:
    """Refuse a PlayMove without its client_move_id (1..64 characters) or its last_seq."""
    if not client_move_id:
        raise MoveIdMissing(
            "PlayMove needs a client_move_id (1..64 characters, new for every move): a retry "
            "with the same id applies nothing twice",
            field="client_move_id",
        )
    if len(client_move_id) > MAX_CLIENT_MOVE_ID:
        raise InvalidInputError(
            f"a client_move_id has at most {MAX_CLIENT_MOVE_ID} characters, not "
            f"{len(client_move_id)}",
            field="client_move_id",
        )
    if last_seq < 1:
        raise LastSeqMissing(
            "PlayMove needs last_seq (>= 1): the sequence number of the state the move was "
            "chosen at (GetState, GetLegalMoves or the last event)",
            field="last_seq",
        )


def legal(session: Session, seat: int) -> Sequence[object]:
    """The legal moves of `seat` now, the same rule for every game: none before the start,
    once over, or while another seat is to move (a Tač call may be legal out of turn)."""
    if session.status != PLAYING:
        return []
    try:
        return session.match.legal_moves_for(seat)
    except NotYourTurnError:
        return []


def check_playing(session: Session) -> None:
    """Refuse a move before the match starts or once it is over."""
    if session.status == OPEN:
        missing = [s for s in range(session.players) if s not in session.names]
        waiting = ", ".join(map(str, missing))
        raise MatchNotStartedError(f"the match has not started: waiting for seat(s) {waiting}")
    if session.status == FINISHED:
        raise MatchOverError(f"the match at table {session.table_id} is over")


def _canonical(session: Session, move_text: str, seat: int) -> str:
    """The move as the log stores it ("" when it is no move at all)."""
    try:
        return session.game.parse_canonical(move_text, seat)[1]
    except KafanaError:
        return ""


def is_retry(session: Session, seat: int, tag: str, last_seq: int, move_text: str) -> bool:
    """Whether this is a retry of `seat`'s last tagged move (the same id, seq and move);
    MoveIdReused when that id was used for another move (or at another seq)."""
    mark = session.marks.get(seat)
    if not tag or mark is None or mark[1] != tag:
        return False
    played = storage_pb2.StoredEvent.FromString(session.log[mark[0] - 1].data).move
    if mark[0] == last_seq + 1 and _canonical(session, move_text, seat) == played:
        return True
    raise MoveIdReused(
        f"client_move_id was used for seat {seat}'s move {played!r} at seq {mark[0]}: "
        "choose a new id for every move (a retry sends the same move and last_seq)",
        field="client_move_id",
    )


class Moves:
    """Play moves on a repository's tables; the clock counts illegal ones."""

    def __init__(self, tables: TableRepository, clock: ClockPolicy) -> None:
        self.tables = tables
        self.clock = clock
        self.settings = tables.settings

    async def play(
        self,
        table_id: str,
        token: str,
        move: str | state_pb2.Move,
        client_move_id: str,
        last_seq: int,
    ) -> Played:
        """Play one move decided at `last_seq`; a retry of an applied move answers the same.

        `move`: its text or the wire Move (text or structured); `client_move_id`
        (1..MAX_CLIENT_MOVE_ID characters) and `last_seq` (>= 1) are required.
        """
        check_move_request(client_move_id, last_seq)
        session = await self.tables.current(table_id, last_seq)
        seat = seat_of(session, token)
        if session.watches_presence:  # (else `seen` does nothing: no coroutine made a move)
            await self.clock.seen(session, seat)
        move_text = move if isinstance(move, str) else session.game.move_text(move, seat)
        tag = tokens.dedupe_tag(seat, client_move_id)
        if session.seq != last_seq:
            return await self._not_current(session, seat, tag, last_seq, move_text)
        is_retry(session, seat, tag, last_seq, move_text)
        check_playing(session)
        try:
            chosen, text = session.game.parse_canonical(move_text, seat)
            after = session.match.apply(chosen, seat)
        except (IllegalMoveError, InvalidInputError) as error:
            fresh = await self.tables.session(table_id)  # illegal where the store holds it?
            if (fresh.seq, fresh.log.digest) != (session.seq, session.log.digest):
                return await self._refused(session, fresh, seat, tag, last_seq, move_text)
            if session.stored.clock.illegal_limit and session.match.current_seat == seat:
                await self.clock.illegal(session, seat, error)
            if isinstance(error, IllegalMoveError):
                raise
            raise IllegalMoveError(str(error), field="move") from None  # not a move: ILLEGAL_MOVE
        over = after.is_over
        now = self.tables.now()
        millis = session.move_millis
        deadline = 0 if over or not millis else now + millis
        # No reason stored for a normal move: "played" (bytes add up over a match).
        event = storage_pb2.StoredEvent(kind=MOVE, seat=seat, move=text, time_ms=now)
        record = encode_fields(MOVE, seat, now, session.log.last_ms, move=text, whole=event)
        rider = self.tables.rider  # the news the move makes, told in the append's write
        riders = None
        if rider is not None:
            riders = rider.riders(session, after, seat, last_seq + 1, deadline, tag)
        append = Append(
            event=record,
            ttl_ms=self.settings.finished_ttl_ms if over else self.settings.idle_ttl_ms,
            expected_seq=last_seq,
            expected_digest=session.log.digest,
            dedupe=tag,
            dedupe_slot=seat,
            new_status=FINISHED if over else "",
            deadline_ms=deadline if millis else None,
            riders=riders or (),
        )
        result = await self.tables.append(session, append)
        if result.outcome is Outcome.APPLIED:
            if rider is not None and riders is not None and (result.riders_run or not riders):
                rider.told(table_id, result.seq)
            metrics.move_applied(session.game.name)
            if over:
                log.info("table %s: match over at seq %d", table_id, result.seq)
            moved = session.moved(result.seq, event, record, after, deadline, tag)
            return Played(
                self.tables.remember(moved), result.seq, seat, before=session, event=event
            )
        fresh = await self.tables.session(table_id)
        return await self._refused(session, fresh, seat, tag, last_seq, move_text)

    async def _refused(
        self, session: Session, fresh: Session, seat: int, tag: str, last_seq: int, move_text: str
    ) -> Played:
        """A move decided on `session` that the store's table (`fresh`) does not continue."""
        if fresh.seq == last_seq and fresh.log.digest != session.log.digest:
            raise StaleSequenceError(
                f"table {fresh.table_id} is at {last_seq} with other events than the move was "
                f"chosen after (the store lost events): choose again at seq {last_seq}",
                field="last_seq",
            )
        return await self._not_current(fresh, seat, tag, last_seq, move_text)

    async def _not_current(
        self, session: Session, seat: int, tag: str, last_seq: int, move_text: str
    ) -> Played:
        """A request made at another seq than the table's: a retry, reused, stale or ahead."""
        if session.seq < last_seq:
            session = await self.tables.session(session.table_id)
        if session.seq < last_seq:
            raise SeqAhead(
                f"last_seq {last_seq} is ahead of table {session.table_id} (at {session.seq}): "
                "no state with that sequence number was sent",
                field="last_seq",
            )
        if is_retry(session, seat, tag, last_seq, move_text):
            return Played(session, last_seq + 1, seat, duplicate=True)
        if last_seq < session.seq:
            session = await self.tables.session(session.table_id)
            if is_retry(session, seat, tag, last_seq, move_text):
                return Played(session, last_seq + 1, seat, duplicate=True)
        raise StaleSequenceError(
            f"stale sequence number {last_seq}: table {session.table_id} is at {session.seq}",
            field="last_seq",
        )
