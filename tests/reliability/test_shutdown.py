"""`kafana serve` ends even when its shutdown hangs (seen, rarely, in gRPC aio's stop)."""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any, cast

from kafana.service.server import KafanaServer, serve_until_signal


class HangingStop:
    """A server that stops serving at once but whose stop never returns."""

    port = 50051

    def __init__(self) -> None:
        self.stop_called = False

    async def start(self) -> None:
        pass

    async def wait(self) -> None:
        pass  # the server has terminated: time to shut down

    async def stop(self, grace: float | None = None) -> None:
        self.stop_called = True
        await asyncio.Event().wait()  # never set


async def test_a_hanging_shutdown_is_announced_and_given_up() -> None:
    server = HangingStop()
    said: list[str] = []
    start = time.monotonic()
    await serve_until_signal(cast(KafanaServer, server), said.append, 0.1, stop_limit=0.3)
    assert server.stop_called
    assert time.monotonic() - start < 5
    assert said[-1] == "kafana: the shutdown took over 0.3 s; stopping anyway"


async def test_a_normal_shutdown_says_nothing_more() -> None:
    class Quick(HangingStop):
        async def stop(self, grace: float | None = None) -> None:
            self.stop_called = True

    server = Quick()
    said: list[str] = []
    await serve_until_signal(cast(Any, server), said.append, 0.1, stop_limit=0.3)
    assert server.stop_called
    assert said[-1] == "kafana: shutting down"


class SwallowingStop(HangingStop):
    """A stop that swallows one cancellation (awaiting a task under suppress), then hangs."""

    async def stop(self, grace: float | None = None) -> None:
        self.stop_called = True
        task = asyncio.create_task(asyncio.sleep(1))
        with contextlib.suppress(asyncio.CancelledError):
            await task
        await asyncio.Event().wait()


async def test_the_bound_holds_when_the_stop_swallows_its_cancellation() -> None:
    server = SwallowingStop()
    said: list[str] = []
    serving = asyncio.create_task(
        serve_until_signal(cast(KafanaServer, server), said.append, 0.1, stop_limit=0.3)
    )
    done, _ = await asyncio.wait({serving}, timeout=5)  # never waits on a cancelled task
    assert serving in done, "serve_until_signal waited past its bound"
    assert serving.result() is False
    assert said[-1] == "kafana: the shutdown took over 0.3 s; stopping anyway"
