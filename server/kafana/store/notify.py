"""Live notifications: one subscriber lane per Redis server wakes a process's waiters.

`append.lua` publishes the new seq on the table's channel (`SPUBLISH {t:<id>}:live`, the
table's hash tag, so on a cluster it stays on the table's shard). A process subscribes to the
channels of the tables it waits on, lazily, on a subscriber lane to the channel's server, and
drops a channel a while after its last waiter left. A message can be lost (a reconnect, a
subscription still in flight): waiters re-check the store at least every `block_ms`, so a lost
message costs latency, never an event. A lost subscriber lane subscribes again to all its
channels on the next wait.

Other wake-ups ride the same lanes: `publish` sends `SPUBLISH` on any channels (a league
player's tickets, `kafana.competitions.league.tickets`), `listening` sets an event on each
message of a channel while a block runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Iterator

from kafana.logs import Repeated
from kafana.store.client import RedisClient
from kafana.store.errors import StoreUnavailable
from kafana.store.lane import Address, Lane
from kafana.store.resp import Reply, pack
from kafana.tasks import wait_set

log = logging.getLogger(__name__)
IDLE_S = 10.0  # a channel without waiters for this long is unsubscribed


class Notifier:
    """Waiters per channel, one subscriber lane per server."""

    def __init__(self, client: RedisClient) -> None:
        self._client = client
        self._lanes: dict[Address, Lane] = {}
        self._channels: dict[Address, set[str]] = {}  # subscribed channels per server
        self._server: dict[str, Address] = {}  # channel -> its server
        self._waiters: dict[str, set[asyncio.Event]] = {}
        self._used: dict[str, float] = {}  # subscribed channel -> when last waited on
        self._swept = time.monotonic()
        self._closed = False
        self._errors = Repeated(log, "subscribing to table channels", quiet=(StoreUnavailable,))

    def _push(self, reply: Reply) -> None:
        """A reply on a subscriber lane: wake the waiters of an `smessage`'s channel."""
        if isinstance(reply, list) and len(reply) == 3 and reply[0] == b"smessage":
            channel = reply[1]
            for woken in self._waiters.get(channel.decode(), ()):
                woken.set()

    def _lane(self, server: Address) -> Lane:
        lane = self._lanes.get(server)
        if lane is None:
            channels = self._channels.setdefault(server, set())
            lane = self._lanes[server] = Lane(
                server,
                on_push=self._push,
                on_connect=lambda: [pack("SSUBSCRIBE", c) for c in sorted(channels)],
            )
        return lane

    async def subscribe(self, channel: str) -> None:
        """Be subscribed to `channel` (again, after a lost subscriber lane): nothing to do when
        it is; a failure is logged, not raised (the caller's periodic re-check still works)."""
        try:
            await self._subscribe(channel)
            self._errors.succeeded()
        except Exception as error:
            self._errors.failed(error)
            self._server.pop(channel, None)  # a cluster may have moved it

    @contextlib.contextmanager
    def listening(self, channel: str, woken: asyncio.Event) -> Iterator[None]:
        """Set `woken` on each message of `channel` while the block runs (`subscribe` first;
        the channel is dropped a while after its last listener left)."""
        self._waiters.setdefault(channel, set()).add(woken)
        try:
            yield
        finally:
            waiters = self._waiters.get(channel)
            if waiters is not None:
                waiters.discard(woken)
                if not waiters:
                    del self._waiters[channel]
            now = self._used[channel] = time.monotonic()
            if now - self._swept >= IDLE_S / 2:
                self._swept = now
                self._sweep(now)

    async def publish(self, channels: list[str]) -> None:
        """`SPUBLISH` a wake-up on each channel, one round trip (each sent to its node)."""
        replies = await self._client.calls([(c, pack("SPUBLISH", c, "1")) for c in channels])
        for reply in replies:
            if isinstance(reply, Exception):
                raise reply

    async def _subscribe(self, channel: str) -> None:
        self._used[channel] = time.monotonic()
        if self._closed:
            return
        server = self._server.get(channel)
        if server is None:
            server = self._server[channel] = await self._client.node_of(channel)
        lane = self._lane(server)
        channels = self._channels[server]
        if channel in channels and lane.connected:
            return
        channels.add(channel)
        await lane.send([pack("SSUBSCRIBE", channel)])  # on a new connection: every channel

    async def wait(
        self, channel: str, current: Callable[[], Awaitable[int]], after_seq: int, block_ms: int
    ) -> int:
        """`current()` once it passes `after_seq` (or is -1: gone), else after `block_ms`."""
        await self.subscribe(channel)
        woken = asyncio.Event()
        with self.listening(channel, woken):
            seq = await current()
            if seq > after_seq or seq < 0 or block_ms <= 0:
                return seq
            await wait_set(woken, block_ms / 1000)
            return await current()

    def _idle(self, channel: str, now: float) -> bool:
        return now - self._used.get(channel, 0.0) >= IDLE_S

    def _sweep(self, now: float) -> None:
        """Unsubscribe the channels nobody waited on for `IDLE_S`."""
        for server, channels in self._channels.items():
            idle = [c for c in channels if c not in self._waiters and self._idle(c, now)]
            if not idle:
                continue
            self._lanes[server].post([pack("SUNSUBSCRIBE", c) for c in idle])
            for channel in idle:
                channels.discard(channel)
                self._used.pop(channel, None)
                self._server.pop(channel, None)

    async def close(self) -> None:
        """Close the subscriber lanes; waits re-check only from now on."""
        self._closed = True
        lanes, self._lanes = list(self._lanes.values()), {}
        await asyncio.gather(*(lane.close() for lane in lanes))
        self._channels.clear()
