"""Counters shared by every process on one store: uses in a window, and places held at once.

They know nothing of games or callers: a key is any string (the service uses one per caller and
limit). Each kind forgets itself: a window ends `window_ms` after its first use, a held place
lapses at its `until_ms`, so nothing is kept for a key that stops calling.

The in-process kind (the memory store's) behaves as the Redis one does:

>>> import asyncio
>>> counters = MemoryCounters()
>>> run = asyncio.run
>>> [run(counters.count("k", 2, 1000, now_ms=0)) for _ in range(3)]
[0, 0, 1000]
>>> run(counters.count("k", 2, 1000, now_ms=1000))  # a new window
0
>>> run(counters.hold("h", "t1", 1, until_ms=500, now_ms=0))
0
>>> run(counters.hold("h", "t2", 1, until_ms=500, now_ms=100))  # full until t1 lapses
400
>>> run(counters.hold("h", "t2", 1, until_ms=900, now_ms=500))
0
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


class MemoryCounters(Counters):
    """Counters in this process; keys whose time is up are dropped as others are used."""

    SWEEP_EVERY = 1024  # uses between two sweeps of lapsed keys

    def __init__(self) -> None:
        self._windows: dict[str, tuple[int, int]] = {}  # key -> (uses, window end ms)
        self._held: dict[str, dict[str, int]] = {}  # key -> member -> until ms
        self._uses = 0

    def _sweep(self, now_ms: int) -> None:
        self._uses += 1
        if self._uses % self.SWEEP_EVERY:
            return
        self._windows = {k: v for k, v in self._windows.items() if v[1] > now_ms}
        for key in list(self._held):
            self._places(key, now_ms)

    def _places(self, key: str, now_ms: int) -> dict[str, int]:
        places = {m: u for m, u in self._held.get(key, {}).items() if u > now_ms}
        if places:
            self._held[key] = places
        else:
            self._held.pop(key, None)
        return places

    async def count(self, key: str, limit: int, window_ms: int, now_ms: int) -> int:
        """See `Counters.count`."""
        self._sweep(now_ms)
        uses, end = self._windows.get(key, (0, now_ms + window_ms))
        if end <= now_ms:
            uses, end = 0, now_ms + window_ms
        if uses >= limit:
            return max(1, end - now_ms)
        self._windows[key] = (uses + 1, end)
        return 0

    async def hold(self, key: str, member: str, limit: int, until_ms: int, now_ms: int) -> int:
        """See `Counters.hold`."""
        self._sweep(now_ms)
        places = self._places(key, now_ms)
        if member not in places and len(places) >= limit:
            return max(1, min(places.values()) - now_ms)
        self._held.setdefault(key, {})[member] = until_ms
        return 0

    async def holders(self, key: str, now_ms: int) -> list[str]:
        """See `Counters.holders`."""
        return sorted(self._places(key, now_ms))

    async def release(self, key: str, member: str) -> None:
        """See `Counters.release`."""
        places = self._held.get(key)
        if places is not None:
            places.pop(member, None)
            if not places:
                del self._held[key]
