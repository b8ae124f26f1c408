"""A cache bounded in entries and in bytes: least recently used dropped past either bound.

Each value is kept with its weight (its estimated bytes: the caller's measure); a value is
looked up as used (`get` moves it to the end), so the oldest unused go first.

>>> cache: LRU[str, str] = LRU(entries=2, max_bytes=10)
>>> cache.store("a", "x", 4); cache.store("b", "y", 4); cache.get("a")
'x'
>>> cache.store("c", "z", 4)  # 12 bytes: "b", the least recently used, goes
>>> cache.get("b"), len(cache), cache.bytes
(None, 2, 8)
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class LRU(Generic[K, V]):
    """Values by key, least recently used first; at most `entries` of them, `max_bytes` in
    all (one value alone may weigh more: it is kept until the next one comes)."""

    def __init__(self, entries: int, max_bytes: int) -> None:
        self.entries = entries
        self.max_bytes = max_bytes
        self.bytes = 0
        self._items: OrderedDict[K, tuple[V, int]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._items)

    def get(self, key: K) -> V | None:
        """The value kept under `key`, now the most recently used (None: not kept)."""
        item = self._items.get(key)
        if item is None:
            return None
        self._items.move_to_end(key)
        return item[0]

    def peek(self, key: K) -> V | None:
        """The value kept under `key`, its place left as it is (None: not kept)."""
        item = self._items.get(key)
        return item[0] if item is not None else None

    def pop(self, key: K) -> V | None:
        """Forget `key`'s value; the value, if one was kept."""
        item = self._items.pop(key, None)
        if item is None:
            return None
        self.bytes -= item[1]
        return item[0]

    def store(self, key: K, value: V, weight: int) -> None:
        """Keep `value` under `key` as the most recently used, then drop the least recently
        used past either bound."""
        items = self._items
        old = items.pop(key, None)
        if old is not None:
            self.bytes -= old[1]
        items[key] = (value, weight)
        self.bytes += weight
        while len(items) > self.entries or (self.bytes > self.max_bytes and len(items) > 1):
            _, (_, dropped) = items.popitem(last=False)
            self.bytes -= dropped
