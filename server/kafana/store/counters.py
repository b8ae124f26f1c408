"""Counters shared by every process on one store: uses in a window, and places held at once.

They know nothing of games or callers: a key is any string (the service uses one per caller and
limit). Each kind forgets itself: a window ends `window_ms` after its first use, a held place
lapses at its `until_ms`, so nothing is kept for a key that stops calling.

The store's are `kafana.store.redis_counters.RedisCounters` (`TableStore.counters`); with
`counters` those of a store (`tests/limits/test_counters.py` runs these on a real Redis):

    await counters.count("k", 2, 1000, now_ms=0)                 # 0, then 0, then 1000
    await counters.count("k", 2, 1000, now_ms=1000)              # 0: a new window
    await counters.hold("h", "t1", 1, until_ms=500, now_ms=0)    # 0: held
    await counters.hold("h", "t2", 1, until_ms=500, now_ms=100)  # 400: full until t1 lapses
"""

from __future__ import annotations

from abc import ABC, abstractmethod


class Counters(ABC):
    """Counts of uses and of held places by key, shared by the store's processes."""

    @abstractmethod
    async def count(self, key: str, limit: int, window_ms: int, now_ms: int) -> int:
        """Count one use of `key`: 0 when it is within `limit` uses of its window, else the
        milliseconds until the window ends (and the use is not counted).

        A window starts at its first use and lasts `window_ms`.
        """

    @abstractmethod
    async def hold(self, key: str, member: str, limit: int, until_ms: int, now_ms: int) -> int:
        """Hold a place for `member` under `key` until `until_ms` (again: extend it): 0 when
        held, else the milliseconds until the first held place lapses (none taken: at most
        `limit` are held at once)."""

    @abstractmethod
    async def holders(self, key: str, now_ms: int) -> list[str]:
        """The members holding a place under `key` now."""

    @abstractmethod
    async def release(self, key: str, member: str) -> None:
        """Free `member`'s place under `key` (nothing if it holds none)."""
