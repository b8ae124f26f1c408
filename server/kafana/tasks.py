"""Stopping asyncio tasks without swallowing the caller's own cancellation."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable


async def cancel_and_wait(
    tasks: Iterable[asyncio.Task[object] | None], timeout: float | None = None
) -> None:
    """Cancel the tasks and wait until they have ended (at most `timeout` seconds).

    The common `task.cancel()` then `with suppress(CancelledError): await task` also swallows
    a cancellation of the caller that lands while it waits, so a shutdown bound around the
    caller does not hold. `asyncio.wait` lets that one through and never raises the tasks'
    own outcomes; those are read here, so none is reported as never retrieved.
    """
    waiting = {task for task in tasks if task is not None}
    for task in waiting:
        task.cancel()
    if not waiting:
        return
    done, _ = await asyncio.wait(waiting, timeout=timeout)
    for task in done:
        if not task.cancelled():
            task.exception()
