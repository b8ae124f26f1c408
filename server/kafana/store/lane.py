"""One pipelined connection to one Redis server: commands written back to back, no pool.

Redis answers the commands of one connection in order, so a lane keeps a queue of futures: a
call writes its command, pre-packed in RESP (`kafana.store.resp`), and waits for its future; the
protocol's `data_received` parses each reply and resolves the oldest future. Many calls share
the one connection (Redis runs one command at a time anyway), and replies that arrive together
are parsed in one wake-up. Measured against redis-py (with and without hiredis), coredis and
valkey-glide on the store's append (`loadtests/bench_store_clients.py`), this costs a third to
a sixth of their client CPU per call.

A lost connection fails every waiting call with `StoreUnavailable` and the next call
reconnects. So does a server that stops answering: when commands have waited `Address.timeout`
seconds (2 by default; `?timeout=` in the URL, 0 for none) with no reply arriving, a watchdog
treats the connection as lost. It costs a clock read per call, not a timer per call, and no
timer at all while no command waits (an idle process is not woken for it).

A lane made with `on_push` is a subscriber: every reply (subscription confirmations,
`smessage` pushes) goes to that callback, and `send` writes without waiting for any.
"""

from __future__ import annotations

import asyncio
import ssl
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace

from kafana.store.errors import StoreUnavailable
from kafana.store.resp import Reply, pack, parse
from kafana.tasks import wait_set

CLOSE_WAIT_S = 2.0
"""How long `Lane.close` lets unsent commands drain before it aborts the connection."""
TIMEOUT_S = 2.0
"""How long commands may wait for a reply before the connection is given up (and how long a
connection attempt may take)."""


@dataclass(frozen=True)
class Address:
    """Where a Redis server listens and how to log in."""

    host: str = "127.0.0.1"
    port: int = 6379
    db: int = 0
    username: str = ""
    password: str = ""
    tls: bool = False
    ca_file: str = ""  # TLS: the CA to trust ("": the system's)
    path: str = ""  # a Unix socket instead of host:port
    timeout: float = TIMEOUT_S  # seconds without a reply before waiting calls fail (0: never)

    def node(self, host: str, port: int) -> Address:
        """Another server of the same cluster, logged in to the same way."""
        return replace(self, host=host or self.host, port=port, db=0, path="")

    def hello(self) -> list[bytes]:
        """The commands a new connection starts with (AUTH, SELECT)."""
        out = []
        if self.username:
            out.append(pack("AUTH", self.username, self.password))
        elif self.password:
            out.append(pack("AUTH", self.password))
        if self.db:
            out.append(pack("SELECT", self.db))
        return out


class _Protocol(asyncio.Protocol):
    """The connection: writes commands, matches replies to waiting futures in order."""

    def __init__(
        self, on_push: Callable[[Reply], None] | None = None, timeout: float = TIMEOUT_S
    ) -> None:
        self.transport: asyncio.Transport | None = None
        self.timeout = timeout
        self.since: float | None = None  # commands wait: since when no reply came
        self._watchdog: asyncio.TimerHandle | None = None
        self.pending: deque[asyncio.Future[Reply]] = deque()
        self.buffer = bytearray()
        self.lost: Exception | None = None
        self.writable = asyncio.Event()
        self.writable.set()
        self.closed = asyncio.Event()
        self.on_push = on_push

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def _watch(self) -> None:
        """Every quarter of the timeout while commands wait: give up a connection whose calls
        wait in vain (none wait: the timer stops; the next command that waits starts it)."""
        self._watchdog = None
        if self.lost is not None or self.transport is None or not self.pending:
            return
        loop = asyncio.get_running_loop()
        since = self.since
        if since is not None and loop.time() - since >= self.timeout:
            self.fail(StoreUnavailable(f"Redis did not answer within {self.timeout:g} s"))
            self.transport.abort()
            return
        self._watchdog = loop.call_later(self.timeout / 4, self._watch)

    def waiting(self) -> None:
        """A command is about to wait for its reply (call before queueing its future)."""
        if not self.pending:
            loop = asyncio.get_running_loop()
            self.since = loop.time()
            if self._watchdog is None and self.timeout > 0 and self.lost is None:
                self._watchdog = loop.call_later(self.timeout / 4, self._watch)

    def data_received(self, data: bytes) -> None:
        buffer = self.buffer
        buffer += data
        pos = 0
        try:
            while pos < len(buffer):
                found = parse(buffer, pos)
                if found is None:
                    break
                reply, pos = found
                if self.on_push is not None and not self.pending:
                    self.on_push(reply)
                    continue
                future = self.pending.popleft()
                if not future.done():
                    future.set_result(reply)
            if self.pending:
                self.since = asyncio.get_running_loop().time()  # replies came: not stuck
        except (StoreUnavailable, ValueError, IndexError) as error:
            self.fail(StoreUnavailable(f"the Redis connection is out of step: {error}"))
            if self.transport is not None:
                self.transport.abort()
            return
        del buffer[:pos]

    def pause_writing(self) -> None:
        self.writable.clear()

    def resume_writing(self) -> None:
        self.writable.set()

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed.set()
        if self._watchdog is not None:
            self._watchdog.cancel()
            self._watchdog = None
        self.fail(StoreUnavailable(f"the Redis connection was lost: {exc or 'closed'}"))

    def fail(self, error: Exception) -> None:
        """Fail every waiting call; the lane reconnects on the next one."""
        self.lost = error
        self.writable.set()
        while self.pending:
            future = self.pending.popleft()
            if not future.done():
                future.set_exception(error)


