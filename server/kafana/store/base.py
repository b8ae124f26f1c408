"""The store interface every implementation passes the same tests against.

A table is a fixed record (bytes), a seat map (seat -> bytes), a control state
(sequence number, status, clock deadline, the last client move of each dedupe slot) and an
append-only event log numbered 1, 2, 3... kept as one byte string of framed records
(`kafana.store.framing.frame`). The store knows nothing of games: the service decides, the
store appends atomically.
"""

from __future__ import annotations

import enum
from abc import ABC, abstractmethod
from dataclasses import dataclass, field

from kafana.store.counters import Counters
from kafana.store.framing import split

OPEN = "open"
PLAYING = "playing"
FINISHED = "finished"
PAST_ANY_LOG = 1 << 40  # a log offset no log reaches: a load that reads no event
KEEP_TTL = 0
"""`Append.ttl_ms` that leaves the table's time to live as it is (a clock timeout's append)."""


class Outcome(enum.Enum):
    """What became of an append."""

    APPLIED = "applied"
    DUPLICATE = "duplicate"  # the same client move was already applied at `seq`
    STALE = "stale"  # the expected sequence number is not the current one
    SEAT_TAKEN = "seat_taken"
    WRONG_STATUS = "wrong_status"
    MISSING = "missing"  # no such table (or it expired)


@dataclass(frozen=True, slots=True)
class Entry:
    """One event of the log."""

    seq: int
    data: bytes
    dedupe: str = ""


@dataclass(frozen=True)
class Snapshot:
    """A table read atomically: its record, seats, control state and its log after some seq.

    `tail` is the log's framed records after the seq asked for (all of them up to `seq`);
    `marks` holds, per dedupe slot, the seq and tag of that slot's last tagged event; `digest`
    is the digest of the whole log up to `seq` (`framing.chain`), None when the store cannot
    vouch for one (a table written by a version before digests).
    """

    table: bytes
    seq: int
    status: str
    deadline_ms: int
    seats: dict[int, bytes]
    tail: bytes = b""
    marks: dict[int, tuple[int, str]] = field(default_factory=dict)
    digest: str | None = None

    @property
    def records(self) -> list[bytes]:
        """The records of `tail`, oldest first."""
        return split(self.tail)

    @property
    def events(self) -> list[Entry]:
        """The records of `tail` numbered up to `seq`."""
        records = self.records
        first = self.seq - len(records) + 1
        return [Entry(first + i, record) for i, record in enumerate(records)]


@dataclass(slots=True)
class Rider:
    """Something an append does too, in its own write, only if the append is applied (an
    account notice told with the move that made it, `NoticeStore.rider`). `key` routes it
    (any key of its slot); `keys` and `args` are store-specific (Redis: the notice script's
    keys and arguments, packed, run inside the append's own script). Slotted, not frozen, as
    `Append` (one a move): do not change one once made."""

    key: str
    keys: bytes
    args: bytes


@dataclass(slots=True)
class Append:
    """One event to append and the conditions it needs, checked and applied atomically.

    Slotted, not frozen: the move path makes one a move, and a frozen dataclass sets each of
    its 14 fields through `object.__setattr__` (`python -m timeit` of a move's Append: 2.8 µs
    frozen, 1.4 µs slotted). Do not change one once made."""

    event: bytes  # one record (unframed): the store frames it
    ttl_ms: int  # the table's time to live from now on; KEEP_TTL (0): left as it is
    expected_seq: int | None = None  # None: whatever the current one is
    # With expected_seq: the digest of the log the writer decided on (`framing.chain`); the
    # store refuses the append as STALE when its log up to expected_seq is another one (it
    # lost events the writer saw). "": not checked.
    expected_digest: str = ""
    dedupe: str = ""  # tag of the client move; a retry finds it at expected_seq + 1 ...
    dedupe_slot: int = 0  # ... while it is still the last tagged event of this slot (seat)
    require_status: str = ""  # "": any status
    new_status: str = ""  # "": unchanged
    deadline_ms: int | None = None  # None: unchanged; 0: no deadline
    take_seat: int | None = None  # fails with SEAT_TAKEN when already held
    seat_data: bytes = b""
    free_seat: int | None = None
    start_at_seats: int = 0  # with take_seat: when this many are seated, status -> playing
    start_deadline_ms: int = 0  # and the deadline becomes this
    # Commands sent in the same write, each acting only if this append applies (a store
    # that cannot send them so ignores them: `AppendResult.riders_run` is then False).
    riders: tuple[Rider, ...] = ()


