"""One pipelined Redis connection for the move path: commands written back to back, no pool.

redis-py spends ~400 Python calls on one `EVALSHA` (taking a connection from the blocking pool
under a timeout, encoding each argument, packing, a parser reading the reply line by line,
releasing the connection). Redis answers the commands of one connection in order, so a lane
keeps a queue of futures instead: a call writes its command, pre-packed in RESP, and waits for
its future; the protocol's `data_received` parses each reply and resolves the oldest future.
Many moves share the one connection (Redis runs one command at a time anyway), and replies
that arrive together are parsed in one wake-up.

Errors are redis-py's own classes (`redis.exceptions`), so callers handle them as before: a
lost connection fails every waiting call with `ConnectionError` and the next call reconnects; a
`-NOSCRIPT` reply is `NoScriptError`. A lane speaks RESP2 over plain TCP only; `Lane.for_client`
returns None for anything else (TLS, a Unix socket, a credential provider, a cluster) and the
store keeps to redis-py there.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Any

from redis._parsers.base import BaseParser
from redis.asyncio import Redis
from redis.asyncio.connection import Connection
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError

Reply = bytes | int | list[Any] | ResponseError | None
CLOSE_WAIT_S = 2.0
"""How long `Lane.close` lets unsent commands drain before it aborts the connection."""


def pack(*args: bytes | str | int) -> bytes:
    """One command in RESP: an array of bulk strings.

    >>> pack("GET", "k")
    b'*2\\r\\n$3\\r\\nGET\\r\\n$1\\r\\nk\\r\\n'
    """
    return pack_bytes([arg if isinstance(arg, bytes) else str(arg).encode() for arg in args])


def pack_bytes(args: list[bytes]) -> bytes:
    """`pack` of arguments that are bytes already (the move path builds them so)."""
    return b"*%d\r\n" % len(args) + b"".join([b"$%d\r\n%b\r\n" % (len(arg), arg) for arg in args])


def parse(buffer: bytes | bytearray, pos: int) -> tuple[Reply, int] | None:
    """The RESP2 reply at `pos` and the position after it; None when it is not all there.

    >>> parse(b"*2\\r\\n$2\\r\\nok\\r\\n:7\\r\\n", 0)
    ([b'ok', 7], 16)
    """
    end = buffer.find(b"\r\n", pos)
    if end < 0:
        return None
    kind = buffer[pos]
    line = bytes(buffer[pos + 1 : end])
    pos = end + 2
    if kind == 0x24:  # $ bulk string
        size = int(line)
        if size < 0:
            return None, pos
        if len(buffer) < pos + size + 2:
            return None
        return bytes(buffer[pos : pos + size]), pos + size + 2
    if kind == 0x3A:  # : integer
        return int(line), pos
    if kind == 0x2A:  # * array
        size = int(line)
        if size < 0:
            return None, pos
        items: list[Any] = []
        for _ in range(size):
            item = parse(buffer, pos)
            if item is None:
                return None
            items.append(item[0])
            pos = item[1]
        return items, pos
    if kind == 0x2B:  # + simple string
        return line, pos
    if kind == 0x2D:  # - error
        return _error(line.decode(errors="replace")), pos
    raise RedisConnectionError(f"unexpected reply from Redis: {bytes(buffer[pos - 2 : pos])!r}")


def _error(message: str) -> ResponseError:
    """redis-py's exception for an error reply (`NOSCRIPT ...` is NoScriptError, and so on)."""
    error: ResponseError = BaseParser.parse_error(message)  # type: ignore[no-untyped-call]
    return error


