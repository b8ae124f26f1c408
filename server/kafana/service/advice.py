"""Analyze: the engine's advice on a Tablić position, bounded and off the event loop.

A position is a table's session at a seq and a seat: live (the seat to move now, on a table
created with `hints`) or in a finished match (a game review). The seat's view is analysed as
`kafana_bots.analysis` does it, with what that seat saw this deal (`PlayLog`: the public moves)
for inference. What a call may cost is bounded three ways:

- its CPU time: `budget_ms`, coerced to at most `Advisor.max_ms` (the budget is the worker
  thread's CPU time, so a busy machine gets the same search, only later);
- the process: `workers` analyses run at once in their own threads, at most `waiting` more
  queue; past that RESOURCE_EXHAUSTED (QUOTA_EXCEEDED, retry after a budget's time);
- each caller (account or address): one analysis at a time.

The replay to the position (the match from its start: 135 ms for a long one) is the worker's
too, after the caller's slot is held: never on the event loop, never for a refused call.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from kafana_bots.analysis import Analysis, analyze
from kafana_bots.knowledge import PlayLog

from kafana.errors import InvalidInputError, NotYourTurnError, PermissionDeniedError
from kafana.games import tablic
from kafana.service.bot_seats import bot_events
from kafana.service.follow import steps
from kafana.service.quotas import QuotaExceeded
from kafana.service.session import Session
from kafana.service.tables import Tables
from kafana.store.base import FINISHED

DEFAULT_MS = 200
MAX_MS = 1_000
WORKERS = 2
WAITING = 16


@dataclass(frozen=True)
class Position:
    """What one analysis looks at: the seat's view, its legal moves and what it saw."""

    view: tablic.View
    moves: list[tablic.Move]
    log: PlayLog
    seq: int
    seat: int
    played: tablic.Move | None = None


def checked_seq(session: Session, seat: int, at_seq: int | None) -> int:
    """The seq to analyse `seat` at (`at_seq`, None: now), checked against the table."""
    if not isinstance(session.match, tablic.MatchState):
        raise InvalidInputError("Analyze plays Tablić only", field="table_id")
    if not 0 <= seat < session.players:
        raise InvalidInputError(f"seat {seat} is not a seat of this table", field="seat")
    seq = session.seq if at_seq is None else at_seq
    if seq > session.seq:
        raise InvalidInputError(f"at_seq {seq} is past the table's last event", field="at_seq")
    return seq


def position(session: Session, seat: int, seq: int) -> Position:
    """The position of `seat` at `seq` (`checked_seq`) of a Tablić table, with its play log:
    the match replayed from its start (a worker thread's work, as the analysis is)."""
    log = PlayLog()
    before = Session.start(session.table_id, session.stored)
    played: tablic.Move | None = None
    at = before
    for event, after in steps(before, session):
        if after.seq > seq:
            if event.seat == seat and event.move:
                played = tablic.Move.parse(event.move)
            break
        for item in bot_events(event, at, after):
            log.observe(item)
        at = after
    match = at.match
    assert isinstance(match, tablic.MatchState)
    if match.is_over or match.current_seat != seat or not at.started:
        raise NotYourTurnError(f"seat {seat} is not to move at seq {seq}: nothing to analyse")
    return Position(match.view(seat), list(match.legal_moves()), log, seq, seat, played)


def check_allowed(session: Session, at_seq: int | None) -> None:
    """Live advice only on tables created with hints; reviews only of finished matches."""
    if at_seq is None and not session.stored.hints:
        raise PermissionDeniedError(
            f"table {session.table_id} gives no hints: advice is for tables created with "
            "hints, or for a finished match (at_seq)",
            needs="hints",
        )
    if at_seq is not None and session.status != FINISHED:
        raise InvalidInputError(
            "at_seq reviews a finished match: this one is still being played", field="at_seq"
        )


@dataclass
class Advisor:
    """Runs analyses in worker threads within the bounds of the module's text."""

    default_ms: int = DEFAULT_MS
    max_ms: int = MAX_MS
    workers: int = WORKERS
    waiting: int = WAITING
    _busy: set[str] = field(default_factory=set)
    _pool: ThreadPoolExecutor | None = None

    def budget(self, asked: int) -> int:
        """The budget a call gets: the default for 0, never more than `max_ms`."""
        return min(asked or self.default_ms, self.max_ms)

    async def run(
        self, caller: str, where: Callable[[], Position], budget_ms: int
    ) -> tuple[Position, Analysis]:
        """The position `where` makes and its analysis, for `caller` (QuotaExceeded past the
        bounds, before `where` is called): both in a worker thread."""
        if caller in self._busy:
            raise QuotaExceeded(
                "one analysis at a time: wait for the answer of the one running",
                self.max_ms,
                quota="analysis_per_caller",
            )
        if len(self._busy) >= self.workers + self.waiting:
            raise QuotaExceeded(
                "the server is busy analysing: retry shortly", self.max_ms, quota="analyses"
            )
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self.workers, thread_name_prefix="kafana-analysis")
        self._busy.add(caller)
        try:
            work = functools.partial(_analysed, where, budget_ms)
            return await asyncio.get_running_loop().run_in_executor(self._pool, work)
        finally:
            self._busy.discard(caller)

    def close(self) -> None:
        """Stop the worker threads (the server's shutdown)."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)


async def advise(
    tables: Tables,
    advisor: Advisor,
    caller: str,
    table_id: str,
    token: str,
    *,
    budget_ms: int,
    at_seq: int | None,
    seat: int | None,
) -> tuple[Session, Position, Analysis]:
    """The Analyze call: the table, the position analysed and the engine's answer.

    Live (`at_seq` None): the seat of `token`, to move now, on a table with hints. A review:
    `seat` at `at_seq` of a finished match whose record may be read.
    """
    session = await tables.session(table_id)
    check_allowed(session, at_seq)
    if at_seq is None:
        seat = tables.seat_of(session, token)
    else:
        await tables.check_view(session, None)  # an embargoed record is not reviewed either
        if seat is None:
            raise InvalidInputError("a review (at_seq) names the seat to analyse", field="seat")
    seq = checked_seq(session, seat, at_seq)
    where = functools.partial(position, session, seat, seq)
    at, found = await advisor.run(caller, where, advisor.budget(budget_ms))
    return session, at, found


def _analysed(where: Callable[[], Position], budget_ms: int) -> tuple[Position, Analysis]:
    at = where()
    return at, analyze(at.view, at.moves, budget_ms=budget_ms, log=at.log)
