"""Event feed fan-out: one blocking reader per watched table per process, however many watch.

A watcher waits for "something after seq n" here instead of asking the store itself; the reader
waits on the store's live notification for the table (Redis: the append's SPUBLISH, re-checked
every `block_ms` in case one is lost), wakes every watcher of its table when the table moves
on (in any process), and stops when nobody watches any more.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field

from kafana.logs import Repeated
from kafana.store.base import TableStore
from kafana.store.errors import StoreUnavailable
from kafana.tasks import wait_set

log = logging.getLogger(__name__)


@dataclass
class _Table:
    seq: int
    watchers: int = 0
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    reader: asyncio.Task[None] | None = None


class Feed:
    """Tells watchers when a table has events after the seq they have."""

    def __init__(self, store: TableStore, *, block_ms: int = 1000) -> None:
        self.store = store
        self.block_ms = block_ms
        self.stopping = False
        self._tables: dict[str, _Table] = {}
        self._reader_errors = Repeated(log, "the event readers", quiet=(StoreUnavailable,))

    async def close(self, timeout: float = 3.0) -> None:
        """Stop every reader (each ends after its current blocking read)."""
        self.stopping = True
        readers = [t.reader for t in self._tables.values() if t.reader is not None]
        for t in self._tables.values():
            t.changed.set()
        if readers:
            await asyncio.wait(readers, timeout=timeout)

    def watchers(self, table_id: str) -> int:
        """How many are waiting on `table_id` right now."""
        table = self._tables.get(table_id)
        return table.watchers if table is not None else 0

    def latest(self, table_id: str) -> int:
        """The highest seq this process knows of for a watched table (0 if not watched)."""
        table = self._tables.get(table_id)
        return table.seq if table is not None else 0

    def notify(self, table_id: str, seq: int) -> None:
        """Record that `table_id` is at `seq`; wake its watchers if that is news.

        A lower seq than known means the store went back (it lost events): it is taken
        without waking anyone, so a watcher waits for events the store holds, not lost ones.
        """
        table = self._tables.get(table_id)
        if table is None or seq == table.seq:
            return
        news = seq > table.seq
        table.seq = seq
        if news:
            table.changed.set()
            table.changed = asyncio.Event()

    async def wait(self, table_id: str, after_seq: int, timeout: float) -> bool:
        """Until the table has an event after `after_seq` (True) or `timeout` seconds pass."""
        table = self._tables.get(table_id)
        if table is None:
            table = self._tables[table_id] = _Table(after_seq)
        if table.reader is None or table.reader.done():
            table.reader = asyncio.create_task(self._read(table_id, table))
        if table.seq > after_seq:
            return True
        table.watchers += 1
        try:
            await wait_set(table.changed, timeout)
        finally:
            table.watchers -= 1
        return table.seq > after_seq

    async def _read(self, table_id: str, table: _Table) -> None:
        idle = 0
        try:
            while not self.stopping and idle < 2:
                seq = await self.store.wait(table_id, table.seq, self.block_ms)
                self._reader_errors.succeeded()
                if seq >= 0:  # the store's word, also when it went back
                    self.notify(table_id, seq)
                idle = idle + 1 if table.watchers == 0 else 0
        except Exception as error:  # the watchers poll again; a reader is restarted on demand
            self._reader_errors.failed(error)
            await asyncio.sleep(0.5)
        finally:
            if self._tables.get(table_id) is table and table.watchers == 0:
                del self._tables[table_id]