class _Protocol(asyncio.Protocol):
    """The connection: writes commands, matches replies to waiting futures in order."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.pending: deque[asyncio.Future[Reply]] = deque()
        self.buffer = bytearray()
        self.lost: Exception | None = None
        self.writable = asyncio.Event()
        self.writable.set()
        self.closed = asyncio.Event()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

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
                future = self.pending.popleft()
                if not future.done():
                    future.set_result(reply)
        except (RedisConnectionError, ValueError, IndexError) as error:
            self.fail(RedisConnectionError(f"the Redis connection is out of step: {error}"))
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
        self.fail(RedisConnectionError(f"the Redis connection was lost: {exc or 'closed'}"))

    def fail(self, error: Exception) -> None:
        """Fail every waiting call; the lane reconnects on the next one."""
        self.lost = error
        self.writable.set()
        while self.pending:
            future = self.pending.popleft()
            if not future.done():
                future.set_exception(error)


class Lane:
    """A pipelined connection to one Redis server (see the module's docstring)."""

    def __init__(
        self, host: str, port: int, *, db: int = 0, username: str = "", password: str = ""
    ) -> None:
        self.host, self.port, self.db = host, port, db
        self._auth: tuple[str, ...] = (
            ("AUTH", username, password) if username else ("AUTH", password) if password else ()
        )
        self._protocol: _Protocol | None = None
        self._connecting: asyncio.Lock | None = None

    @staticmethod
    def for_client(client: Any) -> Lane | None:
        """A lane to the server of a standalone redis-py client over TCP, else None."""
        if not isinstance(client, Redis):
            return None
        pool = client.connection_pool
        kwargs = pool.connection_kwargs
        if pool.connection_class is not Connection or kwargs.get("credential_provider"):
            return None
        return Lane(
            kwargs.get("host", "localhost"),
            int(kwargs.get("port", 6379)),
            db=int(kwargs.get("db", 0) or 0),
            username=kwargs.get("username") or "",
            password=kwargs.get("password") or "",
        )

    async def _connect(self) -> _Protocol:
        if self._connecting is None:
            self._connecting = asyncio.Lock()
        async with self._connecting:
            protocol = self._protocol
            if protocol is not None and protocol.lost is None:
                return protocol
            loop = asyncio.get_running_loop()
            try:
                _transport, protocol = await loop.create_connection(_Protocol, self.host, self.port)
            except OSError as error:
                raise RedisConnectionError(
                    f"cannot reach Redis for the move lane: {error}"
                ) from None
            hello = [pack(*self._auth)] if self._auth else []
            if self.db:
                hello.append(pack("SELECT", self.db))
            replies = await self._send(protocol, hello)
            for reply in replies:
                if isinstance(reply, Exception):
                    if protocol.transport is not None:
                        protocol.transport.close()
                    raise reply
            self._protocol = protocol
            return protocol

    async def _send(self, protocol: _Protocol, commands: list[bytes]) -> list[Reply]:
        if not commands:
            return []
        if protocol.lost is not None:
            raise protocol.lost
        if not protocol.writable.is_set():
            await protocol.writable.wait()
        assert protocol.transport is not None
        loop = asyncio.get_running_loop()
        futures = [loop.create_future() for _ in commands]
        protocol.pending.extend(futures)
        protocol.transport.write(commands[0] if len(commands) == 1 else b"".join(commands))
        if len(futures) == 1:
            return [await futures[0]]
        return [await future for future in futures]

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
        protocol.pending.append(future)
        protocol.transport.write(command)
        return await future

    async def calls(self, commands: list[bytes]) -> list[Reply]:
        """Send packed commands in one write; their replies, in order."""
        protocol = self._protocol
        if protocol is None or protocol.lost is not None:
            protocol = await self._connect()
        return await self._send(protocol, commands)

    async def close(self) -> None:
        """Close the connection and wait until its socket is closed (waiting calls fail).

        Unsent commands are flushed first, for at most `CLOSE_WAIT_S`; a server that stopped
        reading gets the connection aborted then.
        """
        protocol, self._protocol = self._protocol, None
        if protocol is None or protocol.transport is None:
            return
        protocol.transport.close()
        try:
            await asyncio.wait_for(protocol.closed.wait(), CLOSE_WAIT_S)
        except TimeoutError:
            protocol.transport.abort()
            await protocol.closed.wait()
