"""The clock sweeper: any live process applies a table's fault policy, exactly once.

The policy is the table's `ClockSpec`: timeouts (a default move, a forfeit, the N-th timeout's
forfeit), disconnects and no-shows (`Tables.timeout`, deciding with `service.faults` on the
seats' presence). Deadlines and the next presence checks sit in a sorted set that is never
late (it may be early). A process claims a due entry for a lease; what it applies is appended
at the sequence number it was decided on, so even two claimers could not apply it twice.
"""

from __future__ import annotations

import asyncio
import logging

from kafana import metrics
from kafana.logs import Repeated
from kafana.service.tables import Tables
from kafana.store.errors import StoreUnavailable
from kafana.tasks import Alarm

log = logging.getLogger(__name__)


class ClockSweeper:
    """Polls the deadline index every `tick` seconds while running."""

    def __init__(self, tables: Tables, *, tick: float = 0.1, lease_ms: int = 5000) -> None:
        self.tables = tables
        self.tick = tick
        self.lease_ms = lease_ms
        self.applied = 0
        self._task: asyncio.Task[None] | None = None
        self._stopping = False
        self._nap = Alarm()  # the wait between two sweeps
        # A dead store: a line per interval, not a traceback per tick.
        self._errors = Repeated(log, "the clock sweep", quiet=(StoreUnavailable,))

    def start(self) -> None:
        """Start the background task."""
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="kafana-clock")

    async def stop(self) -> None:
        """Stop it and wait.

        The loop is asked to stop (woken if it waits for its next tick) rather than cancelled:
        a client can swallow a cancellation that lands inside a command, and a
        cancelled-but-running loop would never end.
        """
        task, self._task = self._task, None
        self._stopping = True
        self._nap.ring()
        if task is None:
            return
        try:
            await asyncio.wait_for(asyncio.shield(task), self.tick + 10)
        except TimeoutError:
            task.cancel()

    async def sweep(self) -> int:
        """One pass; returns how many policy actions (timeouts, forfeits) this process applied."""
        store = self.tables.store
        now = self.tables.now()
        count = 0
        for table_id in await store.due(now, 100):
            if not await store.claim(table_id, now, self.lease_ms):
                continue
            if await self.tables.timeout(table_id):
                count += 1
        self.applied += count
        metrics.CLOCK_TIMEOUTS.inc(count)
        return count

    async def _run(self) -> None:
        while not self._stopping:
            try:
                await self.sweep()
                self._errors.succeeded()
            except Exception as error:  # a bad table or a store hiccup must not stop the clock
                self._errors.failed(error)
            if self._stopping:
                break
            await self._nap.nap(self.tick)  # `tick` seconds, or until `stop` rings
