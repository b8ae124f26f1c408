"""Helpers of the client tests: a real Kafana gRPC server on loopback, and a stalled one."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

from kafana.service.server import KafanaServer, create_server
from kafana.service.settings import HEARTBEAT_S, Settings
from kafana.store.base import TableStore
from kafana.store.redis_store import RedisStore

T = TypeVar("T")


class LiveServer:
    """A server on a free port over the Redis at `redis_url`, run by an event loop in a
    background thread.

    The blocking client can call it from the test's thread, and tests can stop and restart
    it on the same port (the store survives, as a Redis would) to drop streams and calls.
    """

    def __init__(self, redis_url: str, *, heartbeat_s: float | None = None) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.store = self.run(self._make_store(redis_url))
        self.port = 0
        self.kafana: KafanaServer | None = None
        self.heartbeat_s = heartbeat_s
        """The idle streams' heartbeat period in seconds (None: the server's default)."""
        self.start()

    @staticmethod
    async def _make_store(redis_url: str) -> TableStore:
        return RedisStore.from_url(redis_url)

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run `coroutine` on the server's loop and wait for it."""
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout=30)

    @property
    def target(self) -> str:
        """host:port to connect to."""
        return f"127.0.0.1:{self.port}"

    def start(self) -> None:
        """Serve (again) on the same port."""

        async def start() -> KafanaServer:
            beat = HEARTBEAT_S if self.heartbeat_s is None else self.heartbeat_s
            kafana = create_server(self.store, Settings(port=self.port, heartbeat_s=beat))
            await kafana.start()
            return kafana

        self.kafana = self.run(start())
        self.port = self.kafana.port

    def stop(self, grace: float | None = None) -> None:
        """Stop serving: running calls are cut off (UNAVAILABLE for clients)."""
        if self.kafana is not None:
            self.run(self.kafana.stop(grace))
            self.kafana = None

    def restart(self) -> None:
        """Stop and start again on the same port: every open stream drops."""
        self.stop()
        self.start()

    def close(self) -> None:
        """Stop the server, the store's connections and the loop."""
        self.stop()
        self.run(self.store.close())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)


class BlackHole:
    """A TCP listener that accepts connections and never answers: a stalled server."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = int(self.sock.getsockname()[1])
        self.held: list[socket.socket] = []
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        self.sock.settimeout(0.1)
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.held.append(conn)

    @property
    def target(self) -> str:
        """host:port of the stalled listener."""
        return f"127.0.0.1:{self.port}"

    def close(self) -> None:
        """Stop listening and drop every held connection."""
        self._stop.set()
        self.thread.join(timeout=5)
        for conn in self.held:
            conn.close()
        self.sock.close()
