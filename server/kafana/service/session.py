"""A table as the service knows it: the store's log replayed into seats, status and match."""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass, field
from typing import Any

from kafana.service.games import AnyState, Game, build_rules, game_of
from kafana.service.presence import checks_presence
from kafana.service.records import FORMAT, EventLog, decode
from kafana.store.base import FINISHED, OPEN, PLAYING, Entry, Snapshot
from kafana.store.framing import digest_of
from kafana.v1 import events_pb2, rules_pb2, storage_pb2

Kind = events_pb2.EventKind
# Plain ints: an attribute of the EnumTypeWrapper `Kind` is a Python-level __getattr__ call.
SEAT_TAKEN = events_pb2.EVENT_KIND_SEAT_TAKEN
SEAT_LEFT = events_pb2.EVENT_KIND_SEAT_LEFT
MOVE = events_pb2.EVENT_KIND_MOVE
FORFEIT = events_pb2.EVENT_KIND_FORFEIT
CLOSED = events_pb2.EVENT_KIND_CLOSED
ABANDONED = "abandoned"
"""The reason of a CLOSED event (and of the result) when every seat kept running out of time."""
NO_SHOW = "no_show"
"""The reason of a CLOSED event (and of the result) when no seat showed up (the fault policy)."""
DEFAULTED = ("timeout", "disconnect")
"""Reasons of a move the server played for a seat (out of time; disconnected)."""


def without_history(match: AnyState) -> AnyState:
    """`match`, keeping of its own move history only the last move; returns it.

    A game state links every move played (`_log`: Tablić's `(seat, move, before)`, Tač's
    `(step, before)`), ~350 bytes a move once replayed: most of what a cached table weighed
    (~110 KB at the end of a Tablić match). A session holds every event in its compact log
    already, so it cuts that chain on each state it makes (fresh, not yet seen by anyone) and
    rebuilds a state with its history where one is needed (`Session.full_match`). The last move
    stays: Tač's answers show `last_step`.
    """
    node = getattr(match, "_log", None)
    if type(node) is tuple and node and node[-1] is not None:
        # A state that keeps no such chain as a settable slot is left as it is (a `try`, not
        # `contextlib.suppress`: that is three Python calls a move).
        try:  # noqa: SIM105
            setattr(match, "_log", (*node[:-1], None))  # noqa: B010 (a slot of the state)
        except (AttributeError, TypeError):
            pass
    return match


@dataclass(frozen=True)
class Ending:
    """A match that ended other than by score: a forfeit, the admin closing the table, or
    every seat running out of time turn after turn (abandoned)."""

    reason: str  # "forfeit", "closed", "abandoned" or "no_show"
    seat: int | None = None
    why: str = ""  # for a forfeit: its reason ("timeout", "left", "illegal_move", ...)


