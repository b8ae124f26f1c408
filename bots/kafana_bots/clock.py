"""A decision's time budget, counted in the CPU time of the thread that decides.

A timed bot on a loaded host gets less CPU per second of wall time; with a wall-clock budget
it then searches less and plays worse (docs/bots.md, "Strength": `ismcts` against `heuristic`
with four players went from +0.75 on a quiet machine to +0.24 on a loaded one). A `Deadline`
counts this thread's CPU time (`time.thread_time`) where the host has such a clock, so the
search does the same work whatever the load. The wall clock still bounds every decision: a
deadline also passes once `WALL_LIMIT` (10) times its budget of wall time has gone by, so a
bot starved of CPU still answers in bounded time (2 s for the default 200 ms).
"""

from __future__ import annotations

import time
from collections.abc import Callable

WALL_LIMIT = 10.0
"""Wall time a decision may take, as a multiple of its CPU budget."""


def _cpu_clock() -> tuple[Callable[[], float], bool]:
    """This thread's CPU clock and True, or the wall clock and False where there is none."""
    try:
        time.thread_time()
        resolution = time.get_clock_info("thread_time").resolution
    except (AttributeError, OSError):  # no per-thread CPU clock on this host
        return time.perf_counter, False
    if resolution > 0.001:
        return time.perf_counter, False  # too coarse to time a decision of a few ms
    return time.thread_time, True


CLOCK, COUNTS_CPU = _cpu_clock()
"""The clock budgets are counted on, and whether it counts CPU time (else wall time)."""


class Deadline:
    """The end of a budget of `seconds`: CPU time of this thread (`CLOCK`), and at most
    `wall_limit` times as much wall time. Make it, and check it, on the deciding thread."""

    __slots__ = ("cpu_end", "wall_end")

    def __init__(self, seconds: float, wall_limit: float = WALL_LIMIT) -> None:
        seconds = max(0.0, seconds)
        self.cpu_end = CLOCK() + seconds
        self.wall_end = time.perf_counter() + wall_limit * seconds

    def passed(self) -> bool:
        """True once the budget is spent (or its wall-time limit is)."""
        return CLOCK() > self.cpu_end or time.perf_counter() > self.wall_end

    def remaining(self) -> float:
        """Seconds of budget left (0 once passed)."""
        return max(0.0, min(self.cpu_end - CLOCK(), self.wall_end - time.perf_counter()))

    def part(self, share: float) -> Deadline:
        """A deadline after `share` of what is left of this one (both clocks)."""
        now_cpu, now_wall = CLOCK(), time.perf_counter()
        part = Deadline.__new__(Deadline)
        part.cpu_end = now_cpu + share * max(0.0, self.cpu_end - now_cpu)
        part.wall_end = now_wall + share * max(0.0, self.wall_end - now_wall)
        return part


def now() -> float:
    """The budget clock's reading, to time a piece of a decision (`now() - start`)."""
    return CLOCK()
