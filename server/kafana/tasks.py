"""Background asyncio work: stopping tasks without swallowing the caller's own cancellation,
and the scan loop of a process's background keepers."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Iterable
from typing import Protocol


class Failures(Protocol):
    """What a scan loop tells of its outcomes (`kafana.logs.Repeated` logs them, bounded)."""

    def succeeded(self) -> None:
        """A scan went through."""

    def failed(self, error: Exception) -> None:
        """A scan failed with `error`."""


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


async def scan_forever(
    scan: Callable[[], Awaitable[None]], period: float, wake: asyncio.Event, errors: Failures
) -> None:
    """Run `scan` every `period` seconds, or at once when `wake` is set, until cancelled; a
    scan that fails (the store down for now) is told to `errors` and the next one tries again."""
    while True:
        try:
            await scan()
            errors.succeeded()
        except Exception as exc:
            errors.failed(exc)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(wake.wait(), period)
        wake.clear()
