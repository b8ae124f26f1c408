"""Many accounts on one channel: a client whose every call carries its own API key.

`ConnectOptions.key` puts one key on a whole channel. A program that plays for many accounts
(a load generator, a bot host) shares a few channels instead and sends each account's key with
its calls: `keyed_client(channel, key)` is an `AsyncClient` on `channel` whose calls (and
whose `Leagues`, `Tournaments` ... on it) carry `authorization: Bearer <key>`. Closing it leaves
the shared channel open; its owner closes that.

Example (inside an `async def`)::

    channel = ConnectOptions("localhost:50051").aio_channel()
    ana = keyed_client(channel, ana_key)
    bob = keyed_client(channel, bob_key)        # one HTTP/2 connection for both
"""

from __future__ import annotations

from typing import Any

import grpc  # type: ignore[import-untyped, unused-ignore]

from kafana_client.aio import AsyncClient
from kafana_client.connection import AUTHORIZATION, ConnectOptions, check_key


class _KeyedCall:
    """A multicallable that adds the key to the metadata of each call."""

    def __init__(self, call: Any, entry: tuple[str, str]) -> None:
        self._call = call
        self._entry = entry

    def __call__(self, request: Any, *, metadata: Any = None, **options: Any) -> Any:
        return self._call(request, metadata=(*(metadata or ()), self._entry), **options)


class KeyedChannel:
    """A view of a shared grpc.aio channel that sends `key` with every call; `close` is a no-op
    (the shared channel belongs to whoever made it)."""

    def __init__(self, channel: grpc.aio.Channel, key: str) -> None:
        self.channel = channel
        self._entry = (AUTHORIZATION, f"Bearer {check_key(key)}")

    def unary_unary(self, method: str, *args: Any, **options: Any) -> _KeyedCall:
        """The channel's multicallable for `method`, keyed."""
        return _KeyedCall(self.channel.unary_unary(method, *args, **options), self._entry)

    def unary_stream(self, method: str, *args: Any, **options: Any) -> _KeyedCall:
        """The channel's streaming multicallable for `method`, keyed."""
        return _KeyedCall(self.channel.unary_stream(method, *args, **options), self._entry)

    async def channel_ready(self) -> None:
        """Wait until the shared channel is connected."""
        await self.channel.channel_ready()

    async def close(self, grace: float | None = None) -> None:
        """Nothing: the shared channel stays open."""


def keyed_client(
    channel: grpc.aio.Channel, key: str, options: ConnectOptions | None = None
) -> AsyncClient:
    """An `AsyncClient` on the shared `channel` whose calls carry `key` (`options`: deadlines
    and retries; its target is only for show)."""
    options = options if options is not None else ConnectOptions("shared")
    return AsyncClient(options, channel=KeyedChannel(channel, key))  # type: ignore[arg-type]
