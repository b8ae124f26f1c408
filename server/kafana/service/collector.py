"""Short full garbage collections for a server holding thousands of cached tables.

A cached table's match state is many small objects that live for minutes; with thousands of
tables they fill the collector's oldest generation, and each full collection walks all of them
(seconds, at 10,000 tables a process). After each full collection, `gc.freeze()` moves the
survivors out of the collector's sight: the next one walks only what was made since. Frozen
objects are still freed by reference counting when dropped (tables, sessions and match states
hold no reference cycles); only a cycle that was alive at a freeze and dies later waits for the
hourly thaw, after which one full collection walks everything again.
`KAFANA_GC_FREEZE=0` in the environment turns this off (to measure without it).

Left to itself the collector starts a full collection only when what was promoted since the
last one is a quarter of what survived it, so with everything older frozen it still waits
tens of seconds and then walks every match state made meanwhile: 100-400 ms at 3,000 slow
tables a process (each move leaves a new state that lives until the table's next move).
`collect_every` runs a full collection every second instead, so each walks one second's
survivors (a few ms) and freezes them; the collector does the same work in small pieces.
"""

from __future__ import annotations

import asyncio
import gc
import os
import time
from typing import Any

THAW_S = 3600.0
PERIOD_S = 1.0
_installed: list[Any] = []


def calm_full_collections(thaw_s: float = THAW_S) -> None:
    """Freeze the survivors of each full collection; thaw every `thaw_s` seconds. Idempotent."""
    if _installed or os.environ.get("KAFANA_GC_FREEZE", "1") == "0":
        return
    thawed = [time.monotonic()]

    def after_full(phase: str, info: dict[str, Any]) -> None:
        if phase != "stop" or info.get("generation") != 2:
            return
        now = time.monotonic()
        if now - thawed[0] >= thaw_s:
            thawed[0] = now
            gc.unfreeze()  # the next full collection looks at everything once
        else:
            gc.freeze()

    gc.callbacks.append(after_full)
    _installed.append(after_full)
    gc.collect()
    gc.freeze()  # what start-up made (modules, classes) is never garbage


def installed() -> bool:
    """Whether the freezing policy is on (`calm_full_collections` ran and was not undone)."""
    return bool(_installed)


def collect_young() -> float:
    """One full collection of what is not frozen (the policy then freezes the survivors).

    Returns the milliseconds it took.
    """
    start = time.perf_counter()
    gc.collect()
    return (time.perf_counter() - start) * 1000


async def collect_every(period_s: float = PERIOD_S) -> None:
    """Forever: a small full collection every `period_s` seconds, while the policy is on."""
    while True:
        await asyncio.sleep(period_s)
        if installed():
            collect_young()


def uninstall() -> None:
    """Remove the callback and thaw (for tests)."""
    for callback in _installed:
        gc.callbacks.remove(callback)
    _installed.clear()
    gc.unfreeze()