@dataclass(slots=True)
class AppendResult:
    """The outcome, the relevant sequence number and the table's status afterwards.

    Slotted, not frozen, as `Append` (one a move). Do not change one once made."""

    outcome: Outcome
    seq: int = 0  # APPLIED: the new event; DUPLICATE: the original one; else the current seq
    status: str = ""
    riders_run: bool = False  # the append's riders ran (each acted if the append applied)


Listed = tuple[int, str]
"""A table in the creation index: (created_ms, table_id); the index's order is these, descending."""


class TableStore(ABC):
    """Where tables live. Every method is safe to call from many processes at once."""

    @abstractmethod
    def describe(self) -> str:
        """One line saying what this store is, for logs."""

    @property
    @abstractmethod
    def counters(self) -> Counters:
        """Counters shared by every process on this store (quotas)."""

    async def status(self, table_id: str) -> str | None:
        """The table's status, without its log; None when it does not exist."""
        snapshot = await self.load(table_id, offset=PAST_ANY_LOG)
        return None if snapshot is None else snapshot.status

    @abstractmethod
    async def create(self, table_id: str, table: bytes, ttl_ms: int, now_ms: int) -> bool:
        """Create a table at seq 0, status open; False when the id is taken."""

    @abstractmethod
    async def load(
        self, table_id: str, after_seq: int = 0, *, offset: int | None = None
    ) -> Snapshot | None:
        """The table with its log after `after_seq`; None when it does not exist.

        `offset`: the byte length of the log up to `after_seq` when the caller knows it (it
        holds that much of the log), so the store sends only what follows.
        """

    @abstractmethod
    async def append(self, table_id: str, append: Append) -> AppendResult:
        """Check the conditions and append the event, all or nothing."""

    @abstractmethod
    async def events(self, table_id: str, after_seq: int, block_ms: int) -> list[Entry]:
        """Events after `after_seq`; waits up to `block_ms` for one when there are none."""

    @abstractmethod
    async def wait(self, table_id: str, after_seq: int, block_ms: int) -> int:
        """The table's seq once it passes `after_seq`, or after `block_ms` (-1: no table).

        A notification may be lost (a reconnect): callers re-check every `block_ms`.
        """

    @abstractmethod
    async def list_tables(self, limit: int, before: Listed | None = None) -> list[Listed]:
        """(created_ms, id) of up to `limit` tables, newest first (ties: the greater id
        first), from just after `before` on (None: the newest); may include expired ones.

        A page from a cursor is stable while tables are created (they come before it)."""

    @abstractmethod
    async def forget(self, table_id: str) -> None:
        """Drop an expired table from the indexes."""

    @abstractmethod
    async def due(self, now_ms: int, limit: int) -> list[str]:
        """Tables whose clock deadline may have passed (the index is never late)."""

    @abstractmethod
    async def claim(self, table_id: str, now_ms: int, lease_ms: int) -> bool:
        """Claim a due deadline for `lease_ms`; exactly one caller wins while it is due."""

    @abstractmethod
    async def schedule(self, table_id: str, deadline_ms: int) -> None:
        """Set the deadline index entry (0: remove it)."""

    async def ping(self) -> None:
        """Return when the store answers; raise StoreUnavailable when it does not (health).

        In-process stores always answer."""
        return None

    @abstractmethod
    async def close(self) -> None:
        """Release connections."""
