"""Background asyncio work: stopping tasks without swallowing the caller's own cancellation,
waiting for an event at most so long without losing one either, the nap between two passes
of a background loop, and the scan loop of a process's keepers."""

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


async def wait_set(event: asyncio.Event, seconds: float) -> bool:
    """Wait until `event` is set (True) or `seconds` have passed (False).

    Not `wait_for(event.wait(), seconds)`: on Python 3.11 that returns normally when the
    caller is cancelled in the very step the event is set, so the caller's loop goes on
    (a bot seat of a busy table outlived its server's stop). `asyncio.timeout` never drops
    a cancellation.
    """
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(seconds):
            await event.wait()
    return event.is_set()


class Alarm:
    """The wait between two passes of a background loop: `nap(seconds)` returns after that
    long, or as soon as `ring()` is called; a ring while no one naps ends the next nap at once
    (rings do not add up).

    A nap is a future and a timer. `wait_for(event.wait(), seconds)`, the usual way, makes a
    task, a timer and, on most naps, a TimeoutError: ten times a second, an idle process's
    main cost (the clock sweep measured 116 -> 54 us a sweep with a nap).
    """

    def __init__(self) -> None:
        self._nap: asyncio.Future[None] | None = None
        self._rung = False

    def ring(self) -> None:
        """End the current nap, or the next one if none is under way."""
        nap = self._nap
        if nap is not None and not nap.done():
            nap.set_result(None)
        else:
            self._rung = True

    async def nap(self, seconds: float) -> None:
        """Wait `seconds`, or until rung."""
        if self._rung:
            self._rung = False
            return
        loop = asyncio.get_running_loop()
        self._nap = nap = loop.create_future()
        timer = loop.call_later(seconds, _end, nap)
        try:
            await nap
        finally:
            timer.cancel()
            self._nap = None


def _end(nap: asyncio.Future[None]) -> None:
    if not nap.done():
        nap.set_result(None)


async def scan_forever(
    scan: Callable[[], Awaitable[None]], period: float, wake: Alarm, errors: Failures
) -> None:
    """Run `scan` every `period` seconds, or at once when `wake` rings, until cancelled; a
    scan that fails (the store down for now) is told to `errors` and the next one tries again."""
    while True:
        try:
            await scan()
            errors.succeeded()
        except Exception as exc:
            errors.failed(exc)
        await wake.nap(period)
