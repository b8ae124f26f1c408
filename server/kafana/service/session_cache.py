"""The sessions a process keeps: least recently used dropped past a bound in entries and bytes.

A session's bytes are estimated (`session_bytes`): a replayed match keeps about 360 bytes per
event (a 300-event Tablić match weighs about 110 KB by tracemalloc), plus its log and table
record. A dropped session is replayed from the store when asked for again.
"""

from __future__ import annotations

from collections import OrderedDict

from kafana.service.session import Session

CACHE_ENTRIES = 1024
"""Sessions kept by default (`kafana serve --cache-tables`)."""
CACHE_BYTES = 128 * 2**20
"""Estimated bytes of the sessions kept, by default."""
SESSION_BYTES = 8192  # a session at move 0
EVENT_BYTES = 400  # each event replayed
DECK_BYTES = 4096  # each explicit deck of the table record (52 card texts, parsed and not)


def session_bytes(session: Session) -> int:
    """About what a cached session holds: its replayed match, log and table record."""
    fixed = SESSION_BYTES + DECK_BYTES * len(session.stored.decks)
    return fixed + EVENT_BYTES * session.seq + len(session.log.data)


class SessionCache:
    """Sessions by table id, least recently used first; bounded in entries and in bytes."""

    def __init__(self, entries: int = CACHE_ENTRIES, max_bytes: int = CACHE_BYTES) -> None:
        self.entries = entries
        self.max_bytes = max_bytes
        self.bytes = 0
        self._items: OrderedDict[str, tuple[Session, int]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._items)

    def get(self, table_id: str) -> Session | None:
        """The cached session of `table_id` (None: not kept)."""
        item = self._items.get(table_id)
        return item[0] if item is not None else None

    def pop(self, table_id: str) -> Session | None:
        """Forget `table_id`'s session; the session, if one was kept."""
        item = self._items.pop(table_id, None)
        if item is None:
            return None
        self.bytes -= item[1]
        return item[0]

    def put(self, session: Session) -> None:
        """Keep `session` as its table's latest, then drop the oldest past either bound."""
        self.pop(session.table_id)
        weight = session_bytes(session)
        self._items[session.table_id] = (session, weight)
        self.bytes += weight
        while len(self._items) > self.entries or (
            self.bytes > self.max_bytes and len(self._items) > 1
        ):
            _, (_, dropped) = self._items.popitem(last=False)
            self.bytes -= dropped