@dataclass(frozen=True)
class Session:
    """One table at sequence number `seq`. Immutable: `apply` returns the next one.

    `match` is the game now without its move history (`without_history`: the log has every
    event); `full_match()` replays one with it, `record_text()` the record.
    """

    table_id: str
    stored: storage_pb2.StoredTable
    match: AnyState  # the game's own state (`tablic.MatchState`, `tac.GameState`)
    seq: int = 0
    status: str = OPEN
    deadline_ms: int = 0
    names: dict[int, str] = field(default_factory=dict)
    token_hashes: dict[int, bytes] = field(default_factory=dict)
    ending: Ending | None = None
    # The log as the store keeps it (one bytes object, entries decoded on demand), so a cached
    # table gives the garbage collector a handful of objects to track, not two per event.
    log: EventLog = field(default_factory=EventLog)
    marks: dict[int, tuple[int, str]] = field(default_factory=dict)  # seat -> last tagged move
    timeouts: int = 0  # the clock's default moves in a row, since the last move a seat played

    @staticmethod
    def start(table_id: str, stored: storage_pb2.StoredTable) -> Session:
        """The table as created: no seats taken, move 0."""
        match = game_of(stored.spec).start(stored)
        return Session(table_id, stored, match, log=EventLog.empty(stored.created_ms))

    @staticmethod
    def from_snapshot(table_id: str, snapshot: Snapshot) -> Session:
        """Replay a whole snapshot (loaded with after_seq=0)."""
        return Session.start(table_id, load_table(snapshot.table)).update(snapshot)

    @functools.cached_property
    def game(self) -> Game:
        """The game the table runs: its conversions to and from the wire."""
        return game_of(self.stored.spec)

    # What the table's clock asks of every move, read once a table (as `game`: `stored`
    # never changes, and `_evolve` carries the values along).
    @functools.cached_property
    def move_millis(self) -> int:
        """The time a move may take (0: no clock)."""
        return int(self.stored.clock.move_millis)

    @functools.cached_property
    def decks(self) -> int:
        """The explicit decks of the table record (read once a table: each read of a repeated
        field makes a container; the session cache weighs every session it keeps)."""
        return len(self.stored.decks)

    @functools.cached_property
    def watches_presence(self) -> bool:
        """Whether the clock watches the seats' presence (`presence.checks_presence`)."""
        return checks_presence(self.stored.clock)

    def _evolve(self, **changes: Any) -> Session:
        """A copy with some fields changed: `dataclasses.replace` without its per-field cost.

        The instance dict is copied at C speed (the frozen dataclass's `__init__` would set
        each of the fields through `object.__setattr__`); the cached `game` comes along.
        """
        new = object.__new__(Session)
        new.__dict__.update(self.__dict__, **changes)
        return new

    @property
    def players(self) -> int:
        """Number of seats."""
        return self.match.seats

    @property
    def started(self) -> bool:
        """Whether every seat has been filled (the match runs from then on)."""
        return self.status != OPEN or self.ending is not None

    def update(self, snapshot: Snapshot) -> Session:
        """Apply a snapshot's log (from this session's seq on) and take its seats and deadline.

        Raises ValueError when the snapshot's log does not continue this session's: another
        count of events, or another history (the store's digest is not this log's continued
        with the tail: the store lost events this session holds). Nothing is replayed then.
        """
        records = snapshot.records
        if snapshot.seq != self.seq + len(records):
            raise ValueError(
                f"the log has {len(records)} events after {self.seq}, the table is at "
                f"{snapshot.seq}"
            )
        if snapshot.digest is not None and digest_of(snapshot.tail, self.log.digest) != (
            snapshot.digest
        ):
            raise ValueError(f"the store holds another history than this one up to {self.seq}")
        session = self
        for record in records:
            event = decode(record, session.log.last_ms)
            session = session._step(session.seq + 1, event, record)
        hashes = {
            seat: storage_pb2.StoredSeat.FromString(data).token_hash
            for seat, data in snapshot.seats.items()
        }
        return session._evolve(
            token_hashes=hashes, deadline_ms=snapshot.deadline_ms, marks=dict(snapshot.marks)
        )

    def apply(
        self,
        entry: Entry,
        match: AnyState | None = None,
        deadline_ms: int | None = None,
        *,
        record: bytes | None = None,
    ) -> Session:
        """The session after one event (`entry.data`: a StoredEvent protobuf).

        `match`: the game after it when already computed; `record`: its packed form when
        already made (`self.log.pack(entry.data)`); `entry.dedupe`: the client move's tag.
        """
        if entry.seq != self.seq + 1:
            raise ValueError(f"event {entry.seq} does not follow {self.seq}")
        event = storage_pb2.StoredEvent.FromString(entry.data)
        if record is None:
            record = self.log.pack(entry.data)
        after = self._step(entry.seq, event, record, match, deadline_ms)
        if entry.dedupe:
            after.marks[event.seat] = (entry.seq, entry.dedupe)
        return after

    def moved(
        self,
        seq: int,
        event: storage_pb2.StoredEvent,
        record: bytes,
        match: AnyState,
        deadline_ms: int,
        tag: str = "",
    ) -> Session:
        """The session after a move this process has just appended: the move path's `apply`.

        `event` is the move (not re-read from bytes), `record` its packed form, `match` the
        game after it, `tag` the client move's dedupe tag.
        """
        if seq != self.seq + 1:
            raise ValueError(f"event {seq} does not follow {self.seq}")
        return self._evolve(
            match=without_history(match),
            seq=seq,
            status=FINISHED if match.is_over else self.status,
            deadline_ms=deadline_ms,
            log=self.log.appended(record, event.time_ms),
            marks={**self.marks, event.seat: (seq, tag)} if tag else dict(self.marks),
            timeouts=0,
        )

    def _step(
        self,
        seq: int,
        event: storage_pb2.StoredEvent,
        record: bytes,
        match: AnyState | None = None,
        deadline_ms: int | None = None,
    ) -> Session:
        names = self.names  # shared with the session before unless this event changes it
        status = self.status
        ending = self.ending
        new_match = self.match
        timeouts = self.timeouts
        kind = event.kind
        if kind == MOVE:
            new_match = match if match is not None else self.match.apply(event.move, event.seat)
            timeouts = timeouts + 1 if event.reason in DEFAULTED else 0
            if new_match.is_over:
                status = FINISHED
        elif kind == SEAT_TAKEN:
            names = {**names, event.seat: event.name}
            if status == OPEN and len(names) >= self.players:
                status = PLAYING
        elif kind == SEAT_LEFT:
            names = {seat: name for seat, name in names.items() if seat != event.seat}
        elif kind == FORFEIT:
            ending = Ending("forfeit", event.seat, event.reason)
            status = FINISHED
        elif kind == CLOSED:
            if event.reason == ABANDONED:
                ending = Ending(ABANDONED, why="timeouts")
            else:
                ending = Ending(NO_SHOW if event.reason == NO_SHOW else "closed")
            status = FINISHED
        return self._evolve(
            match=without_history(new_match),
            seq=seq,
            status=status,
            names=names,
            ending=ending,
            deadline_ms=self.deadline_ms if deadline_ms is None else deadline_ms,
            log=self.log.appended(record, event.time_ms),
            marks=dict(self.marks),
            timeouts=timeouts,
        )

    def replays(self) -> list[Session]:
        """The session after each event, oldest first (for the event feed)."""
        out: list[Session] = []
        session = Session.start(self.table_id, self.stored)
        for seq, record, event in self.log.events():
            session = session._step(seq, event, record)
            out.append(session._evolve(token_hashes=self.token_hashes))
        return out

    def winner_side(self) -> int | None:
        """The winning side once over; after a forfeit the best other side; None if closed."""
        if self.ending is None:
            outcome = self.match.outcome()
        elif self.ending.reason != "forfeit" or self.ending.seat is None:
            return None
        else:
            outcome = self.match.outcome(forfeit=self.ending.seat)
        return None if outcome is None else outcome.winner

    def full_match(self) -> AnyState:
        """The game now with its whole move history, replayed from the log (what `match`
        does not keep): for its `record()`."""
        match: AnyState = self.game.start(self.stored)
        for _seq, _record, event in self.log.events():
            if event.kind == MOVE:
                match = match.apply(event.move, event.seat)
        return match

    def record_text(self) -> str:
        """The replayable record; how an early end came about is noted in comments."""
        text = self.full_match().record().to_text()
        for seq, _record, event in self.log.events():
            if event.kind == MOVE and event.reason in DEFAULTED:
                why = "ran out of time" if event.reason == "timeout" else "was disconnected"
                text += f"# event {seq}: seat {event.seat} {why}, played {event.move}\n"
        if self.ending is not None:
            who = "" if self.ending.seat is None else f" by seat {self.ending.seat}"
            why = f" ({self.ending.why})" if self.ending.why else ""
            text += f"# ended: {self.ending.reason}{who}{why}\n"
        return text


