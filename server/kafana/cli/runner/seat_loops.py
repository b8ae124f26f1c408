"""Event loops in threads of their own, kept for a whole event, for seats run in isolation.

Each loop runs forever in its thread until `close`; a seat's coroutine is submitted to one
of them (round robin) and awaited from the caller's loop. Long-lived loops suit grpc.aio
better than a fresh `asyncio.run` per seat.
"""

from __future__ import annotations

import asyncio
import itertools
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


class SeatLoops:
    """`size` event loops, each in its own daemon thread."""

    def __init__(self, size: int) -> None:
        self.loops = [asyncio.new_event_loop() for _ in range(max(1, size))]
        self.threads = [
            threading.Thread(target=loop.run_forever, name=f"kafana-seat-{i}", daemon=True)
            for i, loop in enumerate(self.loops)
        ]
        for thread in self.threads:
            thread.start()
        self._next = itertools.cycle(self.loops)

    async def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run `coroutine` on the next loop and wait for it from the caller's loop."""
        future = asyncio.run_coroutine_threadsafe(coroutine, next(self._next))
        return await asyncio.wrap_future(future)

    def close(self) -> None:
        """Stop every loop and wait for its thread."""
        for loop in self.loops:
            loop.call_soon_threadsafe(loop.stop)
        for thread in self.threads:
            thread.join(timeout=10)
