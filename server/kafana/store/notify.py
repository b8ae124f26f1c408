"""Live notifications: one sharded pub/sub connection per process wakes a table's waiters.

`append.lua` publishes the new seq on the table's channel (`SPUBLISH {t:<id>}:live`, the
table's hash tag, so on a cluster it stays on the table's shard). A process subscribes to the
channels of the tables it waits on, lazily, and drops a channel a while after its last waiter
left. A message can be lost (a reconnect, a subscription still in flight): waiters re-check
the store at least every `block_ms`, so a lost message costs latency, never an event.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster

from kafana.tasks import cancel_and_wait

log = logging.getLogger(__name__)
IDLE_S = 10.0  # a channel without waiters for this long is unsubscribed


class Notifier:
    """Waiters per channel, one subscriber connection (per shard on a cluster)."""

    def __init__(self, client: Redis | RedisCluster) -> None:
        self._client = client
        self._cluster = isinstance(client, RedisCluster)
        self._pubsub: Any = None
        self._task: asyncio.Task[None] | None = None
        self._waiters: dict[str, set[asyncio.Event]] = {}
        self._used: dict[str, float] = {}  # subscribed channel -> when last waited on
        self._subscribed: set[str] = set()
        self._closed = False
        self._lock = asyncio.Lock()

    async def _subscribe(self, channel: str) -> None:
        self._used[channel] = time.monotonic()
        if channel in self._subscribed or self._closed:
            return
        async with self._lock:
            if self._pubsub is None:
                if isinstance(self._client, RedisCluster):
                    await self._client.initialize()  # the slot map routes each channel
                self._pubsub = self._client.pubsub()
            await self._pubsub.ssubscribe(channel)
            self._subscribed.add(channel)
            if self._task is None or self._task.done():
                self._task = asyncio.create_task(self._listen())

    async def wait(
        self, channel: str, current: Callable[[], Awaitable[int]], after_seq: int, block_ms: int
    ) -> int:
        """`current()` once it passes `after_seq` (or is -1: gone), else after `block_ms`."""
        try:
            await self._subscribe(channel)
        except Exception:  # no live channel: the caller's periodic re-check still works
            log.warning("could not subscribe to %s", channel, exc_info=True)
        woken = asyncio.Event()
        self._waiters.setdefault(channel, set()).add(woken)
        try:
            seq = await current()
            if seq > after_seq or seq < 0 or block_ms <= 0:
                return seq
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(woken.wait(), block_ms / 1000)
            return await current()
        finally:
            waiters = self._waiters.get(channel)
            if waiters is not None:
                waiters.discard(woken)
                if not waiters:
                    del self._waiters[channel]
            self._used[channel] = time.monotonic()

    def _wake(self, channel: str) -> None:
        for woken in self._waiters.get(channel, ()):
            woken.set()

    async def _next(self) -> Any:
        if self._cluster:
            # redis-py reads the shards' connections in turn, each up to `timeout`: keep it
            # short, or a message on one shard waits for the reads of the others.
            return await self._pubsub.get_sharded_message(
                ignore_subscribe_messages=True, timeout=0.05
            )
        return await self._pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)

    async def _listen(self) -> None:
        swept = time.monotonic()
        while self._subscribed:
            try:
                message = await self._next()
            except asyncio.CancelledError:
                raise
            except Exception:  # a reconnect: redis-py subscribes again; waiters re-check
                log.warning("live notifications interrupted", exc_info=True)
                await asyncio.sleep(0.5)
                continue
            if message and message.get("type") in ("smessage", b"smessage"):
                channel = message["channel"]
                self._wake(channel.decode() if isinstance(channel, bytes) else str(channel))
            now = time.monotonic()
            if now - swept >= IDLE_S / 2:
                swept = now
                await self._sweep(now)
            if message is None and not self._cluster:
                await asyncio.sleep(0)  # get_message may return at once when idle

    async def _sweep(self, now: float) -> None:
        idle = [
            c
            for c in self._subscribed
            if c not in self._waiters and now - self._used.get(c, 0.0) >= IDLE_S
        ]
        if not idle:
            return
        async with self._lock:
            try:
                await self._pubsub.sunsubscribe(*idle)
            except Exception:
                log.warning("could not unsubscribe idle channels", exc_info=True)
                return
            for channel in idle:
                self._subscribed.discard(channel)
                self._used.pop(channel, None)

    async def close(self) -> None:
        """Stop listening and close the subscriber connection(s); waits re-check only."""
        self._closed = True
        await cancel_and_wait([self._task], timeout=2)
        if self._pubsub is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._pubsub.aclose(), 2)
        self._pubsub = None
        self._subscribed.clear()
