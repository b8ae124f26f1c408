"""The sessions a process keeps: least recently used dropped past a bound in entries and bytes.

A session's bytes are estimated (`session_bytes`): its game state without the move history
(`session.without_history`), table record and names, ~4.4 KB, plus its compact log, ~14 bytes
an event all told (tracemalloc, `loadtests/cache_probe.py`: 4.4 KB at the seats taken, 9.6 KB
at the end of a 386-event Tablić match; 135 KB before the history was cut). A dropped session
is replayed from the store when asked for again.
"""

from __future__ import annotations

from collections import OrderedDict

from kafana.service.session import Session

CACHE_ENTRIES = 16_384
"""Sessions kept by default (`kafana serve --cache-tables`): 10,000 live tables fit."""
CACHE_BYTES = 192 * 2**20
"""Estimated bytes of the sessions kept, by default (16,384 whole matches: ~160 MB)."""
SESSION_BYTES = 5200  # a session at move 0 (its state's position, `StateCore`: 504 bytes)
EVENT_BYTES = 9  # each event, besides its record in the log
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
        self._keep(session, self._items.pop(session.table_id, None))

    def keep(self, session: Session) -> bool:
        """`put` unless a later session of the table is kept; whether it was put (the move
        path's one call: `get` and `put` in one)."""
        items = self._items
        old = items.get(session.table_id)
        if old is not None:
            if old[0].seq > session.seq:
                return False
            del items[session.table_id]
        self._keep(session, old)
        return True

    def _keep(self, session: Session, old: tuple[Session, int] | None) -> None:
        if old is not None:
            self.bytes -= old[1]
        weight = session_bytes(session)
        items = self._items
        items[session.table_id] = (session, weight)
        self.bytes += weight
        while len(items) > self.entries or (self.bytes > self.max_bytes and len(items) > 1):
            _, (_, dropped) = items.popitem(last=False)
            self.bytes -= dropped
