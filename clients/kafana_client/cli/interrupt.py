"""`run`: a command's coroutine, with Ctrl-C (and SIGTERM where asked) heard at once on
whichever thread gets it.

`asyncio.run` installs a plain SIGINT handler, which Python runs only on its main thread and
only when that thread next runs: while the event loop sleeps in its poll and the kernel hands
the signal to one of gRPC's threads (any thread that does not block it may get a signal sent
to the process), the handler waited for the loop's next timer, seconds later, or for good while
a feed was quiet. Through the loop (`add_signal_handler`), its wake-up pipe hears the signal
whichever thread takes it.
"""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import Coroutine, Sequence
from typing import Any, TypeVar

T = TypeVar("T")


class Interrupted(KeyboardInterrupt):
    """A command stopped by signal `signum` (Ctrl-C: SIGINT)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def status(stopped: KeyboardInterrupt) -> int:
    """The exit status of a command a signal stopped: 128 + its number, as a shell reports
    it (130 for Ctrl-C, 143 for SIGTERM)."""
    return 128 + (stopped.signum if isinstance(stopped, Interrupted) else signal.SIGINT)


def run(main: Coroutine[Any, Any, T], signals: Sequence[int] = (signal.SIGINT,)) -> T:
    """`asyncio.run(main)`; the first of `signals` cancels `main` (its cleanup runs) and then
    ends the command with `Interrupted`, a second one at once, as `asyncio.run` does with
    Ctrl-C. A signal the process ignores stays ignored, as does every signal off the main
    thread (where asyncio.run handles none either)."""
    return asyncio.run(_heard(main, signals))


async def _heard(main: Coroutine[Any, Any, T], signals: Sequence[int]) -> T:
    """`main`, cancelled by the first of `signals` the loop hears."""
    task = asyncio.current_task()
    assert task is not None
    if threading.current_thread() is not threading.main_thread():
        return await main
    loop = asyncio.get_running_loop()
    heard: list[int] = []

    def interrupt(signum: int) -> None:
        heard.append(signum)
        if len(heard) > 1:
            raise Interrupted(signum)
        task.cancel()

    handled = [s for s in signals if signal.getsignal(s) is not signal.SIG_IGN]
    for signum in handled:
        loop.add_signal_handler(signum, interrupt, signum)
    try:
        return await main
    except asyncio.CancelledError:
        if heard:
            raise Interrupted(heard[0]) from None
        raise
    finally:
        for signum in handled:
            loop.remove_signal_handler(signum)
