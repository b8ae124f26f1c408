"""The clock sweeper: any live process applies a table's timeout policy, exactly once.

Deadlines sit in a sorted set that is never late (it may be early). A process claims a due
entry for a lease; the timeout itself is appended at the sequence number it was decided on,
so even two claimers could not apply it twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from kafana.service.tables import Tables

log = logging.getLogger(__name__)


class ClockSweeper:
    """Polls the deadline index every `tick` seconds while running."""

    def __init__(self, tables: Tables, *, tick: float = 0.1, lease_ms: int = 5000) -> None:
        self.tables = tables
        self.tick = tick
        self.lease_ms = lease_ms
        self.applied = 0
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start the background task."""
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="kafana-clock")

    async def stop(self) -> None:
        """Stop it and wait."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def sweep(self) -> int:
        """One pass; returns how many timeouts this process applied."""
        store = self.tables.store
        now = self.tables.now()
        count = 0
        for table_id in await store.due(now, 100):
            if not await store.claim(table_id, now, self.lease_ms):
                continue
            if await self.tables.timeout(table_id):
                count += 1
        self.applied += count
        return count

    async def _run(self) -> None:
        while True:
            try:
                await self.sweep()
            except asyncio.CancelledError:
                raise
            except Exception:  # a bad table or a store hiccup must not stop the clock
                log.exception("clock sweep failed")
            await asyncio.sleep(self.tick)
