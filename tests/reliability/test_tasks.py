"""cancel_and_wait: tasks end, and the caller's own cancellation is never swallowed; Alarm: a
loop's nap between passes, ended by a ring."""

from __future__ import annotations

import asyncio
import contextlib

import pytest
from kafana.tasks import Alarm, cancel_and_wait


async def slow_to_stop(stopped: list[str]) -> None:
    """Ends a little after it is cancelled (a clean-up that takes time)."""
    try:
        await asyncio.Event().wait()
    finally:
        await asyncio.shield(asyncio.sleep(0.2))
        stopped.append("done")


async def test_the_tasks_are_cancelled_and_waited_for() -> None:
    stopped: list[str] = []
    tasks = [asyncio.create_task(slow_to_stop(stopped)) for _ in range(3)]
    await asyncio.sleep(0)
    await cancel_and_wait([*tasks, None])
    assert all(task.done() for task in tasks)
    assert stopped == ["done"] * 3


async def test_a_failed_task_does_not_raise_here() -> None:
    async def fails() -> None:
        raise ValueError("boom")

    task = asyncio.create_task(fails())
    await asyncio.sleep(0)
    await cancel_and_wait([task])
    assert isinstance(task.exception(), ValueError)


async def test_the_callers_own_cancellation_goes_through() -> None:
    stopped: list[str] = []
    inner = asyncio.create_task(slow_to_stop(stopped))
    await asyncio.sleep(0)

    async def stopper() -> str:
        await cancel_and_wait([inner])
        return "finished"

    outer = asyncio.create_task(stopper())
    await asyncio.sleep(0.05)  # the stopper now waits for the inner task
    outer.cancel()
    with pytest.raises(asyncio.CancelledError):
        await outer


async def test_the_usual_pattern_would_swallow_it() -> None:
    # Why the helper exists: the same cancellation, swallowed by suppress-and-await.
    stopped: list[str] = []
    inner = asyncio.create_task(slow_to_stop(stopped))
    await asyncio.sleep(0)

    async def stopper() -> str:
        inner.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await inner
        return "finished"

    outer = asyncio.create_task(stopper())
    await asyncio.sleep(0.05)
    outer.cancel()
    assert await outer == "finished"


async def test_an_alarm_naps_its_time_unless_rung() -> None:
    loop = asyncio.get_running_loop()
    alarm = Alarm()
    started = loop.time()
    await alarm.nap(0.05)
    assert loop.time() - started >= 0.04
    napping = asyncio.create_task(alarm.nap(10))
    await asyncio.sleep(0.01)
    started = loop.time()
    alarm.ring()
    await asyncio.wait_for(napping, 1)
    assert loop.time() - started < 0.5


async def test_a_ring_between_naps_ends_the_next_one_at_once() -> None:
    alarm = Alarm()
    alarm.ring()
    alarm.ring()  # rings do not add up: one nap is skipped
    await asyncio.wait_for(alarm.nap(10), 0.5)
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(alarm.nap(10), 0.05)


async def test_a_cancelled_nap_does_not_swallow_the_next_ring() -> None:
    alarm = Alarm()
    napping = asyncio.create_task(alarm.nap(30))
    await asyncio.sleep(0)
    napping.cancel()
    with pytest.raises(asyncio.CancelledError):
        await napping
    alarm.ring()  # no one naps now: kept for the next nap
    await asyncio.wait_for(alarm.nap(10), 0.5)
