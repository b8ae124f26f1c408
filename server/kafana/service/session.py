"""A table as the service knows it: the store's log replayed into seats, status and match."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from kafana.service.games import Game, game_of
from kafana.store.base import FINISHED, OPEN, PLAYING, Entry, Snapshot
from kafana.v1 import events_pb2, storage_pb2

Kind = events_pb2.EventKind


@dataclass(frozen=True)
class Ending:
    """A match that ended other than by score: a forfeit or the admin closing the table."""

    reason: str  # "forfeit" or "closed"
    seat: int | None = None
    why: str = ""  # for a forfeit: "timeout" or "left"


@dataclass(frozen=True)
class Session:
    """One table at sequence number `seq`. Immutable: `apply` returns the next one."""

    table_id: str
    stored: storage_pb2.StoredTable
    match: Any  # the game's own state (`tablic.MatchState`, `tac.GameState`): see `game`
    seq: int = 0
    status: str = OPEN
    deadline_ms: int = 0
    names: dict[int, str] = field(default_factory=dict)
    token_hashes: dict[int, bytes] = field(default_factory=dict)
    ending: Ending | None = None
    log: tuple[Entry, ...] = ()  # raw entries: parsed again when needed, light to cache

    @staticmethod
    def start(table_id: str, stored: storage_pb2.StoredTable) -> Session:
        """The table as created: no seats taken, move 0."""
        return Session(table_id, stored, game_of(stored.spec).start(stored))

    @staticmethod
    def from_snapshot(table_id: str, snapshot: Snapshot) -> Session:
        """Replay a whole snapshot (loaded with after_seq=0)."""
        stored = storage_pb2.StoredTable.FromString(snapshot.table)
        return Session.start(table_id, stored).update(snapshot)

    @property
    def game(self) -> Game:
        """The game the table runs: everything game-specific goes through it."""
        return game_of(self.stored.spec)

    @property
    def players(self) -> int:
        """Number of seats."""
        return self.game.players(self.match)

    @property
    def started(self) -> bool:
        """Whether every seat has been filled (the match runs from then on)."""
        return self.status != OPEN or self.ending is not None

    def update(self, snapshot: Snapshot) -> Session:
        """Apply a snapshot's new events and take its seats and deadline."""
        session = self
        for entry in snapshot.events:
            if entry.seq == session.seq + 1:
                session = session.apply(entry)
        hashes = {
            seat: storage_pb2.StoredSeat.FromString(data).token_hash
            for seat, data in snapshot.seats.items()
        }
        return replace(session, token_hashes=hashes, deadline_ms=snapshot.deadline_ms)

    def apply(self, entry: Entry, match: Any = None, deadline_ms: int | None = None) -> Session:
        """The session after one logged event (`match`: the result when already computed)."""
        if entry.seq != self.seq + 1:
            raise ValueError(f"event {entry.seq} does not follow {self.seq}")
        event = storage_pb2.StoredEvent.FromString(entry.data)
        names = dict(self.names)
        status = self.status
        ending = self.ending
        new_match = self.match
        if event.kind == Kind.EVENT_KIND_SEAT_TAKEN:
            names[event.seat] = event.name
            if status == OPEN and len(names) >= self.players:
                status = PLAYING
        elif event.kind == Kind.EVENT_KIND_SEAT_LEFT:
            names.pop(event.seat, None)
        elif event.kind == Kind.EVENT_KIND_MOVE:
            game = self.game
            new_match = (
                match if match is not None else game.replay(self.match, event.move, event.seat)
            )
            if game.is_over(new_match):
                status = FINISHED
        elif event.kind == Kind.EVENT_KIND_FORFEIT:
            ending = Ending("forfeit", event.seat, event.reason)
            status = FINISHED
        elif event.kind == Kind.EVENT_KIND_CLOSED:
            ending = Ending("closed")
            status = FINISHED
        return replace(
            self,
            match=new_match,
            seq=entry.seq,
            status=status,
            names=names,
            ending=ending,
            deadline_ms=self.deadline_ms if deadline_ms is None else deadline_ms,
            log=(*self.log, entry),
        )

    def replays(self) -> list[Session]:
        """The session after each event, oldest first (for the event feed)."""
        out: list[Session] = []
        session = Session.start(self.table_id, self.stored)
        for entry in self.log:
            session = session.apply(entry)
            out.append(replace(session, token_hashes=self.token_hashes))
        return out

    def winner_side(self) -> int | None:
        """The winning side once over; after a forfeit the best other side; None if closed."""
        if self.ending is None:
            return self.game.winner(self.match)
        if self.ending.reason != "forfeit" or self.ending.seat is None:
            return None
        return self.game.forfeit_winner(self.match, self.ending.seat)

    def record_text(self) -> str:
        """The replayable record; how an early end came about is noted in comments."""
        text = self.game.record_text(self.match)
        for entry in self.log:
            event = storage_pb2.StoredEvent.FromString(entry.data)
            if event.kind == Kind.EVENT_KIND_MOVE and event.reason == "timeout":
                text += (
                    f"# event {entry.seq}: seat {event.seat} ran out of time, played {event.move}\n"
                )
        if self.ending is not None:
            who = "" if self.ending.seat is None else f" by seat {self.ending.seat}"
            why = f" ({self.ending.why})" if self.ending.why else ""
            text += f"# ended: {self.ending.reason}{who}{why}\n"
        return text
