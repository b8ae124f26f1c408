"""`run`: a command's coroutine, with Ctrl-C heard at once on whichever thread gets it.

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
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def run(main: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run(main)`; the first Ctrl-C cancels `main` (its cleanup runs) and then ends
    the command with KeyboardInterrupt, a second one at once, as `asyncio.run` does. Where
    SIGINT is ignored or left at its default, or off the main thread, it is left alone."""
    return asyncio.run(_heard(main))


async def _heard(main: Coroutine[Any, Any, T]) -> T:
    """`main`, cancelled by the first Ctrl-C the loop hears."""
    task = asyncio.current_task()
    assert task is not None
    on_main = threading.current_thread() is threading.main_thread()
    if not on_main or signal.getsignal(signal.SIGINT) in (signal.SIG_IGN, signal.SIG_DFL, None):
        return await main  # asyncio.run leaves it alone too: so do we
    loop = asyncio.get_running_loop()
    heard = 0

    def interrupt() -> None:
        nonlocal heard
        heard += 1
        if heard > 1:
            raise KeyboardInterrupt
        task.cancel()

    loop.add_signal_handler(signal.SIGINT, interrupt)
    try:
        return await main
    except asyncio.CancelledError:
        if heard:
            raise KeyboardInterrupt from None
        raise
    finally:
        loop.remove_signal_handler(signal.SIGINT)
