"""The in-process store: the same behaviour as Redis for one process, with no server."""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass, field

from kafana.store.base import (
    OPEN,
    PLAYING,
    Append,
    AppendResult,
    Entry,
    Listed,
    Outcome,
    Snapshot,
    TableStore,
)
from kafana.store.counters import Counters, MemoryCounters
from kafana.store.framing import GENESIS, chain, frame, skip


def _now_ms() -> int:
    return int(time.time() * 1000)


@dataclass
class _Table:
    record: bytes
    expires_ms: int
    seq: int = 0
    status: str = OPEN
    deadline_ms: int = 0
    seats: dict[int, bytes] = field(default_factory=dict)
    log: bytes = b""  # framed records, as Redis keeps them
    marks: dict[int, tuple[int, str]] = field(default_factory=dict)  # dedupe slot -> seq, tag
    digest: str = GENESIS  # of the log (framing.chain)


class MemoryStore(TableStore):
    """Tables in a dict; expiry is checked on access. Not shared between processes."""

    def __init__(self) -> None:
        self._tables: dict[str, _Table] = {}
        self._created: dict[str, int] = {}
        self._deadlines: dict[str, int] = {}
        self._changed = asyncio.Condition()
        self._counters = MemoryCounters()

    def describe(self) -> str:
        """What this is."""
        return "in-process memory store (one process only, nothing survives a restart)"

    @property
    def counters(self) -> Counters:
        """Counters in this process."""
        return self._counters

    def _get(self, table_id: str) -> _Table | None:
        table = self._tables.get(table_id)
        if table is not None and table.expires_ms <= _now_ms():
            del self._tables[table_id]
            return None
        return table

    async def create(self, table_id: str, table: bytes, ttl_ms: int, now_ms: int) -> bool:
        """Create at seq 0, open."""
        if self._get(table_id) is not None:
            return False
        self._tables[table_id] = _Table(table, _now_ms() + ttl_ms)
        self._created[table_id] = now_ms
        return True

    async def load(
        self, table_id: str, after_seq: int = 0, *, offset: int | None = None
    ) -> Snapshot | None:
        """A copy of the table with its log after `after_seq`."""
        table = self._get(table_id)
        if table is None:
            return None
        start = offset if offset is not None else skip(table.log, after_seq)
        return Snapshot(
            table=table.record,
            seq=table.seq,
            status=table.status,
            deadline_ms=table.deadline_ms,
            seats=dict(table.seats),
            tail=table.log[start:],
            marks=dict(table.marks),
            digest=table.digest,
        )

    async def append(self, table_id: str, append: Append) -> AppendResult:
        """The same checks and effects as `append.lua`, without an await in between."""
        table = self._get(table_id)
        if table is None:
            return AppendResult(Outcome.MISSING)
        expected = append.expected_seq
        if expected is not None and expected != table.seq:
            mark = (expected + 1, append.dedupe)
            if append.dedupe and table.marks.get(append.dedupe_slot) == mark:
                return AppendResult(Outcome.DUPLICATE, expected + 1, table.status)
            return AppendResult(Outcome.STALE, table.seq, table.status)
        if expected is not None and append.expected_digest not in ("", table.digest):
            return AppendResult(Outcome.STALE, table.seq, table.status)  # another history
        if append.require_status and table.status != append.require_status:
            return AppendResult(Outcome.WRONG_STATUS, table.seq, table.status)
        if append.take_seat is not None:
            if append.take_seat in table.seats:
                return AppendResult(Outcome.SEAT_TAKEN, table.seq, table.status)
            table.seats[append.take_seat] = append.seat_data
        if append.free_seat is not None:
            table.seats.pop(append.free_seat, None)
        table.seq += 1
        framed = frame(append.event)
        table.log += framed
        table.digest = chain(table.digest, framed)
        if append.dedupe:
            table.marks[append.dedupe_slot] = (table.seq, append.dedupe)
        if append.new_status:
            table.status = append.new_status
        if append.deadline_ms is not None:
            table.deadline_ms = append.deadline_ms
        if (
            append.take_seat is not None
            and append.start_at_seats > 0
            and table.status == OPEN
            and len(table.seats) >= append.start_at_seats
        ):
            table.status = PLAYING
            table.deadline_ms = append.start_deadline_ms
            if append.start_deadline_ms:
                await self._index_early(table_id, append.start_deadline_ms)
        if append.deadline_ms:
            await self._index_early(table_id, append.deadline_ms)
        if append.ttl_ms > 0:  # KEEP_TTL (0): the table expires when it would have
            table.expires_ms = _now_ms() + append.ttl_ms
        async with self._changed:
            self._changed.notify_all()
        return AppendResult(Outcome.APPLIED, table.seq, table.status)

    async def _index_early(self, table_id: str, deadline_ms: int) -> None:
        current = self._deadlines.get(table_id)
        if current is None or deadline_ms < current:
            self._deadlines[table_id] = deadline_ms

    async def events(self, table_id: str, after_seq: int, block_ms: int) -> list[Entry]:
        """Events after `after_seq`, waiting for one up to `block_ms`."""
        await self.wait(table_id, after_seq, block_ms)
        snapshot = await self.load(table_id, after_seq)
        return [] if snapshot is None else snapshot.events

    async def wait(self, table_id: str, after_seq: int, block_ms: int) -> int:
        """The seq once past `after_seq` or after `block_ms` (-1: no table)."""
        deadline = time.monotonic() + block_ms / 1000
        while True:
            table = self._get(table_id)
            seq = -1 if table is None else table.seq
            remaining = deadline - time.monotonic()
            if seq > after_seq or seq < 0 or remaining <= 0:
                return seq
            async with self._changed:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._changed.wait(), remaining)

    async def list_tables(self, limit: int, before: Listed | None = None) -> list[Listed]:
        """Newest first (created_ms, then id, descending), after `before`."""
        ordered = sorted(((c, t) for t, c in self._created.items()), reverse=True)
        if before is not None:
            ordered = [entry for entry in ordered if entry < before]
        return ordered[:limit]

    async def forget(self, table_id: str) -> None:
        """Drop from the indexes."""
        self._created.pop(table_id, None)
        self._deadlines.pop(table_id, None)

    async def due(self, now_ms: int, limit: int) -> list[str]:
        """Deadlines at or before now."""
        ready = sorted((d, t) for t, d in self._deadlines.items() if d <= now_ms)
        return [t for _, t in ready[:limit]]

    async def claim(self, table_id: str, now_ms: int, lease_ms: int) -> bool:
        """Move a due entry to now + lease."""
        current = self._deadlines.get(table_id)
        if current is None or current > now_ms:
            return False
        self._deadlines[table_id] = now_ms + lease_ms
        return True

    async def schedule(self, table_id: str, deadline_ms: int) -> None:
        """Set or remove the index entry."""
        if deadline_ms:
            self._deadlines[table_id] = deadline_ms
        else:
            self._deadlines.pop(table_id, None)

    async def close(self) -> None:
        """Nothing to release."""
