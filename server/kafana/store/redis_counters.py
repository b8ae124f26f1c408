"""`Counters` in Redis: one key per counter, each use one atomic script call.

A window is a string counted with `INCR` that expires when the window ends; held places are a
sorted set of member -> until ms that expires with its last place. Each script touches one key,
so this works on a Redis Cluster too.
"""

from __future__ import annotations

from kafana.store.client import RedisClient, Script
from kafana.store.counters import Counters
from kafana.store.keys import counter_key


class RedisCounters(Counters):
    """Counters under `<namespace>:n:<key>` on the store's Redis."""

    def __init__(self, client: RedisClient, namespace: str = "kafana") -> None:
        self._client = client
        self._namespace = namespace
        self._window = Script.named("window")
        self._hold = Script.named("hold")

    def _key(self, key: str) -> str:
        return counter_key(self._namespace, key)

    async def count(self, key: str, limit: int, window_ms: int, now_ms: int) -> int:
        """See `Counters.count` (the window is timed by Redis's clock)."""
        args = [b"%d" % limit, b"%d" % max(1, window_ms)]
        (wait,) = await self._client.run(self._window, [self._key(key)], args)
        return int(wait) if isinstance(wait, int) else 0

    async def hold(self, key: str, member: str, limit: int, until_ms: int, now_ms: int) -> int:
        """See `Counters.hold`."""
        args = [member.encode(), b"%d" % limit, b"%d" % until_ms, b"%d" % now_ms]
        (wait,) = await self._client.run(self._hold, [self._key(key)], args)
        return int(wait) if isinstance(wait, int) else 0

    async def holders(self, key: str, now_ms: int) -> list[str]:
        """See `Counters.holders`."""
        name = self._key(key)
        found = await self._client.call(name, "ZRANGE", name, f"({now_ms}", "+inf", "BYSCORE")
        assert isinstance(found, list)
        return [m.decode() for m in found if isinstance(m, bytes)]

    async def release(self, key: str, member: str) -> None:
        """See `Counters.release`."""
        name = self._key(key)
        await self._client.call(name, "ZREM", name, member)