class Lane:
    """A pipelined connection to one Redis server (see the module's docstring).

    `on_connect`: commands to send on every new connection after the login (a subscriber's
    subscriptions), their replies going to `on_push`.
    """

    def __init__(
        self,
        address: Address,
        *,
        on_push: Callable[[Reply], None] | None = None,
        on_connect: Callable[[], list[bytes]] | None = None,
    ) -> None:
        self.address = address
        self._on_push = on_push
        self._on_connect = on_connect
        self._protocol: _Protocol | None = None
        self._connecting: asyncio.Lock | None = None

    @property
    def connected(self) -> bool:
        """Whether the lane holds a live connection now."""
        return self._protocol is not None and self._protocol.lost is None

    async def _open(self) -> _Protocol:
        loop = asyncio.get_running_loop()
        where = self.address
        context = ssl.create_default_context(cafile=where.ca_file or None) if where.tls else None

        def made() -> _Protocol:
            return _Protocol(timeout=where.timeout)

        if where.path:
            opening = loop.create_unix_connection(made, where.path)
        else:
            opening = loop.create_connection(made, where.host, where.port, ssl=context)
        try:
            _transport, protocol = await asyncio.wait_for(opening, where.timeout or None)
        except (OSError, TimeoutError) as error:
            shown = where.path or f"{where.host}:{where.port}"
            raise StoreUnavailable(f"cannot reach Redis at {shown}: {error}") from None
        return protocol

    async def _connect(self) -> _Protocol:
        if self._connecting is None:
            self._connecting = asyncio.Lock()
        async with self._connecting:
            protocol = self._protocol
            if protocol is not None and protocol.lost is None:
                return protocol
            protocol = await self._open()
            try:
                for reply in await self._send(protocol, self.address.hello()):
                    if isinstance(reply, Exception):
                        raise reply
            except BaseException:
                if protocol.transport is not None:
                    protocol.transport.close()
                raise
            protocol.on_push = self._on_push
            if self._on_connect is not None:
                assert protocol.transport is not None
                protocol.transport.write(b"".join(self._on_connect()))
            self._protocol = protocol
            return protocol

    async def _send(self, protocol: _Protocol, commands: list[bytes]) -> list[Reply]:
        if not commands:
            return []
        if not protocol.writable.is_set():
            await protocol.writable.wait()
        if protocol.lost is not None:
            raise protocol.lost
        return await _replies(self._write(protocol, commands))

    @staticmethod
    def _write(protocol: _Protocol, commands: list[bytes]) -> list[asyncio.Future[Reply]]:
        """Write `commands` (at least one) on a writable connection: their futures, queued."""
        assert protocol.transport is not None
        create = asyncio.get_running_loop().create_future
        futures = [create() for _ in commands]
        protocol.waiting()
        protocol.pending.extend(futures)
        protocol.transport.write(commands[0] if len(commands) == 1 else b"".join(commands))
        return futures

    async def call(self, command: bytes) -> Reply:
        """Send one packed command (`pack`) and return its reply (an error reply is returned)."""
        protocol = self._protocol
        if protocol is None or protocol.lost is not None:
            protocol = await self._connect()
        if not protocol.writable.is_set():
            await protocol.writable.wait()
        if protocol.lost is not None:
            raise protocol.lost
        assert protocol.transport is not None
        future: asyncio.Future[Reply] = asyncio.get_running_loop().create_future()
        protocol.waiting()
        protocol.pending.append(future)
        protocol.transport.write(command)
        return await future

    async def calls(self, commands: list[bytes]) -> list[Reply]:
        """Send packed commands in one write; their replies, in order."""
        protocol = self._protocol
        if protocol is None or protocol.lost is not None:
            protocol = await self._connect()
        if not commands or not protocol.writable.is_set():
            return await self._send(protocol, commands)
        return await _replies(self._write(protocol, commands))  # (the move path: writable)

    async def send(self, commands: list[bytes]) -> None:
        """Write commands without waiting for replies (a subscriber's: they go to `on_push`)."""
        protocol = self._protocol
        if protocol is None or protocol.lost is not None:
            await self._connect()  # `on_connect` has sent every subscription again
            return
        assert protocol.transport is not None
        protocol.transport.write(b"".join(commands))

    def post(self, commands: list[bytes]) -> None:
        """Write commands now if connected, else drop them (a subscriber's unsubscriptions:
        a new connection subscribes only to what `on_connect` names)."""
        protocol = self._protocol
        if protocol is not None and protocol.lost is None and protocol.transport is not None:
            protocol.transport.write(b"".join(commands))

    async def close(self) -> None:
        """Close the connection and wait until its socket is closed (waiting calls fail).

        Unsent commands are flushed first, for at most `CLOSE_WAIT_S`; a server that stopped
        reading gets the connection aborted then.
        """
        protocol, self._protocol = self._protocol, None
        if protocol is None or protocol.transport is None:
            return
        protocol.transport.close()
        if not await wait_set(protocol.closed, CLOSE_WAIT_S):
            protocol.transport.abort()
            await protocol.closed.wait()


async def _replies(futures: list[asyncio.Future[Reply]]) -> list[Reply]:
    """The replies of one batch, in order. When one fails (the connection lost: every one of
    them fails) or the wait is cancelled, the others' outcomes are still read, so a lost
    connection raises once rather than logging "Future exception was never retrieved" for
    each command of the batch."""
    replies = []
    try:
        for future in futures:  # a loop: an awaiting comprehension is a coroutine of its own
            replies.append(await future)
    except BaseException:
        for future in futures:
            future.add_done_callback(_retrieved)
        raise
    return replies


def _retrieved(future: asyncio.Future[Reply]) -> None:
    if not future.cancelled():
        future.exception()
