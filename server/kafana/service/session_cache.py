"""The sessions a process keeps: least recently used dropped past a bound in entries and bytes.

A session's bytes are estimated (`session_bytes`): its game state without the move history
(`session.without_history`), table record and names, ~4.4 KB, plus its compact log, ~14 bytes
an event all told (tracemalloc, `loadtests/cache_probe.py`: 4.4 KB at the seats taken, 9.6 KB
at the end of a 386-event Tablić match; 135 KB before the history was cut). A dropped session
is replayed from the store when asked for again.
"""

from __future__ import annotations

from kafana.service.lru import LRU
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
    fixed = SESSION_BYTES + DECK_BYTES * session.decks
    return fixed + EVENT_BYTES * session.seq + len(session.log.data)


class SessionCache(LRU[str, Session]):
    """Sessions by table id, least recently used first; bounded in entries and in bytes."""

    def __init__(self, entries: int = CACHE_ENTRIES, max_bytes: int = CACHE_BYTES) -> None:
        super().__init__(entries, max_bytes)

    def put(self, session: Session) -> None:
        """Keep `session` as its table's latest, then drop the oldest past either bound."""
        self.store(session.table_id, session, session_bytes(session))

    def keep(self, session: Session) -> bool:
        """`put` unless a later session of the table is kept; whether it was put (the move
        path's one call: `get` and `put` in one)."""
        old = self.peek(session.table_id)
        if old is not None and old.seq > session.seq:
            return False
        self.put(session)
        return True