def rules_digest(rules_json: str) -> bytes:
    """The short digest of a table's rules kept instead of their JSON."""
    return hashlib.blake2b(rules_json.encode(), digest_size=8).digest()


def load_table(data: bytes) -> storage_pb2.StoredTable:
    """A stored table record, with the `rules_json` the store leaves out made again.

    Raises RuntimeError when the spec now makes other rules than the table was created with
    (a server version that changed a preset must not change the rules of a running table).
    """
    stored = storage_pb2.StoredTable.FromString(data)
    if not stored.rules_json:
        stored.rules_json = _rules_json(stored.spec.SerializeToString(deterministic=True))
        if rules_digest(stored.rules_json) != stored.rules_digest:
            raise RuntimeError(
                "this server makes other rules of the table's spec than it was created with"
            )
    return stored


@functools.lru_cache(maxsize=256)
def _rules_json(spec: bytes) -> str:
    """The rules JSON of a serialized spec (tables repeat a few specs: cached).

    Bounded: the 256 specs used last (spec and JSON, a few KB each: ~1 MB).
    """
    return build_rules(rules_pb2.RulesSpec.FromString(spec)).to_json()


def table_record(stored: storage_pb2.StoredTable) -> bytes:
    """What the store keeps of a table: its rules as a digest of their JSON, not the JSON."""
    kept = storage_pb2.StoredTable()
    kept.CopyFrom(stored)
    kept.ClearField("rules_json")
    kept.format = FORMAT
    kept.rules_digest = rules_digest(stored.rules_json)
    return kept.SerializeToString()
