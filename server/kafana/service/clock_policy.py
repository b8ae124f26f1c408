"""The clock's fault policy applied to tables: out of time, absent, illegal moves, abandoned.

`faults` decides (pure: which seat, which fault); this module acts on what it decided, with
one append at the table's seq (a process that raced another acts again on the next look).
"""

from __future__ import annotations

import logging

from kafana import metrics
from kafana.errors import IllegalMoveError, KafanaError, NotFoundError
from kafana.service import convert, faults
from kafana.service.presence import Presence, checks_presence
from kafana.service.session import ABANDONED, Session
from kafana.service.table_repository import TableRepository
from kafana.store.base import FINISHED, KEEP_TTL, PLAYING, Append
from kafana.v1 import events_pb2, rules_pb2

Kind = events_pb2.EventKind
log = logging.getLogger(__name__)


def next_deadline(session: Session, over: bool, now: int) -> int:
    """When the seat to move after `now` runs out of time (0: no clock, or over)."""
    millis = int(session.stored.clock.move_millis)
    return 0 if over or not millis else now + millis


class ClockPolicy:
    """Presence, deadlines and the faults the clock answers, on one repository."""

    def __init__(self, tables: TableRepository) -> None:
        self.tables = tables
        self.store = tables.store
        self.settings = tables.settings
        self.presence = Presence(tables.store.counters)  # seats seen, for the fault policy

    async def seen(self, session: Session, seat: int | None) -> None:
        """A call or stream with `seat`'s token: the seat is present (the fault policy's
        disconnect and no-show checks; throttled, and nothing on tables without them)."""
        if seat is not None and session.watches_presence and session.status != FINISHED:
            now = self.tables.now()
            clock = session.stored.clock
            await self.presence.mark(session.table_id, seat, session.players, clock, now)

    async def illegal(self, session: Session, seat: int, error: KafanaError) -> None:
        """Count a refused illegal move of `seat` (in the store: every process counts); at the
        clock's `illegal_limit` the seat forfeits (reason "illegal_move") and this raises."""
        limit = session.stored.clock.illegal_limit
        key = f"illegal:{session.table_id}:{seat}"
        now = self.tables.now()
        ttl = self.settings.idle_ttl_ms
        if not await self.store.counters.count(key, limit - 1, ttl, now):
            return
        if await self._end(session, Kind.EVENT_KIND_FORFEIT, seat, faults.ILLEGAL_MOVE, now):
            raise IllegalMoveError(
                f"{error}; seat {seat} forfeits the match after {limit} illegal moves"
            ) from error

    async def check_at(self, session: Session, now: int, deadline: int) -> None:
        """Index the table's next check: its move deadline or its next presence check."""
        seen = await self.presence.seen(session.table_id, now)
        check = faults.presence_fault(session, seen, now)
        when = now if isinstance(check, faults.Fault) else check
        moments = [m for m in (when, deadline) if m]
        await self.store.schedule(session.table_id, min(moments) if moments else 0)

    async def timeout(self, table_id: str) -> bool:
        """Apply the clock's fault policy if it is due (the seat to move out of time, an
        absent seat); True when applied. Otherwise index the table's next check."""
        try:
            session = await self.tables.session(table_id)
        except NotFoundError:
            await self.store.forget(table_id)
            return False
        now = self.tables.now()
        if session.status == FINISHED:
            await self.store.schedule(table_id, 0)
            return False
        clock = session.stored.clock
        check = 0
        if checks_presence(clock):
            found = faults.presence_fault(session, await self.presence.seen(table_id, now), now)
            if isinstance(found, faults.Fault):
                return await self._applied(session, await self._act(session, found, now), now)
            check = found
        deadline = session.deadline_ms if session.status == PLAYING else 0
        if not deadline or deadline > now:
            moments = [m for m in (check, deadline) if m]
            await self.store.schedule(table_id, min(moments) if moments else 0)
            return False
        seat = session.match.current_seat
        if seat is None:
            return False
        limit = clock.forfeit_after_timeouts
        if limit and faults.timeouts_of(session, seat) + 1 >= limit:
            fault = faults.Fault(Kind.EVENT_KIND_FORFEIT, seat, faults.TIMEOUTS)
        elif clock.policy == rules_pb2.TIMEOUT_POLICY_FORFEIT:
            fault = faults.Fault(Kind.EVENT_KIND_FORFEIT, seat, faults.TIMEOUT)
        else:
            fault = faults.Fault(Kind.EVENT_KIND_MOVE, seat, faults.TIMEOUT)
        return await self._applied(session, await self._act(session, fault, now), now)

    async def _applied(self, session: Session, applied: bool, now: int) -> bool:
        """After the policy acted on a table that checks presence: check it again soon."""
        if applied and checks_presence(session.stored.clock):
            await self.store.schedule(session.table_id, now + faults.MIN_CHECK_MS)
        return applied

    async def _act(self, session: Session, fault: faults.Fault, now: int) -> bool:
        """Append the policy's `fault` at `session`; True when applied."""
        if fault.kind == Kind.EVENT_KIND_MOVE:
            return await self._default_move(session, fault.seat, now, fault.reason)
        return await self._end(session, fault.kind, fault.seat, fault.reason, now)

    async def _end(
        self, session: Session, kind: Kind.ValueType, seat: int, reason: str, now: int
    ) -> bool:
        """End the match at `session`: `seat` forfeits, or the table closes; True if applied."""
        event = convert.stored_event(kind, seat, now, reason=reason)
        if not await self.tables.commit(session, self.tables.ending(session, event)):
            return False
        how = "closed" if kind == Kind.EVENT_KIND_CLOSED else f"seat {seat} forfeits"
        log.info("table %s: %s (%s)", session.table_id, how, reason)
        return True

    async def _default_move(self, session: Session, seat: int, now: int, reason: str) -> bool:
        """Play the clock's move for `seat` (reason "timeout" or "disconnect"); the seat
        forfeits when no default move can be found. True when applied."""
        match = session.match
        if faults.abandoned(session, seat, self.settings.abandon_after):
            return await self._abandon(session, now)
        move: object | None = None
        try:
            move = match.default_move()
        except KafanaError:  # no default move can be found: the seat forfeits instead
            log.exception("no default move at table %s; forfeiting", session.table_id)
        if move is None:
            event = convert.stored_event(Kind.EVENT_KIND_FORFEIT, seat, now, reason=reason)
            append = self.tables.ending(session, event)
        else:
            over = match.apply(move, seat).is_over
            event = convert.stored_event(
                Kind.EVENT_KIND_MOVE, seat, now, move_text=str(move), reason=reason
            )
            append = Append(
                event=session.log.pack(event),
                # A timeout does not keep the table alive: its time to live still counts
                # from the last move a seat played.
                ttl_ms=self.settings.finished_ttl_ms if over else KEEP_TTL,
                expected_seq=session.seq,
                expected_digest=session.log.digest,
                new_status=FINISHED if over else "",
                deadline_ms=next_deadline(session, over, now),
            )
        if not await self.tables.commit(session, append):
            return False
        metrics.move_applied(session.game.name, move is not None)
        return True

    async def _abandon(self, session: Session, now: int) -> bool:
        """End a match nobody plays: every seat ran out of time `abandon_after` turns in a row."""
        event = convert.stored_event(Kind.EVENT_KIND_CLOSED, 0, now, reason=ABANDONED)
        if not await self.tables.commit(session, self.tables.ending(session, event)):
            return False
        log.info(
            "table %s abandoned after %d timeouts in a row", session.table_id, session.timeouts + 1
        )
        metrics.TABLES_ABANDONED.inc()
        return True
